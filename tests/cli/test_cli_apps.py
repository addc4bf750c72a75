"""``icnperf predict app`` and ``icnperf place`` through Click's CliRunner."""

import json

import pytest
from click.testing import CliRunner

from icnperf.cli import cli


def run_json(*args):
    result = CliRunner().invoke(cli, [*args, "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_spmv_rows_compute_and_efficiency():
    rows = run_json("predict", "app", "spmv", "--machine", "angara-4d", "--nodes", "16,64",
                    "--algorithm", "hw-tree")["rows"]
    # 2 d N / P FLOP at 591 MFLOP/s: 2 * 10 * 1,280,000 / 591e6 on 16 nodes
    assert rows[0]["compute_s"] == pytest.approx(2 * 10 * 1_280_000 / 591e6)
    assert rows[1]["compute_s"] == pytest.approx(rows[0]["compute_s"] / 4)
    assert rows[0]["efficiency"] == 1
    expected = rows[0]["total_s"] * 16 / (rows[1]["total_s"] * 64)
    assert rows[1]["efficiency"] == pytest.approx(expected)


def test_heat_hardware_gain_grows_with_nodes():
    rows = run_json("predict", "app", "heat", "--machine", "angara-4d", "--nodes",
                    "64,32768")["rows"]
    gains = [r["hw_gain"] for r in rows if r["algorithm"] == "hw-tree"]
    assert 1 <= gains[0] < gains[1]


def test_hpcg_optimized_beats_reference():
    def total(variant):
        doc = run_json("predict", "app", "hpcg", "--machine", "angara-36", "--variant", variant)
        return doc["rows"][0]["total_s"]

    assert total("optimized") < total("reference")


def test_place_ranks_every_placement_of_16_processes():
    placements = run_json("place", "--app", "npb-is", "--class", "C", "--procs", "16",
                          "--machine", "ib-qdr-cluster")["placements"]
    assert all(p["nodes"] * p["processes_per_node"] == 16 for p in placements)
    times = [p["total_s"] for p in placements]
    assert times == sorted(times) and len(placements) >= 3


@pytest.mark.parametrize("args", [
    ["predict", "app", "nosuch", "--machine", "angara-4d"],
    ["predict", "app", "heat", "--machine", "angara-4d", "--nodes", "-1"],
    ["predict", "app", "heat", "--machine", "angara-4d", "--nodes", "7"],
    ["predict", "app", "heat", "--machine", "angara-4d", "--rows", "5"],
    ["predict", "app", "hpcg", "--machine", "angara-36", "--local", "16x16"],
    ["place", "--app", "npb-is", "--class", "Z", "--procs", "16", "--machine", "ib-qdr-cluster"],
    ["place", "--app", "npb-is", "--procs", "16", "--machine", "angara-36"],
])
def test_bad_input_is_one_line_and_status_2(args):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1
