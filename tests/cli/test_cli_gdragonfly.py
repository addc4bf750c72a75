"""Collectives and HPCG on the gdragonfly presets (piz-daint, lumi, frontier) through the CLI."""

import json
import math

import pytest
from click.testing import CliRunner

from icnperf.cli import cli


def run_json(*args):
    result = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize("machine, topology", [
    ("piz-daint", "gdragonfly:p=4,a=16,b=6,lb=3,g=14,m=73"),
    ("lumi", "gdragonfly:p=16,a=16,g=8,m=16"),
    ("frontier", "gdragonfly:p=4,a=32,g=74,m=4"),
])
def test_allreduce_on_16_nodes_of_each_dragonfly_preset(machine, topology):
    rows = run_json("predict", "collective", "allreduce", "--machine", machine, "--nodes",
                    "16", "--bytes", "8")["rows"]
    assert {r["shape"] for r in rows} == {topology} and {r["nodes"] for r in rows} == {16}
    assert "recursive-doubling" in {r["algorithm"] for r in rows}
    assert all(r["time_s"] > 0 for r in rows)


def test_spread_over_groups_costs_the_global_hops_by_hand():
    """Recursive-doubling all-reduce of 8 B on 16 Piz Daint nodes. Linear: nodes 0..15 on
    routers 0..3 of one chassis row (4 nodes each): steps xor 1, 2 stay on a router (0 hops),
    xor 4, 8 take one rank-1 hop, the 4 nodes of a router sharing that channel (load 4).
    Spread: node i in group i mod 14 on router 0, so every step crosses groups, the longest
    of its 73 shares 1 + 2 + 2 = 5 hops, no channel carrying a whole message (load 1).
    Difference: (20 - 2) hops x 100 ns, less the 3 extra serializations of a 2-flit packet
    (32 B at 42 Gbit/s) in each of the two loaded linear steps."""
    def time(placement):
        return run_json("predict", "collective", "allreduce", "--machine", "piz-daint",
                        "--nodes", "16", "--bytes", "8", "--placement", placement,
                        "--algorithm", "recursive-doubling", "--api", "none")["rows"][0]["time_s"]
    expected = 18 * 100e-9 - 2 * 3 * 32 / (42e9 / 8)
    assert time("spread") - time("linear") == pytest.approx(expected, rel=1e-9)


def test_hpcg_optimized_on_lumi_charges_the_collective_allreduce():
    """HPCG's dot products (3 per CG iteration, 50 iterations) each cost the machine's
    recursive-doubling all-reduce of 8 B over all 2,048 nodes, as predict collective gives
    it, plus 2 ceil(log2 128) intra-node steps at LUMI's node.shared_memory_latency."""
    doc = run_json("predict", "app", "hpcg", "--variant", "optimized", "--machine", "lumi")
    assert doc["inputs"]["skeleton"] == "hpcg-vendor"
    assert doc["totals"][0]["layout"] == "gdragonfly:p=16,a=16,g=8,m=16"
    dots = {r["phase"]: r["time_s"] for r in doc["rows"]}["dot products"]
    allreduce = run_json("predict", "collective", "allreduce", "--machine", "lumi", "--bytes",
                         "8", "--algorithm", "recursive-doubling")["rows"][0]
    assert allreduce["nodes"] == 2048
    per_call = allreduce["time_s"] + 2 * math.ceil(math.log2(128)) * 0.36e-6
    assert dots == pytest.approx(150 * per_call, rel=1e-12)
