"""HPCG and NPB IS claims (icnperf/validation/claims/apps_hpcg_npb.py)."""

from __future__ import annotations

import pytest

from icnperf.validation import registry
from icnperf.validation.claims import apps_hpcg_npb as A

IDS = ["hpcg-36-shmem-gain-pairwise", "hpcg-36-shmem-gain-barrier",
       "npb-is-placement-pooled-tau", "npb-is-placement-best-picked"]


def test_registered():
    ids = [c.id for c in registry.all_claims()]
    for i in IDS:
        assert ids.count(i) == 1


@pytest.mark.parametrize("claim", A.CLAIMS, ids=lambda c: c.id)
def test_claims_pass(claim):
    result = registry.evaluate(claim)
    assert result.status == "pass", result


def test_hpcg_gain_inside_the_issue_band():
    for sync in ("pairwise", "barrier"):
        gain = A.hpcg_gain(sync)
        assert 1.25 <= gain <= 1.53
    for claim in A.CLAIMS[:2]:      # the band is the claims' ±10 % around the stated 1.39
        assert (claim.measured, claim.tolerance, claim.tolerance_kind) == (
            A._hpcg_row()["speedup"], 0.10, "relative")
        assert claim.kind == "predicted" and "1.25x-1.53x" in claim.tolerance_reason


def test_hpcg_preset_has_no_fitted_gain():
    from icnperf.data.machine import load_machine

    machine = load_machine(A.HPCG_MACHINE)
    text = " ".join(machine.provenance.values()).lower()
    assert "39" not in text


def test_npb_records_shape_and_pooled_tau():
    records = {r.table: r for r in A.npb_records()}
    assert set(records) == {"npb-is-ib-qdr-class-c", "npb-is-ib-qdr-class-d",
                            "npb-is-gige-class-c"}
    # pairs within process counts among included rows: IB C 3 + 6, IB D 1 + 3,
    # GigE 3 + 6 + 6 + 3
    assert records["npb-is-ib-qdr-class-c"].pairs == 9
    assert records["npb-is-ib-qdr-class-d"].pairs == 4
    assert records["npb-is-gige-class-c"].pairs == 18
    for r in records.values():
        assert -1 <= r.tau <= 1
        assert r.concordant + r.discordant <= r.pairs
    tau = A.pooled_tau()
    assert tau >= A.TAU_THRESHOLD
    hits, contested = A.best_hits()
    assert contested == 8 and hits >= contested / 2
    results = {c.id: registry.evaluate(c) for c in A.CLAIMS}
    assert results["npb-is-placement-pooled-tau"].predicted == pytest.approx(tau)
    assert results["npb-is-placement-best-picked"].predicted == hits / contested
