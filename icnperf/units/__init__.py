"""Quantities with units <-> SI floats, and the CLI's range syntax; nothing else.

Inside icnperf every quantity is an SI float: seconds, bytes, bytes/s, Hz, FLOP/s. This package
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

The package is split by job; everything in ``__all__`` is re-exported here, so callers
write ``from icnperf.units import parse_quantity`` (or ``from icnperf import units``):

* ``kinds``: the kinds, their units and exact factors, :data:`KINDS`,
  :func:`accepted_units`, each kind's SI unit (:data:`SI_UNITS`);
* ``quantities``: :func:`parse_quantity`, :func:`format_quantity` and :func:`byte_count`
  (a byte count with thousands separators);
* ``ranges``: :func:`parse_range` and :data:`MAX_RANGE_POINTS`.
"""

from __future__ import annotations

from icnperf.units.kinds import KINDS, SI_UNITS, accepted_units
from icnperf.units.quantities import byte_count, format_quantity, parse_quantity
from icnperf.units.ranges import MAX_RANGE_POINTS, parse_range

__all__ = [
    "KINDS",
    "MAX_RANGE_POINTS",
    "SI_UNITS",
    "accepted_units",
    "byte_count",
    "format_quantity",
    "parse_quantity",
    "parse_range",
]
