"""The bundled SpMV, heat and HPCG skeletons (icnperf/data/apps) against the Python models
they replace (model/apps/spmv.py, heat.py, hpcg.py), on every configuration a registered
claim evaluates: the same times to a relative 1e-9."""

import pytest

from icnperf.data.machine import load_machine
from icnperf.data.skeleton import load_skeleton
from icnperf.model.apps import heat, hpcg, spmv, timing
from icnperf.model.collectives import Layout
from icnperf.validation.claims import angara_heat, angara_spmv, apps_hpcg_npb

REL = 1e-9


def _same(skeleton_result, legacy):
    assert skeleton_result.total_s == pytest.approx(legacy.total_s, rel=REL, abs=0)


@pytest.mark.parametrize("nodes", angara_spmv.SWEEP)
def test_spmv_skeleton_gives_the_fig9_claims_numbers(nodes):
    machine, layout = angara_spmv._machine_and_layout(nodes)
    row = angara_spmv._row()
    problem = {"rows": row["matrix_rows"], "nonzeros_per_row": row["nonzeros_per_row"]}
    skeleton = load_skeleton("spmv").with_parameters(problem)
    for algorithm in ("hw-tree", angara_spmv.P2P):
        legacy = spmv.predict(machine, layout, algorithm=algorithm, api=angara_spmv.API,
                              **problem)
        result = timing.run(skeleton, machine, layout, algorithm=algorithm)
        _same(result, legacy)
        assert result.flops == legacy.flops
        compute, gather = result.phases
        assert compute.time_s == pytest.approx(legacy.compute_s, rel=REL)
        assert gather.time_s == pytest.approx(legacy.collective_s, rel=REL)


@pytest.mark.parametrize("nodes", angara_heat.SWEEP)
def test_heat_skeleton_gives_the_fig10_claims_numbers(nodes):
    machine, layout = angara_heat._machine_and_layout(nodes)
    skeleton = load_skeleton("heat")
    for cells in sorted({row["grid_cells"] for row in angara_heat._rows()}):
        sized = skeleton.with_parameters({"cells": cells})
        for algorithm in ("hw-tree", angara_heat.P2P):
            legacy = heat.predict(machine, layout, algorithm=algorithm, cells=cells,
                                  api=angara_heat.API)
            result = timing.run(sized, machine, layout, algorithm=algorithm)
            _same(result, legacy)
            assert result.flops == legacy.flops
            stencil, halo_x, halo_y, reduce = result.phases
            assert stencil.time_s == pytest.approx(legacy.compute_s, rel=REL)
            assert halo_x.time_s + halo_y.time_s == pytest.approx(legacy.p2p_s, rel=REL)


@pytest.mark.parametrize("variant, sync", [("reference", None), ("optimized", "pairwise"),
                                           ("optimized", "barrier")])
def test_hpcg_skeletons_give_the_36_node_claims_numbers(variant, sync):
    row = apps_hpcg_npb._hpcg_row()
    machine = load_machine(apps_hpcg_npb.HPCG_MACHINE)
    layout = Layout.from_topology(machine.topology)
    local = (row["local_nx"], row["local_ny"], row["local_nz"])
    kw = dict(local=local, processes_per_node=row["processes_per_node"])
    legacy = hpcg.predict(machine, layout, variant=variant, sync=sync or "pairwise", **kw)
    name = "hpcg" if variant == "reference" else "hpcg-optimized"
    problem = dict(zip(("nx", "ny", "nz"), local))
    if sync:
        problem["sync"] = 1 if sync == "pairwise" else 2
    skeleton = load_skeleton(name).with_parameters(problem)
    result = timing.run(skeleton, machine, layout, ppn=row["processes_per_node"])
    _same(result, legacy)
    assert result.flops == pytest.approx(legacy.flops, rel=1e-15)
    compute, halo, dots = result.phases
    assert compute.time_s == pytest.approx(legacy.iterations * legacy.compute_s, rel=REL)
    assert halo.time_s == pytest.approx(legacy.iterations * legacy.p2p_s, rel=REL)
    assert dots.time_s == pytest.approx(legacy.iterations * legacy.collective_s, rel=REL)


def test_hpcg_skeleton_follows_the_model_off_the_claims_point():
    """Other node counts, local boxes and ppn: still the Python model's numbers."""
    machine = load_machine("angara-36")
    for nodes, local, ppn in ((8, (16, 16, 32), 4), (64, (8, 16, 24), 2), (27, (8, 8, 8), 1)):
        legacy = hpcg.predict(machine, nodes, local=local, processes_per_node=ppn)
        skeleton = load_skeleton("hpcg").with_parameters(dict(zip(("nx", "ny", "nz"), local)))
        layout = hpcg._layout(machine, nodes)
        _same(timing.run(skeleton, machine, layout, ppn=ppn), legacy)


def test_heat_skeleton_charges_one_gap_only_where_a_rank_sends_two_messages():
    """The legacy heat model charges one send gap per halo phase even on a 2-wide process
    grid, where every rank has a single neighbour along that axis; the skeleton charges
    (k - 1) gaps, k the most messages one rank sends. They differ exactly by those gaps."""
    from icnperf.model import collectives, network

    machine = load_machine("angara-4d").with_overrides(["topology=torus:2x2"])
    layout = Layout.torus((2, 2))
    legacy = heat.predict(machine, layout, algorithm="hw-tree", cells=1_000_000)
    result = timing.run(load_skeleton("heat").with_parameters({"cells": 1_000_000}), machine,
                        layout, algorithm="hw-tree")
    params = collectives.collective_parameters(machine, "mpi")
    gap = lambda m: float(collectives.send_gap(m, **network.bind(collectives.send_gap, params)))
    # 1000 x 1000 cells on 2 x 2 ranks: x faces 500 doubles, y faces 502
    assert legacy.total_s - result.total_s == pytest.approx(gap(8 * 500) + gap(8 * 502),
                                                            rel=1e-9)


@pytest.mark.parametrize("extra", [
    [],
    ["node.nics_per_node=2", "node.shared_memory_latency=0.4us",
     "node.shared_memory_bandwidth=6GB/s"],
    ["node.accelerators=4", "node.accelerator_memory_bandwidth=900GB/s",
     "node.accelerator_memory_efficiency=0.85", "node.nics_per_node=2"],
])
def test_vendor_hpcg_skeleton_follows_the_model(extra):
    """hpcg-vendor (what --variant optimized runs off the Angara presets) against the Python
    model's vendor roofline: CPU-only, several NICs with shared-memory figures, GPUs."""
    machine = load_machine("angara-3d").with_overrides(
        ["software.hpcg_optimized=vendor", *extra])
    for nodes, local, ppn in ((8, (16, 16, 32), 4), (27, (8, 8, 8), 1), (64, (16, 16, 16), 3)):
        legacy = hpcg.predict(machine, nodes, variant="optimized", local=local,
                              processes_per_node=ppn)
        skeleton = load_skeleton("hpcg-vendor").with_parameters(
            dict(zip(("nx", "ny", "nz"), local)))
        layout = hpcg._layout(machine, nodes)
        result = timing.run(skeleton, machine, layout, ppn=ppn)
        _same(result, legacy)
        compute = result.phases[0]
        assert compute.time_s == pytest.approx(legacy.iterations * legacy.compute_s, rel=REL)


def test_vendor_roofline_runs_on_the_fastest_memory():
    base = load_machine("angara-3d").with_overrides(["software.hpcg_optimized=vendor"])
    gpus = base.with_overrides(["node.accelerators=2", "node.accelerator_memory_bandwidth=1TB/s",
                                "node.accelerator_memory_efficiency=0.5"])
    total = sum(hpcg.bytes_per_iteration((16, 16, 16)).values())
    cpu = hpcg.predict(base, 8, variant="optimized", processes_per_node=2)
    gpu = hpcg.predict(gpus, 8, variant="optimized", processes_per_node=2)
    assert cpu.compute_s == pytest.approx(2 * total / (0.78 * 51.2e9))
    assert gpu.compute_s == pytest.approx(2 * total / (2 * 0.5 * 1e12))
    # reference HPCG stays on the CPU memory whatever the accelerators
    ref = hpcg.predict(gpus, 8, processes_per_node=2)
    assert ref.compute_s == pytest.approx(cpu.compute_s)


@pytest.mark.slow
@pytest.mark.parametrize("machine_name, radices", [("k-computer", (24, 18, 16, 2, 3, 2)),
                                                   ("fugaku", (24, 20, 24, 2, 3, 2)),
                                                   ("fugaku", None)])
def test_vendor_hpcg_skeleton_gives_the_real_machine_claims_numbers(machine_name, radices):
    """hpcg-vendor against the Python model on the registered HPCG-at-scale claims
    (validation/claims/real_machines.py): the same rate to a relative 1e-9."""
    from icnperf.validation.claims import real_machines

    machine = load_machine(machine_name)
    layout = (Layout.from_topology(machine.topology) if radices is None
              else Layout.torus(radices))
    ppn = machine.node["processes_per_node"]
    skeleton = load_skeleton("hpcg-vendor").with_parameters(
        dict(zip(("nx", "ny", "nz"), real_machines.HPCG_LOCAL)))
    result = timing.run(skeleton, machine, layout, ppn=ppn)
    rate = real_machines.hpcg_rate(machine_name, radices)
    assert result.flops / result.total_s == pytest.approx(rate, rel=REL)
