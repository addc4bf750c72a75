"""The CLI's range syntax: ``8..8192:x2`` (geometric), ``0.05..0.5:0.05`` (arithmetic),
``8,64,512`` (a list) or one value, expanded into a NumPy array of SI values.

Each element is a quantity of a kind (:func:`icnperf.units.parse_quantity`); counts and
cycles give int64 arrays, every other kind float64. A progression's end is included within a
relative 1e-9 (float round-off); at most :data:`MAX_RANGE_POINTS` points. The syntax is
documented in docs/cli-conventions.md.
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.errors import InputError
from icnperf.units.kinds import _Kind, _kind
from icnperf.units.quantities import _show, parse_quantity

MAX_RANGE_POINTS = 10**6
"""Largest number of points a range may expand to."""

_RANGE_TOLERANCE = 1e-9
"""Relative slack with which a range's end is still included (float round-off)."""


def _range_error(text: str, problem: str) -> InputError:
    return InputError(
        f"invalid range {_show(text)}: {problem} "
        "(forms: 8..8192:x2 geometric, 0.05..0.5:0.05 arithmetic, 8,64,512 list, or one value)"
    )


def parse_range(
    text: str, kind: str | None = None, default_unit: str | None = None
) -> np.ndarray:
    """Expand the CLI range syntax into a NumPy array.

    * ``START..END:xF`` geometric (F > 1, START > 0): START, START·F, ... up to END;
    * ``START..END:STEP`` arithmetic (STEP > 0): START, START+STEP, ... up to END;
    * ``A,B,C`` a list, kept in the given order;
    * a single value.

    END is included when the progression reaches it within a relative 1e-9 (float round-off);
    such a last point is set to END exactly. Elements carry units of ``kind`` (default: plain
    numbers); ``default_unit`` applies to bare numbers. Counts and cycles give an int64 array,
    every other kind float64. Raises :class:`InputError` for empty ranges (START > END),
    non-positive steps, factors ≤ 1, more than ``MAX_RANGE_POINTS`` points, or bad elements.
    """
    kind = "number" if kind is None else kind
    k = _kind(kind)
    if not isinstance(text, str):
        raise _range_error(str(text), f"expected text, got {type(text).__name__}")
    body = text.strip()
    if not body:
        raise _range_error(text, "empty")
    if ".." in body:
        if "," in body:
            raise _range_error(text, "mixes a START..END range with a comma list")
        values = _progression(text, body, k, default_unit)
    elif "," in body:
        items = body.split(",")
        if len(items) > MAX_RANGE_POINTS:
            raise _range_error(text, f"more than {MAX_RANGE_POINTS} values")
        if any(not item.strip() for item in items):
            raise _range_error(text, "empty list element")
        values = np.array([parse_quantity(item, kind, default_unit) for item in items])
    else:
        values = np.array([parse_quantity(body, kind, default_unit)])
    if k.integer:
        rounded = np.round(values)
        if not np.allclose(values, rounded, rtol=_RANGE_TOLERANCE, atol=0):
            bad = values[~np.isclose(values, rounded, rtol=_RANGE_TOLERANCE, atol=0)][0]
            raise _range_error(
                text, f"gives a non-whole {k.name} value ({bad:g}); use an integer factor or a list"
            )
        if np.any(rounded > 2.0**62):
            raise _range_error(text, f"{k.name} values too large")
        return rounded.astype(np.int64)
    return values.astype(np.float64)


def _progression(text: str, body: str, k: _Kind, default_unit: str | None) -> np.ndarray:
    start_text, _, rest = body.partition("..")
    end_text, colon, step_text = rest.rpartition(":")
    if not colon:
        raise _range_error(text, "no step: add ':x2' (geometric) or ':STEP' (arithmetic)")
    if not start_text.strip() or not end_text.strip() or not step_text.strip():
        raise _range_error(text, "START, END and STEP must all be given")
    start = parse_quantity(start_text, k.name, default_unit)
    end = parse_quantity(end_text, k.name, default_unit)
    if start > end:
        raise _range_error(text, "empty: START is greater than END")
    step_text = step_text.strip()
    geometric = step_text[:1] in ("x", "X", "*")
    if geometric:
        factor = parse_quantity(step_text[1:], "number")
        if not factor > 1:
            raise _range_error(text, f"geometric factor must be greater than 1, got {factor:g}")
        if start <= 0:
            raise _range_error(text, "a geometric range must start above 0")
    else:
        step = parse_quantity(step_text, k.name, default_unit)
        if not step > 0:
            raise _range_error(text, "step must be greater than 0")
    if start == end:
        return np.array([start])
    if geometric:
        span = (math.log(end) - math.log(start)) / math.log(factor)
        slack = _RANGE_TOLERANCE * end

        def points(i: np.ndarray) -> np.ndarray:
            i = i.astype(np.float64)
            with np.errstate(over="ignore", invalid="ignore"):
                direct = start * factor**i
                logged = np.exp(math.log(start) + i * math.log(factor))
            return np.where(np.isfinite(direct), direct, logged)

    else:
        span = (end - start) / step
        slack = _RANGE_TOLERANCE * max(end, step)

        def points(i: np.ndarray) -> np.ndarray:
            return start + step * i.astype(np.float64)

    if not math.isfinite(span) or span > MAX_RANGE_POINTS:
        raise _range_error(text, f"would give more than {MAX_RANGE_POINTS} points")
    n = int(math.floor(span)) + 1
    # floor() of a rounded span may be one off either way; settle n on the points themselves
    for _ in range(2):
        if points(np.array([n]))[0] <= end + slack:
            n += 1
    for _ in range(2):
        if n > 1 and points(np.array([n - 1]))[0] > end + slack:
            n -= 1
    if n > MAX_RANGE_POINTS:
        raise _range_error(text, f"would give more than {MAX_RANGE_POINTS} points")
    values = points(np.arange(n))
    if n > 1 and values[-1] >= end - slack:
        values[-1] = end
    if n > 1 and not np.all(np.diff(values) > 0):
        raise _range_error(text, "step too small to tell consecutive values apart")
    return values
