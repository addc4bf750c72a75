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
from icnperf.api.skeletons import resolve_skeleton

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


def _halo_on_frontier(machine, nodes=2):
    from icnperf.data.machine import with_buffers
    from icnperf.model import collectives
    from icnperf.model.collectives import Layout

    gpu_machine = with_buffers(machine, "gpu")
    layout = (collectives.machine_layout(gpu_machine).on_part(2) if nodes == 2
              else Layout.one_node())
    result = timing.run(on_gpus(load_skeleton("jacobi3d"), "gpu"), gpu_machine, layout, ppn=8)
    return next(p for p in result.phases if p.name == "halo").terms[0]


def test_gpu_halo_takes_each_pairs_route_and_each_gpus_nic():
    """jacobi3d on 2 Frontier nodes x 8 GCDs, GPU buffers: the 2 x 2 x 4 grid puts x
    neighbours on GCD pairs 0-1 (4 xGMI links), y on 0-2 (1 link), z inside a node on 0-4,
    which Frontier's link table does not join: through the host, the slowest pair. Between
    the nodes GCDs 4..7 send to 8..11 (GCDs 0..3), through NICs 2, 2, 3, 3 (node.gpu_nics):
    2 messages per NIC, not the node's 4. On one node (every message inside it) joining
    every pair by 4 links makes the slowest pair 0 -> 1 and the halo faster."""
    term = _halo_on_frontier(FRONTIER)
    assert "slowest GPU pair present, 0 -> 4: no direct link" in term.detail
    assert term.host == 2
    joined = FRONTIER.with_values({"node.scaleup_links": " ".join(
        f"{a}-{b}:4" for a in range(8) for b in range(a + 1, 8))}, "test: all pairs 4 links")
    alone, faster = _halo_on_frontier(FRONTIER, 1), _halo_on_frontier(joined, 1)
    assert "0 -> 1: 4 direct link(s)" in faster.detail
    assert faster.time_s < alone.time_s


def test_host_buffers_keep_the_node_wide_halo():
    from icnperf.model import collectives

    layout = collectives.machine_layout(FRONTIER).on_part(2)
    result = timing.run(on_gpus(load_skeleton("jacobi3d")), FRONTIER, layout, ppn=8)
    halo = next(p for p in result.phases if p.name == "halo").terms[0]
    assert "GPU pair" not in halo.detail and halo.host == 4


def test_the_gpu_roofs_stored_trees_are_sympys():
    from icnperf.model.apps.expressions import parse
    from icnperf.model.apps.gpu import ROOF_TREES
    from icnperf.model.apps.skeleton import symbol_table

    table = symbol_table(())
    for text, tree in ROOF_TREES.items():
        assert parse(text, "roof", table).tree == tree
