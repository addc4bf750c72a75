"""``explain app`` (model/apps/closed_form.py): every formula it prints, evaluated at the
machine's values, gives the time the skeleton evaluation charges."""

import pytest
import sympy as sp

from icnperf.data.machine import load_machine
from icnperf.data.skeleton import load_skeleton
from icnperf.model import network
from icnperf.model.apps.closed_form import explain_skeleton
from icnperf.model.collectives import Layout
from icnperf.model.topology.torus import balanced_torus_shape

SYMBOLS = {"t_inj": "injection_latency", "t_ej": "ejection_latency", "t_r": "router_latency",
           "t_l": "link_latency", "B_link": "link_bandwidth", "B_host": "host_bandwidth",
           "O": "software_overhead"}


def _at_machine(formula: str, machine, api: str) -> float:
    params = network.machine_parameters(machine, api)
    names = {s: sp.Symbol(s) for s in SYMBOLS}
    expr = sp.sympify(formula, locals=names)  # our own printed text, not user input
    return float(expr.xreplace({names[s]: params[p] for s, p in SYMBOLS.items()}))


@pytest.mark.parametrize("app, machine_name, nodes", [
    ("jacobi3d", "angara-4d", 4096), ("heat", "angara-4d", 32768), ("spmv", "angara-4d", 512),
    ("hpcg-optimized", "angara-36", None), ("jacobi3d", "angara-3d", 64)])
def test_every_communication_formula_gives_the_charged_time(app, machine_name, nodes):
    machine = load_machine(machine_name)
    layout = None if nodes is None else Layout.torus(balanced_torus_shape(
        nodes, len(Layout.from_topology(machine.topology).radices)))
    algorithm = "p2p-tree" if app == "heat" else None
    form = explain_skeleton(load_skeleton(app), machine, layout, algorithm=algorithm)
    checked = 0
    for phase in form.phases:
        assert phase.time_s == pytest.approx(phase.repeat.value * (
            phase.compute_s + phase.communication_s), rel=1e-12)
        for comm in phase.communication:
            if comm.formula is None:
                assert comm.kind == "helper" or comm.time_s == 0
                continue
            api = "shmem" if "shmem" in comm.symbols.get("O", "") else "mpi"
            assert _at_machine(comm.formula, machine, api) == pytest.approx(comm.time_s,
                                                                             rel=1e-9)
            checked += 1
    assert checked >= 1
    assert sum(p.share for p in form.phases) == pytest.approx(1)


def test_jacobi_halo_at_4096_nodes_takes_five_hops():
    """16x16x16 process grid on the 8x8x8x8 torus, rank r on endpoint r (dimension 0
    fastest both): the z neighbour r + 256 is 4 positions along torus dimension 2 (half its
    ring), and where that wraps one more along dimension 3: 5 hops, the largest."""
    machine = load_machine("angara-4d")
    form = explain_skeleton(load_skeleton("jacobi3d"), machine, Layout.torus((8, 8, 8, 8)))
    halo = form.phases[1].communication[0]
    assert (halo.messages, halo.hops) == (6, 5)
    assert halo.bytes.value == 8 * (1024 // 16) ** 2
    assert "16x16x16" in halo.detail
    sweep = form.phases[0]
    assert [t.written for t in sweep.compute] == ["8*n**3/P", "64*n**3/P"]
    assert sweep.bound == "memory"


def test_definitions_are_shown_expanded_into_the_parameters():
    form = explain_skeleton(load_skeleton("heat"), load_machine("angara-4d"),
                            Layout.torus((8, 8, 8, 16)))
    block = {t.key: t for t in form.definitions}["block_x"]
    assert block.written == "ceiling(nx/px)"
    assert block.expanded == "ceiling(dims(cells, 2, 0)/dims(P, 2, 0))"
    assert block.value == 6400 // 64 and form.ranks == 8192
