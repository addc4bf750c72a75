"""Quantities with units <-> SI floats, and the CLI's range syntax; nothing else.

Inside icnperf every quantity is an SI float: seconds, bytes, bytes/s, Hz, FLOP/s. This module
is the only place that reads or writes human units ("80 ns", "75 Gbit/s", "2 KiB").

Kinds and the units each accepts (case-sensitive, as in SI; whitespace between number and
unit is optional):

========== ==================================================================================
time       s, ms, us (= µs = μs), ns, ps
bandwidth  B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s (bytes per second);
           bit/s, kbit/s, Mbit/s, Gbit/s, Tbit/s and bps, kbps, Mbps, Gbps, Tbps (bits, /8)
size       B (= byte = bytes), kB, MB, GB, TB, KiB, MiB, GiB, TiB
frequency  Hz, kHz, MHz, GHz, THz
rate       FLOP/s with prefix k, M, G, T, P, E (also written FLOPS, flop/s, Gflops, ...)
count      a bare non-negative integer, no unit
cycles     a non-negative integer, bare or followed by "cycles" / "cycle"
number     a bare non-negative real, no unit
========== ==================================================================================

Rejected as ambiguous, with a message saying what to write instead: ``KB`` (1000 or 1024?),
``Gb/s``-style bit/byte abbreviations (``b`` vs ``B`` is easy to mistype), ``b`` for sizes.

Output conventions of :func:`format_quantity`: time picks ps/ns/µs/ms/s; bandwidth is printed
in **bytes per second with decimal prefixes** (GB/s) unless the caller names a unit (e.g.
``unit="Gbit/s"`` for link rates); sizes use a binary prefix (KiB, MiB, ...) when it shows the
value exactly at the requested digits and a decimal prefix otherwise; ``digits=None`` gives the
shortest text that parses back to exactly the same float.
"""

from __future__ import annotations

import decimal
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np

from icnperf.errors import InputError

__all__ = [
    "KINDS",
    "MAX_RANGE_POINTS",
    "accepted_units",
    "format_quantity",
    "parse_quantity",
    "parse_range",
]

MAX_RANGE_POINTS = 10**6
"""Largest number of points a range may expand to."""

_RANGE_TOLERANCE = 1e-9
"""Relative slack with which a range's end is still included (float round-off)."""

_CONTEXT = decimal.Context(
    prec=60, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN, traps=[decimal.InvalidOperation]
)


def _d(text: str) -> Decimal:
    return Decimal(text)


_K, _M, _G, _T, _P, _E = (_d("1e3"), _d("1e6"), _d("1e9"), _d("1e12"), _d("1e15"), _d("1e18"))
_KI, _MI, _GI, _TI = (Decimal(2) ** 10, Decimal(2) ** 20, Decimal(2) ** 30, Decimal(2) ** 40)
_BIT = _d("0.125")


@dataclass(frozen=True)
class _Kind:
    """One kind of quantity: its units (spelling -> exact factor to SI) and output ladders."""

    name: str
    units: dict[str, Decimal]
    accepted: str  # the accepted units as shown in error messages
    example: str  # a valid example, for messages
    ladder: tuple[str, ...] = ()  # output units, ascending
    binary_ladder: tuple[str, ...] = ()  # alternative exact binary ladder (sizes)
    bare_ok: bool = False  # a number without unit is valid
    integer: bool = False
    hints: dict[str, str] = field(default_factory=dict)  # unit spelling -> what to write


_TIME = _Kind(
    "time",
    {
        "s": Decimal(1),
        "ms": _d("1e-3"),
        "us": _d("1e-6"),
        "\u00b5s": _d("1e-6"),  # micro sign
        "\u03bcs": _d("1e-6"),  # Greek small letter mu
        "ns": _d("1e-9"),
        "ps": _d("1e-12"),
    },
    accepted="s, ms, us (or µs), ns, ps",
    example="80 ns",
    ladder=("ps", "ns", "\u00b5s", "ms", "s"),
    hints={
        "cycles": "cycles are not a time; give a time such as '10 ns' or use a cycles-valued key",
        "cycle": "cycles are not a time; give a time such as '10 ns' or use a cycles-valued key",
        "sec": "write 's'",
        "msec": "write 'ms'",
        "usec": "write 'us'",
        "nsec": "write 'ns'",
    },
)

_BANDWIDTH_UNITS: dict[str, Decimal] = {
    "B/s": Decimal(1),
    "kB/s": _K,
    "MB/s": _M,
    "GB/s": _G,
    "TB/s": _T,
    "KiB/s": _KI,
    "MiB/s": _MI,
    "GiB/s": _GI,
    "TiB/s": _TI,
    "bit/s": _BIT,
    "kbit/s": _K * _BIT,
    "Mbit/s": _M * _BIT,
    "Gbit/s": _G * _BIT,
    "Tbit/s": _T * _BIT,
    "bps": _BIT,
    "kbps": _K * _BIT,
    "Mbps": _M * _BIT,
    "Gbps": _G * _BIT,
    "Tbps": _T * _BIT,
}
_BITS_OR_BYTES = "ambiguous: write '{p}bit/s' for bits or '{p}B/s' for bytes per second"
_BANDWIDTH = _Kind(
    "bandwidth",
    _BANDWIDTH_UNITS,
    accepted="B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s, "
    "bit/s, kbit/s, Mbit/s, Gbit/s, Tbit/s, bps, kbps, Mbps, Gbps, Tbps",
    example="10 Gbit/s",
    ladder=("B/s", "kB/s", "MB/s", "GB/s", "TB/s"),
    hints={
        **{f"{p}b/s": _BITS_OR_BYTES.format(p=p) for p in ("", "k", "K", "M", "G", "T")},
        "KB/s": "ambiguous: write 'kB/s' (1000 B/s) or 'KiB/s' (1024 B/s)",
        "Kbit/s": "write 'kbit/s' (SI kilo is lower-case k)",
        "Kbps": "write 'kbps' (SI kilo is lower-case k)",
    },
)

_SIZE = _Kind(
    "size",
    {
        "B": Decimal(1),
        "byte": Decimal(1),
        "bytes": Decimal(1),
        "kB": _K,
        "MB": _M,
        "GB": _G,
        "TB": _T,
        "KiB": _KI,
        "MiB": _MI,
        "GiB": _GI,
        "TiB": _TI,
    },
    accepted="B, kB, MB, GB, TB, KiB, MiB, GiB, TiB",
    example="256 B",
    ladder=("B", "kB", "MB", "GB", "TB"),
    binary_ladder=("B", "KiB", "MiB", "GiB", "TiB"),
    hints={
        "KB": "ambiguous: write 'kB' (1000 B) or 'KiB' (1024 B)",
        **{
            f"{p}b": f"'{p}b' means bits; sizes are in bytes: write '{p or ''}B'"
            for p in ("", "k", "M", "G", "T")
        },
        "Kb": "'Kb' means kilobits; sizes are in bytes: write 'kB' or 'KiB'",
        "flits": "give sizes in bytes; multiply by the flit size",
        "flit": "give sizes in bytes; multiply by the flit size",
    },
)

_FREQUENCY = _Kind(
    "frequency",
    {"Hz": Decimal(1), "kHz": _K, "MHz": _M, "GHz": _G, "THz": _T},
    accepted="Hz, kHz, MHz, GHz, THz",
    example="500 MHz",
    ladder=("Hz", "kHz", "MHz", "GHz", "THz"),
)

_FLOP_PREFIXES = {"": Decimal(1), "k": _K, "M": _M, "G": _G, "T": _T, "P": _P, "E": _E}
_FLOP_BODIES = ("FLOP/s", "FLOPS", "Flop/s", "Flops", "flop/s", "flops", "FLOP/S")
_RATE = _Kind(
    "rate",
    {f"{p}{body}": f for p, f in _FLOP_PREFIXES.items() for body in _FLOP_BODIES},
    accepted="FLOP/s, kFLOP/s, MFLOP/s, GFLOP/s, TFLOP/s, PFLOP/s, EFLOP/s "
    "(FLOPS, flop/s and flops spellings too)",
    example="140.8 GFLOP/s",
    ladder=tuple(f"{p}FLOP/s" for p in ("", "k", "M", "G", "T", "P", "E")),
    hints={
        f"{p}{body}": f"write '{p.upper()}FLOP/s' (prefixes are case-sensitive)"
        for p in ("g", "m", "t", "p")
        for body in _FLOP_BODIES
    },
)

_COUNT = _Kind(
    "count",
    {},
    accepted="a whole number without unit",
    example="16",
    bare_ok=True,
    integer=True,
)

_CYCLES = _Kind(
    "cycles",
    {"cycles": Decimal(1), "cycle": Decimal(1)},
    accepted="a whole number of clock cycles, bare or followed by 'cycles'",
    example="5 cycles",
    bare_ok=True,
    integer=True,
)

_NUMBER = _Kind(
    "number",
    {},
    accepted="a plain number without unit",
    example="0.5",
    bare_ok=True,
)

KINDS: dict[str, _Kind] = {
    k.name: k for k in (_TIME, _BANDWIDTH, _SIZE, _FREQUENCY, _RATE, _COUNT, _CYCLES, _NUMBER)
}
"""Every kind this module parses and formats, by name."""

_NUMBER_RE = re.compile(r"([+-]?)((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)(.*)", re.S)
_NONFINITE_RE = re.compile(r"[+-]?(nan|inf|infinity)\b", re.I)


def _kind(kind: str) -> _Kind:
    try:
        return KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown quantity kind {kind!r} (known: {', '.join(KINDS)})") from None


def accepted_units(kind: str) -> str:
    """The units a kind accepts, as shown in error messages and docs."""
    return _kind(kind).accepted


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
    and the accepted units; ``ValueError`` for an unknown *kind* (a programming error).
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


# ------------------------------------------------------------------------------------- ranges


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
