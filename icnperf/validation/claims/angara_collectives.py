"""Angara collectives paper (Mukosey 2015), §3.1 and Fig. 7: hardware tree vs point-to-point.

The published figures (bundled table ``angara-collectives-fig7``): a broadcast of one
maximum-size packet (16 flits, 256 bytes) is 2.39x faster on the hardware collective
subnetwork than by point-to-point sends over the same tree on a 2x2x2 torus, 6.97x on
16x16x32 and 6.18x on the 4D 8x8x8x16 (both 8192 nodes); all-reduce shows 'approximately
the same' difference; the 4D torus gains less because of its smaller diameter; the
difference grows with the node count (conclusion).

How they are predicted (model/collectives, nothing fitted to these numbers; the presets'
host rate is calibrated on Fig. 9, not here, and moves these ratios by under 1 %):

* machines: the angara-3d / angara-4d presets with the topology replaced by the needed
  shape (torus sweeps use ``torus.balanced_torus_shape``);
* message: one packet of 256 bytes on the wire, i.e. 256 B minus the presets' header flit
  (16 B) = 240 B of payload, so that hardware and point-to-point both move one packet;
* ratio = time of ``p2p-tree`` / time of ``hw-tree`` for the same operation and torus;
* software: the MPI overhead of the presets (calibrated from Agarkov 2015 Table 2, not from
  Fig. 7), paid per message by the point-to-point tree and once by the hardware call.
  MPI rather than SHMEM because the paper's point-to-point collectives are MPICH's
  (§3.2 cites Thakur et al.'s recursive doubling for its p2p all-gather). With the SHMEM
  overhead (0 ns) both variants lose 300 ns per message and the broadcast ratios drop to
  2.13 / 5.38 / 4.92, outside the tolerance at 8192 nodes.

All-reduce (a known discrepancy at 8 nodes and for the 4D torus): any model in which the
hardware tree pays its fixed costs (software call, injection, ejection) once plus a cost
per hop, and the point-to-point tree pays a cost per level - the paper's own explanation
of the speedup - makes the broadcast ratio R(D) = D·T / (F + D·h) on a tree of depth D,
and an all-reduce (reduce to the root, then broadcast, as the paper builds both variants)
a broadcast over 2D levels: R_allreduce(D) = R(2D). The paper's three broadcast ratios fit
this form (1/R is linear in 1/D: the two 3D points give F/T and h/T, and the 4D point
follows within 1 %), and then imply all-reduce ratios of R(2D), far above the broadcast
ratio at 8 nodes. The expected value of each all-reduce claim is that R(2D), derived from
the bundled broadcast ratios.

Every claim here is ``predicted``. Tolerance of the ratios: :data:`SIMULATOR_SPREAD`, the
source's own spread. The paper's hardware times are its simulator's and its point-to-point
times are analytic (§3.1); the paper compares its simulator with the real cluster once,
for the point-to-point all-gather on 2, 4 and 8 nodes, and finds at most 8.96 % difference
(§3.2). A published ratio T_p2p / T_hw whose T_hw is off by e is off by e relative to the
published value, so the model agrees with the paper when within 8.96 % of it. (The ratios
carried ±15 %, the band of issue #4, until issue #21 asked each tolerance for its reason;
with 8.96 % the 16x16x32 all-reduce ratio, 13.8 % above the published 6.97, is a known
discrepancy like the other two, 2.5 % from the R(64) = 7.74 the broadcast ratios imply.)
"""

from __future__ import annotations

from functools import lru_cache

from icnperf.validation.claim import Claim

SOURCE = "Angara collectives paper (Mukosey 2015), §3.1 text under Fig. 7"
CONCLUSION = "Angara collectives paper (Mukosey 2015), §3.1 and conclusion"
TABLE = "angara-collectives-fig7"
API = "mpi"
"""Software overhead of both variants: MPI (see the module docstring)."""

SIMULATOR_SPREAD = 0.0896
"""The paper's largest simulator-vs-cluster difference, 8.96 % (Mukosey 2015 §3.2)."""
SPREAD_REASON = ("the source's own spread: the paper's simulator differs from the real "
                 "cluster by up to 8.96 % (§3.2) and only the hardware time of each ratio "
                 "is simulated (the point-to-point time is analytic, §3.1), so the "
                 "published ratio is itself uncertain by 8.96 % of its value")
ORDER = "a statement of order: it holds (1) or not (0); no tolerance"
PRESETS = {3: "angara-3d", 4: "angara-4d"}
SWEEP = {3: [8 * 2 ** i for i in range(11)], 4: [16 * 2 ** i for i in range(10)]}
"""Node counts of the sweeps (Fig. 7's axis, 8 ... 8192; a 4D torus needs 16 nodes)."""


@lru_cache(maxsize=None)
def _rows() -> tuple[dict, ...]:
    from icnperf.data.measurements.tables import load_table

    return tuple(load_table(TABLE).rows())


def _row(operation: str, dims: int, nodes: int) -> dict:
    return next(r for r in _rows()
                if r["operation"] == operation and r["dims"] == dims and r["nodes"] == nodes)


@lru_cache(maxsize=None)
def ratio(operation: str, dims: int, shape: tuple[int, ...], message_bytes: int = 256) -> float:
    """p2p-tree time / hw-tree time of ``operation`` on the torus ``shape`` for one packet of
    ``message_bytes`` on the wire, with the angara-{dims}d preset's parameters."""
    from icnperf.data.machine import load_machine
    from icnperf.model import collectives
    from icnperf.model.collectives import Layout

    machine = load_machine(PRESETS[dims]).with_overrides(
        ["topology=torus:" + "x".join(str(k) for k in shape)])
    header = machine.require("network.packet_header_flits") * machine.require(
        "network.flit_size")
    m = message_bytes - header
    layout = Layout.torus(shape)
    hw = collectives.collective_time(machine, operation, "hw-tree", [m], layout=layout,
                                     api=API).time[0]
    p2p = collectives.collective_time(machine, operation, "p2p-tree", [m], layout=layout,
                                      api=API).time[0]
    return float(p2p / hw)


def _shape(text: str) -> tuple[int, ...]:
    return tuple(int(k) for k in text.lower().split("x"))


def _predicted(operation: str, dims: int, nodes: int) -> float:
    row = _row(operation, dims, nodes)
    return ratio(operation, dims, _shape(row["torus"]), row["message_bytes"])


# --- the all-reduce discrepancy: what the paper's own broadcast ratios imply -------------


def _depth(shape) -> int:
    from icnperf.model.topology.torus import spanning_tree_depth

    return spanning_tree_depth(shape)


@lru_cache(maxsize=None)
def published_fit() -> tuple[float, float]:
    """(F/T, h/T) of 1/R = (F/T)/D + h/T through the two published 3D broadcast ratios
    (D = tree depth of 2x2x2 and 16x16x32)."""
    (d1, r1), (d2, r2) = [(_depth(_shape(_row("broadcast", 3, n)["torus"])),
                           _row("broadcast", 3, n)["speedup"]) for n in (8, 8192)]
    slope = (1 / r1 - 1 / r2) / (1 / d1 - 1 / d2)
    return slope, 1 / r1 - slope / d1


def implied_ratio(depth: float) -> float:
    """The broadcast ratio R(D) = 1 / ((F/T)/D + h/T) the published 3D ratios imply."""
    fixed, per_hop = published_fit()
    return 1 / (fixed / depth + per_hop)


def implied_allreduce(dims: int, nodes: int) -> float:
    """The all-reduce ratio the published broadcast ratios imply: R(2D)."""
    return implied_ratio(2 * _depth(_shape(_row("all-reduce", dims, nodes)["torus"])))


def _allreduce_reason(dims: int, nodes: int) -> str:
    row = _row("all-reduce", dims, nodes)
    depth = _depth(_shape(row["torus"]))
    fixed, per_hop = published_fit()
    check = _row("broadcast", 4, 8192)
    return (
        f"'approximately the same' does not follow from the paper's own broadcast ratios: "
        f"with the hardware paying fixed costs once and a cost per hop and the "
        f"point-to-point tree a cost per level (the paper's explanation), 1/R = (F/T)/D + "
        f"h/T; the published 2.39 (D = 3) and 6.97 (D = 32) give F/T = {fixed:.3f}, h/T = "
        f"{per_hop:.3f} (the 4D point then reads {implied_ratio(20):.2f} against the "
        f"published {check['speedup']:.2f}), and an all-reduce - reduce then broadcast over "
        f"the same tree - is a broadcast over 2D levels: on torus {row['torus']} (D = "
        f"{depth}) its ratio is R({2 * depth}) = {implied_allreduce(dims, nodes):.2f}, not "
        f"{row['speedup']:.2f}"
    )


# --- orderings ----------------------------------------------------------------------------


def sweep_ratios(operation: str, dims: int) -> list[tuple[int, tuple[int, ...], float]]:
    """(nodes, balanced shape, ratio) over :data:`SWEEP`."""
    from icnperf.model.topology.torus import balanced_torus_shape

    out = []
    for nodes in SWEEP[dims]:
        shape = balanced_torus_shape(nodes, dims)
        out.append((nodes, shape, ratio(operation, dims, shape)))
    return out


def _grows(operation: str, dims: int) -> float:
    values = [r for _, _, r in sweep_ratios(operation, dims)]
    return 1.0 if all(b > a for a, b in zip(values, values[1:])) else 0.0


def _four_d_gains_less(operation: str) -> float:
    three = _predicted(operation, 3, 8192)
    four = _predicted(operation, 4, 8192)
    return 1.0 if four < three else 0.0


def _ratio_claim(operation: str, dims: int, nodes: int) -> Claim:
    row = _row(operation, dims, nodes)
    name = "broadcast" if operation == "broadcast" else "allreduce"
    quantity = (f"{operation} hw-tree speedup over p2p-tree, torus {row['torus']} ({nodes} "
                f"nodes), one {row['message_bytes']}-byte packet")
    if operation == "broadcast":
        return Claim(f"angara-fig7-{name}-{dims}d-{nodes}", SOURCE, quantity,
                     row["speedup"], "x", SIMULATOR_SPREAD, "relative",
                     lambda: _predicted(operation, dims, nodes), kind="predicted",
                     tolerance_reason=SPREAD_REASON)
    return Claim(f"angara-fig7-{name}-{dims}d-{nodes}", SOURCE,
                 quantity + " ('approximately the same' as the broadcast ratio)",
                 row["speedup"], "x", SIMULATOR_SPREAD, "relative",
                 lambda: _predicted(operation, dims, nodes),
                 discrepancy=lambda: _allreduce_reason(dims, nodes),
                 expected=implied_allreduce(dims, nodes), kind="predicted",
                 tolerance_reason=SPREAD_REASON)


_ORDERING = dict(kind="predicted", tolerance_reason=ORDER)

CLAIMS = [
    _ratio_claim("broadcast", 3, 8),
    _ratio_claim("broadcast", 3, 8192),
    _ratio_claim("broadcast", 4, 8192),
    _ratio_claim("all-reduce", 3, 8),
    _ratio_claim("all-reduce", 3, 8192),
    _ratio_claim("all-reduce", 4, 8192),
    Claim("angara-fig7-broadcast-grows-3d", CONCLUSION,
          "broadcast speedup grows at every doubling of a balanced 3D torus, 8 ... 8192 nodes",
          1, "holds", 0, "ordering", lambda: _grows("broadcast", 3), **_ORDERING),
    Claim("angara-fig7-broadcast-grows-4d", CONCLUSION,
          "broadcast speedup grows at every doubling of a balanced 4D torus, 16 ... 8192 nodes",
          1, "holds", 0, "ordering", lambda: _grows("broadcast", 4), **_ORDERING),
    Claim("angara-fig7-allreduce-grows-3d", CONCLUSION,
          "all-reduce speedup grows at every doubling of a balanced 3D torus, 8 ... 8192 nodes",
          1, "holds", 0, "ordering", lambda: _grows("all-reduce", 3), **_ORDERING),
    Claim("angara-fig7-broadcast-4d-gains-less", SOURCE,
          "broadcast speedup at 8192 nodes: 4D (8x8x8x16) below 3D (16x16x32)",
          1, "holds", 0, "ordering", lambda: _four_d_gains_less("broadcast"), **_ORDERING),
    Claim("angara-fig7-allreduce-4d-gains-less", SOURCE,
          "all-reduce speedup at 8192 nodes: 4D (8x8x8x16) below 3D (16x16x32)",
          1, "holds", 0, "ordering", lambda: _four_d_gains_less("all-reduce"),
          **_ORDERING),
]
