"""Structured counting of the whole-job message patterns: every rank shifting by d, every
rank exchanging with its number XOR i, every rank sending to every other. Each function
returns exactly what :meth:`Layout.rank_traffic` returns for the explicit messages
(hops, load, host, intra), by a closed form where the layout has one and by mapping the
messages otherwise.

Closed forms (model.topology.torus.patterns, exact, vectorised over shifts and masks):

* shift and XOR on a torus the job fills, one process per node, linearly placed (rank =
  endpoint; XOR needs power-of-two radices, which a power-of-two P gives);
* the all-to-all on a torus the job fills, linearly placed, any processes per node:
  every ordered pair of distinct nodes carries ppn^2 messages, so the channel load is
  ppn^2 times the nodes' all-to-all, each node's adapter carries ppn^2 (N - 1) messages
  each way, and with ppn >= 2 some messages join two ranks of one node;
* the all-to-all on a whole dragonfly DF(p, a, h), linearly placed, any processes per
  node (dragonfly.dragonfly_alltoall_traffic, the same ppn^2 scaling);
* on a full crossbar with one process per node: one hop, no shared channel.

Elsewhere (random or spread placement, several processes per node for shift and XOR, a
job on part of a torus, fat trees, megaflies and generalized dragonflies) the messages are built and mapped as
before, which costs O(ranks) per shift or mask and O(ranks^2) for the all-to-all
(model/budget charges it; a skeleton's all-to-all is refused there beyond
apps.patterns.MAX_ALLTOALL_MESSAGES).
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.model.collectives.layout import Layout
from icnperf.model.topology.dragonfly import dragonfly_alltoall_traffic
from icnperf.model.topology.torus import patterns


def _whole_torus(layout: Layout) -> bool:
    """A torus whose nodes fill it (sizing places a job on the first endpoints of a larger
    torus: Layout(n, radices) with n < prod radices)."""
    return layout.is_torus and layout.endpoints == math.prod(layout.radices)


def _closed_torus(layout: Layout) -> bool:
    return _whole_torus(layout) and layout.is_default_placement


def _crossbar(layout: Layout) -> bool:
    return layout.family == "crossbar" and layout.is_default_placement


def _as_steps(hops, load) -> list[tuple[int, int, int, bool]]:
    # Layout.rank_traffic at one process per node, linear placement: the load at least 1
    return [(int(h), max(int(c), 1), 1, False) for h, c in zip(hops.tolist(), load.tolist())]


def shift_traffic(layout: Layout, shifts) -> list[tuple[int, int, int, bool]]:
    """rank_traffic of the messages r -> (r + d) mod P for every shift d in ``shifts``
    (0 < d < P), one tuple per shift."""
    shifts = np.asarray(shifts, dtype=np.int64).ravel()
    p = layout.ranks
    if _closed_torus(layout):
        return _as_steps(*patterns.shift_traffic(layout.radices, shifts,
                                                 layout.ring_ties or "plus"))
    if _crossbar(layout):
        return [(1, 1, 1, False)] * len(shifts)
    ranks = np.arange(p, dtype=np.int64)
    return [layout.rank_traffic(ranks, (ranks + d) % p) for d in shifts.tolist()]


def xor_traffic(layout: Layout, masks) -> list[tuple[int, int, int, bool]]:
    """rank_traffic of the messages r -> r XOR i for every mask i in ``masks``
    (0 < i < P, P a power of two), one tuple per mask."""
    masks = np.asarray(masks, dtype=np.int64).ravel()
    if _closed_torus(layout):
        return _as_steps(*patterns.xor_traffic(layout.radices, masks,
                                               layout.ring_ties or "plus"))
    if _crossbar(layout):
        return [(1, 1, 1, False)] * len(masks)
    ranks = np.arange(layout.ranks, dtype=np.int64)
    return [layout.rank_traffic(ranks, ranks ^ i) for i in masks.tolist()]


def _whole_dragonfly(layout: Layout) -> bool:
    """A DF(p, a, h) whose every endpoint the job holds, nodes placed linearly."""
    return (layout.family == "dragonfly" and layout.machine_endpoints is None
            and layout.placement == "linear")


def has_closed_alltoall(layout: Layout) -> bool:
    """Whether :func:`alltoall_traffic` counts ``layout`` without building its messages."""
    return ((_whole_torus(layout) and layout.placement == "linear") or _crossbar(layout)
            or _whole_dragonfly(layout))


def alltoall_traffic(layout: Layout) -> tuple[int, int, int, bool]:
    """rank_traffic of the P (P - 1) messages between every ordered pair of distinct
    ranks (module docstring)."""
    if _crossbar(layout):
        return (1, 1, 1, False)
    closed = None
    if _whole_torus(layout) and layout.placement == "linear":
        closed = patterns.alltoall_traffic(layout.radices, layout.ring_ties or "plus")
    elif _whole_dragonfly(layout):
        closed = dragonfly_alltoall_traffic(*layout.network[1:])
    if closed is not None:
        hops, load = closed
        ppn, nodes = layout.processes_per_node, layout.endpoints
        if ppn == 1:
            return hops, max(load, 1), 1, False
        host = ppn * ppn * (nodes - 1)
        return hops, max(load * ppn * ppn, host), host, True
    ranks = np.arange(layout.ranks, dtype=np.int64)
    src, dst = np.repeat(ranks, layout.ranks), np.tile(ranks, layout.ranks)
    keep = src != dst
    return layout.rank_traffic(src[keep], dst[keep])


def counts_steps_in_structure(layout: Layout) -> bool:
    """Whether :func:`shift_traffic` and :func:`xor_traffic` count ``layout``'s steps by a
    closed form, O(dimensions) a step with no message built: a torus the job fills or a
    full crossbar, one process per node, placed linearly. There the pairwise algorithms'
    P - 1 steps cost O(P) in all, not O(P^2), and need no rank limit."""
    return _closed_torus(layout) or _crossbar(layout)
