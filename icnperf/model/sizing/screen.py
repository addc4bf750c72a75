"""The safe screen: every design costed exactly and bounded from below by the proxy, then a
branch and bound that runs the full model only where the Pareto front could change.

Design j's full point (cost_j, time_j) dominates design i's (cost_i, proxy_i) point when
cost_j <= cost_i and time_j <= proxy_i with one of them strict. The proxy is a lower bound of
i's full time (proxy.py), so then j dominates i's full point too, and i cannot be on the
front of the whole space: dropping it is safe. The search takes the designs in increasing
proxy (cost breaking ties), skips those the evaluated designs already dominate and
evaluates the others with the full model, ``batch`` at a time, until every design is either
evaluated or dropped. A design j that could drop design i has time_j <= proxy_i, hence
proxy_j <= proxy_i: it comes first in the order, so when i's turn comes every design that
could drop it has been decided.

The front of the evaluated designs is the front of the whole space. Every design of the
whole front is evaluated (none can be dominated); an evaluated design dominated by a dropped
design k is dominated by the evaluated design that dropped k (dominance is transitive).

Designs with equal equivalence keys (proxy.Proxy.key_rows) have equal full times; once one is
evaluated, the others' proxy becomes that time, exact. The NUDT-rule designs are evaluated
whatever the screen says, so the study can show them, and so are the cheapest xgft tree of
each level count and top-level taper (:func:`taper_representatives`), so the study can state what a taper
saves and costs in time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from icnperf.errors import InputError
from icnperf.model.sizing.cost import CostModel, total_cost_arrays
from icnperf.model.sizing.proxy import Proxy
from icnperf.model.sizing.space import Block
from icnperf.model.sizing.workload import Workload

ROUNDING = 1e-9
"""The proxy is lowered by this fraction of itself: the bound and the model add the same
terms in different orders, and a rounding difference must never put the bound above the
model's value (float sums of a few hundred terms differ by ~1e-14 relative)."""

WINDOW = 4096
"""Designs the search examines at once, in proxy order (a larger window when fewer than
``batch`` of them are open): the first open designs of a window are the first of the whole
rest, since a design once dominated stays dominated (evaluated points are only added), so
the choice is the same as examining the whole rest each time, without its cost."""

SHORTLIST_MODES = ("safe", "all")
"""``--shortlist`` words: ``safe`` (the branch and bound) and ``all`` (every design); a
whole number N asks for the safe screen's designs topped up to N in proxy order."""


@dataclass(frozen=True)
class Screen:
    """A space costed and bounded: per design (blocks concatenated in order) its cost, proxy
    time (s), equivalence key and NUDT-rule flag. ``keys``: one value per design, equal for
    designs of equal full time (screen_space numbers the groups of proxy.Proxy.key_rows;
    any sortable values will do)."""

    blocks: tuple[Block, ...]
    cost: np.ndarray
    proxy_s: np.ndarray
    keys: object
    canonical: np.ndarray

    @property
    def screened(self) -> int:
        """Designs screened, all blocks together."""
        return len(self.cost)

    def counts(self) -> dict[str, int]:
        """Designs screened per family."""
        out: dict[str, int] = {}
        for block in self.blocks:
            out[block.family] = out.get(block.family, 0) + len(block)
        return out

    def family_of(self) -> np.ndarray:
        """The family name of every design."""
        return np.concatenate([np.full(len(b), b.family, dtype=object) for b in self.blocks])

    def locate(self, flat: int) -> tuple[int, int]:
        """(block, row) of a design's index into the concatenated arrays."""
        offsets = np.cumsum([0] + [len(b) for b in self.blocks])
        block = int(np.searchsorted(offsets, flat, side="right") - 1)
        return block, int(flat - offsets[block])


def screen_space(blocks: list[Block], cost_model: CostModel, workload: Workload, machine,
                 n_endpoints: int) -> Screen:
    """Cost (exact, cost.total_cost_arrays) and proxy (proxy.Proxy) of every design."""
    proxy = Proxy(workload, machine, n_endpoints, blocks)
    costs, bounds, keys = [], [], []
    for b in blocks:
        m = b.metrics
        costs.append(total_cost_arrays(np.asarray(m.routers, dtype=float),
                                       np.asarray(m.radix, dtype=float), b.electrical,
                                       b.optical, np.asarray(m.endpoints, dtype=float),
                                       cost_model))
        bounds.append(np.asarray(proxy.block_proxy(b), dtype=float) * (1.0 - ROUNDING))
        keys.append(proxy.key_rows(b))
    return Screen(tuple(blocks), np.concatenate(costs), np.concatenate(bounds),
                  _key_groups(keys), np.concatenate([b.canonical for b in blocks]))


def _key_groups(keys: list[tuple[tuple, np.ndarray]]) -> np.ndarray:
    """One group number per design (blocks in order) from each block's (tag, rows)
    (proxy.Proxy.key_rows): equal numbers for equal tags and equal rows."""
    tags = list(dict.fromkeys(tag for tag, _ in keys))
    group = [np.zeros(len(rows), dtype=np.int64) for _, rows in keys]
    first = 0
    for tag in tags:
        mine = [i for i, (t, _) in enumerate(keys) if t == tag]
        rows = np.concatenate([keys[i][1] for i in mine])
        inverse = _row_groups(rows)
        edges = np.cumsum([0] + [len(keys[i][1]) for i in mine])
        for i, low, high in zip(mine, edges[:-1], edges[1:]):
            group[i] = first + inverse[low:high]
        first += int(inverse.max()) + 1 if len(inverse) else 0
    return np.concatenate(group) if group else np.zeros(0, dtype=np.int64)


def _row_groups(rows: np.ndarray) -> np.ndarray:
    """Numbers 0, 1, ... of the distinct rows of a 2D array, one per row (a lexicographic
    sort of the columns; np.unique(axis=0) sorts a structured view, some 50 x slower)."""
    if not len(rows):
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    starts = np.concatenate([[True], (ordered[1:] != ordered[:-1]).any(axis=1)])
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    return inverse


@dataclass(frozen=True)
class Search:
    """What the search decided: the designs the full model evaluated (in evaluation order)
    with their full times, why each was evaluated (``reason``: "screen", "NUDT rule",
    "all", "top-up"), and the proxy each design had when it was decided (exact for designs
    whose equivalent was evaluated first)."""

    evaluated: tuple[int, ...]
    time: dict
    reason: dict
    proxy_s: np.ndarray
    mode: str

    @property
    def dropped(self) -> int:
        return len(self.proxy_s) - len(self.evaluated)


def taper_representatives(screen: Screen) -> dict[tuple[int, int], int]:
    """The cheapest xgft design of each level count and top-level taper (space.TAPERS; the
    fewest endpoints breaking ties), as {(levels, taper): index into the concatenated
    arrays}."""
    offsets = np.cumsum([0] + [len(b) for b in screen.blocks])
    best: dict[tuple[int, int], tuple] = {}
    for start, block in zip(offsets, screen.blocks):
        if block.family != "xgft":
            continue
        levels = block.params["m"].shape[1]
        endpoints = np.asarray(block.metrics.endpoints, dtype=float)
        for row, t in enumerate(block.params["taper"]):
            i = int(start + row)
            key = (float(screen.cost[i]), float(endpoints[row]), i)
            if (levels, int(t)) not in best or key < best[(levels, int(t))]:
                best[(levels, int(t))] = key
    return {group: key[2] for group, key in sorted(best.items())}


def parse_shortlist(value) -> str | int:
    """``safe``, ``all`` or a whole number >= 1 (InputError otherwise)."""
    text = str(value).strip().lower()
    if text in SHORTLIST_MODES:
        return text
    if text.isdigit() and int(text) >= 1:
        return int(text)
    raise InputError(f"--shortlist must be safe, all or a whole number >= 1, not {value!r}")


def _dominated(cost, proxy, points_cost, points_time) -> np.ndarray:
    """Which (cost, proxy) points the evaluated (cost, time) points dominate (module
    docstring), vectorized: the best time among strictly cheaper points and among points
    no dearer, from the staircase of the evaluated points sorted by cost."""
    if not len(points_cost):
        return np.zeros(len(cost), dtype=bool)
    order = np.argsort(points_cost, kind="stable")
    c, t = np.asarray(points_cost)[order], np.minimum.accumulate(np.asarray(points_time)[order])
    below = np.searchsorted(c, cost, side="left")
    upto = np.searchsorted(c, cost, side="right")
    cheaper = np.where(below > 0, t[np.maximum(below - 1, 0)], np.inf)
    no_dearer = np.where(upto > 0, t[np.maximum(upto - 1, 0)], np.inf)
    return (cheaper <= proxy) | (no_dearer < proxy)


def search(screen: Screen, evaluate: Callable[[list[int]], list[float]],
           shortlist: str | int = "safe", batch: int = 1) -> Search:
    """Run the full model (``evaluate``: design indices -> workload times, s) on the designs
    ``shortlist`` asks for: ``safe`` the branch and bound of the module docstring, ``all``
    every design, N the safe designs topped up in proxy order to N. ``batch`` designs are
    evaluated per call (a parallel evaluator gains from larger batches)."""
    shortlist = parse_shortlist(shortlist)
    proxy = screen.proxy_s.copy()
    time: dict[int, float] = {}
    reason: dict[int, str] = {}
    known = np.zeros(len(proxy), dtype=bool)
    _, group = np.unique(np.asarray(screen.keys), return_inverse=True)
    by_group = np.argsort(group.reshape(-1), kind="stable")
    edges = np.searchsorted(group.reshape(-1)[by_group], np.arange(group.max() + 2)
                            if len(group) else [0])

    def run(indices: list[int], why: str) -> None:
        if not indices:
            return
        for i, t in zip(indices, evaluate(indices)):
            time[i] = float(t)
            reason[i] = why
            known[i] = True
            g = int(group.reshape(-1)[i])
            members = by_group[edges[g]:edges[g + 1]]
            proxy[members] = np.maximum(proxy[members], float(t))

    order = np.lexsort((screen.cost, screen.proxy_s))
    if shortlist == "all":
        run([int(i) for i in order], "all")
        return Search(tuple(time), time, reason, proxy, "all")
    run([int(i) for i in np.flatnonzero(screen.canonical)], "NUDT rule")
    run([i for i in dict.fromkeys(taper_representatives(screen).values()) if not known[i]],
        "taper")
    position, window = 0, WINDOW
    while position < len(order):
        rest = order[position:position + window]
        points = np.fromiter(time, dtype=np.int64, count=len(time))
        open_ = ~known[rest] & ~_dominated(screen.cost[rest], proxy[rest],
                                           screen.cost[points],
                                           np.fromiter(time.values(), dtype=float,
                                                       count=len(time)))
        found = np.flatnonzero(open_)[:max(1, batch)]
        if len(found) < max(1, batch) and position + window < len(order):
            window *= 4     # too few open designs in the window: look further
            continue
        if not len(found):
            break
        position += int(found[-1]) + 1
        window = WINDOW
        run([int(i) for i in rest[found]], "screen")
    if isinstance(shortlist, int) and len(time) < shortlist:
        more = [int(i) for i in order if i not in time][:shortlist - len(time)]
        run(more, "top-up")
    return Search(tuple(time), time, reason, proxy, "safe" if shortlist == "safe"
                  else str(shortlist))
