"""The training-step skeletons (dp-step, moe-step, tp-layer) on every bundled preset with
GPUs, and the refusal on presets without them before any work is estimated."""

from __future__ import annotations

import math

import pytest

import icnperf
from icnperf.errors import InputError

PRESETS = [row["name"] for row in icnperf.machines().rows]
TRAINING = ("dp-step", "moe-step", "tp-layer")


def _gpus(name: str) -> int:
    return int(icnperf.machine(name).machine.get("node.accelerators", 0))


GPU_PRESETS = [name for name in PRESETS if _gpus(name) > 0]


@pytest.mark.parametrize("name", GPU_PRESETS)
def test_dp_step_runs_on_every_gpu_preset(name):
    result = icnperf.predict_app(name, "dp-step", nodes="1,2")
    forward = [row for row in result.rows if row["nodes"] == 1 and row["phase"] == "forward"]
    # forward = 2 x parameters x tokens / gpu_flops per GPU (the skeleton's defaults:
    # 7e9 parameters, 8,192 tokens, 4e14 FLOP/s), whatever the machine
    assert forward and math.isclose(forward[0]["time_s"], 2 * 7e9 * 8192 / 4e14, rel_tol=1e-9)
    totals = {row["nodes"]: row["total_s"] for row in result.totals}
    assert totals[2] >= totals[1] > forward[0]["time_s"]


def test_the_cpu_presets_refuse_training_steps_for_want_of_gpus_not_for_the_budget():
    # sequoia at its full size and 16 ranks a node is 1,572,864 ranks: the budget would
    # refuse the all-to-all, but a machine without GPUs cannot run NCCL at any size
    nodes = int(icnperf.machine("sequoia").machine.get("system.nodes"))
    with pytest.raises(InputError, match="has no GPUs"):
        icnperf.predict_app("sequoia", "moe-step", nodes=str(nodes))


def test_summit_and_piz_daint_host_links_follow_their_sources():
    # Summit: two NVLink 2.0 bricks of 25 GB/s a direction per CPU-GPU pair; Piz Daint:
    # PCIe 3.0 x16 at 8 GT/s with 128b/130b encoding
    summit = icnperf.machine("summit").machine.get("node.gpu_host_bandwidth")
    daint = icnperf.machine("piz-daint").machine.get("node.gpu_host_bandwidth")
    assert math.isclose(float(summit), 2 * 25e9)
    assert math.isclose(float(daint), 16 * 8e9 * 128 / 130 / 8, rel_tol=1e-3)  # 15.75 as stated
