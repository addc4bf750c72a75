"""The validation registry: error kinds, statuses at the tolerance's edge, the registry's
rules (kinds, tolerance reasons, discrepancies) and the registered claims' integrity."""

import math

import pytest

from icnperf.validation.registry import (
    CLAIM_KINDS, ORDER, RUNS, STATUSES, TOLERANCE_KINDS, Claim, all_claims, claim_modules,
    error_of, evaluate, kind_counts, problems, summary_line)


def claim(measured, predicted, tolerance, tolerance_kind, discrepancy=None, expected=None,
          **extra):
    """A claim predicting ``predicted``: for tolerance kind inside, a (low, high) range."""
    fields = dict(kind="predicted", tolerance_reason="test")
    fields.update(extra)
    if tolerance_kind == "inside":
        fields["predict_range"] = lambda: predicted
        point = sum(predicted) / 2
    else:
        point = predicted
    return Claim("x", "src", "q", measured, "u", tolerance, tolerance_kind, lambda: point,
                 discrepancy, expected, **fields)


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


# Each case: measured, tolerance, kind, and predictions just inside and just outside the
# tolerance on each side it has (a relative miss of one part in 10^6 beyond the edge).
EDGE = 1e-6
BOUNDARIES = [
    (100.0, 0.05, "relative", [105 * (1 - EDGE), 95 * (1 + EDGE)],
     [105 * (1 + EDGE), 95 * (1 - EDGE)]),
    (10.0, 2.0, "absolute", [12 - EDGE, 8 + EDGE], [12 + EDGE, 8 - EDGE]),
    (26.0, 5.0, "percentage-points", [31 - EDGE, 21 + EDGE], [31 + EDGE, 21 - EDGE]),
    (10.0, 2.0, "factor", [20 * (1 - EDGE), 5 * (1 + EDGE)], [20 * (1 + EDGE), 5 * (1 - EDGE)]),
    (1.0, 0.0, "ordering", [1.0], [0.0, 1 - EDGE]),
    (0.5, 0.0, "at-least", [0.5, 7.0], [0.5 * (1 - EDGE)]),
    (0.5, 0.02, "at-least", [0.49 * (1 + EDGE), 7.0], [0.49 * (1 - EDGE)]),
    (10.0, 0.0, "inside", [(10.0, 12.0), (8.0, 10.0), (9.0, 11.0)],
     [(10 * (1 + EDGE), 12.0), (8.0, 10 * (1 - EDGE))]),
]


@pytest.mark.parametrize("measured, tolerance, kind, inside, outside", BOUNDARIES,
                         ids=[f"{b[2]}-{b[1]}" for b in BOUNDARIES])
def test_status_just_inside_and_just_outside_the_tolerance(measured, tolerance, kind,
                                                           inside, outside):
    assert {kind for *_, kind, _, _ in BOUNDARIES} == set(TOLERANCE_KINDS)
    for predicted in inside:
        assert evaluate(claim(measured, predicted, tolerance, kind)).status == "pass", predicted
    for predicted in outside:
        result = evaluate(claim(measured, predicted, tolerance, kind))
        assert (result.status, result.passed) == ("fail", False), predicted


@pytest.mark.parametrize("measured, tolerance, kind, inside, outside", BOUNDARIES,
                         ids=[f"{b[2]}-{b[1]}" for b in BOUNDARIES])
def test_known_discrepancy_just_inside_and_just_outside_its_expected_value(
        measured, tolerance, kind, inside, outside):
    """The same edges around ``expected`` (the claim's published value moved far away):
    inside is a known discrepancy, outside a failure."""
    far = measured * 1000
    for predicted in inside:
        known = evaluate(claim(far, predicted, tolerance, kind, "reason", expected=measured))
        assert known.status == "known-discrepancy", (predicted, known)
        assert known.passed and known.reason == "reason"
    for predicted in outside:
        drifted = evaluate(claim(far, predicted, tolerance, kind, "reason", expected=measured))
        assert (drifted.status, drifted.passed) == ("fail", False), predicted
        assert drifted.reason == "reason"          # a failure still shows its written reason


def test_expected_tolerance_replaces_the_claims_own_around_expected():
    """At-least 1.02 missed; the analysis expects 1.0 within 3.8 % (0.962 and up)."""
    def c(predicted):
        return claim(1.02, predicted, 0, "at-least", "noise", expected=1.0,
                     expected_tolerance=0.038, expected_tolerance_reason="2 s.d.")
    assert evaluate(c(1.02)).status == "pass"
    assert evaluate(c(0.962 * (1 + EDGE))).status == "known-discrepancy"
    assert evaluate(c(0.962 * (1 - EDGE))).status == "fail"
    # without it, the claim's own tolerance (0) applies around 1.0
    assert evaluate(claim(1.02, 0.99, 0, "at-least", "r", 1.0)).status == "fail"


def test_at_least_infinite_when_prediction_is_not_finite():
    assert math.isinf(error_of(0.5, math.nan, "at-least"))


def test_measured_may_be_computed():
    result = evaluate(Claim("x", "s", "q", lambda: 10.0, "u", 0.1, "relative", lambda: 10.5,
                            kind="predicted", tolerance_reason="r"))
    assert (result.measured, result.status) == (10.0, "pass")


def test_factor_error_of_nonpositive_prediction_is_infinite():
    assert math.isinf(error_of(2.0, 0.0, "factor"))


def test_reason_may_be_computed_and_pass_carries_none():
    reason_computed = evaluate(claim(100, 120, 0.05, "relative", lambda: "computed", 120))
    assert reason_computed.reason == "computed"
    # A claim with a written discrepancy that nevertheless passes is simply a pass.
    passed = evaluate(claim(100, 101, 0.05, "relative", "r", expected=120))
    assert (passed.status, passed.reason) == ("pass", None)


def test_nan_prediction_fails():
    result = evaluate(claim(1.0, float("nan"), 0.1, "relative"))
    assert result.status == "fail"
    assert result.as_dict()["predicted"] is None


def test_result_carries_kind_runs_and_tolerance_reason():
    result = evaluate(claim(1.0, 1.0, 0.1, "relative", kind="calibrated", fitted="k",
                            runs="application", tolerance_reason="digits")).as_dict()
    assert (result["kind"], result["runs"], result["tolerance_reason"], result["fitted"]) == (
        "calibrated", "application", "digits", "k")


def test_claim_needs_a_kind_and_a_tolerance_reason():
    with pytest.raises(TypeError):
        Claim("x", "s", "q", 1, "u", 0.1, "relative", lambda: 1.0, tolerance_reason="r")
    with pytest.raises(TypeError):
        Claim("x", "s", "q", 1, "u", 0.1, "relative", lambda: 1.0, kind="predicted")


@pytest.mark.parametrize("fields, words", [
    (dict(tolerance_reason=""), "states no reason"),
    (dict(tolerance_reason="   "), "states no reason"),
    (dict(kind="held-out"), "kind 'held-out'"),
    (dict(runs="quantum"), "runs 'quantum'"),
    (dict(kind="calibrated"), "calibrated claim names what was fitted"),
    (dict(fitted="x"), "calibrated claim names what was fitted"),
    (dict(discrepancy="r"), "needs both its reason and an expected value"),
    (dict(expected=1.0), "needs both its reason and an expected value"),
    (dict(discrepancy="r", expected=1.0, expected_tolerance=0.1), "its own reason"),
    (dict(open_reason="r", open_tolerance=0.5, kind="calibrated", fitted="x"), "may be open"),
    (dict(open_reason="r", open_tolerance=0.5, discrepancy="r", expected=1.0), "may be open"),
    (dict(open_reason="r"), "open tolerance wider"),
    (dict(open_tolerance=0.5), "open tolerance wider"),
    (dict(open_reason="r", open_tolerance=0.05), "open tolerance wider"),
])
def test_registry_rules_refuse_a_broken_claim(fields, words):
    extra = dict(fields)
    discrepancy, expected = extra.pop("discrepancy", None), extra.pop("expected", None)
    broken = claim(1.0, 1.0, 0.1, "relative", discrepancy, expected, **extra)
    assert any(words in line for line in problems([broken])), problems([broken])
    assert problems([claim(1.0, 1.0, 0.1, "relative")]) == []


def test_registry_refuses_duplicate_ids():
    assert problems([claim(1, 1, 0, "absolute")] * 2) == ["duplicate claim ids: ['x']"]


def test_summary_counts_kinds_apart():
    results = [evaluate(c).as_dict() for c in (
        claim(1, 1, 0, "absolute"), claim(1, 2, 0, "absolute"),
        claim(1, 2, 0, "absolute", "r", 2.0),
        claim(1, 1, 0, "absolute", kind="calibrated", fitted="a"),
        claim(1, 3, 0, "absolute", kind="calibrated", fitted="b"))]
    assert kind_counts(results)["predicted"] == {"pass": 1, "known-discrepancy": 1, "open": 0,
                                                 "fail": 1}
    assert summary_line(results) == ("3 predicted: 1 pass, 1 known discrepancy, 0 open, "
                                     "1 fail; 0 post-hoc; 2 calibrated (1 fail); 0 regression")


def test_an_open_claim_shows_its_miss_without_failing_and_passes_when_it_comes_in():
    """An open claim outside its tolerance is 'open' (counted apart, reason shown, passed
    stays True so validate does not fail); inside it, it passes like any other."""
    def opened(predicted):
        return evaluate(claim(9.3, predicted, 0.25, "relative", open_tolerance=0.5,
                              open_reason="per-step cost unknown"))

    missed = opened(5.3)
    assert (missed.status, missed.passed, missed.reason) == ("open", True,
                                                             "per-step cost unknown")
    assert missed.error == pytest.approx(4.0 / 9.3)
    came_in = opened(9.0)
    assert (came_in.status, came_in.reason) == ("pass", None)
    drifted = opened(4.0)                   # 57 % off: past the open tolerance of 50 %
    assert (drifted.status, drifted.passed) == ("fail", False)
    assert drifted.reason == "per-step cost unknown"
    results = [missed.as_dict(), came_in.as_dict()]
    assert summary_line(results).startswith("2 predicted: 1 pass, 0 known discrepancy, 1 open,"
                                            " 0 fail")


def test_every_claims_module_is_gathered():
    names = claim_modules()
    assert names[:len(ORDER)] == list(ORDER)
    modules = {c.id.split("-")[0] for c in all_claims()}
    assert {"nudt", "angara", "hpcg", "npb", "flitsim"} <= modules


def test_registered_claims_are_well_formed():
    claims = all_claims()
    assert problems(claims) == []
    for c in claims:
        assert c.source and c.quantity and c.unit
        assert c.tolerance_kind in TOLERANCE_KINDS
        assert c.tolerance >= (1 if c.tolerance_kind == "factor" else 0)
        assert c.kind in CLAIM_KINDS and c.runs in RUNS
        assert len(c.tolerance_reason) > 20, c.id        # a sentence, not a placeholder


def test_runs_split_the_registry():
    claims = all_claims()
    split = {r: all_claims(runs=(r,)) for r in RUNS}
    assert sum(len(v) for v in split.values()) == len(claims)
    assert all(c.id.startswith(("flitsim-", "booksim-")) for c in split["simulation"])


def test_every_fast_claim_evaluates_to_a_known_status():
    """The simulator's claims are evaluated in test_claims_flitsim.py (slow)."""
    for c in all_claims(runs=("closed-form", "application")):
        result = evaluate(c)
        assert result.status in STATUSES
        assert math.isfinite(result.predicted), c.id
        assert result.status != "fail", (c.id, result)
