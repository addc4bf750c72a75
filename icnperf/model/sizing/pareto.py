"""The cost-performance Pareto front: designs no other design beats on both cost and time.

Design j dominates design i when cost_j <= cost_i and time_j <= time_i with at least one
strict. The front is the set of non-dominated designs (equal points are both on it).
"""

from __future__ import annotations

import numpy as np

from icnperf.errors import InputError


def pareto_front(cost, time) -> np.ndarray:
    """Boolean mask of the non-dominated points of (cost, time), both to be minimised.

    One sort and a sweep, O(n log n): in increasing cost, a point is dominated when a
    cheaper point is at least as fast, or a point of equal cost is strictly faster.
    Raises InputError for NaN or mismatched inputs.
    """
    c = np.asarray(cost, dtype=float).ravel()
    t = np.asarray(time, dtype=float).ravel()
    if c.shape != t.shape:
        raise InputError("pareto_front: cost and time must have the same length")
    if np.isnan(c).any() or np.isnan(t).any():
        raise InputError("pareto_front: cost and time must not be NaN")
    order = np.lexsort((t, c))
    front = np.zeros(c.shape, dtype=bool)
    best_cheaper = np.inf
    start = 0
    while start < len(order):
        stop = start
        while stop < len(order) and c[order[stop]] == c[order[start]]:
            stop += 1
        group = order[start:stop]
        fastest = t[group].min()
        front[group] = (t[group] < best_cheaper) & (t[group] == fastest)
        best_cheaper = min(best_cheaper, fastest)
        start = stop
    return front


def dominated_by(cost, time, i: int) -> np.ndarray:
    """Indices of the points that dominate point i (empty when i is on the front)."""
    c = np.asarray(cost, dtype=float)
    t = np.asarray(time, dtype=float)
    better = (c <= c[i]) & (t <= t[i]) & ((c < c[i]) | (t < t[i]))
    return np.flatnonzero(better)
