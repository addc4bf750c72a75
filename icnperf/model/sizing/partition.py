"""Where a job of n nodes sits on a torus design: the most balanced partition that fits.

A job of n nodes on a torus of radices K_1..K_d runs on a partition: a box of radices
s_1..s_d (each >= 2) with s_1·...·s_d = n that fits inside the design, i.e. after sorting
both, s_i <= K_i for every i (an axis-aligned box fits in another, dimensions relabelled,
exactly when its sorted sides are no larger). Among the boxes that fit, the partition is the
most balanced: the smallest largest radix, then the smallest sum of radices (the smallest
diameter among those), then the lexicographically smallest: the order of
torus.balanced_torus_shape, which gives the same shape whenever the balanced shape fits
(both take the shapes from torus.torus_shapes, here ``box_shapes``).
When no box fits (n has no factorization within the design's sides, e.g. 10,000 nodes on a
7x7x205 torus) the job uses the whole torus.

The rule is vectorized over a whole space of designs (screen.py) and used one design at a
time by workload.job_layout, so both see the same partition.
"""

from __future__ import annotations

import numpy as np

from icnperf.model.topology.torus import torus_shapes as box_shapes


def partition_index(radices, nodes: int) -> np.ndarray:
    """For each design (rows of ``radices``, shape (designs, d)) the index into
    ``box_shapes(nodes, d)`` of its partition, -1 when none fits (the whole torus)."""
    radices = np.sort(np.atleast_2d(np.asarray(radices, dtype=np.int64)), axis=1)
    shapes = box_shapes(int(nodes), radices.shape[1])
    choice = np.full(len(radices), -1, dtype=np.int64)
    open_rows = np.arange(len(radices))
    for index, shape in enumerate(shapes):
        if not len(open_rows):
            break
        fits = (radices[open_rows] >= np.array(shape)).all(axis=1)
        choice[open_rows[fits]] = index
        open_rows = open_rows[~fits]
    return choice


def partition(radices, nodes: int) -> tuple[int, ...] | None:
    """The partition of one design (its radices, any order) for a job of ``nodes`` nodes, or
    None when the job must use the whole torus (module docstring)."""
    index = int(partition_index([tuple(radices)], nodes)[0])
    return None if index < 0 else box_shapes(int(nodes), len(radices))[index]


def partitions(designs_radices: list[tuple[int, ...]], nodes: int) -> list:
    """:func:`partition` of every design of a list (each its radices), counted at once per
    number of dimensions (:func:`partition_index` over all of them)."""
    out: list = [None] * len(designs_radices)
    by_dims: dict[int, list[int]] = {}
    for i, radices in enumerate(designs_radices):
        by_dims.setdefault(len(radices), []).append(i)
    for dims, rows in by_dims.items():
        shapes = box_shapes(int(nodes), dims)
        chosen = partition_index([designs_radices[i] for i in rows], nodes)
        for i, index in zip(rows, chosen.tolist()):
            out[i] = None if index < 0 else shapes[index]
    return out
