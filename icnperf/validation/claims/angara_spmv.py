"""Angara collectives paper (Mukosey 2015), §3.2, Fig. 9: sparse matrix-vector product with
the hardware all-gather vs recursive doubling on a 4D torus.

Published (bundled table ``angara-spmv-fig9``): N = 20,480,000 rows, d = 10; the hardware
all-gather gains at most 28 % (at 2048 nodes), and the gain is small and grows with the
node count up to there (§3.2 and the conclusion). Nothing else of Fig. 9 is readable.

How they are predicted (model/apps/spmv.py; one set of constants for every node count):

* machine: the angara-4d preset, the torus reshaped to ``torus.balanced_torus_shape(P, 4)``
  (ascending radices, as the paper's 8x8x8x16; ranks linear, dimension 0 fastest), MPI
  software overhead; gain = T_iteration(recursive-doubling) / T_iteration(hw-tree);
* every node takes in the whole 163.84 MB vector each iteration, so both all-gathers run
  at the host interface's rate and the gain is the link contention of recursive
  doubling's large late exchanges (two messages per channel on the radix-8 rings of
  4x8x8x8 with ties split: the half-ring ones and the quarter-ring ones alike);
* two constants are set on the 2048-node value, both stated in the preset:
  ``network.ring_ties`` = split (chosen) and ``network.host_bandwidth`` = 5.85 GB/s
  (solved for +28 %, :func:`calibrated_host_bandwidth`), so that claim is the
  calibration point;
* held out: the gain never falls as the node count doubles from 16 to 2048, so 2048 is
  where it is largest. The model's gain is flat (below 0.1 %) up to 256 nodes, where every
  exchange has a channel to itself, and steps up at 512, the first shape with a radix-8
  ring; the paper's 'small, grows with the node count' is matched only in that weak sense
  (its smaller node counts are not readable).
* beyond the figure: the sweep stops at 2048 because the paper names no larger point for
  Fig. 9 and reads 2048 as its maximum. The model's gain goes on rising: 1.28 at 4096
  (8x8x8x8) and 2.30 at 8192 (8x8x8x16, whose last exchange is half a radix-16 ring). If
  Fig. 9 runs past 2048 nodes the model contradicts it there.
"""

from __future__ import annotations

from functools import lru_cache

from icnperf.validation.claim import Claim

SOURCE = "Angara collectives paper (Mukosey 2015), §3.2 and conclusion (Fig. 9)"
TABLE = "angara-spmv-fig9"
PRESET = "angara-4d"
DIMS = 4
API = "mpi"
P2P = "recursive-doubling"
"""The point-to-point all-gather the paper names (§3.2, Thakur et al.)."""
SWEEP = tuple(16 * 2 ** i for i in range(8))
"""16 ... 2048 nodes (a 4D torus needs 16; 2048, the paper's maximum, is taken as the
figure's last point: see the module docstring)."""
SLACK = 1e-3
"""A doubling may lower the gain by at most this (ratio units, 0.1 percentage point)."""
TOLERANCE = 0.10
"""Issue #5's ±10 percentage points of gain, as an absolute tolerance on the ratio."""
TOLERANCE_REASON = (
    "±10 points of gain, the band issue #5 set for this figure before the model existed; "
    "the paper states 28 % without a spread. The claim is calibrated (the host rate is "
    "solved for 1.28), so the band only checks that the calibration is in place")
SLACK_REASON = (
    "a statement of order: a doubling may lower the gain by at most 0.1 point (SLACK), "
    "far below a fall the figure would show, so a flat stretch counts as not falling")


@lru_cache(maxsize=None)
def _row() -> dict:
    from icnperf.data.measurements.tables import load_table

    (row,) = load_table(TABLE).rows()
    return row


def _machine_and_layout(nodes: int, host_bandwidth: float | None = None):
    from icnperf.data.machine import load_machine
    from icnperf.model.collectives import Layout
    from icnperf.model.topology.torus import balanced_torus_shape

    shape = balanced_torus_shape(nodes, DIMS)
    layout = Layout.torus(shape)
    machine = load_machine(PRESET).with_overrides([f"topology={layout.text}"])
    if host_bandwidth is not None:
        machine = machine.with_values({"network.host_bandwidth": host_bandwidth},
                                      "angara_spmv calibration")
    return machine, layout


@lru_cache(maxsize=None)
def gain(nodes: int, host_bandwidth: float | None = None) -> float:
    """Predicted T_iteration(recursive-doubling) / T_iteration(hw-tree) (the preset's host
    rate unless ``host_bandwidth``, bytes/s, is given)."""
    from icnperf.model.apps import spmv

    machine, layout = _machine_and_layout(nodes, host_bandwidth)
    rows, d = _row()["matrix_rows"], _row()["nonzeros_per_row"]
    p2p = spmv.predict(machine, layout, algorithm=P2P, rows=rows, nonzeros_per_row=d, api=API)
    hw = spmv.predict(machine, layout, algorithm="hw-tree", rows=rows, nonzeros_per_row=d,
                      api=API)
    return p2p.iteration_s / hw.iteration_s


def calibrated_host_bandwidth() -> float:
    """The host rate (bytes/s) at which the 2048-node gain equals the published one: the
    calibration behind the preset's ``network.host_bandwidth`` (Brent's method between 1
    and 8 GB/s; the gain falls as the host interface slows and the links stop binding)."""
    from scipy.optimize import brentq

    row = _row()
    return float(brentq(lambda b: gain(row["nodes"], b) - row["speedup"], 1e9, 8e9,
                        xtol=1e5))


def never_falls() -> float:
    """1 if the gain drops by no more than :data:`SLACK` at any doubling of the sweep and
    ends above where it starts, else 0."""
    values = [gain(n) for n in SWEEP]
    steady = all(b >= a - SLACK for a, b in zip(values, values[1:]))
    return 1.0 if steady and values[-1] > values[0] + SLACK else 0.0


def _claims() -> list[Claim]:
    row = _row()
    nodes = row["nodes"]
    return [
        Claim(f"angara-fig9-spmv-gain-{row['dims']}d-{nodes}", SOURCE,
              f"SpMV (N = {row['matrix_rows']}, d = {row['nonzeros_per_row']}) iteration "
              f"time, {P2P} all-gather / hw-tree all-gather, 4D torus, {nodes} nodes "
              "(calibration point of network.host_bandwidth)",
              row["speedup"], "x", TOLERANCE, "absolute", lambda: gain(nodes),
              runs="application", kind="calibrated",
              fitted="network.host_bandwidth (angara-3d/4d, 5.85 GB/s) with "
                     "network.ring_ties = split chosen beside it",
              tolerance_reason=TOLERANCE_REASON),
        Claim(f"angara-fig9-spmv-grows-{row['dims']}d", SOURCE,
              f"SpMV: the hardware gain never falls as the nodes double, {SWEEP[0]} ... "
              f"{SWEEP[-1]}, so it is largest at {SWEEP[-1]} (held out)",
              1, "holds", 0, "ordering", never_falls, runs="application",
              kind="predicted", tolerance_reason=SLACK_REASON),
    ]


CLAIMS = _claims()
