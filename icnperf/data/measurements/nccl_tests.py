"""nccl-tests and rccl-tests output as printed (``all_reduce_perf`` and the other ``*_perf``
binaries) -> the run's GPUs, nodes and its rows, for ``calibrate --data-format nccl-tests``.

What is read:

* the rank lines ``#  Rank  N Group  G Pid  P on HOST device D [...]``: the ranks, and the
  nodes as the distinct HOST names (ranks per node = ranks / nodes, which must be whole);
* the operation from a ``Collective test starting: NAME_perf`` line when present (newer
  nccl-tests print it), else the caller's;
* every data row: a line whose first two fields are whole numbers (size in bytes, count);
  its last eight fields are the out-of-place time (us), algbw, busbw (GB/s), #wrong, then
  the same in place. The **out-of-place time** is taken (as the issue asks), converted to
  seconds; algbw is checked against size / time where both are printed with enough digits.

Everything else (the launcher's chatter, NCCL INFO lines, the ``# Avg bus bandwidth`` line)
is skipped. Problems are one-line DataErrors naming the file and line.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from icnperf.errors import DataError

_RANK = re.compile(r"^#\s*Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device")
_START = re.compile(r"Collective test starting:\s*(\w+?)_perf")
_ROW = re.compile(r"^\s*\d+\s+\d+\s")

BINARY_OPERATION = {"all_reduce": "allreduce", "all_gather": "allgather",
                    "reduce_scatter": "reducescatter", "broadcast": "broadcast",
                    "reduce": "reduce", "alltoall": "alltoall", "sendrecv": "sendrecv"}
"""nccl-tests binary stem -> icnperf's operation name."""


class NcclTestsRow(NamedTuple):
    """One size: bytes, the out-of-place time (s) and algbw (bytes/s), the line."""

    size: float
    time_s: float
    algbw_Bps: float
    line: int


class NcclTestsRun(NamedTuple):
    """A run: operation (None when the output does not say), ranks, nodes, rows."""

    operation: str | None
    ranks: int
    nodes: int
    rows: tuple[NcclTestsRow, ...]


def _number(text: str, origin: str, number: int, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise DataError(f"{origin}, line {number}: {what} {text!r} is not a number") from None
    if not value == value or value in (float("inf"), float("-inf")):
        raise DataError(f"{origin}, line {number}: {what} {text!r} is not finite")
    return value


def parse_nccl_tests(text: str, origin: str) -> NcclTestsRun:
    """The run printed in ``text`` (module docstring); ``origin`` names it in messages."""
    hosts: dict[int, str] = {}
    operation = None
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        rank = _RANK.match(line.strip())
        if rank:
            hosts[int(rank.group(1))] = rank.group(2)
            continue
        start = _START.search(line)
        if start:
            stem = start.group(1)
            if stem not in BINARY_OPERATION:
                raise DataError(f"{origin}, line {number}: {stem}_perf is not a collective "
                                "icnperf models")
            operation = BINARY_OPERATION[stem]
            continue
        if line.lstrip().startswith("#") or not _ROW.match(line):
            continue
        fields = line.split()
        if len(fields) < 10:
            raise DataError(f"{origin}, line {number}: a data row needs size, count and the "
                            f"out-of-place and in-place time, algbw, busbw, #wrong; got "
                            f"{len(fields)} fields")
        size = _number(fields[0], origin, number, "size")
        time_us = _number(fields[-8], origin, number, "out-of-place time")
        algbw = _number(fields[-7], origin, number, "out-of-place algbw")
        if size <= 0 or time_us <= 0:
            raise DataError(f"{origin}, line {number}: size and time must be above 0")
        if algbw >= 1.0 and abs(size / (time_us * 1e3) - algbw) > 0.05 * algbw + 0.01:
            raise DataError(f"{origin}, line {number}: algbw {algbw:g} GB/s is not size / "
                            f"time ({size / (time_us * 1e3):.3g}): not nccl-tests' columns")
        rows.append(NcclTestsRow(size, time_us * 1e-6, algbw * 1e9, number))
    if not rows:
        raise DataError(f"{origin}: no nccl-tests data rows (size count type ... time algbw "
                        "busbw #wrong ...)")
    if not hosts:
        raise DataError(f"{origin}: no '#  Rank N ... on HOST device D' lines: the ranks and "
                        "nodes of the run are not printed")
    ranks = len(hosts)
    nodes = len(set(hosts.values()))
    if ranks % nodes:
        raise DataError(f"{origin}: {ranks} ranks on {nodes} hosts is not the same number on "
                        "each node")
    return NcclTestsRun(operation, ranks, nodes, tuple(rows))
