"""Angara collectives paper (Mukosey 2015), §3.3, Fig. 10: the explicit 2D heat equation with
the hardware all-reduce vs a point-to-point all-reduce on a 4D torus.

Published (bundled table ``angara-heat-fig10``): the hardware all-reduce shows once the
network has more than 64 nodes; at 32,768 nodes it is 3x faster for 40,960,000 cells and
2.7x for 81,920,000 and 163,840,000 cells; the gap grows with the node count.

How they are predicted (model/apps/heat.py; one set of constants for every grid and node
count):

* machine: the angara-4d preset, the torus reshaped to ``torus.balanced_torus_shape(P, 4)``
  (ascending radices, as the paper's 8x8x8x16); MPI software overhead for the
  point-to-point messages (as in the Fig. 7 claims);
* ratio = T_step(p2p) / T_step(hw-tree): compute at 11 GFLOP/s with 17 FLOP per cell plus
  ``node.stencil_overhead`` per sweep, two-phase halo, all-reduce of one double. The
  point-to-point all-reduce is :data:`P2P` = ``p2p-tree``: §3.3 takes T_max from the
  simulation of §3.1, whose point-to-point all-reduce is the one over the same tree (Fig. 7
  legend '4D p2p по дереву'); the paper names no other;
* ``node.stencil_overhead`` (14.4 µs) is the one constant calibrated on these claims: it
  is solved from the 40M ratio at 32,768 nodes, so that claim is the calibration point and
  cannot miss by much; the 81M and 163M ratios, the onset and the growth are held out.
* onset: 'the hardware support shows once the network has more than 64 nodes' read as
  the first node count of the doubling sweep at which the ratio exceeds
  :data:`ONSET_RATIO`; the paper's is the first doubling above 64, 128. The tolerance is
  one doubling (factor 2): the figure is sampled at doublings and 'shows' has no stated
  threshold (1.1 is ours). The model's onset is 512 / 1,024 / 2,048 nodes (40M / 81M /
  163M), 4-16x later: a known discrepancy, because the paper's own numbers put it there
  too (:func:`paper_ratio`): with compute at its 11 GFLOP/s (17 FLOP per cell, the 9-point
  stencil) plus a fixed per-step cost c, and the all-reduce gap growing with the tree
  depth D as its Fig. 7 broadcast ratios imply (the point-to-point tree pays T per level,
  the hardware F + h per level: gap T(2D(1 - h/T) - F/T) for reduce plus broadcast), its 3x
  (40M) and 2.7x (163M) at 32,768 nodes fix c and T, and the ratio then first exceeds 1.1
  at 512 / 1,024 / 2,048 nodes. (Until issue #21 this claim checked only that the ratio
  stays at most 1.1 up to 64 nodes and exceeds it at 32,768, which cannot see a late
  onset.)

Kinds and tolerances: the 40M ratio at 32,768 nodes is ``calibrated`` (it fixed
``node.stencil_overhead``); the rest are ``predicted``. The ratios' tolerance is the
source's own spread, :data:`HEAT_SPREAD`: the paper's simulator differs from the real
cluster by up to 8.96 % (§3.2), and both step times of a ratio carry simulated all-reduce
times (§3.3: T_max from the simulation), so the published ratio is uncertain by up to
1.0896 / 0.9104 - 1 = 19.7 % (it carried issue #5's ±20 % before, without a reason).
"""

from __future__ import annotations

from functools import lru_cache

from icnperf.validation.claim import Claim

SOURCE = "Angara collectives paper (Mukosey 2015), §3.3 last paragraph (Fig. 10)"
TABLE = "angara-heat-fig10"
PRESET = "angara-4d"
DIMS = 4
API = "mpi"
P2P = "p2p-tree"
"""Point-to-point all-reduce of the heat claims (see the module docstring)."""
ONSET_RATIO = 1.1
"""A ratio above this counts as a visible hardware gain."""
PUBLISHED_ONSET = 128
"""'More than 64 nodes' on the doubling axis: the first sweep point above 64."""
PAPER_RATE = 11e9
"""FLOP/s of the paper's single-node heat solver ('approximately 11 GFLOPS', §3.3)."""
SIMULATOR_SPREAD = 0.0896
"""The paper's largest simulator-vs-cluster difference, 8.96 % (Mukosey 2015 §3.2)."""
HEAT_SPREAD = (1 + SIMULATOR_SPREAD) / (1 - SIMULATOR_SPREAD) - 1
"""How far a ratio of two step times, each uncertain by 8.96 %, may be off: 19.7 %."""
SPREAD_REASON = (
    "the source's own spread: the paper's simulator differs from the real cluster by up to "
    "8.96 % (§3.2) and both step times of the ratio carry simulated all-reduce times "
    "(§3.3), so the published ratio is uncertain by 1.0896/0.9104 - 1 = 19.7 %")
ONSET_REASON = (
    "one doubling (factor 2): Fig. 10 is sampled at doublings and 'shows' has no stated "
    "threshold (the 1.1 is ours)")
ORDER = "a statement of order: it holds (1) or not (0); no tolerance"
SWEEP = tuple(16 * 2 ** i for i in range(12))
"""16 ... 32,768 nodes (a 4D torus needs 16)."""
CALIBRATION_CELLS = 40_960_000
"""The grid whose 32,768-node ratio fixed ``node.stencil_overhead``."""


@lru_cache(maxsize=None)
def _rows() -> tuple[dict, ...]:
    from icnperf.data.measurements.tables import load_table

    return tuple(load_table(TABLE).rows())


@lru_cache(maxsize=None)
def _machine_and_layout(nodes: int):
    from icnperf.data.machine import load_machine
    from icnperf.model.collectives import Layout
    from icnperf.model.topology.torus import balanced_torus_shape

    shape = balanced_torus_shape(nodes, DIMS)
    machine = load_machine(PRESET).with_overrides(
        ["topology=torus:" + "x".join(str(k) for k in shape)])
    return machine, Layout.torus(shape)


@lru_cache(maxsize=None)
def ratio(nodes: int, cells: int, algorithm: str = P2P) -> float:
    """Predicted step-time ratio T_step(algorithm) / T_step(hw-tree)."""
    from icnperf.model.apps import heat

    machine, layout = _machine_and_layout(nodes)
    hw = heat.predict(machine, layout, algorithm="hw-tree", cells=cells, api=API)
    p2p = heat.predict(machine, layout, algorithm=algorithm, cells=cells, api=API)
    return p2p.iteration_s / hw.iteration_s


def onset(cells: int, ratio_of=None) -> float:
    """The first sweep node count at which the ratio (``ratio_of(nodes, cells)``, default
    the model's :func:`ratio`) exceeds ONSET_RATIO; inf if none does."""
    ratio_of = ratio_of or ratio
    return float(next((n for n in SWEEP if ratio_of(n, cells) > ONSET_RATIO), float("inf")))


# --- what the paper's own numbers imply (module docstring), independent of the heat model -


def _depth(nodes: int) -> int:
    from icnperf.model.topology.torus import balanced_torus_shape, spanning_tree_depth

    return spanning_tree_depth(balanced_torus_shape(nodes, DIMS))


def _gap_levels(depth: int) -> float:
    """All-reduce gap over a tree of ``depth`` in units of T: 2D(1 - h/T) - F/T, with F/T
    and h/T from the paper's Fig. 7 broadcast ratios."""
    from icnperf.validation.claims.angara_collectives import published_fit

    fixed, per_hop = published_fit()
    return 2 * depth * (1 - per_hop) - fixed


def _seconds_per_cell() -> float:
    from icnperf.model.apps.heat import FLOPS_PER_CELL

    return FLOPS_PER_CELL / PAPER_RATE


@lru_cache(maxsize=None)
def paper_fit() -> tuple[float, float]:
    """(c, T) in seconds: the fixed per-step cost and the per-level point-to-point cost that
    make 1 + T·gap(D) / (a·cells/P + c) equal the paper's 3x (40M) and 2.7x (163M) at
    32,768 nodes, a = 17 FLOP / 11 GFLOP/s per cell."""
    published = {r["grid_cells"]: r["speedup"] for r in _rows() if r["relation"] != "onset"}
    nodes = SWEEP[-1]
    (small, r_small), (large, r_large) = [(c, published[c]) for c in
                                          (min(published), max(published))]
    a = _seconds_per_cell()
    # (r - 1)(a·cells/P + c) = T·gap is the same for both grids: solve for c, then T
    c = a * ((r_large - 1) * large - (r_small - 1) * small) / nodes / (r_small - r_large)
    per_level = (r_small - 1) * (a * small / nodes + c) / _gap_levels(_depth(nodes))
    return c, per_level


def paper_ratio(nodes: int, cells: int) -> float:
    """The hardware/p2p step-time ratio the paper's own numbers imply (:func:`paper_fit`)."""
    c, per_level = paper_fit()
    return 1 + per_level * _gap_levels(_depth(nodes)) / (_seconds_per_cell() * cells / nodes
                                                          + c)


def _onset_reason(cells: int) -> str:
    c, per_level = paper_fit()
    model, paper = onset(cells), onset(cells, paper_ratio)
    step = _seconds_per_cell() * cells / PUBLISHED_ONSET + c
    have = per_level * _gap_levels(_depth(PUBLISHED_ONSET))
    need = (ONSET_RATIO - 1) * step
    return (
        f"the paper's own numbers put the onset late too: with compute at its 11 GFLOP/s "
        f"(17 FLOP per cell) plus a fixed per-step cost c, and the all-reduce gap growing "
        f"with tree depth D as its Fig. 7 broadcast ratios imply (T(2D(1 - h/T) - F/T)), its "
        f"3x (40M) and 2.7x (163M) at 32,768 nodes give c = {c * 1e6:.1f} µs and T = "
        f"{per_level * 1e6:.2f} µs; the ratio then stays {paper_ratio(PUBLISHED_ONSET, cells):.3f}"
        f" at {PUBLISHED_ONSET} nodes and first exceeds {ONSET_RATIO} at {paper:,.0f} nodes "
        f"(the model: {model:,.0f}); a ratio of {ONSET_RATIO} at {PUBLISHED_ONSET} nodes "
        f"would need an all-reduce gap of {need * 1e6:.0f} µs there, {need / have:.1f}x the "
        f"{have * 1e6:.1f} µs these numbers give")


def grows(cells: int) -> float:
    """1 if the ratio rises at every doubling of the sweep, else 0."""
    values = [ratio(n, cells) for n in SWEEP]
    return 1.0 if all(b > a for a, b in zip(values, values[1:])) else 0.0


def _label(cells: int) -> str:
    return f"{int(cells) // 1_000_000}M"


def _claims() -> list[Claim]:
    out = []
    for row in _rows():
        nodes, cells = row["nodes"], row["grid_cells"]
        label = _label(cells)
        if row["relation"] == "onset":
            out.append(Claim(
                f"angara-fig10-heat-onset-{row['dims']}d-{label}", SOURCE,
                f"heat ({cells} cells): first node count of the 4D doubling sweep "
                f"({SWEEP[0]} ... {SWEEP[-1]}) with a hardware/p2p ratio above {ONSET_RATIO}"
                f" ('more than {nodes}': {PUBLISHED_ONSET})",
                PUBLISHED_ONSET, "nodes", 2, "factor", lambda c=cells: onset(c),
                discrepancy=lambda c=cells: _onset_reason(c),
                expected=onset(cells, paper_ratio), runs="application",
                kind="predicted", tolerance_reason=ONSET_REASON))
            out.append(Claim(
                f"angara-fig10-heat-grows-{row['dims']}d-{label}", SOURCE,
                f"heat ({cells} cells): the hardware/p2p ratio grows at every doubling, "
                f"{SWEEP[0]} ... {SWEEP[-1]} nodes",
                1, "holds", 0, "ordering", lambda c=cells: grows(c), runs="application",
                kind="predicted", tolerance_reason=ORDER))
        else:
            calibration = cells == CALIBRATION_CELLS
            role = (" (calibration point of node.stencil_overhead)" if calibration
                    else " (held out)")
            out.append(Claim(
                f"angara-fig10-heat-ratio-{row['dims']}d-{nodes}-{label}", SOURCE,
                f"heat ({cells} cells) step time, {P2P} all-reduce / hw-tree all-reduce, "
                f"4D torus, {nodes} nodes{role}",
                row["speedup"], "x", HEAT_SPREAD, "relative",
                lambda n=nodes, c=cells: ratio(n, c), runs="application",
                kind="calibrated" if calibration else "predicted",
                fitted="node.stencil_overhead (angara-4d, 14.4 µs)" if calibration else None,
                tolerance_reason=SPREAD_REASON))
    return out


CLAIMS = _claims()
