"""Validation of the ranges: is a published measurement inside its prediction's range?

A claim predicted on a preset (``machine`` and ``predict_on``, claim.py) becomes a claim of
tolerance kind ``inside`` (:func:`range_claim`): its band is the 5-95 % range of
``predict_on`` over seeded draws of the preset's inputs within their stated uncertainty
(icnperf.data.machine.sampling; docs/machine-format.md "Uncertainty"). Its reading, source
and kind are the claim's own; its tolerance is 0 (the measurement lies inside the range or
it does not).

:func:`coverage` sums those results per claim kind, side by side (issue #31, item 5):

* coverage: how many measurements fall inside their range;
* width: the median over the claims of the range's high end over its low end.

Calibrated claims are not counted (a value was fitted to the measurement, so its range is
the calibration's band by construction); post-hoc claims count apart from the predicted
ones, whatever their result (their model value was seen before their band was written).
These range checks are not registered claims: a measurement outside its range does not fail
``validate``.
"""

from __future__ import annotations

import statistics
from dataclasses import replace

from icnperf.data.machine.sampling import Sampling
from icnperf.validation.claim import Claim, evaluate

VALIDATE_SAMPLING = Sampling(samples=200, seed=0)
"""The draws ``icnperf validate`` takes per ranged claim: 200, seed 0 (the default of
``predict --uncertainty``; about 0.1 s of CPU per claim on the real-machine presets)."""

COUNTED = ("predicted", "post-hoc")
"""The claim kinds whose ranges are counted, each apart (module docstring)."""


def ranged(claims) -> list[Claim]:
    """The claims that can be predicted on a given machine (``predict_on``)."""
    return [c for c in claims if c.predict_on is not None]


def range_of(claim: Claim, sampling: Sampling = VALIDATE_SAMPLING) -> tuple[float, float]:
    """The (low, high) of ``claim.predict_on`` over ``sampling``'s draws of its preset."""
    from icnperf.data.machine import load_machine
    from icnperf.data.machine.sampling import ranges

    spans = ranges(load_machine(claim.machine),
                   lambda machine: {"value": claim.predict_on(machine)}, sampling)
    low, high = spans["value"]
    return float(low), float(high)


def range_claim(claim: Claim, sampling: Sampling = VALIDATE_SAMPLING) -> Claim:
    """``claim`` with the range of its prediction as its band (tolerance kind ``inside``):
    same id, source, reading and kind; no discrepancy or open band (those belong to the
    claim's own tolerance)."""
    if claim.predict_on is None:
        raise ValueError(f"{claim.id}: no predict_on, so no range")
    return replace(
        claim, tolerance=0.0, tolerance_kind="inside",
        predict_range=lambda: range_of(claim, sampling),
        tolerance_reason=(f"inside the prediction's {sampling.low:.0%}-{sampling.high:.0%} "
                          f"range over {sampling.samples} draws (seed {sampling.seed}) of "
                          f"the {claim.machine} preset's inputs within their stated "
                          "uncertainty"),
        discrepancy=None, expected=None, expected_tolerance=None,
        expected_tolerance_reason=None, open_reason=None, open_tolerance=None)


def range_results(claims, sampling: Sampling = VALIDATE_SAMPLING) -> list[dict]:
    """Each ranged claim of ``claims`` evaluated against its range (CheckResult dicts)."""
    return [evaluate(range_claim(c, sampling)).as_dict() for c in ranged(claims)]


def width(result: dict) -> float:
    """A range's high end over its low end (inf when the low end is not positive)."""
    low, high = result["predicted_low"], result["predicted_high"]
    if low is None or high is None or low <= 0:
        return float("inf")
    return high / low


def coverage(results: list[dict]) -> dict[str, dict]:
    """Per counted kind (:data:`COUNTED`): claims, how many measurements lie inside their
    range, and the median width (None without claims); ``calibrated``: how many were left
    out."""
    out: dict[str, dict] = {}
    for kind in COUNTED:
        group = [r for r in results if r["kind"] == kind]
        out[kind] = {"claims": len(group),
                     "inside": sum(r["status"] == "pass" for r in group),
                     "median_width": statistics.median(width(r) for r in group)
                     if group else None}
    out["calibrated"] = {"claims": sum(r["kind"] == "calibrated" for r in results)}
    return out
