"""How sure an input is, as numbers to sample: draws of one value within its stated spread,
the correlation rule of calibrated sums, and the quantiles of a sampled prediction.

A spread is one of (docs/machine-format.md, "Uncertainty"):

- ``exact``: the value itself;
- ``relative`` r: uniform on [v (1 - r), v (1 + r)];
- ``factor`` f: log-uniform on [v / f, v f] (placeholders: "within a factor of f");
- ``absolute`` a (the value's SI unit): uniform on [v - a, v + a];
- ``alternatives``: one of the listed values, each as likely (a discrete choice).

Uniform within the bounds, because a source that gives a bound says nothing of a shape
inside it (the distribution of largest entropy on an interval). The ranges icnperf prints
are the 5th and 95th percentiles of the prediction over the draws (:data:`LOW`,
:data:`HIGH`). Pure: NumPy only, no machine and no I/O.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

FORMS = ("exact", "relative", "factor", "absolute", "alternatives")
"""The shapes a spread takes."""

LOW, HIGH = 0.05, 0.95
"""The quantiles reported as a prediction's low and high end."""


def draw(value, form: str, amount, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` draws of ``value`` within its spread (``form``, ``amount``; see the module
    docstring). Numeric forms return floats (callers clip and round to the key's rules);
    ``alternatives`` returns an object array of the listed values."""
    if form == "exact":
        return np.full(count, value, dtype=object if isinstance(value, str) else float)
    if form == "alternatives":
        choices = list(amount)
        picks = rng.integers(0, len(choices), count)
        return np.array([choices[i] for i in picks], dtype=object)
    v = float(value)
    if form == "relative":
        return v * rng.uniform(1.0 - amount, 1.0 + amount, count)
    if form == "factor":
        spread = math.log(amount)
        return v * np.exp(rng.uniform(-spread, spread, count))
    if form == "absolute":
        return v + rng.uniform(-amount, amount, count)
    raise ValueError(f"unknown spread form {form!r}")


def solved_sum(total: np.ndarray, parts: Sequence[np.ndarray]) -> np.ndarray:
    """The correlation rule of a value solved from a measured sum: the value is the sum's
    draw (the measurement within its uncertainty) less the drawn parts it was solved with,
    so value + parts stays the measurement in every draw (never below 0)."""
    out = np.asarray(total, dtype=float).copy()
    for part in parts:
        out = out - np.asarray(part, dtype=float)
    return np.maximum(out, 0.0)


def quantiles(samples: np.ndarray, low: float = LOW, high: float = HIGH):
    """(low, high) quantiles over the first axis (draws) of ``samples``; NaN draws (a
    quantity that does not apply) are left out, all-NaN gives NaN."""
    samples = np.asarray(samples, dtype=float)
    with np.errstate(all="ignore"):
        if np.isnan(samples).any():
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return (np.nanquantile(samples, low, axis=0),
                        np.nanquantile(samples, high, axis=0))
        return np.quantile(samples, low, axis=0), np.quantile(samples, high, axis=0)


def relative_width(value: float, form: str, amount) -> float:
    """A spread as a relative half-width of the value, to first order: r for a relative r,
    a / |v| for an absolute a, ln F for a factor F (the half-width of ln v), 0 for exact
    and for alternatives (a discrete choice has no derivative)."""
    if form == "relative":
        return float(amount)
    if form == "factor":
        return math.log(amount)
    if form == "absolute":
        return float(amount) / abs(value) if value else 0.0
    return 0.0


def range_shares(elasticities: Sequence[float], widths: Sequence[float]) -> list[float]:
    """Each input's share of a prediction's range, to first order: |e_x| w_x over the sum
    over inputs (e_x the elasticity dT/dx x/T, w_x the input's relative half-width), so
    |e_x| w_x is the relative half-width of T that x alone gives. All 0 when no input has
    a spread."""
    parts = [abs(e) * w for e, w in zip(elasticities, widths)]
    total = sum(parts)
    return [p / total if total else 0.0 for p in parts]
