"""The kinds of quantity and their units: each spelling's exact factor to SI, output ladders,
and the hints that explain a rejected unit.

One :class:`_Kind` per row of the table in :mod:`icnperf.units` (time, bandwidth, size,
frequency, rate, count, cycles, number), collected in :data:`KINDS`. Factors are exact
``Decimal`` numbers (SI prefixes are powers of ten, binary prefixes powers of two, a bit is
1/8 byte), so parsing and formatting round-trip without float error. Sources: the SI
prefixes (BIPM, *The International System of Units*) and the IEC binary prefixes (IEC
80000-13: Ki, Mi, Gi, Ti).
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass, field
from decimal import Decimal


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
"""Every kind icnperf.units parses and formats, by name."""

SI_UNITS: dict[str, str] = {"time": "s", "bandwidth": "B/s", "size": "B", "frequency": "Hz",
                            "rate": "FLOP/s"}
"""The unit of icnperf's SI floats of each kind with one (its spelling of factor 1 in
:data:`KINDS`), as JSON and CSV rows name it in their ``unit`` fields."""



def _kind(kind: str) -> _Kind:
    try:
        return KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown quantity kind {kind!r} (known: {', '.join(KINDS)})") from None


def accepted_units(kind: str) -> str:
    """The units a kind accepts, as shown in error messages and docs."""
    return _kind(kind).accepted

