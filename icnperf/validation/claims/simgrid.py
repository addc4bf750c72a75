"""SimGrid/SMPI 3.32 collective times under CM02 (bundled table ``simgrid-collectives-cm02``):
broadcast, all-reduce and all-gather on 64 ranks of a 4x4x4 torus and of an XGFT(2; 8,8;
1,8) fat tree, 8 B to 1 MiB, one row per SMPI algorithm.

How they are predicted (nothing fitted to these rows): the bundled machines
``simgrid-torus-4x4x4`` and ``simgrid-fattree-64`` state only the platforms' parameters
as the table's sidecar describes them (10 Gbit/s, 80 ns links; the fat tree's host link
as injection and ejection, the torus with none; SMPI's 16 B envelope as 16 one-byte header
flits in one packet; no software overhead; sends at most 65535 B eager; dmodk routing on
the tree), and ``collectives.collective_time`` with ``api="none"`` gives the time of the
algorithm SMPI ran (name map below). SMPI's all-gather size is one rank's block; icnperf's
is the gathered vector, 64x it.

| SMPI collective | SMPI algorithm | icnperf algorithm |
|---|---|---|
| bcast | binomial_tree, default | binomial |
| allreduce | rdb | recursive-doubling |
| allreduce | lr | ring |
| allreduce | rab_rdb | rabenseifner |
| allreduce | default, lr(fallback=redbcast) | reduce-bcast |
| allgather | rdb | recursive-doubling |
| allgather | NTSLR | ring |
| allgather | ring | pairwise |
| allgather | default | linear |

Tolerance: 10 % relative, the target the issue sets for this reference. Every row is
registered. ``allreduce rab_rdb`` at 256 B on both platforms was left out until icnperf's
Rabenseifner split the vector in whole elements as SMPI and MPICH do (count / pof2 doubles
per block, the rest in the last; schedules.split_bytes, 8-byte doubles as the reference's
MPI_SUM on doubles): 32 doubles over 64 ranks put all 32 in the last block, so the message
carrying it never shrinks while the others carry none. Those two rows were registered with
the same 10 % before their result was computed with the final model (a hand estimate said
-0.5 % and -4.7 %). Disclosed: a first version of the split, which charged the large
message against every message's link sharing, was seen to give +31 % on the torus row; the
final model times only the messages that carry the last block, as SMPI's index arithmetic
does (checked against a replay of it for P = 2..17), and gives -0.9 % and -3.6 %. More
platforms of the same kind (tapered and three-level trees) are held out by the reference's
authors to judge the model on unseen cases.
"""

from __future__ import annotations

from functools import lru_cache

from icnperf.validation.claim import Claim

TABLE = "simgrid-collectives-cm02"
MACHINES = {"torus_4x4x4": "simgrid-torus-4x4x4", "fattree_2l_64": "simgrid-fattree-64"}
OPERATIONS = {"bcast": "broadcast", "allreduce": "allreduce", "allgather": "allgather"}
ALGORITHMS = {
    ("bcast", "binomial_tree"): "binomial", ("bcast", "default"): "binomial",
    ("allreduce", "rdb"): "recursive-doubling", ("allreduce", "lr"): "ring",
    ("allreduce", "rab_rdb"): "rabenseifner", ("allreduce", "default"): "reduce-bcast",
    ("allreduce", "lr(fallback=redbcast)"): "reduce-bcast",
    ("allgather", "rdb"): "recursive-doubling", ("allgather", "NTSLR"): "ring",
    ("allgather", "ring"): "pairwise", ("allgather", "default"): "linear",
}
"""SMPI (collective, algorithm) -> icnperf algorithm (the module docstring's table)."""

NOT_REGISTERED: set[tuple[str, str, int]] = set()
"""(collective, algorithm, message_bytes) rows left out, with the reason in the docstring
(none today)."""

SOURCE = "SimGrid/SMPI 3.32 under CM02, bundled table simgrid-collectives-cm02"
TOLERANCE = 0.10
TOLERANCE_REASON = ("the 10 % target issue #15 set for this reference before any row was "
                    "compared; SimGrid is deterministic, so the band is for the model's own "
                    "simplifications (no seed noise)")


@lru_cache(maxsize=None)
def _machine(platform: str):
    from icnperf.data.machine import load_machine

    return load_machine(MACHINES[platform])


@lru_cache(maxsize=None)
def predicted_time(platform: str, collective: str, algorithm: str, message_bytes: int,
                   nodes: int) -> float:
    """icnperf's time (s) of the SMPI row: the mapped algorithm on the platform's machine,
    api none, the all-gather's size scaled to the whole vector."""
    from icnperf.model import collectives

    size = message_bytes * (nodes if collective == "allgather" else 1)
    result = collectives.collective_time(_machine(platform), OPERATIONS[collective],
                                         ALGORITHMS[(collective, algorithm)], [size],
                                         api="none")
    return float(result.time[0])


def _rows() -> list[dict]:
    from icnperf.data.measurements.tables import load_table

    return [r for r in load_table(TABLE).rows()
            if (r["collective"], r["algorithm"], r["message_bytes"]) not in NOT_REGISTERED]


def _claim(row: dict) -> Claim:
    platform, collective, algorithm = row["platform"], row["collective"], row["algorithm"]
    size, nodes = int(row["message_bytes"]), int(row["nodes"])
    ours = ALGORITHMS[(collective, algorithm)]
    slug = algorithm.replace("(fallback=redbcast)", "-fallback")
    return Claim(
        id=f"simgrid-{platform}-{collective}-{slug}-{size}B",
        source=f"{SOURCE}, platform {platform}",
        quantity=(f"{collective} time on {nodes} ranks, SMPI {algorithm} (icnperf {ours}), "
                  f"{size} B per rank"),
        measured=float(row["time_s"]),
        unit="s",
        tolerance=TOLERANCE,
        tolerance_kind="relative",
        predict=lambda: predicted_time(platform, collective, algorithm, size, nodes),
        runs="closed-form",
        kind="predicted",
        tolerance_reason=TOLERANCE_REASON,
    )


CLAIMS: list[Claim] = [_claim(row) for row in _rows()]
