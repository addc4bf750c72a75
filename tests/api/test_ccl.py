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
