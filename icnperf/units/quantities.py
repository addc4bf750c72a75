"""Text with a unit <-> an SI float: :func:`parse_quantity` and :func:`format_quantity`.

Parsing reads ``"80 ns"``-style text of a kind (:mod:`icnperf.units.kinds`) into an SI float
(seconds, bytes, bytes/s, Hz, FLOP/s, counts), exactly: the number and the unit's factor are
multiplied as decimals before one rounding to float. A rejected text gets a one-line
:class:`~icnperf.errors.InputError` naming the problem, the accepted units and an example.
Formatting picks a readable unit from the kind's ladder, to a number of significant digits
or as the shortest text that parses back to the same float. The output conventions are in
:mod:`icnperf.units`.
"""

from __future__ import annotations

import decimal
import math
import re
import sys
from decimal import Decimal

from icnperf.errors import InputError
from icnperf.units.kinds import _CONTEXT, KINDS, _Kind, _kind

_NUMBER_RE = re.compile(r"([+-]?)((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)(.*)", re.S)
_NONFINITE_RE = re.compile(r"[+-]?(nan|inf|infinity)\b", re.I)


# ------------------------------------------------------------------------------------ parsing


def _show(text: str) -> str:
    """The offending text for a message: quoted, on one line, not too long."""
    text = text if len(text) <= 40 else text[:37] + "..."
    return repr(text)


def _fail(k: _Kind, text: str, problem: str) -> InputError:
    return InputError(
        f"invalid {k.name} {_show(text)}: {problem} (accepted: {k.accepted}; e.g. {k.example!r})"
    )


def parse_quantity(text: str | int | float, kind: str, default_unit: str | None = None) -> float:
    """Parse ``"80 ns"``-style text of the given kind into an SI float.

    ``default_unit`` (one of the kind's units) applies to a bare number, e.g. ``"B"`` so that
    ``--bytes 8`` means 8 bytes; without it a bare number is an error for dimensioned kinds.
    Python numbers are accepted as bare numbers. Raises :class:`InputError` naming the problem
    and the accepted units (negative, not finite, too large, a non-zero value too small for a
    normal float, a size between 0 and one byte); ``ValueError`` for an unknown *kind* (a
    programming error).
    """
    k = _kind(kind)
    if default_unit is not None and default_unit not in k.units:
        raise ValueError(f"default unit {default_unit!r} is not a {k.name} unit")
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise _fail(k, str(text), f"expected text, got {type(text).__name__}")
    if isinstance(text, (int, float)):
        if isinstance(text, float) and not math.isfinite(text):
            raise _fail(k, repr(text), "not a finite number")
        text = repr(text)
    raw = text
    text = text.strip()
    if not text:
        raise _fail(k, raw, "empty")
    if _NONFINITE_RE.match(text):
        raise _fail(k, raw, "not a finite number")
    match = _NUMBER_RE.fullmatch(text)
    if match is None:
        raise _fail(k, raw, "does not start with a number")
    sign, number, unit = match.group(1), match.group(2), match.group(3).strip()
    if not math.isfinite(float(number)):
        raise _fail(k, raw, "number too large")
    if unit:
        factor = k.units.get(unit)
        if factor is None:
            raise _fail(k, raw, _unknown_unit_problem(k, unit))
    elif k.bare_ok or float(number) == 0:
        factor = Decimal(1)  # a bare zero is zero in any unit
    elif default_unit is not None:
        factor = k.units[default_unit]
    else:
        raise _fail(k, raw, f"no unit; write e.g. '{number} {_first_unit(k)}'")
    try:
        exact = _CONTEXT.multiply(Decimal(number), factor)
        value = float(exact)
    except (decimal.DecimalException, OverflowError):
        raise _fail(k, raw, "number out of range") from None
    if not math.isfinite(value):
        raise _fail(k, raw, "number too large")
    if exact != 0 and abs(value) < sys.float_info.min:
        raise _fail(k, raw, "number too small (it underflows a float; results would not be"
                    " finite)")
    if k.name == "size" and 0 < value < 1:
        raise _fail(k, raw, "below one byte (a byte cannot be divided)")
    if sign == "-" and value != 0.0:
        raise _fail(k, raw, "negative values are not allowed")
    if k.integer and exact != exact.to_integral_value():
        raise _fail(k, raw, "must be a whole number")
    if k.integer and value > MAX_WHOLE:
        raise _fail(k, raw, f"too large (at most {MAX_WHOLE:.3g}, where floats stop being exact)")
    return value + 0.0  # normalizes -0.0


MAX_WHOLE = 2.0**53
"""Largest whole count accepted: beyond 2^53 a float no longer holds every integer."""


def _first_unit(k: _Kind) -> str:
    return k.example.split(" ", 1)[1] if " " in k.example else ""


def _unknown_unit_problem(k: _Kind, unit: str) -> str:
    if unit in k.hints:
        return k.hints[unit]
    folded = [u for u in k.units if u.lower() == unit.lower()]
    if folded:
        return f"unknown unit {unit!r} (units are case-sensitive; did you mean {folded[0]!r}?)"
    for other in KINDS.values():
        if other is not k and unit in other.units:
            return f"{unit!r} is a {other.name} unit, not a {k.name} unit"
    if not k.units:
        return f"takes no unit, got {unit!r}"
    return f"unknown unit {unit!r}"


# --------------------------------------------------------------------------------- formatting


def _plain(d: Decimal) -> str:
    """A Decimal as plain text: no exponent for ordinary magnitudes, no trailing zeros."""
    d = d.normalize(_CONTEXT)
    if d == 0:
        return "0"
    exponent = d.adjusted()
    if -5 <= exponent <= 21:
        text = format(d, "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return text
    return format(d, "e").replace("E", "e")


def _round_sig(d: Decimal, digits: int) -> Decimal:
    if d == 0:
        return d
    quantum = Decimal(1).scaleb(d.adjusted() - digits + 1)
    return d.quantize(quantum, rounding=decimal.ROUND_HALF_EVEN, context=_CONTEXT)


def _mantissa_text(value: float, factor: Decimal, digits: int | None) -> str:
    """``value / factor`` as text: ``digits`` significant digits, or the shortest exact one."""
    exact = _CONTEXT.divide(Decimal(value), factor)
    if digits is not None:
        return _plain(_round_sig(exact, digits))
    for n in range(1, 30):
        candidate = _round_sig(exact, n)
        if float(_CONTEXT.multiply(candidate, factor)) == value:
            return _plain(candidate)
    return _plain(exact)  # pragma: no cover - 17 digits always suffice


def _pick(value: float, k: _Kind, ladder: tuple[str, ...], digits: int | None) -> tuple[str, str]:
    """Choose the largest ladder unit not above ``value`` (stepping up if rounding reaches the
    next one) and return (mantissa text, unit)."""
    index = 0
    for i, unit in enumerate(ladder):
        if value >= k.units[unit]:
            index = i
    text = _mantissa_text(value, k.units[ladder[index]], digits)
    if index + 1 < len(ladder):
        step = k.units[ladder[index + 1]] / k.units[ladder[index]]
        if Decimal(text) >= step:
            index += 1
            text = _mantissa_text(value, k.units[ladder[index]], digits)
    return text, ladder[index]


def format_quantity(
    value: float, kind: str, digits: int | None = 3, unit: str | None = None
) -> str:
    """Format an SI value of the given kind with a readable prefix: ``"80 ns"``, ``"9.38 GB/s"``.

    ``digits`` is the number of significant digits (trailing zeros dropped); ``None`` gives the
    shortest text that :func:`parse_quantity` reads back as exactly ``value``. ``unit`` forces
    an output unit of the kind (e.g. ``"Gbit/s"``). NaN and infinities print as ``nan``/``inf``.
    """
    k = _kind(kind)
    if digits is not None and (not isinstance(digits, int) or digits < 1):
        raise ValueError(f"digits must be a positive integer or None, got {digits!r}")
    value = float(value)
    if not math.isfinite(value):
        return str(value)
    if value < 0:
        return "-" + format_quantity(-value, kind, digits, unit)
    if unit is not None:
        if unit not in k.units:
            raise ValueError(f"{unit!r} is not a {k.name} unit (accepted: {k.accepted})")
        return f"{_mantissa_text(value, k.units[unit], digits)} {unit}"
    if not k.ladder:
        exact = k.integer and value.is_integer()  # whole counts print in full
        text = _mantissa_text(value, Decimal(1), None if exact else digits)
        return f"{text} cycles" if k.name == "cycles" else text
    if value == 0:
        return f"0 {k.ladder[0] if k.name != 'time' else 's'}"
    if k.binary_ladder:
        text, chosen = _pick(value, k, k.binary_ladder, digits)
        if float(_CONTEXT.multiply(Decimal(text), k.units[chosen])) == value:
            return f"{text} {chosen}"
    text, chosen = _pick(value, k, k.ladder, digits)
    return f"{text} {chosen}"


def byte_count(m: float) -> str:
    """A byte count for text: whole bytes with thousands separators (163,840,000), a
    fraction to one decimal (635,130.2), beyond 1e15 in powers of ten."""
    if abs(m) >= 1e15:
        return f"{m:.6g}"
    if m == int(m):
        return f"{int(m):,}"
    return f"{m:,.1f}"
