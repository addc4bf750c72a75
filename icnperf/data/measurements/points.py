"""Benchmark points: the uniform table every benchmark reader produces (:class:`BenchPoint`,
:class:`BenchData`), and the token readers and messages the OSU, IMB and CSV readers share.

A point is one measured number: its kind (:data:`KINDS`), message bytes, value in SI units
(``s``, ``B/s`` or ``1/s``) and the line it came from. Every problem is a one-line
:class:`~icnperf.errors.DataError` naming the file and, where it can, the line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from icnperf.errors import DataError
from icnperf.units import parse_quantity

KINDS: dict[str, str] = {
    "latency": "one-way latency of one message (half a ping-pong round trip), s",
    "bandwidth": "streaming bandwidth of one sender (osu_bw), B/s",
    "pingpong_bandwidth": "message bytes / one-way ping-pong latency (IMB PingPong), B/s",
    "bibandwidth": "bidirectional streaming bandwidth of one pair (osu_bibw), B/s",
    "multi_bandwidth": "aggregate streaming bandwidth of several pairs (osu_mbw_mr), B/s",
    "message_rate": "messages per second of several pairs (osu_mbw_mr), 1/s",
}
"""Point kinds and what their values are; collectives and other IMB benchmarks add kinds
named after the operation (``allreduce``, ``bcast``, ``pingping``, ...: a time in s)."""

S_PER_US = parse_quantity("1 us", "time")
"""Conversion factors from the units benchmarks print (from :mod:`icnperf.units`)."""
S_PER_MS = parse_quantity("1 ms", "time")
BPS_PER_MB = parse_quantity("1 MB/s", "bandwidth")      # 10^6 B/s
BPS_PER_MIB = parse_quantity("1 MiB/s", "bandwidth")    # 2^20 B/s

_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_INTEGER_RE = re.compile(r"[0-9]+", re.ASCII)
_NONFINITE_RE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
ROW_START_RE = re.compile(r"[+-]?\.?[0-9]", re.ASCII)
"""A line that starts like a number is a data row (and must parse)."""
MAX_BYTES = 2**53
"""The largest message size read (bytes stay exact as float64 below it)."""


# ------------------------------------------------------------------------------ the table


@dataclass(frozen=True)
class BenchPoint:
    """One measured number.

    ``kind`` (see :data:`KINDS`), ``bytes`` (message size), ``value`` in ``unit`` (``s``,
    ``B/s`` or ``1/s``), ``line`` (1-based line in the source), ``benchmark`` (e.g.
    ``osu_latency``, ``IMB PingPong``, ``csv``), and what the source says about ``hops``,
    ``api`` (``mpi``, ``shmem``, ``none``) and ``processes`` (None when it does not say).
    """

    kind: str
    bytes: int
    value: float
    unit: str
    line: int
    benchmark: str
    hops: float | None = None
    api: str | None = None
    processes: int | None = None


@dataclass(frozen=True)
class BenchData:
    """The points read from one source, in file order, with the source's ``origin`` (file
    name), its ``format`` and ``notes`` (versions, unit conventions, skipped lines)."""

    origin: str
    format: str
    points: tuple[BenchPoint, ...]
    notes: tuple[str, ...] = field(default=())

    def __len__(self) -> int:
        return len(self.points)

    def __iter__(self) -> Iterator[BenchPoint]:
        return iter(self.points)

    def kinds(self) -> tuple[str, ...]:
        """The kinds present, in order of first appearance."""
        return tuple(dict.fromkeys(p.kind for p in self.points))

    def select(self, *kinds: str) -> BenchData:
        """The points of the given kinds (same origin, format and notes)."""
        return replace(self, points=tuple(p for p in self.points if p.kind in kinds))

    def column(self, name: str) -> np.ndarray:
        """One attribute of every point as an array (``bytes``, ``value``, ``line``, ...)."""
        if name not in BenchPoint.__dataclass_fields__:
            raise KeyError(f"BenchPoint has no field {name!r}")
        values = [getattr(p, name) for p in self.points]
        if name in ("kind", "unit", "benchmark", "api"):
            return np.array(values, dtype=object)
        return np.array([np.nan if v is None else v for v in values], dtype=float)

    def rows(self) -> list[dict[str, Any]]:
        """Every point as a plain dict (for tables, JSON, CSV)."""
        return [{name: getattr(p, name) for name in BenchPoint.__dataclass_fields__}
                for p in self.points]


# ------------------------------------------------------------------------------- messages


def show(text: str) -> str:
    """A token quoted for a message: one line, not too long."""
    text = text if len(text) <= 40 else text[:37] + "..."
    return repr(text)


def error(origin: str, problem: str, line: int | None = None) -> DataError:
    """A one-line DataError: ``origin[, line N]: problem``."""
    where = origin if line is None else f"{origin}, line {line}"
    return DataError(" ".join(f"{where}: {problem}".split()))


def read_number(token: str, origin: str, line: int, what: str) -> float:
    """A finite, non-negative number; DataError naming the file and line otherwise."""
    if _NONFINITE_RE.fullmatch(token):
        raise error(origin, f"{what} {show(token)} is not a finite number", line)
    if not _NUMBER_RE.fullmatch(token):
        raise error(origin, f"{what} {show(token)} is not a number", line)
    value = float(token) + 0.0
    if not math.isfinite(value):
        raise error(origin, f"{what} {show(token)} is too large", line)
    if value < 0:
        raise error(origin, f"{what} {show(token)} is negative", line)
    return value


def read_size(token: str, origin: str, line: int) -> int:
    """A message size: a whole number of bytes up to :data:`MAX_BYTES`."""
    if _INTEGER_RE.fullmatch(token) and len(token) > 16:
        raise error(origin, f"message size {show(token)} is too large", line)
    if not _INTEGER_RE.fullmatch(token):
        if _NUMBER_RE.fullmatch(token) and token.startswith("-"):
            raise error(origin, f"message size {show(token)} is negative", line)
        raise error(origin, f"message size {show(token)} is not a whole number of bytes",
                    line)
    size = int(token)
    if size > MAX_BYTES:
        raise error(origin, f"message size {show(token)} is too large", line)
    return size


def require_positive(value: float, token: str, origin: str, line: int, what: str) -> float:
    """``value`` when > 0 (a measured time or rate); DataError naming the line otherwise."""
    if value <= 0:
        raise error(origin, f"{what} {show(token)} is not positive (a measured time or "
                    "rate must be > 0)", line)
    return value


def text_lines(text: str) -> list[str]:
    """The lines of a benchmark text, a leading byte-order mark dropped."""
    return text.removeprefix("\ufeff").splitlines()


def content_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number from 1, the line stripped) of every non-blank line of a benchmark text:
    what the OSU and IMB readers walk through."""
    for number, raw in enumerate(text_lines(text), 1):
        stripped = raw.strip()
        if stripped:
            yield number, stripped


def skipped_note(skipped: int) -> list[str]:
    """The note counting lines a reader skipped (neither comment nor data); none for 0."""
    if not skipped:
        return []
    return [f"{skipped} line{'s' if skipped != 1 else ''} that "
            f"{'are' if skipped != 1 else 'is'} neither comment nor data skipped"]
