"""The least-squares fit of machine parameters to observations, with standard errors and
confidence intervals.

:func:`fit` minimizes the relative residuals of :func:`problem.predict` with
``scipy.optimize.least_squares`` (trust-region reflective, robust loss, bandwidths in
ln(B / B_0) and times in t / t_0 with t >= 0), from the machine's values and a data-driven
start, and returns a :class:`FitResult`: fitted values (SI), standard errors, intervals at
the requested confidence, the covariance, and every point's prediction and relative error.
The method, its covariance s² (JᵀJ)⁻¹ and the intervals (Student's t with n - p degrees of
freedom) are described in :mod:`icnperf.model.calibrate`. Memory is linear in the number of
points: the n x p Jacobian and its thin SVD (n x p, p, p x p), never an n x n matrix.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from icnperf.errors import InputError
from icnperf.model import network
from icnperf.model.calibrate.problem import (
    _PACKET_FORMAT,
    QUANTITIES,
    Observations,
    Parameter,
    _Evaluator,
    _frozen,
    resolve_parameters,
)

DEFAULT_LOSS = "soft_l1"
DEFAULT_F_SCALE = 0.05
"""Robust loss and its scale (relative residual, 5 %) used unless the caller says otherwise."""

_T_BOUND = 30.0  # ln-space bandwidths stay within e^±30 of their start: finite trial values
_FD_STEP = 1e-6  # central-difference step in the (order-one) fit space


# --- the fit ------------------------------------------------------------------------------


def _readonly_map(data: Mapping) -> Mapping:
    return MappingProxyType(dict(data))


@dataclass(frozen=True, eq=False)
class FitResult:
    """A calibration: fitted values with their uncertainty, and how well the model fits.

    Per parameter (keyed by its label, :attr:`parameters` in order): ``keys`` (the machine
    keys that take the value), ``initial`` and ``values`` (SI), ``stderr`` and ``intervals``
    ((low, high) at ``confidence``). ``covariance`` is in SI, in parameter order.

    Per point (arrays in the order of the observations): ``labels``, ``quantities``,
    ``units``, ``apis``, ``sizes``, ``hops``, ``measured``, ``predicted``, ``residuals``
    (predicted - measured, SI) and ``relative_errors`` ((predicted - measured) / measured).

    Summary: ``rms_relative_error``, ``max_relative_error`` (largest magnitude),
    ``n_points``, ``dof`` (n - p), ``converged`` / ``status`` / ``message`` / ``nfev`` (from
    least_squares), ``loss`` and ``f_scale``, ``model`` (the function fitted),
    ``method`` (how values and intervals were computed) and ``assumptions`` (the model's, as
    :func:`network.p2p_table` states them, plus the fit's).
    """

    parameters: tuple[str, ...]
    keys: Mapping[str, tuple[str, ...]]
    initial: Mapping[str, float]
    values: Mapping[str, float]
    stderr: Mapping[str, float]
    intervals: Mapping[str, tuple[float, float]]
    confidence: float
    covariance: np.ndarray
    labels: tuple[str, ...]
    quantities: tuple[str, ...]
    units: tuple[str, ...]
    apis: tuple[str, ...]
    sizes: np.ndarray
    hops: np.ndarray
    measured: np.ndarray
    predicted: np.ndarray
    residuals: np.ndarray
    relative_errors: np.ndarray
    rms_relative_error: float
    max_relative_error: float
    n_points: int
    dof: int
    converged: bool
    status: int
    message: str
    nfev: int
    loss: str
    f_scale: float
    model: str
    method: str
    assumptions: tuple[str, ...] = field(default=())

    def machine_values(self) -> dict[str, float]:
        """Machine key -> fitted SI value (tied keys each get the value), ready for
        ``Machine.with_values``."""
        return {key: float(self.values[label])
                for label in self.parameters for key in self.keys[label]}


def _slope_bandwidth(obs: Observations) -> float | None:
    """Effective bandwidth from the two largest distinct sizes of the latency points with
    the same hops and interface: Δm / ΔT (None when the data do not give one)."""
    best = None
    quantities = np.array(obs.quantities)
    apis = np.array(obs.apis)
    for api in set(obs.apis):
        for hops in set(obs.hops.tolist()):
            mask = (quantities == "latency") & (apis == api) & (obs.hops == hops)
            if mask.sum() < 2:
                continue
            m, t = obs.sizes[mask], obs.values[mask]
            order = np.argsort(m)
            m, t = m[order], t[order]
            if m[-1] <= m[0]:
                continue
            i = np.flatnonzero(m < m[-1])[-1]
            if t[-1] > t[i]:
                slope = (m[-1] - m[i]) / (t[-1] - t[i])
                if best is None or m[-1] > best[0]:
                    best = (m[-1], slope)
    stream = [obs.values[i] for i in range(len(obs)) if obs.quantities[i] == "bandwidth"]
    if stream:
        return float(max(stream))
    return None if best is None else float(best[1])


def _start_candidates(machine, obs: Observations,
                      parameters: Sequence[Parameter]) -> list[dict[str, float]]:
    """Starting values: the machine's (where it has them) and a data-driven guess for the
    bandwidths (the slope of the largest messages' latencies)."""
    latencies = [obs.values[i] for i in range(len(obs)) if obs.quantities[i] == "latency"]
    time_guess = 0.1 * float(np.median(latencies)) if latencies else 1e-7
    slope = _slope_bandwidth(obs)
    try:
        packet = {name: float(machine.require(network.PARAMETERS[name]))
                  for name in _PACKET_FORMAT}
        link_factor = packet["packet_max_flits"] / (packet["packet_max_flits"]
                                                    - packet["packet_header_flits"])
    except (InputError, ZeroDivisionError):
        link_factor = 1.0
    from_machine: dict[str, float] = {}
    from_data: dict[str, float] = {}
    for p in parameters:
        current = [machine.get(k) if hasattr(machine, "get") else None for k in p.keys]
        known = [float(v) for v in current if isinstance(v, (int, float))]
        if p.positive:
            data = None
            if slope is not None and slope > 0:
                data = slope * (link_factor if p.keys[0] == "network.link_bandwidth" else 1.0)
            value = np.mean(known) if known and min(known) > 0 else (data or 1e9)
            from_machine[p.label] = float(value)
            from_data[p.label] = float(data if data is not None else value)
        else:
            # never start on the bound t = 0: the trust region cannot leave it (scipy's trf
            # scales steps by the distance to the bound)
            value = float(np.mean(known)) if known and np.mean(known) > 0 else time_guess
            from_machine[p.label] = value
            from_data[p.label] = value
    starts = [from_machine]
    if from_data != from_machine:
        starts.append(from_data)
    return starts


class _Space:
    """Fit-space <-> SI for the parameters: θ = ln(B / B_0) for bandwidths, t / t_0 for times."""

    def __init__(self, parameters: Sequence[Parameter], start: Mapping[str, float],
                 time_scale: float):
        self.parameters = list(parameters)
        self.scale = np.array([start[p.label] if start[p.label] > 0 else time_scale
                               for p in parameters], dtype=float)
        self.log = np.array([p.positive for p in parameters])
        self.lower = np.where(self.log, -_T_BOUND, 0.0)
        self.upper = np.where(self.log, _T_BOUND, np.inf)

    def theta(self, si: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.where(self.log, np.log(np.maximum(si, 1e-300) / self.scale),
                            si / self.scale)

    def si(self, theta: np.ndarray) -> np.ndarray:
        return np.where(self.log, self.scale * np.exp(np.clip(theta, -_T_BOUND, _T_BOUND)),
                        self.scale * theta)

    def derivative(self, theta: np.ndarray) -> np.ndarray:
        """dp/dθ at θ."""
        return np.where(self.log, self.si(theta), self.scale)

    def values(self, theta: np.ndarray) -> dict[str, float]:
        out = {}
        for p, value in zip(self.parameters, self.si(theta)):
            for key in p.keys:
                out[key] = float(value)
        return out


def _jacobian(residual, theta: np.ndarray, lower: np.ndarray) -> np.ndarray:
    """Central differences of ``residual`` at θ (one-sided where a bound is within a step)."""
    base = residual(theta)
    columns = []
    for j in range(len(theta)):
        step = _FD_STEP * max(1.0, abs(theta[j]))
        up, down = theta.copy(), theta.copy()
        up[j] += step
        if theta[j] - step >= lower[j]:
            down[j] -= step
            columns.append((residual(up) - residual(down)) / (2 * step))
        else:
            columns.append((residual(up) - base) / step)
    return np.column_stack(columns) if columns else np.zeros((len(base), 0))


def _t_quantile(confidence: float, dof: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.5 + confidence / 2, dof))


def fit(machine, obs: Observations, parameters: str | Iterable[str] | Sequence[Parameter], *,
        api: str = "mpi", switching: str | None = None, loss: str = DEFAULT_LOSS,
        f_scale: float = DEFAULT_F_SCALE, confidence: float = 0.95) -> FitResult:
    """Fit ``parameters`` (machine keys, LogGP aliases or :class:`Parameter` records) of
    ``machine`` to the observations; see the module docstring for the model, the method and
    the errors. ``api`` resolves the aliases ``o`` and ``g``; each observation is evaluated
    with its own interface. ``switching`` overrides ``network.switching``."""
    from scipy.optimize import least_squares

    if isinstance(parameters, (list, tuple)) and parameters and all(
            isinstance(p, Parameter) for p in parameters):
        params = tuple(parameters)
    else:
        params = resolve_parameters(parameters, api)
    if not isinstance(obs, Observations):
        raise TypeError("obs must be Observations (see observations())")
    if not (isinstance(f_scale, (int, float)) and math.isfinite(f_scale) and f_scale > 0):
        raise InputError(f"f_scale must be a positive number, not {f_scale!r}")
    if not (0 < confidence < 1):
        raise InputError(f"confidence must be between 0 and 1, not {confidence!r}")
    n, p = len(obs), len(params)
    if n == 0:
        raise InputError("no measured points to fit")
    if n < p:
        raise InputError(f"{n} measured point{'s' if n != 1 else ''} cannot determine {p} "
                         f"parameters ({', '.join(q.label for q in params)}); give at least "
                         f"{p} points or fit fewer parameters")

    evaluate = _Evaluator(machine, obs, switching)
    measured = np.asarray(obs.values, dtype=float)
    latencies = measured[np.array(obs.quantities) == "latency"]
    time_scale = 0.1 * float(np.median(latencies)) if latencies.size else 1e-7

    best = None
    failures = []
    for start in _start_candidates(machine, obs, params):
        space = _Space(params, start, time_scale)

        def residual(theta, space=space):
            with np.errstate(all="ignore"):
                return evaluate(space.values(theta)) / measured - 1.0

        theta0 = np.clip(space.theta(np.array([start[q.label] for q in params])),
                         space.lower, space.upper)
        first = residual(theta0)
        if not np.all(np.isfinite(first)):
            failures.append("the model is not finite at the starting values")
            continue
        try:
            # SciPy's overflow warnings would print before the one-line error; the outcome
            # (non-finite residuals, ValueError) is checked and reported below instead
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                result = least_squares(residual, theta0, bounds=(space.lower, space.upper),
                                       method="trf", loss=loss, f_scale=float(f_scale),
                                       jac="3-point", x_scale=1.0, max_nfev=200 * (p + 1))
        except ValueError as error:
            problem = str(error).rstrip(".")
            if "inf" in problem.lower() or "nan" in problem.lower():
                problem = ("the relative residuals overflow (the measured values are"
                           f" {measured.min():.3g} to {measured.max():.3g} in SI units; check"
                           " their units)")
            raise InputError(f"least-squares fit failed: {problem}") from None
        if result.status <= 0 or not np.all(np.isfinite(result.fun)):
            failures.append(result.message)
            continue
        if best is None or result.cost < best[0].cost:
            best = (result, space, residual, start)
    if best is None:
        reason = failures[-1] if failures else "no usable start"
        raise InputError(f"the fit did not converge ({reason.rstrip('.')}); try other starting "
                         "values (--set) or fit fewer parameters")
    result, space, residual, start = best
    theta = np.asarray(result.x, dtype=float)
    labels = [q.label for q in params]

    jac = _jacobian(residual, theta, space.lower)
    if not np.all(np.isfinite(jac)):
        raise InputError("the fit's Jacobian is not finite at the solution; its covariance "
                         "cannot be computed")
    norms = np.linalg.norm(jac, axis=0)
    dead = [labels[j] for j in range(p) if norms[j] == 0]
    if dead:
        raise InputError(
            f"no measured point depends on {', '.join(dead)} at the fitted values (e.g. "
            "another channel is the bottleneck at every size, or no point uses that "
            "interface or has hops > 0), so it cannot be fitted; fit another key")
    scaled = jac / norms
    singular = np.linalg.svd(scaled, full_matrices=False)  # thin: memory linear in the points
    sv, vt = singular[1], singular[2]
    if sv[-1] <= 1e-8 * sv[0]:
        null = np.abs(vt[-1])
        involved = [labels[j] for j in np.flatnonzero(null > 0.1 * null.max())]
        raise InputError(
            f"the points cannot tell {' and '.join(involved)} apart (singular covariance: "
            "they change the predictions the same way, e.g. as a sum); fit only one of them")

    fun = residual(theta)
    dof = n - p
    predicted = evaluate(space.values(theta))
    values_si = space.si(theta)
    derivative = space.derivative(theta)
    inverse = np.linalg.inv(jac.T @ jac)
    if dof > 0:
        s2 = float(fun @ fun) / dof
        cov_theta = s2 * inverse
        se_theta = np.sqrt(np.maximum(np.diag(cov_theta), 0.0))
        tq = _t_quantile(confidence, dof)
    else:
        cov_theta = np.full((p, p), np.nan)
        se_theta = np.full(p, np.nan)
        tq = float("nan")
    covariance = cov_theta * np.outer(derivative, derivative)
    stderr = np.sqrt(np.maximum(np.diag(covariance), 0.0)) if dof > 0 else np.full(p, np.nan)
    intervals = {}
    for j, q in enumerate(params):
        if dof <= 0:
            intervals[q.label] = (float("nan"), float("nan"))
        elif q.positive:
            intervals[q.label] = (float(values_si[j] * math.exp(-tq * se_theta[j])),
                                  float(values_si[j] * math.exp(tq * se_theta[j])))
        else:
            intervals[q.label] = (float(max(0.0, values_si[j] - tq * stderr[j])),
                                  float(values_si[j] + tq * stderr[j]))

    relative = predicted / measured - 1.0
    notes = list(evaluate.assumptions)
    notes.append("fit: relative residuals (noise proportional to the value), "
                 f"{loss} loss with f_scale {f_scale:g}")
    if dof <= 0:
        notes.append("as many points as parameters: the fit is exact, its standard errors "
                     "and intervals are undefined (NaN)")
    apis_used = sorted(set(obs.apis))
    method = (f"scipy.optimize.least_squares (trf, {loss}, f_scale={f_scale:g}) on relative "
              "residuals; bandwidths fitted as ln(B/B0), times as t/t0 with t >= 0; "
              "cov = s^2 (J^T J)^-1 from central differences at the solution, "
              f"s^2 = sum r^2 / (n - p); {confidence:.0%} intervals from Student's t with "
              f"{dof} degrees of freedom (symmetric in ln B for bandwidths, clipped at 0 for "
              "times)")
    model_columns = sorted({QUANTITIES[q][0] for q in obs.quantities})
    model = ("icnperf.model.network.p2p_table (" + ", ".join(model_columns) + ") at api "
             + "/".join(apis_used) + "; latency_s = network.latency")
    return FitResult(
        parameters=tuple(labels),
        keys=_readonly_map({q.label: q.keys for q in params}),
        initial=_readonly_map({q.label: float(start[q.label]) for q in params}),
        values=_readonly_map({q.label: float(v) for q, v in zip(params, values_si)}),
        stderr=_readonly_map({q.label: float(s) for q, s in zip(params, stderr)}),
        intervals=_readonly_map(intervals),
        confidence=float(confidence),
        covariance=_frozen(covariance),
        labels=obs.labels,
        quantities=obs.quantities,
        units=tuple(QUANTITIES[q][1] for q in obs.quantities),
        apis=obs.apis,
        sizes=obs.sizes,
        hops=obs.hops,
        measured=_frozen(measured),
        predicted=_frozen(predicted),
        residuals=_frozen(predicted - measured),
        relative_errors=_frozen(relative),
        rms_relative_error=float(np.sqrt(np.mean(relative ** 2))),
        max_relative_error=float(np.max(np.abs(relative))),
        n_points=n,
        dof=dof,
        converged=bool(result.status > 0),
        status=int(result.status),
        message=str(result.message),
        nfev=int(result.nfev),
        loss=loss,
        f_scale=float(f_scale),
        model=model,
        method=method,
        assumptions=tuple(notes),
    )
