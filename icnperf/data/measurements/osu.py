"""OSU micro-benchmark output -> benchmark points.

The text output of the OSU micro-benchmarks (one or several tests in one file): a title
line ``# OSU MPI Latency Test v7.3``, a column line ``# Size  Latency (us)``, then rows
``SIZE VALUE [more columns]``. Tests read: osu_latency (``latency``), osu_bw
(``bandwidth``), osu_bibw (``bibandwidth``), osu_mbw_mr (``multi_bandwidth``,
``message_rate``) and the blocking collectives (osu_allreduce -> ``allreduce``, osu_reduce,
osu_bcast -> ``bcast``, osu_allgather, osu_alltoall, osu_gather, osu_scatter,
osu_reduce_scatter, osu_barrier and their v-variants), whose first value column is the
average latency.

Units: OSU latencies are microseconds (``Latency (us)``, ``Avg Latency(us)``; ``ms`` when
the column says so); osu_latency prints half the round trip, i.e. the one-way latency. OSU
``MB/s`` is **10^6 bytes/s**: the benchmarks divide the bytes moved by 1e6 (osu_bw: size /
1e6 × iterations × window / time).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from icnperf.data.measurements.points import (
    BPS_PER_MB,
    KINDS,
    ROW_START_RE,
    S_PER_MS,
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

OSU_TITLE_RE = re.compile(
    r"^\s*#\s*OSU\s+(?P<family>\S+)\s+(?P<name>.*?)\s+Test\b\s*(?:v(?P<version>\S+))?",
    re.IGNORECASE)
OSU_ANY_RE = re.compile(r"^\s*#\s*OSU\b", re.IGNORECASE)
"""A line that starts like an OSU title (detection: such a line means OSU output)."""

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
    time_factor: float = S_PER_US
    header_seen: bool = False


def _osu_column_units(header: str, section: _OsuSection, origin: str, line: int) -> None:
    """Check the ``# Size ...`` column line against the test and read its time unit."""
    lowered = header.lower()
    if section.kinds[0] in ("bandwidth", "bibandwidth", "multi_bandwidth"):
        if "mb/s" not in lowered:
            raise error(origin, f"column line {show(header.strip())} has no 'MB/s' column "
                        f"for the {section.benchmark} test", line)
        return
    match = re.search(r"latency\s*\(\s*(us|µs|μs|usec|ms)\s*\)", lowered)
    if match is None:
        raise error(origin, f"column line {show(header.strip())} has no 'Latency (us)' "
                    f"column for the {section.benchmark} test", line)
    section.time_factor = S_PER_MS if match.group(1) == "ms" else S_PER_US


def parse_osu(text: str, origin: str) -> BenchData:
    """The points of OSU output ``text``; ``origin`` names it in messages and the result."""
    points: list[BenchPoint] = []
    notes: list[str] = []
    section: _OsuSection | None = None
    skipped = 0
    titles: list[str] = []
    for number, stripped in content_lines(text):
        if stripped.startswith("#"):
            title = OSU_TITLE_RE.match(stripped)
            if title:
                kinds = _osu_kinds(title.group("name"))
                if kinds is None:
                    raise error(origin, f"unsupported OSU test {title.group('name')!r} "
                                "(read: Latency, Bandwidth, Bi-Directional Bandwidth, Multiple "
                                "Bandwidth / Message Rate and the blocking collectives' "
                                "Latency tests)", number)
                benchmark = _OSU_TEST_NAMES.get(kinds[0], f"osu_{kinds[0]}")
                section = _OsuSection(number, kinds, benchmark, _osu_api(title.group("family")))
                version = title.group("version")
                titles.append(f"{benchmark}" + (f" v{version.rstrip('.')}" if version else ""))
                continue
            if OSU_ANY_RE.match(stripped):
                raise error(origin, f"unrecognised OSU title line {show(stripped)}", number)
            body = stripped.lstrip("#").strip()
            if section is not None and re.match(r"(size\b|avg\s+latency)", body, re.I):
                _osu_column_units(body, section, origin, number)
                section.header_seen = True
            continue
        tokens = stripped.split()
        if not ROW_START_RE.match(tokens[0]):
            skipped += 1
            continue
        if section is None:
            raise error(origin, "data row before any '# OSU ... Test' title line", number)
        if section.kinds == ("barrier",):
            size, values = 0, tokens
        else:
            size, values = read_size(tokens[0], origin, number), tokens[1:]
        needed = len(section.kinds)
        if len(values) < needed:
            raise error(origin, f"expected a message size and {needed} value"
                        f"{'s' if needed > 1 else ''}, found {len(tokens)} field"
                        f"{'s' if len(tokens) != 1 else ''}", number)
        for kind, token in zip(section.kinds, values):
            value = require_positive(read_number(token, origin, number, kind), token, origin,
                                     number, kind)
            if kind in ("bandwidth", "bibandwidth", "multi_bandwidth"):
                value, unit = value * BPS_PER_MB, "B/s"
            elif kind == "message_rate":
                unit = "1/s"
            else:
                value, unit = value * section.time_factor, "s"
            points.append(BenchPoint(kind, size, value, unit, number, section.benchmark,
                                     api=section.api))
    if not points:
        raise error(origin, "no data rows (expected lines 'SIZE VALUE' after an OSU title "
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
    notes.extend(skipped_note(skipped))
    return BenchData(origin, "osu", tuple(points), tuple(notes))
