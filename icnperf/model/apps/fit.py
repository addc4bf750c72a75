"""Fitting a skeleton's ``[coefficients]`` to measured run times (SciPy least squares).

Each measured run gives a node count, the skeleton's parameters and the total time t_i.
The prediction T_i(c) is :func:`icnperf.model.apps.timing.run` with the coefficients c: the
network and node terms stay the machine's physical model, only the coefficients move (an
Extra-P-like fit whose communication is not curve-fitted). The fit minimizes the relative
residuals r_i = (T_i(c) - t_i) / t_i (runs span decades of time) with
``scipy.optimize.least_squares`` (trust-region reflective, 2-point Jacobian), started from
the skeleton's own values.

Intervals: the usual linearized ones. With J the Jacobian of r at the optimum, n runs and p
coefficients, s² = Σ r_i² / (n - p) and cov = s² (JᵀJ)⁻¹; the 95 % interval of c_j is
c_j ± t_{0.975, n-p} · sqrt(cov_jj) (Student's t). They need n > p, and a coefficient that
does not move any prediction (a zero column of J) cannot be fitted: both are InputErrors.
When the predictions match the runs exactly (s = 0) the intervals have zero width.
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model.apps import timing

__all__ = ["CoefficientFit", "Run", "fit_coefficients"]

DIFF_STEP = 1e-2
"""Relative step of the finite-difference Jacobian. Not smaller: messages are whole flits
and packets, so a time is a staircase in a size coefficient (one 16-byte flit of a 9 kB
halo message shared by 7 messages on a channel moves the time by 0.15 %), and a step
within one stair sees a flat or a vertical derivative. A 1 % step spans several stairs
and gives their average slope."""

_FAILED = 1e3
"""Relative residual of a run whose prediction fails at a trial point (e.g. a negative
count): steers the search away without stopping it."""


class Run(NamedTuple):
    """One measured run: node count, the skeleton parameters it used (name -> number) and
    its total time (s)."""

    nodes: int
    parameters: dict
    time_s: float


class CoefficientFit(NamedTuple):
    """What :func:`fit_coefficients` returns: per coefficient (in ``names`` order) the start,
    the fitted value, its standard error and 95 % interval; the runs' predictions, relative
    residuals and their rms; degrees of freedom; the fitted skeleton."""

    names: tuple[str, ...]
    initial: tuple[float, ...]
    values: tuple[float, ...]
    stderr: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    predicted: tuple[float, ...]
    residuals: tuple[float, ...]
    rms_relative_error: float
    dof: int
    skeleton: object


MAX_START_ERROR = 1e12
"""Largest relative error of a run at the skeleton's own coefficients that a fit starts
from: beyond it the finite differences overflow (measured times of 1e-308 s raised a
ValueError in SciPy), and no unit slip is that large."""

def fit_coefficients(skeleton, machine, runs, layout_of: Callable[[int], object], *,
                     names=None, ppn: int | None = None,
                     algorithm: str | None = None) -> CoefficientFit:
    """Fit ``names`` (default: every coefficient) of ``skeleton`` to ``runs``;
    ``layout_of(nodes)`` gives the layout of a node count (the CLI's layout rule)."""
    from scipy.optimize import least_squares
    from scipy.stats import t as student_t

    names = tuple(skeleton.coefficients) if names is None else tuple(names)
    if not names:
        raise InputError(f"{skeleton.name}: no [coefficients] to fit (declare them, e.g. "
                         "c1 = 1, and use them in the phases)")
    unknown = [n for n in names if n not in skeleton.coefficients]
    if unknown:
        raise InputError(f"{skeleton.name}: unknown coefficient(s) {', '.join(unknown)} "
                         f"(declared: {', '.join(skeleton.coefficients) or 'none'})")
    runs = list(runs)
    if len(runs) <= len(names):
        raise InputError(f"{len(runs)} run(s) cannot fit {len(names)} coefficient(s): give "
                         "more runs than coefficients")
    for run in runs:
        if not (run.time_s > 0 and math.isfinite(run.time_s)):
            raise InputError(f"run on {run.nodes} nodes: time must be > 0 s, not "
                             f"{run.time_s!r}")
    layouts = {run.nodes: layout_of(run.nodes) for run in runs}
    sized = [skeleton.with_parameters(run.parameters) for run in runs]
    measured = np.array([run.time_s for run in runs])
    x0 = np.array([float(skeleton.coefficients[n]) for n in names])

    def predict(x):
        out = []
        for run, s in zip(runs, sized):
            trial = s.with_coefficients(dict(zip(names, (float(v) for v in x))))
            out.append(timing.run(trial, machine, layouts[run.nodes], ppn=ppn,
                                  algorithm=algorithm).total_s)
        return np.array(out)

    def relative(predicted):
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return (predicted - measured) / measured

    def residuals(x):
        try:
            out = relative(predict(x))
        except InputError:
            return np.full(len(runs), _FAILED)
        # a trial beyond floating point (a measured time near 1e-308) is a failed trial
        return np.where(np.isfinite(out), out, _FAILED)

    try:
        start = relative(predict(x0))
    except InputError as error:
        raise InputError(f"the skeleton cannot be evaluated at its own coefficients: "
                         f"{error}") from None
    far = ~(np.abs(start) <= MAX_START_ERROR)
    if np.any(far):
        bad = int(np.flatnonzero(far)[0])
        raise InputError(f"run {bad + 1}: measured {measured[bad]:.3g} s, over "
                         f"{MAX_START_ERROR:.0e} times off the skeleton's prediction at its "
                         "own coefficients (check the units: seconds), too far to fit")
    scale = np.where(x0 != 0, np.abs(x0), 1.0)
    try:
        result = least_squares(residuals, x0, x_scale=scale, diff_step=DIFF_STEP,
                               xtol=1e-12, ftol=1e-12, gtol=1e-12,
                               max_nfev=200 * (len(names) + 1))
    except ValueError:  # SciPy met a value beyond floating point in its steps
        raise InputError("the fit left floating point (runs too far from the skeleton's "
                         "prediction, or coefficients with no effect)") from None
    x = result.x
    jac = result.jac
    for j, name in enumerate(names):
        if not np.any(np.abs(jac[:, j]) > 0):
            raise InputError(f"coefficient {name} does not change any predicted time: it "
                             "cannot be fitted from these runs")
    r = result.fun
    dof = len(runs) - len(names)
    s2 = float(r @ r) / dof
    try:
        cov = s2 * np.linalg.inv(jac.T @ jac)
    except np.linalg.LinAlgError:
        raise InputError("the coefficients cannot be told apart by these runs (their "
                         "effects on the times are proportional); fix one or add runs that "
                         "separate them") from None
    stderr = np.sqrt(np.maximum(np.diag(cov), 0.0))
    q = float(student_t.ppf(0.975, dof))
    fitted = skeleton.with_coefficients(dict(zip(names, (float(v) for v in x))))
    predicted = predict(x)
    return CoefficientFit(names, tuple(float(v) for v in x0), tuple(float(v) for v in x),
                          tuple(float(v) for v in stderr),
                          tuple(float(v - q * e) for v, e in zip(x, stderr)),
                          tuple(float(v + q * e) for v, e in zip(x, stderr)),
                          tuple(float(v) for v in predicted), tuple(float(v) for v in r),
                          float(np.sqrt(np.mean(r ** 2))), dof, fitted)
