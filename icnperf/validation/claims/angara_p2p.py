"""Point-to-point claims of the Angara papers, read from the bundled measurement tables.

Agarkov 2015 Table 2: a 16-byte message between two nodes of the 36-node cluster takes 0.7 µs
with SHMEM and 1 µs with MPI (table ``angara-latency-16b``). The angara-36 preset's
software overheads are calibrated from these two numbers (see the preset's sources), so the
two latency checks are ``calibrated`` (they pass by construction and check that the
calibration is in place); the ``predicted`` check that can fail on its own is that the
hardware path alone (no software) stays at or below the SHMEM figure, which keeps both
fitted overheads non-negative.
"""

from __future__ import annotations

from functools import lru_cache

from icnperf.validation.claim import Claim

SOURCE = "HPCG-on-Angara paper (Agarkov 2015), Table 2, 16-byte latency between two nodes"
MACHINE = "angara-36"
NEIGHBOUR_HOPS = 1
"""'Between two nodes' read as neighbouring nodes: one router-to-router hop."""
CALIBRATION_BAND = (
    "5 %, the band registered with these claims: the preset stores the fitted overhead "
    "rounded to whole ns (300.6 -> 300 ns, 0.6 -> 0 ns, under 0.1 % of the latency), so "
    "a larger miss means the calibration is no longer in place")


@lru_cache(maxsize=None)
def _measured(api: str) -> float:
    from icnperf.data.measurements.tables import load_table

    table = load_table("angara-latency-16b")
    row = next(r for r in table.rows() if r["api"] == api)
    return float(row["latency_s"])


def _predicted(api: str) -> float:
    from icnperf.data.machine import load_machine
    from icnperf.model.network import p2p_table

    table = p2p_table(load_machine(MACHINE), [16], NEIGHBOUR_HOPS, api)
    return float(table.columns["latency_s"][0])


def _hardware_within_shmem() -> float:
    return 1.0 if _predicted("none") <= _measured("SHMEM") else 0.0


CLAIMS = [
    Claim("angara-shmem-16b-latency", SOURCE,
          "SHMEM 16-byte latency, neighbours (overhead calibrated from this value)",
          _measured("SHMEM"), "s", 0.05, "relative", lambda: _predicted("shmem"),
          kind="calibrated", fitted="software.shmem_overhead (angara-36)",
          tolerance_reason=CALIBRATION_BAND),
    Claim("angara-mpi-16b-latency", SOURCE,
          "MPI 16-byte latency, neighbours (overhead calibrated from this value)",
          _measured("MPI"), "s", 0.05, "relative", lambda: _predicted("mpi"),
          kind="calibrated", fitted="software.mpi_overhead (angara-36)",
          tolerance_reason=CALIBRATION_BAND),
    Claim("angara-hw-16b-within-shmem", SOURCE,
          "hardware path alone (no software) <= published SHMEM 16-byte latency",
          1, "holds", 0, "ordering", _hardware_within_shmem, kind="predicted",
          tolerance_reason="a statement of order: it holds (1) or not (0); no tolerance"),
]
