"""Benchmark output as a table of points: OSU micro-benchmarks, Intel MPI Benchmarks, our CSV.

Users calibrate from what they already have. This module reads three kinds of text into one
uniform :class:`BenchData` table of :class:`BenchPoint` records (kind, message bytes, value
in SI units, the line it came from), for ``icnperf.data.calibrated`` to fit:

``osu``
    The text output of the OSU micro-benchmarks (:mod:`.osu` says which tests it reads and
    in which units).
``imb``
    The text output of Intel MPI Benchmarks, IMB-MPI1 (:mod:`.imb` says which benchmarks it
    reads and how it decides the Mbyte of ``Mbytes/sec``).
``csv``
    icnperf's measurement CSV (``docs/measurement-format.md``, read by
    :mod:`icnperf.data.measurements.tables`, with its sidecar when there is one): a
    ``message_bytes`` (or ``bytes``) column and ``latency_s`` and/or
    ``bandwidth_bytes_per_s`` (streaming) and/or ``pingpong_bandwidth_bytes_per_s``;
    optional ``hops`` (router-to-router hops between the two nodes) and ``api`` (MPI, SHMEM
    or none). Rows marked ``excluded`` are left out.

Detection (:func:`detect_format`): a ``# OSU ...`` title line means ``osu``; an ``Intel(R) MPI
Benchmark`` banner or ``# Benchmarking NAME`` section means ``imb``; a first line of
comma-separated column names means ``csv``. ``format=`` overrides detection.

Every problem is a one-line :class:`~icnperf.errors.DataError` naming the file and, where it
can, the line: empty files, files without data rows, unparsable or non-finite numbers,
negative or zero values, unknown formats and unsupported tests. Lines that are neither
comments nor data rows (MPI launcher chatter such as ``[node01:1234] mca: ...``, text before
the first title) are skipped and counted in the notes; a line that starts like a number is a
data row and must parse.

The records and the shared token readers live in :mod:`.points`; this module is the front
door (``from icnperf.data.measurements.bench import load_bench, BenchData, ...``).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from pathlib import Path

from icnperf.data.files import looks_like_path, path_exists, printable, read_text_file
from icnperf.data.measurements.imb import IMB_BANNER_RE, IMB_SECTION_RE, parse_imb
from icnperf.data.measurements.osu import OSU_ANY_RE, parse_osu
from icnperf.data.measurements.points import (
    KINDS,
    MAX_BYTES,
    BenchData,
    BenchPoint,
    error,
    text_lines,
)
from icnperf.errors import DataError, InputError

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


# ------------------------------------------------------------------------------ detection

_CSV_HEADER_RE = re.compile(r"\s*[A-Za-z][A-Za-z0-9_ ]*(?:,\s*[A-Za-z][A-Za-z0-9_ ]*)+\s*",
                            re.ASCII)


def detect_format(text: str, origin: str = "<text>") -> str:
    """``"osu"``, ``"imb"`` or ``"csv"`` from the content of ``text`` (see the module
    docstring). DataError for an empty text or one that matches none of them."""
    if not isinstance(text, str):
        raise error(origin, f"expected text, got {type(text).__name__}")
    lines = text_lines(text)
    if not any(line.strip() for line in lines):
        raise error(origin, "empty file: expected OSU or Intel MPI Benchmarks output or a "
                    "measurement CSV")
    if any(OSU_ANY_RE.match(line) for line in lines):
        return "osu"
    if any(IMB_BANNER_RE.search(line) or IMB_SECTION_RE.match(line) for line in lines):
        return "imb"
    first = next(line for line in lines if line.strip())
    if _CSV_HEADER_RE.fullmatch(first):
        return "csv"
    raise error(origin, "unknown format: expected OSU micro-benchmark output (a '# OSU MPI "
                "... Test' title), Intel MPI Benchmarks output ('# Benchmarking PingPong' "
                "sections) or a measurement CSV (a header line such as "
                "'message_bytes,latency_s'); name it with --format osu|imb|csv")


# ------------------------------------------------------------------------------------ CSV

_CSV_VALUES = {
    "latency_s": ("latency", "s"),
    "bandwidth_bytes_per_s": ("bandwidth", "B/s"),
    "pingpong_bandwidth_bytes_per_s": ("pingpong_bandwidth", "B/s"),
}
_APIS = ("mpi", "shmem", "none")


def from_table(table) -> BenchData:
    """Points from a :class:`~icnperf.data.measurements.table.MeasurementTable` (excluded
    rows left out).

    Needs ``message_bytes`` (or ``bytes``) and at least one of :data:`_CSV_VALUES`'s columns
    (``latency_s``, ``bandwidth_bytes_per_s``, ``pingpong_bandwidth_bytes_per_s``); reads
    ``hops`` and ``api`` when present. DataError naming the file and line otherwise."""
    origin = table.origin
    columns = list(table.columns)
    size_column = next((c for c in ("message_bytes", "bytes") if c in columns), None)
    if size_column is None:
        raise error(origin, "needs a message size column 'message_bytes' (or 'bytes'), in "
                    f"bytes (columns: {', '.join(columns)})")
    value_columns = [c for c in _CSV_VALUES if c in columns]
    if not value_columns:
        near = [c for c in columns if c.startswith(("latency", "bandwidth", "pingpong"))]
        hint = (f"; {', '.join(repr(c) for c in near)} {'is' if len(near) == 1 else 'are'} "
                "not one of these: values are stored in SI units, seconds in 'latency_s', "
                "bytes/s in 'bandwidth_bytes_per_s'") if near else ""
        raise error(origin, "needs a 'latency_s', 'bandwidth_bytes_per_s' or "
                    f"'pingpong_bandwidth_bytes_per_s' column{hint}")
    for name in ("hops", "api"):
        if name in columns:
            wanted = "text" if name == "api" else "1"
            if table.units[name] != wanted:
                raise error(origin, f"column {name!r} must be "
                            f"{'text' if name == 'api' else 'a dimensionless number'}")
    excluded = int(table.excluded_mask.sum())
    used = table.included()
    if len(used) == 0:
        raise error(origin, "no data rows left: every row is marked excluded")
    points: list[BenchPoint] = []
    benchmark = f"csv {table.name}"
    for i, line in enumerate(used.lines):
        size = float(used[size_column][i])
        if not size.is_integer() or size < 0 or size > MAX_BYTES:
            raise error(origin, f"message size {size!r} is not a whole number of bytes", line)
        hops = None
        if "hops" in columns:
            hops = float(used["hops"][i])
            if not math.isfinite(hops) or hops < 0:
                raise error(origin, f"hops {hops!r} must be a non-negative number", line)
        api = None
        if "api" in columns:
            text = used["api"][i].strip().lower()
            if text and text not in _APIS:
                raise error(origin, f"api {used['api'][i]!r} is not one of MPI, SHMEM, none",
                            line)
            api = text or None
        for column in value_columns:
            kind, unit = _CSV_VALUES[column]
            value = float(used[column][i])
            if not math.isfinite(value):
                raise error(origin, f"{column} {value!r} is not a finite number", line)
            if value <= 0:
                raise error(origin, f"{column} {value!r} is not positive (a measured time or "
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


def _format_of(text: str, origin: str, format: str | None) -> str:
    """``format`` when given, else the detected one; DataError for a text with nothing but
    blank lines."""
    if not any(line.strip() for line in text_lines(text)):
        raise error(origin, "empty file: no benchmark output")
    return format or detect_format(text, origin)


def parse_text(text: str, origin: str = "<text>", format: str | None = None) -> BenchData:
    """Benchmark output text -> :class:`BenchData`. ``format`` (``osu``, ``imb``, ``csv``)
    overrides detection. DataError (one line, naming ``origin`` and the line) for any
    problem; InputError for an unknown ``format`` name."""
    format = _check_format(format)
    if not isinstance(text, str):
        raise error(origin, f"expected text, got {type(text).__name__}")
    fmt = _format_of(text, origin, format)
    if fmt == "osu":
        return parse_osu(text, origin)
    if fmt == "imb":
        return parse_imb(text, origin)
    return _parse_csv(text, origin)


def load_bench(name_or_path: str | os.PathLike, format: str | None = None) -> BenchData:
    """Read a benchmark file (OSU, IMB or measurement CSV, detected or named by ``format``),
    or a bundled measurement table by name (``angara-latency-16b``: a string with no path
    separator, not ending in ``.csv``, naming no file; a ``PathLike`` is always a file). A
    CSV file's sidecar (same stem, ``.toml``) is used when present. Files are read within
    the input limits of :mod:`icnperf.data.files`. DataError for unreadable or malformed
    files."""
    format = _check_format(format)
    text_name = os.fspath(name_or_path) if isinstance(name_or_path, os.PathLike) else name_or_path
    if not isinstance(text_name, str) or not text_name.strip():
        raise DataError("benchmark data: give a file path or a bundled measurement table name")
    path = Path(text_name)
    if (isinstance(name_or_path, str) and not path_exists(path) and format in (None, "csv")
            and not looks_like_path(text_name)):
        from icnperf.data.measurements.tables import list_tables, load_table

        if text_name in dict(list_tables()):
            return from_table(load_table(text_name))
    text = read_text_file(path, "benchmark file")
    origin = printable(path)
    fmt = _format_of(text, origin, format)
    if fmt == "csv":
        sidecar_path = path.with_suffix(".toml")
        sidecar = (read_text_file(sidecar_path, "sidecar")
                   if path_exists(sidecar_path) and sidecar_path != path else None)
        return _parse_csv(text, origin, sidecar, printable(sidecar_path) if sidecar else None,
                          printable(path.stem))
    return parse_text(text, origin, fmt)


def points_of(data: BenchData | Iterable[BenchPoint]) -> tuple[BenchPoint, ...]:
    """The points of a BenchData or of any iterable of BenchPoint (checked)."""
    points = tuple(data.points if isinstance(data, BenchData) else data)
    for point in points:
        if not isinstance(point, BenchPoint):
            raise TypeError(f"expected BenchPoint records, got {type(point).__name__}")
    return points
