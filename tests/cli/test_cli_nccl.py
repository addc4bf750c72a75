"""predict collective / explain collective with --api nccl|rccl through the CLI."""

from __future__ import annotations

import json

import pytest

from click.testing import CliRunner

from icnperf.cli import cli


def _run(*args):
    return CliRunner().invoke(cli, list(args))


def test_done_when_dgx_h100_sweep_fits_100_columns():
    result = _run("predict", "collective", "allreduce", "--machine", "dgx-h100", "--nodes",
                  "1..32:x2", "--bytes", "1MiB..8GiB:x8", "--api", "nccl", "--algorithm",
                  "all")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 100
    body = "\n".join(lines)
    for name in ("nccl-ring", "nccl-tree", "nvls", "nvls-tree", "auto", "best"):
        assert f" {name} " in body
    for protocol in ("LL ", "LL128", "Simple"):
        assert protocol in body
    # 6 node counts (1..32) x 5 sizes (1, 8, 64, 512 MiB, 4 GiB): one auto row each
    assert sum(1 for line in lines if "  auto  " in line) == 30


def test_rccl_on_amd_machines():
    for machine in ("lumi-g", "frontier", "el-capitan"):
        result = _run("predict", "collective", "allreduce", "--machine", machine, "--nodes",
                      "1,4", "--bytes", "1MiB", "--api", "rccl", "--algorithm", "all")
        assert result.exit_code == 0, result.output
        assert "rccl-ring" in result.output and "nvls" not in result.output


def test_json_fields_and_busbw():
    result = _run("predict", "collective", "allgather", "--machine", "dgx-h100", "--nodes",
                  "2", "--bytes", "1GiB", "--api", "nccl", "--algorithm", "nccl-ring",
                  "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["rows"]
    assert {r["protocol"] for r in rows} == {"LL", "LL128", "Simple"}
    for row in rows:
        assert row["gpus"] == 16
        assert row["algbw_Bps"] == row["bytes"] / row["time_s"]
        assert abs(row["busbw_Bps"] - row["algbw_Bps"] * 15 / 16) < 1e-6 * row["busbw_Bps"]


def test_explain_shows_every_closed_form():
    result = _run("explain", "collective", "allreduce", "--machine", "dgx-h100", "--api",
                  "nccl", "--nodes", "4")
    assert result.exit_code == 0, result.output
    for name in ("nccl-ring:", "nccl-tree:", "nvls:", "nvls-tree:", "collnet:"):
        assert name in result.output
    assert "not here: no switch aggregation" in result.output
    assert "auto: NCCL picks nccl-tree/" in result.output  # 1 MiB on 4 nodes


def test_bad_input_exits_2_with_one_line():
    for args in (["--algorithm", "nvls", "--nodes", "2"], ["--algorithm", "bogus"],
                 ["--ppn", "9"]):
        result = _run("predict", "collective", "allreduce", "--machine", "dgx-h100",
                      "--api", "nccl", *args)
        assert result.exit_code == 2
        assert "Traceback" not in result.output
    result = _run("explain", "collective", "allreduce", "--machine", "dgx-h100")
    assert result.exit_code == 2 and "--algorithm is required" in result.output


def test_options_that_do_not_apply_are_refused_not_ignored():
    """The command line refuses what icnperf.predict_collective / explain_collective refuse
    under the GPU libraries (and --ppn under MPI), naming the option."""
    cases = [("predict", ["--samples", "5"], "--samples does not apply with --api nccl"),
             ("predict", ["--seed", "3"], "--seed does not apply with --api nccl"),
             ("explain", ["--algorithm", "ring"], "--algorithm does not apply with --api nccl"),
             ("explain", ["--shape", "2x2x2"], "--shape does not apply with --api nccl"),
             ("explain", ["--latex"], "--latex does not apply with --api nccl")]
    for command, args, words in cases:
        result = _run(command, "collective", "allreduce", "--machine", "dgx-h100", "--api",
                      "nccl", *args)
        assert result.exit_code == 2 and words in result.output, result.output
    result = _run("explain", "collective", "allreduce", "--machine", "lumi", "--algorithm",
                  "ring", "--ppn", "4")
    assert result.exit_code == 2 and "--ppn (GPUs per node) applies with --api nccl" in (
        result.output)


def test_explain_json_lists_each_algorithm():
    result = _run("explain", "collective", "allgather", "--machine", "dgx-h100", "--api",
                  "nccl", "--nodes", "2", "--ppn", "1", "--format", "json")
    assert result.exit_code == 0, result.output
    entries = {e["algorithm"]: e for e in json.loads(result.output)["algorithms"]}
    assert entries["pat"]["runs"] and set(entries["pat"]["time_s"]) == {"Simple"}
    assert not entries["nvls"]["runs"]
    assert set(entries["nccl-ring"]["time_s"]) == {"LL", "LL128", "Simple"}
    document = json.loads(result.output)
    fastest = min(t for e in entries.values() for t in e["time_s"].values())
    assert document["best"]["time_s"] == pytest.approx(fastest)


def test_node_counts_within_the_machine():
    ok = _run("predict", "collective", "allreduce", "--machine", "dgx-h100", "--nodes", "127",
              "--api", "nccl", "--algorithm", "auto")  # system.nodes 127
    assert ok.exit_code == 0, ok.output
    refused = _run("predict", "collective", "allreduce", "--machine", "dgx-h100", "--nodes",
                   "128", "--api", "nccl")
    assert refused.exit_code == 2 and "system.nodes" in refused.output
