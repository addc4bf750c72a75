"""``api="nccl"|"rccl"`` of predict_collective and explain_collective: to_dict() equals the
command line's --format json, the rows are nccl-tests' (busbw = algbw x 2(N-1)/N for an
all-reduce), and what does not apply under the GPU libraries is refused."""

import json

import pytest

import icnperf
from cli_outputs import cli_json


def same(result, *args):
    assert json.loads(json.dumps(result.to_dict())) == cli_json(*args)


def test_predict_collective_under_nccl_equals_the_command_line():
    result = icnperf.predict_collective("dgx-h100", "allreduce", api="nccl",
                                        bytes="8,1MiB", nodes="1,2")
    same(result, "predict", "collective", "allreduce", "--machine", "dgx-h100", "--api",
         "nccl", "--bytes", "8,1MiB", "--nodes", "1,2")
    for row in result.rows:
        ranks = row["gpus"]
        assert row["algbw_Bps"] == pytest.approx(row["bytes"] / row["time_s"])
        assert row["busbw_Bps"] == pytest.approx(row["algbw_Bps"] * 2 * (ranks - 1) / ranks)
    assert "busbw GB/s" in result.table()


def test_explain_collective_under_rccl_equals_the_command_line():
    result = icnperf.explain_collective("lumi-g", "allgather", api="rccl", nodes=4)
    same(result, "explain", "collective", "allgather", "--machine", "lumi-g", "--api",
         "rccl", "--nodes", "4")
    times = [t for entry in result.rows if entry["runs"] for t in entry["time_s"].values()]
    assert result.to_dict()["best"]["time_s"] == pytest.approx(min(times))
    assert "RCCL picks" in result.table()


def test_what_does_not_apply_is_refused():
    with pytest.raises(icnperf.errors.InputError, match="--shape, --uncertainty does not"
                                                        " apply with --api nccl"):
        icnperf.predict_collective("dgx-h100", "allreduce", api="nccl", shape="2x2",
                                   uncertainty=True)
    with pytest.raises(icnperf.errors.InputError, match="--algorithm does not apply"):
        icnperf.explain_collective("dgx-h100", "allreduce", api="nccl", algorithm="ring")
    with pytest.raises(icnperf.errors.InputError, match="--algorithm is required"):
        icnperf.explain_collective("lumi", "allreduce")


def test_calibrate_nccl_tests_equals_the_command_line_and_recovers_the_nic(tmp_path):
    """Two 4-GPU nodes, all-reduce 256 MiB in 1500 us: the fit moves the NIC path that
    bounds the run (the only key fitted); to_dict() is the CLI's JSON, write() the file
    the CLI's -o writes, with the fitted value."""
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "model"))
    from test_ccl_calibrate import HEADER, _line

    data = tmp_path / "run.txt"
    data.write_text(HEADER + "\n" + _line(1 << 24, 120.0) + "\n" + _line(1 << 28, 1500.0)
                    + "\n")
    result = icnperf.calibrate("dgx-h100", str(data), data_format="nccl-tests",
                               operation="allreduce")
    same(result, "calibrate", "--machine", "dgx-h100", "--data", str(data), "--data-format",
         "nccl-tests", "--operation", "allreduce")
    assert [row["parameter"] for row in result.rows] == ["node.gpu_nic_bandwidth"]
    out = tmp_path / "fitted.toml"
    result.write(str(out))
    fitted = icnperf.machine(str(out))
    row = next(r for r in fitted.rows if r["key"] == "gpu_nic_bandwidth")
    assert row["value"] == pytest.approx(result.rows[0]["value"])
    with pytest.raises(icnperf.errors.InputError, match="give --operation"):
        icnperf.calibrate("dgx-h100", str(data), data_format="nccl-tests")
