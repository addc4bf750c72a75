"""The simulator's booksim router against BookSim2's public reference runs
(icnperf/validation/claims/booksim.py): every row within the issue's tolerances, registered
as simulation claims, and the reference figures typed in as the files give them."""

import csv
from pathlib import Path

import pytest

from icnperf.validation.claims import booksim as Bk
from icnperf.validation.registry import all_claims, evaluate

REFERENCE = Path("/work/shared/reference/booksim")


def test_registered_as_simulation_claims():
    """Registered, each running the simulator (``runs``, or ``kind`` in the registry before
    issue #21's), and predicted where the registry records it."""
    assert {c.id for c in Bk.CLAIMS} <= {c.id for c in all_claims()}
    for claim in Bk.CLAIMS:
        assert getattr(claim, "runs", claim.kind) == "simulation"
        if hasattr(claim, "runs"):
            assert claim.kind == "predicted" and claim.tolerance_reason
    assert len(Bk.CLAIMS) == 3 * len(Bk.REFERENCES) + 1


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="the shared reference files are not here")
def test_reference_figures_are_the_files():
    """Zero-load and saturation from summary_saturation.csv; the mid-load latency from the
    run row at the mid load, looked up here by (file, VCs, rate)."""
    summary = list(csv.DictReader(open(REFERENCE / "summary_saturation.csv")))
    for ref in Bk.REFERENCES:
        row = next(r for r in summary if r["experiment"] == ref.file[:-4]
                   and int(r["num_vcs"]) == ref.vcs)
        assert float(row["zero_load_rate"]) == ref.zero_load_rate
        assert float(row["zero_load_latency_cycles"]) == ref.zero_load_latency
        assert float(row["saturation_throughput_estimate"]) == ref.saturation
        runs = list(csv.DictReader(open(REFERENCE / ref.file)))
        mid = next(r for r in runs if int(r["num_vcs"]) == ref.vcs
                   and r["sim_type"] == "latency" and float(r["injection_rate"]) == ref.mid_rate)
        assert float(mid["avg_latency_cycles"]) == ref.mid_latency
        stable = [float(r["injection_rate"]) for r in runs
                  if int(r["num_vcs"]) == ref.vcs and r["status"] == "ok"
                  and r["sim_type"] == "latency"]
        # the mid load: the stable load nearest half the saturation estimate
        assert ref.mid_rate == min(stable, key=lambda x: abs(x - ref.saturation / 2))


@pytest.mark.slow
def test_every_public_row_within_its_tolerance():
    results = [evaluate(c) for c in Bk.CLAIMS]
    assert {r.status for r in results} == {"pass"}, [r.id for r in results
                                                     if r.status != "pass"]
    by_id = {r.id: r for r in results}
    # the simulator's own figures, not the reference's, are what was judged
    assert by_id["booksim-torus8x8-2vc-saturation"].predicted < 0.35
    assert by_id["booksim-torus8x8-16vc-saturation"].predicted > 0.6
