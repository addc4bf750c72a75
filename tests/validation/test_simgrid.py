"""The SimGrid CM02 claims: every row registered, each within 10 %, and the machines state
only the platforms' parameters."""

from icnperf.data.machine import load_machine
from icnperf.data.measurements.tables import load_table
from icnperf.validation.claim import evaluate
from icnperf.validation.claims import simgrid


def test_every_cm02_row_is_a_passing_claim():
    rows = list(load_table(simgrid.TABLE).rows())
    assert len(rows) == 100
    assert not simgrid.NOT_REGISTERED
    assert len(simgrid.CLAIMS) == 100
    ids = {c.id for c in simgrid.CLAIMS}
    assert {"simgrid-torus_4x4x4-allreduce-rab_rdb-256B",
            "simgrid-fattree_2l_64-allreduce-rab_rdb-256B"} <= ids
    results = [evaluate(c) for c in simgrid.CLAIMS]
    assert all(r.status == "pass" for r in results), [r.id for r in results if not r.passed]
    platforms = {c.source.rsplit(" ", 1)[-1] for c in simgrid.CLAIMS}
    assert platforms == {"torus_4x4x4", "fattree_2l_64"}


def test_machines_state_the_readme_parameters():
    tree = load_machine("simgrid-fattree-64")
    torus = load_machine("simgrid-torus-4x4x4")
    for machine in (tree, torus):
        assert machine.get("network.link_bandwidth") == 1.25e9
        assert machine.get("network.link_latency") == 80e-9
        assert machine.get("network.packet_header_flits") == 16
        assert machine.get("software.mpi_overhead") == 0
    assert tree.topology == "xgft:m=8x8,w=1x8"
    assert tree.get("network.tree_routing") == "dmodk"
    assert tree.get("network.injection_latency") == 80e-9
    assert torus.get("network.injection_latency") == 0


def test_tapered_variant_differs_only_in_its_spines():
    full = load_machine("simgrid-fattree-64")
    tapered = load_machine("simgrid-fattree-64-tapered")
    assert tapered.topology == "xgft:m=8x8,w=1x2"
    assert dict(tapered.network) == dict(full.network)
    assert dict(tapered.software) == dict(full.software)
