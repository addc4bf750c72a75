"""Intel MPI Benchmarks (IMB-MPI1) output -> benchmark points.

Sections ``# Benchmarking NAME`` with ``# #processes = N`` and a column line ``#bytes
#repetitions t[usec] Mbytes/sec`` (or ``t_min[usec] t_max[usec] t_avg[usec]``). PingPong
gives ``latency`` (``t[usec]``) and ``pingpong_bandwidth`` (``Mbytes/sec``); every other
benchmark gives points of its own lower-case name (``allreduce``, ``pingping``,
``sendrecv``, ``bcast``, ``barrier``, ...) from ``t_avg[usec]`` (``t[usec]`` when that is
the only time), and Uniband/Biband their ``Mbytes/sec``. Rows IMB marks as failed
(out-of-mem, time-out, int-overflow) are skipped and counted in the notes.

Units: IMB times are microseconds (``t[usec]``; PingPong's is half the round trip). IMB
``Mbytes/sec`` changed meaning: IMB 3.x and 4.x (``Intel (R) MPI Benchmark Suite V3.2.4``)
divide by 2^20 (1 Mbyte = 1 MiB = 1,048,576 bytes); the releases numbered by year from 2018
on (``Intel(R) MPI Benchmarks 2019 Update 6``, ``2021.3``) divide by 10^6. The file decides
where it can: PingPong's ``Mbytes/sec`` is ``#bytes / t[usec]`` in IMB's Mbyte, so comparing
the two columns shows which Mbyte the file uses; without PingPong rows the version line
decides; without either, 10^6 (current IMB) is assumed and the notes say so.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

from icnperf.data.measurements.points import (
    BPS_PER_MB,
    BPS_PER_MIB,
    ROW_START_RE,
    S_PER_US,
    BenchData,
    BenchPoint,
    error,
    read_number,
    read_size,
    require_positive,
    content_lines,
    show,
    skipped_note,
)

IMB_BANNER_RE = re.compile(
    r"Intel\s*\(R\)\s*MPI\s+Benchmarks?(?:\s+Suite)?\s+(?P<version>V?[0-9][0-9A-Za-z.]*"
    r"(?:\s+Update\s+[0-9]+)?)?", re.IGNORECASE)
IMB_SECTION_RE = re.compile(r"^\s*#\s*Benchmarking\s+(?:Multi-)?(?P<name>\S+)")
"""A banner or a section line (detection: either means IMB output)."""
_IMB_PROCESSES_RE = re.compile(r"^\s*#\s*#processes\s*=\s*(?P<n>[0-9]+)", re.ASCII)

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
        return BPS_PER_MIB, f"IMB {version}: Mbyte = 2^20 bytes (IMB 3.x/4.x)"
    if major >= 2018:
        return BPS_PER_MB, f"IMB {version}: Mbyte = 10^6 bytes (IMB 2018 and later)"
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
    binary_gap = abs(ratio - BPS_PER_MIB / BPS_PER_MB)
    if min(decimal_gap, binary_gap) > 0.02:
        raise error(origin, f"PingPong's Mbytes/sec column disagrees with #bytes / t[usec] "
                    f"(ratio {ratio:.3f}, expected 1 for 10^6-byte or 1.049 for 2^20-byte "
                    "Mbytes)", pairs[0][3])
    if decimal_gap <= binary_gap:
        return BPS_PER_MB, "PingPong's Mbytes/sec = #bytes / t[usec] / 10^6: Mbyte = 10^6 bytes"
    return BPS_PER_MIB, "PingPong's Mbytes/sec = #bytes / t[usec] / 2^20: Mbyte = 2^20 bytes"


def parse_imb(text: str, origin: str) -> BenchData:
    """The points of IMB output ``text``; ``origin`` names it in messages and the result."""
    rows: list[tuple[_ImbSection, int, dict[str, tuple[str, float]]]] = []
    notes: list[str] = []
    version: str | None = None
    section: _ImbSection | None = None
    skipped = failures = 0
    for number, stripped in content_lines(text):
        banner = IMB_BANNER_RE.search(stripped)
        if banner and stripped.startswith("#"):
            if banner.group("version"):
                version = " ".join(banner.group("version").rstrip(",.").split())
            continue
        tokens = stripped.split()
        if tokens[0] in ("#bytes", "#repetitions"):
            if section is None:
                raise error(origin, "column line before any '# Benchmarking NAME' line", number)
            unknown = [t for t in tokens if t not in _IMB_COLUMNS]
            if unknown or "#repetitions" not in tokens:
                raise error(origin, f"unrecognised IMB column line {show(stripped)}", number)
            section.columns = tokens
            continue
        if stripped.startswith("#"):
            start = IMB_SECTION_RE.match(stripped)
            if start:
                section = _ImbSection(start.group("name"), number)
                continue
            processes = _IMB_PROCESSES_RE.match(stripped)
            if processes and section is not None:
                section.processes = int(processes.group("n"))
            continue
        if not ROW_START_RE.match(tokens[0]):
            skipped += 1
            continue
        if section is None or section.columns is None:
            raise error(origin, "data row before an IMB '# Benchmarking NAME' section and its "
                        "'#bytes #repetitions ...' column line", number)
        columns = section.columns
        if len(tokens) != len(columns):
            if any(marker in stripped for marker in _IMB_FAILURES):
                failures += 1
                continue
            raise error(origin, f"{len(tokens)} values but the column line has "
                        f"{len(columns)} columns", number)
        values: dict[str, tuple[str, float]] = {}
        for name, token in zip(columns, tokens):
            if name in ("#bytes", "#repetitions"):
                if name == "#bytes":
                    values[name] = (token, float(read_size(token, origin, number)))
                else:
                    values[name] = (token, read_number(token, origin, number, "repetitions"))
            else:
                values[name] = (token, read_number(token, origin, number, name))
        rows.append((section, number, values))
    if not rows:
        raise error(origin, "no data rows (expected '# Benchmarking NAME' sections with a "
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
        mbyte, why = BPS_PER_MB, (f"Mbyte = 10^6 bytes assumed as in current IMB ({data_why}; "
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
                value = require_positive(value, token, origin, line, time_column)
                points.append(BenchPoint("latency", size, value * S_PER_US, "s", **common))
            if "Mbytes/sec" in values and size > 0:
                token, value = values["Mbytes/sec"]
                value = require_positive(value, token, origin, line, "Mbytes/sec")
                points.append(BenchPoint("pingpong_bandwidth", size, value * mbyte, "B/s",
                                         **common))
        elif time_column is not None:
            token, value = values[time_column]
            value = require_positive(value, token, origin, line, time_column)
            points.append(BenchPoint(lowered, size, value * S_PER_US, "s", **common))
        elif "Mbytes/sec" in values and size > 0:
            token, value = values["Mbytes/sec"]
            value = require_positive(value, token, origin, line, "Mbytes/sec")
            points.append(BenchPoint(lowered, size, value * mbyte, "B/s", **common))
    if not points:
        raise error(origin, "no usable data rows (no time or Mbytes/sec values)")
    names = dict.fromkeys(s.name for s, _, _ in rows)
    notes.append(f"IMB output{f' ({version})' if version else ''}: {', '.join(names)}")
    notes.append("IMB times in µs; PingPong t[usec] is half the round trip (one-way latency); "
                 "other benchmarks use t_avg[usec] when printed")
    if any(p.unit == "B/s" for p in points):
        notes.append(f"IMB Mbytes/sec: {why}")
    if failures:
        notes.append(f"{failures} row{'s' if failures != 1 else ''} IMB marked as failed "
                     "(out-of-mem, time-out, int-overflow) skipped")
    notes.extend(skipped_note(skipped))
    return BenchData(origin, "imb", tuple(points), tuple(notes))
