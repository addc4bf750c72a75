"""Application claims: HPCG on the 36-node Angara cluster (Agarkov 2015) and NPB IS placement
on fat-tree clusters (Peryshkova).

HPCG (table ``angara-hpcg-36-nodes``): the optimized version (single-node optimizations
without OpenMP, SHMEM halo exchange) is 39 % faster than reference HPCG 2.4 on 36 nodes, 8
processes per node, 16x16x16 per process. Predicted by model/apps/hpcg.py from inputs
only: the angara-36 preset (its MPI/SHMEM overheads calibrated from the 1 / 0.7 µs
latencies of Agarkov 2015 Table 2, memory bandwidths from Intel's CPU specifications), the
node-level factors of Agarkov 2015 §2.1 and §2.3 (contiguous 1.5x, ELLPACK 1.05x; the 4.8x
colouring is an OpenMP gain and the 39 % run excludes OpenMP) and a STREAM efficiency
from public STREAM results. Nothing is fitted to the 39 %. Tolerance: the issue's band
1.25x-1.53x, i.e. ±10 % relative. Agarkov 2015 does not say which SHMEM synchronisation
(pairwise flags or a global barrier) the 39 % is for, so both are checked.

NPB IS (tables ``npb-is-*``): leave-one-process-count-group-out (model/apps/npb_is.py).
Thresholds, fixed before the held-out results were computed:

* pooled Kendall tau over all pairs within each process count of the three tables
  >= 1/3 (two concordant pairs for each discordant one). Justification: with 2-4
  placements per group the pooled statistic rests on about 30 pairs; under random
  orderings its standard deviation is about 0.2, so 1/3 is roughly 1.6 standard
  deviations above chance, while the tables themselves carry unexplained swings (IB class
  C: 2 x 4 takes 6.54 s between 1 x 8 at 2.8 s and 4 x 2 at 2.96 s) that no placement
  model reproduces, so a higher bar would test the noise;
* the fastest placement predicted in at least half of the groups that have two or more
  placements.

Per-table results (printed by tests and in the report, not separate claims): a table with
a handful of pairs gives a tau of little weight on its own.
"""

from __future__ import annotations

from functools import cache

from icnperf.validation.claim import Claim

HPCG_SOURCE = ("HPCG-on-Angara paper (Agarkov 2015) §2.4 and conclusion: +39 % at 36 nodes, "
               "optimized SHMEM vs reference 2.4")
NPB_SOURCE = ("Peryshkova (NPB IS placement study), NPB IS tables (IB QDR class C, D; "
              "GigE class C), leave-one-process-count-group-out")
HPCG_TABLE = "angara-hpcg-36-nodes"
HPCG_MACHINE = "angara-36"
TAU_THRESHOLD = 1 / 3
HIT_FRACTION = 0.5
HPCG_REASON = (
    "±10 %, issue #5's band 1.25x-1.53x around the stated 1.39x, set before the model "
    "existed; the paper reports one run of each version and no spread")
THRESHOLD_REASON = ("a threshold fixed before the held-out results were computed (module "
                    "docstring); at or above it passes, no further allowance")


@cache
def _hpcg_row() -> dict:
    from icnperf.data.measurements.tables import load_table

    return load_table(HPCG_TABLE).rows()[0]


@cache
def hpcg_gain(sync: str = "pairwise") -> float:
    """Predicted reference time / optimized time (= GFLOP/s ratio) at the table's point."""
    from icnperf.data.machine import load_machine
    from icnperf.model.apps import hpcg
    from icnperf.model.collectives import Layout

    row = _hpcg_row()
    machine = load_machine(HPCG_MACHINE)
    layout = Layout.from_topology(machine.topology)
    if layout.endpoints != row["nodes"]:
        raise ValueError(f"{HPCG_MACHINE} has {layout.endpoints} nodes, the table "
                         f"{row['nodes']}")
    local = (row["local_nx"], row["local_ny"], row["local_nz"])
    kw = dict(local=local, processes_per_node=row["processes_per_node"])
    ref = hpcg.predict(machine, layout, variant="reference", **kw)
    opt = hpcg.predict(machine, layout, variant="optimized", sync=sync, **kw)
    return ref.total_s / opt.total_s


@cache
def npb_records() -> tuple:
    """The leave-one-group-out record of every bundled NPB IS table."""
    from icnperf.data.machine import load_machine
    from icnperf.data.measurements.tables import load_table
    from icnperf.model.apps import npb_is

    out = []
    for machine_name, tables in npb_is.TABLES_FOR_MACHINE.items():
        machine = load_machine(machine_name)
        for name in tables:
            out.append(npb_is.leave_one_group_out(load_table(name), machine))
    return tuple(out)


def pooled_tau() -> float:
    records = npb_records()
    pairs = sum(r.pairs for r in records)
    return (sum(r.concordant for r in records) - sum(r.discordant for r in records)) / pairs


def best_hits() -> tuple[int, int]:
    records = npb_records()
    return sum(r.hits for r in records), sum(r.contested for r in records)


def _hit_fraction() -> float:
    hits, contested = best_hits()
    return hits / contested


CLAIMS = [
    Claim("hpcg-36-shmem-gain-pairwise", HPCG_SOURCE,
          "optimized (SHMEM, pairwise sync, no OpenMP) / reference 2.4 performance, 36 nodes "
          "x 8 processes, 16^3 local (nothing fitted to it)",
          _hpcg_row()["speedup"], "x", 0.10, "relative", lambda: hpcg_gain("pairwise"),
          runs="application", kind="predicted", tolerance_reason=HPCG_REASON),
    Claim("hpcg-36-shmem-gain-barrier", HPCG_SOURCE,
          "optimized (SHMEM, barrier sync, no OpenMP) / reference 2.4 performance, 36 nodes "
          "x 8 processes, 16^3 local (nothing fitted to it)",
          _hpcg_row()["speedup"], "x", 0.10, "relative", lambda: hpcg_gain("barrier"),
          runs="application", kind="predicted", tolerance_reason=HPCG_REASON),
    Claim("npb-is-placement-pooled-tau", NPB_SOURCE,
          "held-out pooled Kendall tau (pairs within each process count, 3 tables); "
          "threshold 1/3",
          TAU_THRESHOLD, "tau", 0, "at-least", pooled_tau, runs="application",
          kind="predicted", tolerance_reason=THRESHOLD_REASON),
    Claim("npb-is-placement-best-picked", NPB_SOURCE,
          "held-out fraction of the groups with >= 2 rows whose fastest placement is "
          "predicted; threshold one half",
          HIT_FRACTION, "fraction", 0, "at-least", _hit_fraction, runs="application",
          kind="predicted", tolerance_reason=THRESHOLD_REASON),
]
