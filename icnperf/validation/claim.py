"""A validation claim and its evaluation: the records both the claims and the registry use.

A ``Claim`` is a published number or statement with its source, the value measured or
stated there, a function that computes icnperf's prediction of the same quantity, and a
tolerance. ``evaluate`` turns a claim into a ``CheckResult`` whose fields are the keys
every validation output uses (DESIGN.md, "The validation registry").

Tolerance kinds and the error they compare (error <= tolerance passes):

* ``relative``: |predicted - measured| / |measured|
* ``absolute``: |predicted - measured|, in the claim's unit
* ``percentage-points``: |predicted - measured| where both are percentages
* ``factor``: max(predicted / measured, measured / predicted) (tolerance >= 1)
* ``ordering``: measured and predicted are 1 (the stated order holds) or 0; error is
  |predicted - measured| and the tolerance is 0
* ``at-least``: ``measured`` is a threshold set before looking (say a rank correlation of
  1/3); error is how far the prediction falls short of it, relative to it,
  max(0, measured - predicted) / |measured|, so the printed prediction is the statistic

``measured`` may be a function (called once per evaluation) where the measured side is
itself a computation, as for the flit simulator's cross-checks: the simulator is the
witness there, so it takes the measured column and the closed form the predicted one.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Callable

CLAIM_KINDS = ("closed-form", "application", "simulation")
"""What a claim's check runs: the topology / point-to-point / collective closed forms (fast),
a whole application model or fit (seconds), or the flit-level simulator (the model's
independent witness; ``icnperf validate --skip-simulation`` leaves these out)."""
TOLERANCE_KINDS = ("relative", "absolute", "percentage-points", "factor", "ordering",
                   "at-least")
STATUSES = ("pass", "known-discrepancy", "fail")


@dataclass(frozen=True)
class Claim:
    """A published claim and how icnperf predicts it.

    ``discrepancy`` is the written reason why the published statement does not follow
    from the paper's own formulas or data (a string, or a function returning one when the
    reason quotes computed numbers), and ``expected`` the value the reason derives instead.
    A claim with both that misses its published tolerance is a ``known-discrepancy`` while
    the prediction stays within the same tolerance of ``expected``, and a ``fail`` when it
    drifts from both.
    """

    id: str
    source: str
    quantity: str
    measured: float | Callable[[], float]
    unit: str
    tolerance: float
    tolerance_kind: str
    predict: Callable[[], float]
    discrepancy: str | Callable[[], str] | None = None
    expected: float | None = None
    kind: str = "closed-form"


@dataclass(frozen=True)
class CheckResult:
    """One evaluated claim: the row every validation output prints."""

    id: str
    source: str
    quantity: str
    measured: float
    predicted: float
    unit: str
    error: float
    tolerance: float
    tolerance_kind: str
    status: str
    passed: bool
    reason: str | None
    kind: str = "closed-form"

    def as_dict(self) -> dict:
        """The result as a JSON-serialisable dict (non-finite numbers become None)."""
        out = asdict(self)
        for key in ("measured", "predicted", "error"):
            if not math.isfinite(out[key]):
                out[key] = None
        return out


def error_of(measured: float, predicted: float, kind: str) -> float:
    """The error of a prediction under a tolerance kind (see module docstring)."""
    if kind == "relative":
        return abs(predicted - measured) / abs(measured)
    if kind in ("absolute", "percentage-points", "ordering"):
        return abs(predicted - measured)
    if kind == "at-least":
        if not (math.isfinite(predicted) and measured):
            return math.inf
        return max(0.0, measured - predicted) / abs(measured)
    if kind == "factor":
        if predicted <= 0 or measured <= 0:
            return math.inf
        return max(predicted / measured, measured / predicted)
    raise ValueError(f"unknown tolerance kind {kind!r}")


def evaluate(claim: Claim) -> CheckResult:
    """Compute the claim's prediction, its error and its status."""
    measured = float(claim.measured() if callable(claim.measured) else claim.measured)
    predicted = float(claim.predict())
    error = error_of(measured, predicted, claim.tolerance_kind)
    if _within(error, claim.tolerance):
        status = "pass"
    elif claim.discrepancy and claim.expected is not None and _within(
            error_of(claim.expected, predicted, claim.tolerance_kind), claim.tolerance):
        status = "known-discrepancy"
    else:
        status = "fail"
    return CheckResult(
        id=claim.id,
        source=claim.source,
        quantity=claim.quantity,
        measured=measured,
        predicted=predicted,
        unit=claim.unit,
        error=error,
        tolerance=claim.tolerance,
        tolerance_kind=claim.tolerance_kind,
        status=status,
        passed=status != "fail",
        reason=_reason(claim) if status == "known-discrepancy" else None,
        kind=claim.kind,
    )


def status_counts(results) -> dict[str, int]:
    """How many results (CheckResult dicts) have each status, in STATUSES order."""
    return {s: sum(r["status"] == s for r in results) for s in STATUSES}


def _within(error: float, tolerance: float) -> bool:
    return math.isfinite(error) and error <= tolerance * (1 + 1e-12)


def _reason(claim: Claim) -> str:
    return claim.discrepancy() if callable(claim.discrepancy) else claim.discrepancy
