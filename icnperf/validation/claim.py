"""A validation claim and its evaluation: the records both the claims and the registry use.

A ``Claim`` is a published number or statement with its source, the value measured or
stated there, a function that computes icnperf's prediction of the same quantity, and a
tolerance with the reason for it. ``evaluate`` turns a claim into a ``CheckResult`` whose
fields are the keys every validation output uses (the design document's "validation registry").

Every claim has a **kind** (:data:`CLAIM_KINDS`), which says how much its agreement means:

* ``predicted``: held out. Nothing in the model was fitted to this value; it follows from
  the machine's description and the model's formulas, so agreement is evidence.
* ``post-hoc``: nothing was fitted to it, but the model's value for it was known (printed,
  or seen to miss before an input was set) when its reading or band was written, so the
  rule below does not hold for it: shown and counted apart from the predictions, its
  agreement is not evidence of predictive power. Its docstring discloses what was known.
* ``calibrated``: a parameter was fitted to this very value (``fitted`` names it), so the
  claim passes by construction; it checks that the calibration is still in place.
* ``regression``: pins the model's own value with no independent expectation; it catches a
  change, not an error.

and a **runs** (:data:`RUNS`), which says what evaluating it costs: the topology /
point-to-point / collective closed forms (``closed-form``, fast), a whole application
model or fit (``application``, seconds), or the flit-level simulator (``simulation``, the
model's independent witness, about a minute for all).

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
* ``inside``: the prediction is a range [low, high] (``predict_range``); error is how far
  the measurement lies outside it, relative to the measurement,
  max(0, low - measured, measured - high) / |measured|, so 0 when it is inside; a
  tolerance of 0 asks for the measurement inside. icnperf.validation.ranges makes such a
  claim of any claim that can be predicted on a given machine: its band is then the
  prediction's 5-95 % range over draws of the machine's inputs (docs/machine-format.md,
  "Uncertainty")

A claim predicted on one preset may say so: ``machine`` names the preset and
``predict_on(machine)`` computes the same prediction on a given machine object (a drawn
copy of the preset, say), so that ``predict_on(load_machine(machine)) == predict()``;
``busy_on(machine, placement_draw)`` may add how that quantity is charged on a busy
machine (its steps that OS noise can delay, icnperf.validation.production).

``measured`` may be a function (called once per evaluation) where the measured side is
itself a computation, as for the flit simulator's cross-checks: the simulator is the
witness there, so it takes the measured column and the closed form the predicted one.

The rule every claim keeps (docs/architecture.md, "Validation registry"): its reading, its
tolerance and its kind are fixed before its result is known, and a change to any of them
says why in the commit that makes it.
"""

from __future__ import annotations

import math
from dataclasses import KW_ONLY, asdict, dataclass
from typing import Any, Callable

CLAIM_KINDS = ("predicted", "post-hoc", "calibrated", "regression")
"""How much a claim's agreement means (module docstring)."""
RUNS = ("closed-form", "application", "simulation")
"""What a claim's check runs: closed forms (fast), an application model or fit (seconds),
the flit-level simulator (slow; ``icnperf validate`` runs these only with
``--simulation``)."""
TOLERANCE_KINDS = ("relative", "absolute", "percentage-points", "factor", "ordering",
                   "at-least", "inside")
STATUSES = ("pass", "known-discrepancy", "open", "fail")
"""A result's status, best first (Claim: known-discrepancy and open need a written reason);
only ``fail`` fails ``validate``."""


@dataclass(frozen=True)
class Claim:
    """A published claim and how icnperf predicts it.

    ``tolerance_reason`` says where the tolerance comes from (the digits the source gives,
    the source's own spread, seed noise measured over named seeds, ...). ``fitted`` names
    the parameter a ``calibrated`` claim was fitted to.

    ``discrepancy`` is the written reason why the published statement does not follow
    from the paper's own formulas or data, or why the witness misses it (a string, or a
    function returning one when the reason quotes computed numbers), and ``expected`` the
    value that analysis derives instead. A claim with both that misses its published
    tolerance is a ``known-discrepancy`` while the prediction stays within tolerance of
    ``expected``, and a ``fail`` when it drifts from both. That tolerance is the claim's
    own unless the analysis carries its own uncertainty: then ``expected_tolerance`` (same
    tolerance kind) and ``expected_tolerance_reason`` state it.

    ``open_reason`` marks a predicted claim the model misses for a reason not yet
    understood: it names what was ruled out and what is suspected. Such a claim that misses
    its tolerance is ``open`` (shown, counted apart, never hidden, and not a ``fail``, so
    it does not fail ``validate``) while its error stays within ``open_tolerance``, the
    outer band written when it was opened (the miss then seen, with a margin); beyond that
    it fails, so a model that drifts further away is caught. One that comes within its
    tolerance passes like any other. It has no ``expected`` value: nothing derives the
    measurement yet.

    ``machine`` and ``predict_on`` (both or neither) let the claim be predicted on a given
    machine (module docstring); ``predict_range`` returns the (low, high) a claim of
    tolerance kind ``inside`` compares the measurement with, and only such a claim has one.
    ``busy_on(machine, placement_draw)`` (only beside ``predict_on``) says how the same
    quantity is charged on a busy machine: a icnperf.validation.production.Busy, from which
    validate draws the claim's ``--uncertainty --production`` range on a preset with
    ``[production]`` values; under a busy scheduler's placement ``placement_draw`` None asks
    every placement draw, an integer i the draw i mod 16 alone (the one a range's input
    draw i takes).
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
    runs: str = "closed-form"
    _: KW_ONLY
    kind: str
    tolerance_reason: str
    fitted: str | None = None
    expected_tolerance: float | None = None
    expected_tolerance_reason: str | None = None
    open_reason: str | None = None
    open_tolerance: float | None = None
    machine: str | None = None
    predict_on: Callable[[Any], float] | None = None
    predict_range: Callable[[], tuple[float, float]] | None = None
    busy_on: Callable[[Any, int | None], Any] | None = None


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
    kind: str
    runs: str
    tolerance_reason: str
    fitted: str | None = None
    expected: float | None = None
    expected_tolerance: float | None = None
    expected_tolerance_reason: str | None = None
    predicted_low: float | None = None
    predicted_high: float | None = None

    def as_dict(self) -> dict:
        """The result as a JSON-serialisable dict (non-finite numbers become None); the
        range's ends only for a claim of tolerance kind ``inside``."""
        out = asdict(self)
        if self.tolerance_kind != "inside":
            del out["predicted_low"], out["predicted_high"]
        for key in ("measured", "predicted", "error", "expected", "predicted_low",
                    "predicted_high"):
            if out.get(key) is not None and not math.isfinite(out[key]):
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


def range_error(measured: float, low: float, high: float) -> float:
    """How far ``measured`` lies outside [low, high], relative to it (tolerance kind
    ``inside``): 0 inside, inf when the range is not finite."""
    if not (math.isfinite(low) and math.isfinite(high)) or not measured:
        return math.inf
    return max(0.0, low - measured, measured - high) / abs(measured)


def within(error: float, tolerance: float) -> bool:
    """Whether an error is inside a tolerance (a relative 1e-12 allowance for rounding)."""
    return math.isfinite(error) and error <= tolerance * (1 + 1e-12)


def evaluate(claim: Claim) -> CheckResult:
    """Compute the claim's prediction, its error and its status."""
    measured = float(claim.measured() if callable(claim.measured) else claim.measured)
    predicted = float(claim.predict())
    low = high = None
    if claim.tolerance_kind == "inside":
        low, high = (float(end) for end in claim.predict_range())

    def error_from(reference: float) -> float:
        if claim.tolerance_kind == "inside":
            return range_error(reference, low, high)
        return error_of(reference, predicted, claim.tolerance_kind)

    error = error_from(measured)
    if within(error, claim.tolerance):
        status = "pass"
    elif claim.discrepancy and claim.expected is not None and within(
            error_from(claim.expected), expected_tolerance(claim)):
        status = "known-discrepancy"
    elif claim.open_reason and claim.open_tolerance is not None and within(
            error, claim.open_tolerance):
        status = "open"
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
        reason=_reason(claim, status),
        kind=claim.kind,
        runs=claim.runs,
        tolerance_reason=claim.tolerance_reason,
        fitted=claim.fitted,
        expected=None if claim.expected is None else float(claim.expected),
        expected_tolerance=None if claim.expected is None else expected_tolerance(claim),
        expected_tolerance_reason=claim.expected_tolerance_reason,
        predicted_low=low,
        predicted_high=high,
    )


def expected_tolerance(claim: Claim) -> float:
    """The tolerance around ``claim.expected``: its own when stated, else the claim's."""
    return claim.tolerance if claim.expected_tolerance is None else claim.expected_tolerance


def status_counts(results) -> dict[str, int]:
    """How many results (CheckResult dicts) have each status, in STATUSES order."""
    return {s: sum(r["status"] == s for r in results) for s in STATUSES}


def kind_counts(results) -> dict[str, dict[str, int]]:
    """Status counts per claim kind (CheckResult dicts), in CLAIM_KINDS order."""
    return {k: status_counts([r for r in results if r["kind"] == k]) for k in CLAIM_KINDS}


def summary_line(results) -> str:
    """'N predicted: a pass, b known discrepancy, c open, d fail; M calibrated; K regression',
    with any calibrated or regression claim that does not pass counted in brackets."""
    counts = kind_counts(results)
    held = counts["predicted"]
    parts = [f"{sum(held.values())} predicted: {held['pass']} pass, "
             f"{held['known-discrepancy']} known discrepancy, {held['open']} open, "
             f"{held['fail']} fail"]
    for kind in CLAIM_KINDS[1:]:
        text = f"{sum(counts[kind].values())} {kind}"
        odd = [f"{n} {s.replace('-', ' ')}" for s, n in counts[kind].items()
               if s != "pass" and n]
        parts.append(text + (f" ({', '.join(odd)})" if odd else ""))
    return "; ".join(parts)


def _reason(claim: Claim, status: str) -> str | None:
    """The written reason shown with a result that does not pass (None when it passes)."""
    if status == "open" or (status == "fail" and claim.open_reason):
        return claim.open_reason
    if status == "pass" or not claim.discrepancy:
        return None
    return claim.discrepancy() if callable(claim.discrepancy) else claim.discrepancy
