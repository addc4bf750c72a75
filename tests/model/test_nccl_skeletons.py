"""The training-step skeletons on NCCL/RCCL collective phases, against hand-computed
values from the closed forms' sources."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from icnperf.cli import cli


def _phases(*args):
    result = CliRunner().invoke(cli, ["predict", "app", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return {row["phase"]: row["time_s"] for row in json.loads(result.output)["rows"]}


def test_tp_layer_on_one_dgx_h100_by_hand():
    times = _phases("tp-layer", "--machine", "dgx-h100", "--nodes", "1")
    # compute: 80 layers x 3 x 24 x 4096 x 8192^2 / 8 FLOP at 4e14 FLOP/s
    assert times["compute"] == pytest.approx(80 * 3 * 24 * 4096 * 8192 ** 2 / 8 / 4e14)
    # NCCL picks NVLS at 64 MiB on one NVSwitch node; icnperf's NVLS all-reduce:
    # 25 us stated NVLS step + (8+1)/8 x S / B_nvls, 4 per layer; B_nvls = NCCL's NVLS
    # efficiency 0.85 x 450 GB/s x 20.6/25 (NCCL's H100 per-link rate of the 25 GB/s link)
    s = 4096 * 8192 * 2
    b_nvls = 0.85 * 450e9 * 20.6 / 25
    assert times["tp-allreduce"] == pytest.approx(320 * (25e-6 + 9 / 8 * s / b_nvls))


def test_dp_step_overlaps_backward_with_the_buckets():
    times = _phases("dp-step", "--machine", "dgx-h100", "--nodes", "1")
    # 7e9 parameters, 8192 tokens: forward 2ND at 4e14 FLOP/s; backward 4ND is longer than
    # the all-reduces of its 535 buckets on one node, so the overlapped phase is the compute
    assert times["forward"] == pytest.approx(2 * 7e9 * 8192 / 4e14)
    assert times["backward+allreduce"] == pytest.approx(4 * 7e9 * 8192 / 4e14)


def test_dp_step_exposes_the_allreduce_when_compute_is_fast():
    slow = _phases("dp-step", "--machine", "dgx-h100", "--nodes", "16")
    fast = _phases("dp-step", "--machine", "dgx-h100", "--nodes", "16",
                   "--param", "gpu_flops=4e16")
    backward = 4 * 7e9 * 8192 / 4e16
    assert fast["backward+allreduce"] > backward * 1.01
    assert fast["backward+allreduce"] < slow["backward+allreduce"]


def test_moe_all_to_all_grows_across_nodes():
    inside = _phases("moe-step", "--machine", "dgx-h100", "--nodes", "4")
    across = _phases("moe-step", "--machine", "dgx-h100", "--nodes", "4", "--param", "ep=32")
    assert across["dispatch"] > 3 * inside["dispatch"]
    assert across["experts"] == inside["experts"]


def test_ccl_phase_refuses_a_halo(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('format = 1\nname = "bad"\n[[phase]]\nname = "x"\napi = "nccl"\n'
                    'halo = { dims = 3, bytes = "8" }\n')
    result = CliRunner().invoke(cli, ["predict", "app", str(path), "--machine", "dgx-h100"])
    assert result.exit_code == 2 and "times collectives only" in result.output
