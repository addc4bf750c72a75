"""The validation registry: error kinds, statuses, and the registered claims' integrity."""

import math

import pytest

from icnperf.validation.registry import (
    STATUSES, TOLERANCE_KINDS, Claim, all_claims, error_of, evaluate)


def claim(measured, predicted, tolerance, kind, discrepancy=None, expected=None):
    return Claim("x", "src", "q", measured, "u", tolerance, kind, lambda: predicted,
                 discrepancy, expected)


@pytest.mark.parametrize("measured, predicted, kind, expected", [
    (100.0, 110.0, "relative", 0.1),
    (100.0, 90.0, "absolute", 10.0),
    (26.0, 29.5, "percentage-points", 3.5),
    (2.0, 8.0, "factor", 4.0),
    (8.0, 2.0, "factor", 4.0),
    (1.0, 0.0, "ordering", 1.0),
    (1 / 3, 0.55, "at-least", 0.0),
    (0.5, 0.25, "at-least", 0.5),

])
def test_error_of_each_kind(measured, predicted, kind, expected):
    assert error_of(measured, predicted, kind) == pytest.approx(expected)


def test_at_least_passes_at_or_above_the_threshold_only():
    assert evaluate(claim(0.5, 0.5, 0, "at-least")).status == "pass"
    assert evaluate(claim(0.5, 0.49, 0, "at-least")).status == "fail"
    assert math.isinf(error_of(0.5, math.nan, "at-least"))


def test_measured_may_be_computed():
    result = evaluate(Claim("x", "s", "q", lambda: 10.0, "u", 0.1, "relative", lambda: 10.5))
    assert (result.measured, result.status) == (10.0, "pass")


def test_factor_error_of_nonpositive_prediction_is_infinite():
    assert math.isinf(error_of(2.0, 0.0, "factor"))


def test_status_pass_fail_and_known_discrepancy():
    assert evaluate(claim(100, 104, 0.05, "relative")).status == "pass"
    failed = evaluate(claim(100, 120, 0.05, "relative"))
    assert (failed.status, failed.passed) == ("fail", False)
    known = evaluate(claim(100, 120, 0.05, "relative", "paper rounds", expected=121))
    assert (known.status, known.passed, known.reason) == (
        "known-discrepancy", True, "paper rounds")
    # A claim with a written discrepancy that nevertheless passes is simply a pass.
    assert evaluate(claim(100, 101, 0.05, "relative", "r", expected=120)).status == "pass"


def test_known_discrepancy_fails_when_the_prediction_drifts_from_its_explanation():
    drifted = evaluate(claim(100, 200, 0.05, "relative", "paper rounds", expected=121))
    assert (drifted.status, drifted.passed) == ("fail", False)
    reason_computed = evaluate(claim(100, 120, 0.05, "relative", lambda: "computed", 120))
    assert reason_computed.reason == "computed"


def test_nan_prediction_fails():
    result = evaluate(claim(1.0, float("nan"), 0.1, "relative"))
    assert result.status == "fail"
    assert result.as_dict()["predicted"] is None


def test_registered_claims_are_well_formed():
    claims = all_claims()
    assert len({c.id for c in claims}) == len(claims)
    for c in claims:
        assert c.source and c.quantity and c.unit
        assert c.tolerance_kind in TOLERANCE_KINDS
        assert c.tolerance >= (1 if c.tolerance_kind == "factor" else 0)


def test_every_claim_evaluates_to_a_known_status():
    for c in all_claims():
        result = evaluate(c)
        assert result.status in STATUSES
        assert math.isfinite(result.predicted), c.id
        assert result.status != "fail", (c.id, result)
