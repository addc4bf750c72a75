"""The cost-performance Pareto front: designs no other design beats on both cost and time.

Design j dominates design i when cost_j <= cost_i and time_j <= time_i with at least one
strict. The front is the set of non-dominated designs (equal points are both on it).
"""

from __future__ import annotations

import numpy as np

from icnperf.errors import InputError


def pareto_front(cost, time) -> np.ndarray:
    """Boolean mask of the non-dominated points of (cost, time), both to be minimised.

    One sort, no Python loop, O(n log n): in increasing (cost, time), a point is on the
    front when it is the fastest of its cost (ties included) and strictly faster than
    every cheaper point (a running minimum up to its cost group). Raises InputError for
    NaN or mismatched inputs.
    """
    c = np.asarray(cost, dtype=float).ravel()
    t = np.asarray(time, dtype=float).ravel()
    if c.shape != t.shape:
        raise InputError("pareto_front: cost and time must have the same length")
    if np.isnan(c).any() or np.isnan(t).any():
        raise InputError("pareto_front: cost and time must not be NaN")
    order = np.lexsort((t, c))
    cs, ts = c[order], t[order]
    start = np.searchsorted(cs, cs, side="left")
    running = np.minimum.accumulate(ts) if len(ts) else ts
    best_cheaper = np.where(start > 0, running[np.maximum(start - 1, 0)], np.inf)
    front = np.zeros(c.shape, dtype=bool)
    front[order] = (ts < best_cheaper) & (ts == ts[start])
    return front


def dominated_by(cost, time, i: int) -> np.ndarray:
    """Indices of the points that dominate point i (empty when i is on the front)."""
    c = np.asarray(cost, dtype=float)
    t = np.asarray(time, dtype=float)
    better = (c <= c[i]) & (t <= t[i]) & ((c < c[i]) | (t < t[i]))
    return np.flatnonzero(better)
