"""--compute gpu: a skeleton's compute on the GPU roofline (model/apps/gpu.py), worked by
hand from the Frontier preset's cited values (8 GCDs of 23.9 TFLOP/s and 1.6 TB/s at the
assumed 0.78 streaming fraction), and the CPU default unchanged."""

from __future__ import annotations

import pytest

from icnperf.data.machine import load_machine
from icnperf.data.skeleton import load_skeleton
from icnperf.errors import InputError
from icnperf.model.apps import timing
from icnperf.model.apps.gpu import on_gpus
from icnperf.reports.text.apps import resolve_skeleton

FRONTIER = load_machine("frontier")
GPU_BANDWIDTH = 8 * 0.78 * 1.6e12       # B/s per node
GPU_PEAK = 8 * 23.9e12                  # FLOP/s per node


def test_jacobi3d_sweep_is_the_memory_roof_of_the_node_gpus():
    """jacobi3d, 8 nodes x 8 ranks: 64 n^3 / P bytes per rank at 1/8 of the node's
    9.98 TB/s; the FLOP roof (8 n^3 / P FLOP at 1/8 of 191.2 TFLOP/s) is lower."""
    skeleton = on_gpus(load_skeleton("jacobi3d"))
    n = float(skeleton.parameters["n"])
    (repeat, sweep), *_ = timing.phase_computes(skeleton, FRONTIER, 8, ppn=8)[0]
    memory = 64 * n**3 / 64 / (GPU_BANDWIDTH / 8)
    assert 8 * n**3 / 64 / (GPU_PEAK / 8) < memory
    assert sweep == pytest.approx(memory, rel=1e-12)


def test_heat_stencil_moves_16_bytes_per_cell_on_the_gpus():
    """heat's 6400 x 6400 cells on 4 nodes (one rank each, 2 x 2): 3200 x 3200 cells per
    rank, 16 B each at the node's 9.98 TB/s; node.stencil_rate (the CPU's rate) is no
    longer read."""
    skeleton = on_gpus(load_skeleton("heat"))
    (_, stencil), *_ = timing.phase_computes(skeleton, FRONTIER, 4)[0]
    assert stencil == pytest.approx(16 * 3200 * 3200 / GPU_BANDWIDTH, rel=1e-12)
    assert "node.stencil_rate" in load_skeleton("heat").machine_keys()
    assert "node.stencil_rate" not in skeleton.machine_keys()


def test_the_cpu_default_and_hpcg_optimized_are_unchanged():
    for app, given, name in (("heat", {}, "heat"), ("jacobi3d", {"compute": "cpu"}, "jacobi3d"),
                             ("hpcg", {"variant": "optimized"}, "hpcg-vendor")):
        skeleton, _ = resolve_skeleton(app, given, machine=FRONTIER)
        assert skeleton.phases == load_skeleton(name).phases
    gpu, _ = resolve_skeleton("hpcg", {"variant": "optimized", "compute": "gpu"},
                              machine=FRONTIER)
    assert gpu.phases[0].bandwidth.text.startswith("node.accelerators")


def test_gpu_compute_on_a_machine_without_accelerators_is_a_one_line_error():
    angara = load_machine("angara-4d")
    with pytest.raises(InputError, match="node.accelerator") as info:
        timing.phase_computes(on_gpus(load_skeleton("jacobi3d")), angara, 8)
    assert "\n" not in str(info.value)
