"""Benchmark output as a table of points: OSU micro-benchmarks, Intel MPI Benchmarks, our CSV.

Users calibrate from what they already have. This module reads three kinds of text into one
uniform :class:`BenchData` table of :class:`BenchPoint` records (kind, message bytes, value
in SI units, the line it came from), for ``icnperf.data.calibrated`` to fit:

``osu``
    The text output of the OSU micro-benchmarks (one or several tests in one file): a title
    line ``# OSU MPI Latency Test v7.3``, a column line ``# Size  Latency (us)``, then rows
    ``SIZE VALUE [more columns]``. Tests read: osu_latency (``latency``), osu_bw
    (``bandwidth``), osu_bibw (``bibandwidth``), osu_mbw_mr (``multi_bandwidth``,
    ``message_rate``) and the blocking collectives (osu_allreduce -> ``allreduce``,
    osu_reduce, osu_bcast -> ``bcast``, osu_allgather, osu_alltoall, osu_gather,
    osu_scatter, osu_reduce_scatter, osu_barrier and their v-variants), whose first value
    column is the average latency.
``imb``
    The text output of Intel MPI Benchmarks (IMB-MPI1): sections ``# Benchmarking NAME`` with
    ``# #processes = N`` and a column line ``#bytes #repetitions t[usec] Mbytes/sec`` (or
    ``t_min[usec] t_max[usec] t_avg[usec]``). PingPong gives ``latency`` (``t[usec]``) and
    ``pingpong_bandwidth`` (``Mbytes/sec``); every other benchmark gives points of its own
    lower-case name (``allreduce``, ``pingping``, ``sendrecv``, ``bcast``, ``barrier``, ...)
    from ``t_avg[usec]`` (``t[usec]`` when that is the only time), and Uniband/Biband their
    ``Mbytes/sec``.
``csv``
    icnperf's measurement CSV (``docs/measurement-format.md``, read by
    :mod:`icnperf.data.measurements.tables`, with its sidecar when there is one): a ``message_bytes`` (or
    ``bytes``) column and ``latency_s`` and/or ``bandwidth_bytes_per_s`` (streaming) and/or
    ``pingpong_bandwidth_bytes_per_s``; optional ``hops`` (router-to-router hops between the
    two nodes) and ``api`` (MPI, SHMEM or none). Rows marked ``excluded`` are left out.

Units (conversion factors come from :mod:`icnperf.units`):

* OSU latencies are microseconds (``Latency (us)``, ``Avg Latency(us)``); osu_latency
  prints half the round trip, i.e. the one-way latency. OSU ``MB/s`` is **10^6 bytes/s**:
  the benchmarks divide the bytes moved by 1e6 (osu_bw: size / 1e6 × iterations × window /
  time).
* IMB times are microseconds (``t[usec]``; PingPong's is half the round trip). IMB
  ``Mbytes/sec`` changed meaning: IMB 3.x and 4.x (``Intel (R) MPI Benchmark Suite V3.2.4``)
  divide by 2^20 (1 Mbyte = 1 MiB = 1,048,576 bytes); the releases numbered by year from
  2018 on (``Intel(R) MPI Benchmarks 2019 Update 6``, ``2021.3``) divide by 10^6. The file
  decides where it can: PingPong's ``Mbytes/sec`` is ``#bytes / t[usec]`` in IMB's Mbyte, so
  comparing the two columns shows which Mbyte the file uses; without PingPong rows the
  version line decides; without either, 10^6 (current IMB) is assumed and the notes say so.

Detection (:func:`detect_format`): a ``# OSU ...`` title line means ``osu``; an ``Intel(R) MPI
Benchmark`` banner or ``# Benchmarking NAME`` section means ``imb``; a first line of
comma-separated column names means ``csv``. ``format=`` overrides detection.

Every problem is a one-line :class:`~icnperf.errors.DataError` naming the file and, where it
can, the line: empty files, files without data rows, unparsable or non-finite numbers,
negative or zero values, unknown formats and unsupported tests. Lines that are neither
comments nor data rows (MPI launcher chatter such as ``[node01:1234] mca: ...``, text before
the first title) are skipped and counted in the notes; a line that starts like a number is a
data row and must parse.
"""

from __future__ import annotations

import math
import os
import re
import statistics
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from icnperf.errors import DataError, InputError
from icnperf.data.files import read_text_file
from icnperf.units import parse_quantity

__all__ = [
    "FORMATS",
    "KINDS",
    "BenchData",
    "BenchPoint",
    "detect_format",
    "from_table",
    "load_bench",
    "parse_text",
    "points_of",
]

FORMATS = ("osu", "imb", "csv")
"""The formats :func:`detect_format` recognises and ``format=`` accepts."""

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

_S_PER_US = parse_quantity("1 us", "time")
_S_PER_MS = parse_quantity("1 ms", "time")
_BPS_PER_MB = parse_quantity("1 MB/s", "bandwidth")      # 10^6 B/s
_BPS_PER_MIB = parse_quantity("1 MiB/s", "bandwidth")    # 2^20 B/s

_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_INTEGER_RE = re.compile(r"[0-9]+", re.ASCII)
_NONFINITE_RE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_ROW_START_RE = re.compile(r"[+-]?\.?[0-9]", re.ASCII)
_MAX_BYTES = 2**53


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


def _show(text: str) -> str:
    text = text if len(text) <= 40 else text[:37] + "..."
    return repr(text)


def _error(origin: str, problem: str, line: int | None = None) -> DataError:
    where = origin if line is None else f"{origin}, line {line}"
    return DataError(" ".join(f"{where}: {problem}".split()))


def _number(token: str, origin: str, line: int, what: str) -> float:
    """A finite, non-negative number; DataError naming the file and line otherwise."""
    if _NONFINITE_RE.fullmatch(token):
        raise _error(origin, f"{what} {_show(token)} is not a finite number", line)
    if not _NUMBER_RE.fullmatch(token):
        raise _error(origin, f"{what} {_show(token)} is not a number", line)
    value = float(token) + 0.0
    if not math.isfinite(value):
        raise _error(origin, f"{what} {_show(token)} is too large", line)
    if value < 0:
        raise _error(origin, f"{what} {_show(token)} is negative", line)
    return value


def _size(token: str, origin: str, line: int) -> int:
    if _INTEGER_RE.fullmatch(token) and len(token) > 16:
        raise _error(origin, f"message size {_show(token)} is too large", line)
    if not _INTEGER_RE.fullmatch(token):
        if _NUMBER_RE.fullmatch(token) and token.startswith("-"):
            raise _error(origin, f"message size {_show(token)} is negative", line)
        raise _error(origin, f"message size {_show(token)} is not a whole number of bytes",
                     line)
    size = int(token)
    if size > _MAX_BYTES:
        raise _error(origin, f"message size {_show(token)} is too large", line)
    return size


def _positive(value: float, token: str, origin: str, line: int, what: str) -> float:
    if value <= 0:
        raise _error(origin, f"{what} {_show(token)} is not positive (a measured time or "
                     "rate must be > 0)", line)
    return value


def _lines(text: str) -> list[str]:
    return text.removeprefix("\ufeff").splitlines()


# ------------------------------------------------------------------------------ detection

_OSU_TITLE_RE = re.compile(
    r"^\s*#\s*OSU\s+(?P<family>\S+)\s+(?P<name>.*?)\s+Test\b\s*(?:v(?P<version>\S+))?",
    re.IGNORECASE)
_OSU_ANY_RE = re.compile(r"^\s*#\s*OSU\b", re.IGNORECASE)
_IMB_BANNER_RE = re.compile(
    r"Intel\s*\(R\)\s*MPI\s+Benchmarks?(?:\s+Suite)?\s+(?P<version>V?[0-9][0-9A-Za-z.]*"
    r"(?:\s+Update\s+[0-9]+)?)?", re.IGNORECASE)
_IMB_SECTION_RE = re.compile(r"^\s*#\s*Benchmarking\s+(?:Multi-)?(?P<name>\S+)")
_IMB_PROCESSES_RE = re.compile(r"^\s*#\s*#processes\s*=\s*(?P<n>[0-9]+)", re.ASCII)
_CSV_HEADER_RE = re.compile(r"\s*[A-Za-z][A-Za-z0-9_ ]*(?:,\s*[A-Za-z][A-Za-z0-9_ ]*)+\s*",
                            re.ASCII)


def detect_format(text: str, origin: str = "<text>") -> str:
    """``"osu"``, ``"imb"`` or ``"csv"`` from the content of ``text`` (see the module
    docstring). DataError for an empty text or one that matches none of them."""
    if not isinstance(text, str):
        raise _error(origin, f"expected text, got {type(text).__name__}")
    lines = _lines(text)
    if not any(line.strip() for line in lines):
        raise _error(origin, "empty file: expected OSU or Intel MPI Benchmarks output or a "
                     "measurement CSV")
    if any(_OSU_ANY_RE.match(line) for line in lines):
        return "osu"
    if any(_IMB_BANNER_RE.search(line) or _IMB_SECTION_RE.match(line) for line in lines):
        return "imb"
    first = next(line for line in lines if line.strip())
    if _CSV_HEADER_RE.fullmatch(first):
        return "csv"
    raise _error(origin, "unknown format: expected OSU micro-benchmark output (a '# OSU MPI "
                 "... Test' title), Intel MPI Benchmarks output ('# Benchmarking PingPong' "
                 "sections) or a measurement CSV (a header line such as "
                 "'message_bytes,latency_s'); name it with --format osu|imb|csv")


# ------------------------------------------------------------------------------------ OSU

_OSU_P2P = {
    "latency": ("latency",),
    "bandwidth": ("bandwidth",),
    "bidirectionalbandwidth": ("bibandwidth",),
    "multiplebandwidthmessagerate": ("multi_bandwidth", "message_rate"),
}
_OSU_COLLECTIVES = {
    "allreduce": "allreduce",
    "reduce": "reduce",
    "broadcast": "bcast",
    "bcast": "bcast",
    "allgather": "allgather",
    "allgatherv": "allgatherv",
    "alltoall": "alltoall",
    "alltoallpersonalizedexchange": "alltoall",
    "alltoallv": "alltoallv",
    "gather": "gather",
    "gatherv": "gatherv",
    "scatter": "scatter",
    "scatterv": "scatterv",
    "reducescatter": "reduce_scatter",
    "barrier": "barrier",
}
_OSU_TEST_NAMES = {
    "latency": "osu_latency", "bandwidth": "osu_bw", "bibandwidth": "osu_bibw",
    "multi_bandwidth": "osu_mbw_mr", "bcast": "osu_bcast",
}


def _osu_kinds(name: str) -> tuple[str, ...] | None:
    key = re.sub(r"[^a-z0-9]+", "", name.lower())
    if key in _OSU_P2P:
        return _OSU_P2P[key]
    if key.endswith("latency") and key[: -len("latency")] in _OSU_COLLECTIVES:
        return (_OSU_COLLECTIVES[key[: -len("latency")]],)
    return None


def _osu_api(family: str) -> str | None:
    family = family.lower()
    if family.startswith("mpi"):
        return "mpi"
    if family.startswith("openshmem"):
        return "shmem"
    return None


@dataclass
class _OsuSection:
    title_line: int
    kinds: tuple[str, ...]
    benchmark: str
    api: str | None
    time_factor: float = _S_PER_US
    header_seen: bool = False


def _osu_column_units(header: str, section: _OsuSection, origin: str, line: int) -> None:
    """Check the ``# Size ...`` column line against the test and read its time unit."""
    lowered = header.lower()
    if section.kinds[0] in ("bandwidth", "bibandwidth", "multi_bandwidth"):
        if "mb/s" not in lowered:
            raise _error(origin, f"column line {_show(header.strip())} has no 'MB/s' column "
                         f"for the {section.benchmark} test", line)
        return
    match = re.search(r"latency\s*\(\s*(us|µs|μs|usec|ms)\s*\)", lowered)
    if match is None:
        raise _error(origin, f"column line {_show(header.strip())} has no 'Latency (us)' "
                     f"column for the {section.benchmark} test", line)
    section.time_factor = _S_PER_MS if match.group(1) == "ms" else _S_PER_US


def _parse_osu(text: str, origin: str) -> BenchData:
    points: list[BenchPoint] = []
    notes: list[str] = []
    section: _OsuSection | None = None
    skipped = 0
    titles: list[str] = []
    for number, raw in enumerate(_lines(text), 1):
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            title = _OSU_TITLE_RE.match(stripped)
            if title:
                kinds = _osu_kinds(title.group("name"))
                if kinds is None:
                    raise _error(origin, f"unsupported OSU test {title.group('name')!r} "
                                 "(read: Latency, Bandwidth, Bi-Directional Bandwidth, Multiple "
                                 "Bandwidth / Message Rate and the blocking collectives' "
                                 "Latency tests)", number)
                benchmark = _OSU_TEST_NAMES.get(kinds[0], f"osu_{kinds[0]}")
                section = _OsuSection(number, kinds, benchmark, _osu_api(title.group("family")))
                version = title.group("version")
                titles.append(f"{benchmark}" + (f" v{version.rstrip('.')}" if version else ""))
                continue
            if _OSU_ANY_RE.match(stripped):
                raise _error(origin, f"unrecognised OSU title line {_show(stripped)}", number)
            body = stripped.lstrip("#").strip()
            if section is not None and re.match(r"(size\b|avg\s+latency)", body, re.I):
                _osu_column_units(body, section, origin, number)
                section.header_seen = True
            continue
        tokens = stripped.split()
        if not _ROW_START_RE.match(tokens[0]):
            skipped += 1
            continue
        if section is None:
            raise _error(origin, "data row before any '# OSU ... Test' title line", number)
        if section.kinds == ("barrier",):
            size, values = 0, tokens
        else:
            size, values = _size(tokens[0], origin, number), tokens[1:]
        needed = len(section.kinds)
        if len(values) < needed:
            raise _error(origin, f"expected a message size and {needed} value"
                         f"{'s' if needed > 1 else ''}, found {len(tokens)} field"
                         f"{'s' if len(tokens) != 1 else ''}", number)
        for kind, token in zip(section.kinds, values):
            value = _positive(_number(token, origin, number, kind), token, origin, number, kind)
            if kind in ("bandwidth", "bibandwidth", "multi_bandwidth"):
                value, unit = value * _BPS_PER_MB, "B/s"
            elif kind == "message_rate":
                unit = "1/s"
            else:
                value, unit = value * section.time_factor, "s"
            points.append(BenchPoint(kind, size, value, unit, number, section.benchmark,
                                     api=section.api))
    if not points:
        raise _error(origin, "no data rows (expected lines 'SIZE VALUE' after an OSU title "
                     "and column line)")
    notes.append("OSU output: " + ", ".join(dict.fromkeys(titles)))
    kinds = {p.kind for p in points}
    if "latency" in kinds:
        notes.append("osu_latency 'Latency (us)': one-way latency, half the round trip, in µs")
    if kinds & {"bandwidth", "bibandwidth", "multi_bandwidth"}:
        notes.append("OSU 'MB/s' read as 10^6 bytes/s (the benchmarks divide bytes by 1e6)")
    if kinds - set(KINDS):
        notes.append("OSU collectives: the first value column, the average latency over the "
                     "processes, in µs; the process count is not in the output")
    if skipped:
        notes.append(f"{skipped} line{'s' if skipped != 1 else ''} that "
                     f"{'are' if skipped != 1 else 'is'} neither comment nor data skipped")
    return BenchData(origin, "osu", tuple(points), tuple(notes))


# ------------------------------------------------------------------------------------ IMB

_IMB_FAILURES = ("out-of-mem", "time-out", "int-overflow")
_IMB_PINGPONG = {"pingpong", "pingpongspecificsource", "pingponganysource"}
_IMB_COLUMNS = {
    "#bytes", "#repetitions", "t[usec]", "t_min[usec]", "t_max[usec]", "t_avg[usec]",
    "Mbytes/sec", "Msg/sec", "defects", "t_ovrl[usec]", "t_pure[usec]", "t_CPU[usec]",
    "overlap[%]",
}


@dataclass
class _ImbSection:
    name: str
    line: int
    processes: int | None = None
    columns: list[str] | None = None


def _imb_mbyte_from_version(version: str | None) -> tuple[float | None, str]:
    """(B/s per printed Mbyte/sec, why) from the banner's version, None when it does not say."""
    if not version:
        return None, "no version line"
    match = re.match(r"V?([0-9]+)", version)
    if match is None:
        return None, f"version {version!r} not understood"
    major = int(match.group(1))
    if major <= 4:
        return _BPS_PER_MIB, f"IMB {version}: Mbyte = 2^20 bytes (IMB 3.x/4.x)"
    if major >= 2018:
        return _BPS_PER_MB, f"IMB {version}: Mbyte = 10^6 bytes (IMB 2018 and later)"
    return None, f"IMB {version}: Mbyte convention not known for this release"


def _imb_mbyte_from_data(pairs: list[tuple[int, float, float, int]], origin: str
                         ) -> tuple[float | None, str]:
    """Which Mbyte makes PingPong's Mbytes/sec equal #bytes / t[usec]; None without usable
    rows. ``pairs`` holds (bytes, t_us, mbytes_per_s, line)."""
    ratios = [(size / t_us) / mbps for size, t_us, mbps, _ in pairs
              if size >= 1024 and t_us >= 1.0 and mbps >= 1.0]
    if not ratios:
        return None, "no PingPong rows large enough to compare"
    ratio = statistics.median(ratios)
    decimal_gap = abs(ratio - 1.0)
    binary_gap = abs(ratio - _BPS_PER_MIB / _BPS_PER_MB)
    if min(decimal_gap, binary_gap) > 0.02:
        raise _error(origin, f"PingPong's Mbytes/sec column disagrees with #bytes / t[usec] "
                     f"(ratio {ratio:.3f}, expected 1 for 10^6-byte or 1.049 for 2^20-byte "
                     "Mbytes)", pairs[0][3])
    if decimal_gap <= binary_gap:
        return _BPS_PER_MB, "PingPong's Mbytes/sec = #bytes / t[usec] / 10^6: Mbyte = 10^6 bytes"
    return _BPS_PER_MIB, "PingPong's Mbytes/sec = #bytes / t[usec] / 2^20: Mbyte = 2^20 bytes"


def _parse_imb(text: str, origin: str) -> BenchData:
    rows: list[tuple[_ImbSection, int, dict[str, tuple[str, float]]]] = []
    notes: list[str] = []
    version: str | None = None
    section: _ImbSection | None = None
    skipped = failures = 0
    for number, raw in enumerate(_lines(text), 1):
        stripped = raw.strip()
        if not stripped:
            continue
        banner = _IMB_BANNER_RE.search(stripped)
        if banner and stripped.startswith("#"):
            if banner.group("version"):
                version = " ".join(banner.group("version").rstrip(",.").split())
            continue
        tokens = stripped.split()
        if tokens[0] in ("#bytes", "#repetitions"):
            if section is None:
                raise _error(origin, "column line before any '# Benchmarking NAME' line", number)
            unknown = [t for t in tokens if t not in _IMB_COLUMNS]
            if unknown or "#repetitions" not in tokens:
                raise _error(origin, f"unrecognised IMB column line {_show(stripped)}", number)
            section.columns = tokens
            continue
        if stripped.startswith("#"):
            start = _IMB_SECTION_RE.match(stripped)
            if start:
                section = _ImbSection(start.group("name"), number)
                continue
            processes = _IMB_PROCESSES_RE.match(stripped)
            if processes and section is not None:
                section.processes = int(processes.group("n"))
            continue
        if not _ROW_START_RE.match(tokens[0]):
            skipped += 1
            continue
        if section is None or section.columns is None:
            raise _error(origin, "data row before an IMB '# Benchmarking NAME' section and its "
                         "'#bytes #repetitions ...' column line", number)
        columns = section.columns
        if len(tokens) != len(columns):
            if any(marker in stripped for marker in _IMB_FAILURES):
                failures += 1
                continue
            raise _error(origin, f"{len(tokens)} values but the column line has "
                         f"{len(columns)} columns", number)
        values: dict[str, tuple[str, float]] = {}
        for name, token in zip(columns, tokens):
            if name in ("#bytes", "#repetitions"):
                if name == "#bytes":
                    values[name] = (token, float(_size(token, origin, number)))
                else:
                    values[name] = (token, _number(token, origin, number, "repetitions"))
            else:
                values[name] = (token, _number(token, origin, number, name))
        rows.append((section, number, values))
    if not rows:
        raise _error(origin, "no data rows (expected '# Benchmarking NAME' sections with a "
                     "'#bytes #repetitions t[usec] ...' column line and rows of numbers)")

    needed = {"#bytes", "t[usec]", "Mbytes/sec"}
    pingpong = [(int(v["#bytes"][1]), v["t[usec]"][1], v["Mbytes/sec"][1], line)
                for s, line, v in rows if s.name.lower() in _IMB_PINGPONG and needed <= set(v)]
    by_data, data_why = _imb_mbyte_from_data(pingpong, origin)
    by_version, version_why = _imb_mbyte_from_version(version)
    if by_data is not None:
        mbyte, why = by_data, data_why
        if by_version is not None and by_version != by_data:
            why += f" (the version line suggests otherwise: {version_why})"
    elif by_version is not None:
        mbyte, why = by_version, version_why
    else:
        mbyte, why = _BPS_PER_MB, (f"Mbyte = 10^6 bytes assumed as in current IMB ({data_why}; "
                                   f"{version_why})")

    points: list[BenchPoint] = []
    for sec, line, values in rows:
        lowered = sec.name.lower()
        size = int(values["#bytes"][1]) if "#bytes" in values else 0
        benchmark = f"IMB {sec.name}"
        common = {"line": line, "benchmark": benchmark, "api": "mpi",
                  "processes": sec.processes}
        time_column = next((c for c in ("t_avg[usec]", "t[usec]") if c in values), None)
        if lowered in _IMB_PINGPONG:
            if time_column is not None:
                token, value = values[time_column]
                value = _positive(value, token, origin, line, time_column)
                points.append(BenchPoint("latency", size, value * _S_PER_US, "s", **common))
            if "Mbytes/sec" in values and size > 0:
                token, value = values["Mbytes/sec"]
                value = _positive(value, token, origin, line, "Mbytes/sec")
                points.append(BenchPoint("pingpong_bandwidth", size, value * mbyte, "B/s",
                                         **common))
        elif time_column is not None:
            token, value = values[time_column]
            value = _positive(value, token, origin, line, time_column)
            points.append(BenchPoint(lowered, size, value * _S_PER_US, "s", **common))
        elif "Mbytes/sec" in values and size > 0:
            token, value = values["Mbytes/sec"]
            value = _positive(value, token, origin, line, "Mbytes/sec")
            points.append(BenchPoint(lowered, size, value * mbyte, "B/s", **common))
    if not points:
        raise _error(origin, "no usable data rows (no time or Mbytes/sec values)")
    names = dict.fromkeys(s.name for s, _, _ in rows)
    notes.append(f"IMB output{f' ({version})' if version else ''}: {', '.join(names)}")
    notes.append("IMB times in µs; PingPong t[usec] is half the round trip (one-way latency); "
                 "other benchmarks use t_avg[usec] when printed")
    if any(p.unit == "B/s" for p in points):
        notes.append(f"IMB Mbytes/sec: {why}")
    if failures:
        notes.append(f"{failures} row{'s' if failures != 1 else ''} IMB marked as failed "
                     "(out-of-mem, time-out, int-overflow) skipped")
    if skipped:
        notes.append(f"{skipped} line{'s' if skipped != 1 else ''} that "
                     f"{'are' if skipped != 1 else 'is'} neither comment nor data skipped")
    return BenchData(origin, "imb", tuple(points), tuple(notes))


# ------------------------------------------------------------------------------------ CSV

_CSV_VALUES = {
    "latency_s": ("latency", "s"),
    "bandwidth_bytes_per_s": ("bandwidth", "B/s"),
    "pingpong_bandwidth_bytes_per_s": ("pingpong_bandwidth", "B/s"),
}
_APIS = ("mpi", "shmem", "none")


def from_table(table) -> BenchData:
    """Points from a :class:`icnperf.data.measurements.tables.MeasurementTable` (excluded rows left out).

    Needs ``message_bytes`` (or ``bytes``) and at least one of :data:`_CSV_VALUES`'s columns
    (``latency_s``, ``bandwidth_bytes_per_s``, ``pingpong_bandwidth_bytes_per_s``); reads
    ``hops`` and ``api`` when present. DataError naming the file and line otherwise."""
    origin = table.origin
    columns = list(table.columns)
    size_column = next((c for c in ("message_bytes", "bytes") if c in columns), None)
    if size_column is None:
        raise _error(origin, "needs a message size column 'message_bytes' (or 'bytes'), in "
                     f"bytes (columns: {', '.join(columns)})")
    value_columns = [c for c in _CSV_VALUES if c in columns]
    if not value_columns:
        near = [c for c in columns if c.startswith(("latency", "bandwidth", "pingpong"))]
        hint = (f"; {', '.join(repr(c) for c in near)} {'is' if len(near) == 1 else 'are'} "
                "not one of these: values are stored in SI units, seconds in 'latency_s', "
                "bytes/s in 'bandwidth_bytes_per_s'") if near else ""
        raise _error(origin, "needs a 'latency_s', 'bandwidth_bytes_per_s' or "
                     f"'pingpong_bandwidth_bytes_per_s' column{hint}")
    for name in ("hops", "api"):
        if name in columns:
            wanted = "text" if name == "api" else "1"
            if table.units[name] != wanted:
                raise _error(origin, f"column {name!r} must be "
                             f"{'text' if name == 'api' else 'a dimensionless number'}")
    excluded = int(table.excluded_mask.sum())
    used = table.included()
    if len(used) == 0:
        raise _error(origin, "no data rows left: every row is marked excluded")
    points: list[BenchPoint] = []
    benchmark = f"csv {table.name}"
    for i, line in enumerate(used.lines):
        size = float(used[size_column][i])
        if not size.is_integer() or size < 0 or size > _MAX_BYTES:
            raise _error(origin, f"message size {size!r} is not a whole number of bytes", line)
        hops = None
        if "hops" in columns:
            hops = float(used["hops"][i])
            if not math.isfinite(hops) or hops < 0:
                raise _error(origin, f"hops {hops!r} must be a non-negative number", line)
        api = None
        if "api" in columns:
            text = used["api"][i].strip().lower()
            if text and text not in _APIS:
                raise _error(origin, f"api {used['api'][i]!r} is not one of MPI, SHMEM, none",
                             line)
            api = text or None
        for column in value_columns:
            kind, unit = _CSV_VALUES[column]
            value = float(used[column][i])
            if not math.isfinite(value):
                raise _error(origin, f"{column} {value!r} is not a finite number", line)
            if value <= 0:
                raise _error(origin, f"{column} {value!r} is not positive (a measured time or "
                             "bandwidth must be > 0)", line)
            points.append(BenchPoint(kind, int(size), value, unit, line, benchmark,
                                     hops=hops, api=api))
    notes = [f"measurement CSV {table.name}: " + ", ".join(value_columns) + " (SI units)"]
    if excluded:
        notes.append(f"{excluded} row{'s' if excluded != 1 else ''} marked excluded left out")
    return BenchData(origin, "csv", tuple(points), tuple(notes))


def _parse_csv(text: str, origin: str, sidecar: str | None = None,
               sidecar_origin: str | None = None, name: str | None = None) -> BenchData:
    from icnperf.data.measurements.tables import read_csv_text

    table = read_csv_text(text, origin=origin, sidecar=sidecar, sidecar_origin=sidecar_origin,
                          name=name)
    return from_table(table)


# -------------------------------------------------------------------------------- entries


def _check_format(format: str | None) -> str | None:
    if format is None:
        return None
    if format not in FORMATS:
        raise InputError(f"unknown benchmark format {format!r}; choose one of "
                         f"{', '.join(FORMATS)}")
    return format


def parse_text(text: str, origin: str = "<text>", format: str | None = None) -> BenchData:
    """Benchmark output text -> :class:`BenchData`. ``format`` (``osu``, ``imb``, ``csv``)
    overrides detection. DataError (one line, naming ``origin`` and the line) for any
    problem; InputError for an unknown ``format`` name."""
    format = _check_format(format)
    if not isinstance(text, str):
        raise _error(origin, f"expected text, got {type(text).__name__}")
    if not any(line.strip() for line in _lines(text)):
        raise _error(origin, "empty file: no benchmark output")
    fmt = format or detect_format(text, origin)
    if fmt == "osu":
        return _parse_osu(text, origin)
    if fmt == "imb":
        return _parse_imb(text, origin)
    return _parse_csv(text, origin)


def load_bench(name_or_path: str | os.PathLike, format: str | None = None) -> BenchData:
    """Read a benchmark file (OSU, IMB or measurement CSV, detected or named by ``format``),
    or a bundled measurement table by name (``angara-latency-16b``). A CSV file's sidecar
    (same stem, ``.toml``) is used when present. DataError for unreadable or malformed files."""
    format = _check_format(format)
    text_name = os.fspath(name_or_path) if isinstance(name_or_path, os.PathLike) else name_or_path
    if not isinstance(text_name, str) or not text_name.strip():
        raise DataError("benchmark data: give a file path or a bundled measurement table name")
    path = Path(text_name)
    if not path.exists() and format in (None, "csv") and not any(
            sep in text_name for sep in ("/", os.sep, os.altsep or "/")) \
            and not text_name.endswith(".csv"):
        from icnperf.data.measurements.tables import list_tables, load_table

        if text_name in dict(list_tables()):
            return from_table(load_table(text_name))
    text = read_text_file(path, "benchmark file")
    if not any(line.strip() for line in _lines(text)):
        raise _error(str(path), "empty file: no benchmark output")
    fmt = format or detect_format(text, str(path))
    if fmt == "csv":
        sidecar_path = path.with_suffix(".toml")
        sidecar = (read_text_file(sidecar_path, "sidecar")
                   if sidecar_path.is_file() and sidecar_path != path else None)
        return _parse_csv(text, str(path), sidecar, str(sidecar_path) if sidecar else None,
                          path.stem)
    return parse_text(text, str(path), fmt)


def points_of(data: BenchData | Iterable[BenchPoint]) -> tuple[BenchPoint, ...]:
    """The points of a BenchData or of any iterable of BenchPoint (checked)."""
    points = tuple(data.points if isinstance(data, BenchData) else data)
    for point in points:
        if not isinstance(point, BenchPoint):
            raise TypeError(f"expected BenchPoint records, got {type(point).__name__}")
    return points
