"""Fat trees and jobs on part of a machine through the CLI: exit codes and one-line errors."""

import json

from click.testing import CliRunner

from icnperf.cli import cli


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_topology_tree_routing_flag_picks_the_rule():
    """FT(18,3) under d-mod-k: worst permutation 2k - 1 = 35 (fattree.py's closed form);
    random spreading: 1."""
    def worst(*extra):
        result = run("topology", "fattree:k=18,n=3", *extra, "--format", "json")
        assert result.exit_code == 0, result.output
        return json.loads(result.output)["channel_load"]["worst-case"]
    assert worst() == 1 and worst("--tree-routing", "random") == 1
    assert worst("--tree-routing", "dmodk") == 35
    result = run("topology", "torus:4x4", "--tree-routing", "dmodk")
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


def test_bad_xgft_specs_exit_2_with_one_line():
    for spec in ("xgft:m=8x8,w=1", "xgft:m=8x0,w=1x8", "xgft:m=8x8,w=2x8",
                 "xgft:m=100000x100000x100000,w=1x1x1"):
        result = run("topology", spec)
        assert result.exit_code == 2, spec
        assert len(result.output.strip().splitlines()) == 1


def test_nodes_on_a_tree_and_a_dragonfly():
    result = run("predict", "collective", "allreduce", "--machine", "simgrid-fattree-64",
                 "--nodes", "8,32", "--placement", "spread", "--algorithm", "binomial",
                 "--api", "none", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["rows"]
    assert [r["nodes"] for r in rows] == [8, 32]
    result = run("predict", "collective", "broadcast", "--machine", "simgrid-fattree-64",
                 "--set", "topology=dragonfly:p=2,a=4,h=2", "--nodes", "64",
                 "--placement", "random", "--algorithm", "binomial", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rows"][0]["nodes"] == 64
    result = run("predict", "collective", "broadcast", "--machine", "simgrid-fattree-64",
                 "--nodes", "65")
    assert result.exit_code == 2
    assert result.output.strip().endswith("more than the 64 endpoints of xgft:m=8x8,w=1x8")


def test_spread_eight_nodes_cross_the_spines_linear_eight_do_not():
    """8 nodes on one leaf (linear) never leave it; spread over 8 leaves, every message of
    a recursive-doubling all-reduce crosses a spine (2 hops more per step)."""
    def time(placement):
        result = run("predict", "collective", "allreduce", "--machine", "simgrid-fattree-64",
                     "--nodes", "8", "--placement", placement, "--algorithm",
                     "recursive-doubling", "--bytes", "8", "--api", "none", "--format", "json")
        assert result.exit_code == 0, result.output
        return json.loads(result.output)["rows"][0]["time_s"]
    assert time("spread") - time("linear") == __import__("pytest").approx(3 * 2 * 80e-9)
