"""Rail-optimised trees, the general dragonfly+ and --compute gpu through the CLI: exit
codes, one-line errors, and the values the model tests derive by hand."""

import json

from click.testing import CliRunner

from icnperf.cli import cli


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_topology_prints_rail_and_dfplus():
    result = run("topology", "rail:rails=8,m=32x32,w=1x16,p=1x2", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["channel_load"]["nearest-neighbour"] == 1.0
    result = run("topology", "rail:rails=8,m=32x32,w=1x16,p=1x2", "--tree-routing", "dmodk")
    assert result.exit_code == 0, result.output
    result = run("topology", "dfplus:p=4,l=4,s=4,h=4", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["endpoints"] == 272      # megafly:k=4's
    for spec in ("rail:rails=3,m=8x8,w=1x8", "dfplus:p=4,l=8,s=8,h=4,g=40"):
        result = run("topology", spec)
        assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


def test_predict_collective_on_a_rail_machine_counts_nodes_not_nics():
    result = run("predict", "collective", "allgather", "--machine", "simgrid-fattree-64",
                 "--set", "topology=rail:rails=4,m=8x8,w=1x4", "--bytes", "1MiB",
                 "--algorithm", "pairwise", "--api", "none", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rows"][0]["nodes"] == 16


def test_predict_app_compute_gpu():
    result = run("predict", "app", "jacobi3d", "--machine", "frontier", "--compute", "gpu",
                 "--nodes", "4")
    assert result.exit_code == 0, result.output
    assert "compute on the GPUs, phase 'sweep'" in result.output
    for args in (("npb-is", "--machine", "frontier"), ("jacobi3d", "--machine", "angara-4d")):
        result = run("predict", "app", *args, "--compute", "gpu", "--nodes", "8")
        assert result.exit_code == 2, result.output
        assert len(result.output.strip().splitlines()) == 1
