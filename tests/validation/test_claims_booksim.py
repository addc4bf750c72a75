"""The simulator's booksim router against BookSim2's public reference runs
(icnperf/validation/claims/booksim.py): every row within the issue's tolerances, registered
as simulation claims, and the reference figures read from the bundled BookSim2 tables."""

import pytest

from icnperf.data.measurements.tables import load_table
from icnperf.validation.claims import booksim as Bk
from icnperf.validation.registry import all_claims, evaluate

TYPED = {
    # name: (zero-load rate, zero-load latency, saturation, mid rate, mid latency), copied by
    # hand from BookSim2's summary and run files when the claims were first registered
    "torus8x8-4vc": (0.05, 31.1985, 0.517308, 0.25, 32.5456),
    "torus8x8-2vc": (0.1, 32.3626, 0.258939, 0.1, 32.3626),
    "torus8x8-8vc": (0.1, 31.2843, 0.660139, 0.3, 32.513),
    "torus8x8-16vc": (0.1, 31.3268, 0.720192, 0.4, 33.4703),
    "mesh8x8-4vc": (0.05, 33.5153, 0.417522, 0.2, 35.0825),
    "dragonfly-p2-min": (0.05, 119.786, 0.327312, 0.15, 121.26),
}


def _tables():
    return {name: load_table(name).rows() for name in
            ("booksim-saturation-summary", "booksim-uniform-runs", "booksim-uniform-overload",
             "booksim-uniform-unstable")}


def test_registered_as_simulation_claims():
    """Registered, each running the simulator (``runs``, or ``kind`` in the registry before
    issue #21's), and predicted where the registry records it."""
    assert {c.id for c in Bk.CLAIMS} <= {c.id for c in all_claims()}
    for claim in Bk.CLAIMS:
        assert getattr(claim, "runs", claim.kind) == "simulation"
        if hasattr(claim, "runs"):
            assert claim.kind == "predicted" and claim.tolerance_reason
        assert "booksim-saturation-summary" in claim.source
    assert len(Bk.CLAIMS) == 3 * len(Bk.REFERENCES) + 1


def test_reference_figures_are_the_typed_ones():
    """The figures the claims read from the bundled tables are the ones copied by hand from
    BookSim2's files, and the claims' measured values are those figures."""
    assert {r.name: (r.zero_load_rate, r.zero_load_latency, r.saturation, r.mid_rate,
                     r.mid_latency) for r in Bk.REFERENCES} == TYPED
    measured = {c.id: c.measured for c in Bk.CLAIMS}
    for name, (_, zero, saturation, _, mid) in TYPED.items():
        assert measured[f"booksim-{name}-zero-load"] == zero
        assert measured[f"booksim-{name}-saturation"] == saturation
        assert measured[f"booksim-{name}-mid-load"] == mid


def test_bundled_tables_hold_every_reference_run():
    """All 91 runs of the five reference files (18 + 33 + 10 + 16 + 14) and the six summary
    lines, split by what BookSim2 did with each run."""
    t = _tables()
    runs = t["booksim-uniform-runs"] + t["booksim-uniform-overload"] \
        + t["booksim-uniform-unstable"]
    per_experiment = {}
    for r in runs:
        per_experiment[r["experiment"]] = per_experiment.get(r["experiment"], 0) + 1
    assert per_experiment == {"a_torus_k8n2_uniform": 18,
                              "a_torus_k8n2_uniform_vc_sensitivity": 33,
                              "a_torus_k8n2_uniform_seed_check": 10,
                              "d_mesh_k8n2_uniform": 16, "f_dragonfly_p2_uniform_min": 14}
    assert len(t["booksim-saturation-summary"]) == 6
    assert all(r["packet_size"] == 1 for r in runs)


def test_summary_agrees_with_the_runs():
    """Each summary line follows from the run rows as BookSim2's README defines it: zero load
    at the lowest offered load, saturation the largest accepted rate of the completed and
    the overload runs, the first unstable load the smallest stopped one."""
    t = _tables()
    for s in t["booksim-saturation-summary"]:
        def mine(rows):
            return [r for r in rows if r["experiment"] == s["experiment"]
                    and r["num_vcs"] == s["num_vcs"] and r["seed"] == 0]
        stable, over = mine(t["booksim-uniform-runs"]), mine(t["booksim-uniform-overload"])
        lowest = min(stable, key=lambda r: r["injection_rate"])
        assert lowest["injection_rate"] == s["zero_load_rate"]
        assert lowest["avg_latency_cycles"] == s["zero_load_latency_cycles"]
        assert max(r["accepted_rate"] for r in stable + over) \
            == s["saturation_throughput_estimate"]
        assert max(r["injection_rate"] for r in stable) == s["last_stable_rate"]
        assert min(r["injection_rate"] for r in mine(t["booksim-uniform-unstable"])) \
            == s["first_unstable_rate"]


def test_vc_sensitivity_order_in_the_reference():
    """The order the ordering claim checks in the simulator holds in BookSim2's own rows."""
    by_vcs = {r.vcs: r.saturation for r in Bk.REFERENCES if r.spec == "torus:8x8"}
    assert [round(by_vcs[v], 2) for v in (2, 4, 8, 16)] == [0.26, 0.52, 0.66, 0.72]


@pytest.mark.slow
def test_every_public_row_within_its_tolerance():
    results = [evaluate(c) for c in Bk.CLAIMS]
    assert {r.status for r in results} == {"pass"}, [r.id for r in results
                                                     if r.status != "pass"]
    by_id = {r.id: r for r in results}
    # the simulator's own figures, not the reference's, are what was judged
    assert by_id["booksim-torus8x8-2vc-saturation"].predicted < 0.35
    assert by_id["booksim-torus8x8-16vc-saturation"].predicted > 0.6
