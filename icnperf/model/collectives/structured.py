"""Structured counting of the whole-job message patterns: every rank shifting by d, every
rank exchanging with its number XOR i, every rank sending to every other. Each function
returns exactly what :meth:`Layout.rank_traffic` returns for the explicit messages
(hops, load, host, intra), by a closed form or channel-by-channel count where the layout
has one and by mapping the messages otherwise.

Closed forms (model.topology.torus.patterns, exact, vectorised over shifts and masks):

* shift and XOR on a torus the job fills or a full crossbar, linearly placed, any
  processes per node: with c ranks a node a rank shift by i is every node sending
  c - i mod c messages by the node shift floor(i / c) and i mod c by one more
  (patterns.shift_pair_traffic); an XOR (P a power of two) moves a node's c ranks
  together by the node XOR i >> lg c (XOR needs power-of-two radices, which P gives);
* the all-to-all on a torus the job fills, linearly placed, any processes per node:
  every ordered pair of distinct nodes carries ppn^2 messages, so the channel load is
  ppn^2 times the nodes' all-to-all, each node's adapter carries ppn^2 (N - 1) messages
  each way, and with ppn >= 2 some messages join two ranks of one node;
* the all-to-all on a whole dragonfly DF(p, a, h), linearly placed, any processes per
  node (dragonfly.dragonfly_alltoall_traffic, the same ppn^2 scaling);
* on a full crossbar with one process per node: one hop, no shared channel.

Counted channel by channel (exact, vectorised over the patterns): whole-job shifts and
XORs on a gdragonfly or dfplus the job fills, linearly placed, any processes per node
(dragonfly.general_patterns, plus_patterns: a node shift counted from one group's
messages, the wiring depending on the group offset alone); a rank step's two node shifts
are mixed per channel (network_steps).

Counted per kind of group (exact, one representative group of each kind a step, about
six): whole-job shifts on a job on the first nodes of a gdragonfly, not all of it,
linearly placed, any processes per node (dragonfly.general_partial: the groups whose
sources and destinations wrap at the job's end all or none are alike but for a shift by
whole groups).

Counted per pod (exact, O(levels) a step): whole-job shifts and XORs on a fat tree
(fattree, clos, xgft) with random up ports, whole or a job on its first nodes, linearly
placed, any processes per node (network_steps.tree_shift_steps: a pod's messages that
leave it follow from its length alone).

Counted line by line (model.topology.torus.shifts, exact, O(nodes) per shift): rank shifts
restricted to any sets of sources (:func:`shifted_traffic`: a halo on a process grid that is
not the torus's own) on a torus the job fills, linearly placed.

Elsewhere (random or spread placement, a job on part of a torus or of a dfplus, XORs on
part of a gdragonfly, fat trees with d mod k up ports, rail trees, DF(p, a, h) and
megaflies) the messages are built and mapped as before, which costs O(ranks) per shift or mask and
O(ranks^2) for the all-to-all (model/budget charges it; a skeleton's all-to-all is refused
there beyond apps.patterns.MAX_ALLTOALL_MESSAGES).
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.errors import InputError
from icnperf.model.collectives import network_steps
from icnperf.model.collectives.layout import Layout
from icnperf.model.topology.dragonfly import dragonfly_alltoall_traffic
from icnperf.model.topology.dragonfly.general_partial import partial_shift_traffic
from icnperf.model.topology.torus import patterns
from icnperf.model.topology.torus.shifts import ChannelLoads


def _whole_torus(layout: Layout) -> bool:
    """A torus whose nodes fill it (sizing places a job on the first endpoints of a larger
    torus: Layout(n, radices) with n < prod radices)."""
    return layout.is_torus and layout.endpoints == math.prod(layout.radices)


def _closed_torus(layout: Layout) -> bool:
    return _whole_torus(layout) and layout.is_default_placement


def _crossbar(layout: Layout) -> bool:
    return layout.family == "crossbar" and layout.is_default_placement


def _linear_torus_or_crossbar(layout: Layout) -> bool:
    """A torus the job fills or a full crossbar, nodes placed linearly, any processes per
    node: where a whole-job rank shift or XOR is counted by a closed form."""
    return layout.placement == "linear" and (
        _whole_torus(layout) or layout.family == "crossbar")


def _as_steps(hops, load) -> list[tuple[int, int, int, bool]]:
    # Layout.rank_traffic at one process per node, linear placement: the load at least 1
    return [(int(h), max(int(c), 1), 1, False) for h, c in zip(hops.tolist(), load.tolist())]


def _rank_shift_steps(layout: Layout, shifts: np.ndarray) -> list[tuple[int, int, int, bool]]:
    """rank_traffic of every whole-job rank shift in ``shifts`` on a layout where
    :func:`_linear_torus_or_crossbar` holds, any processes per node: the two node shifts
    of network_steps.node_shifts (patterns.shift_pair_traffic on a torus; one hop and no
    shared channel on a crossbar); each node's adapter carries near + far messages each
    way (every node sends and receives the same)."""
    d, near, far, intra = network_steps.node_shifts(layout, shifts)
    host = near + far
    if layout.is_torus:
        hops, load = patterns.shift_pair_traffic(layout.radices, d, near, far,
                                                 layout.ring_ties or "plus")
    else:
        hops, load = np.ones_like(d), np.zeros_like(d)
    return network_steps.as_rank_steps(hops, load, host, intra)


def _rank_xor_steps(layout: Layout, masks: np.ndarray) -> list[tuple[int, int, int, bool]]:
    """rank_traffic of every whole-job XOR in ``masks`` on a layout where
    :func:`_linear_torus_or_crossbar` holds, P = c·N a power of two (so are c and N): rank
    c·n + s goes to c·(n XOR (i >> lg c)) + (s XOR (i mod c)), so a mask below c keeps
    every message on its node and any other moves all c ranks of a node to one node by
    the node XOR i >> lg c: c times its channel load, c messages through each adapter."""
    c = layout.processes_per_node
    node_masks = masks >> (c.bit_length() - 1)
    moves = node_masks > 0
    hops = np.zeros_like(masks)
    load = np.zeros_like(masks)
    if layout.is_torus and moves.any():
        hops[moves], load[moves] = patterns.xor_traffic(
            layout.radices, node_masks[moves], layout.ring_ties or "plus")
    elif moves.any():
        hops[moves] = 1
    return network_steps.as_rank_steps(hops, load * c, np.where(moves, c, 0), ~moves)


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
    if _linear_torus_or_crossbar(layout):
        return _rank_shift_steps(layout, shifts)
    if network_steps.whole_group_network(layout):
        return network_steps.group_shift_steps(layout, shifts)
    if _partial_gdragonfly(layout):
        return _partial_gdragonfly_shift_steps(layout, shifts)
    if network_steps.random_tree(layout):
        return network_steps.tree_shift_steps(layout, shifts)
    ranks = np.arange(p, dtype=np.int64)
    return [layout.rank_traffic(ranks, (ranks + d) % p) for d in shifts.tolist()]


def _partial_gdragonfly(layout: Layout) -> bool:
    """A job on the first nodes of a gdragonfly, not all of it, nodes placed linearly (the
    shift wraps at the job's end, so the groups are not loaded alike)."""
    return (layout.family == "gdragonfly" and layout.machine_endpoints is not None
            and layout.placement == "linear" and layout.rails == 1)


def partial_group_endpoints(layout: Layout) -> int:
    """Endpoints of one group (p·a·b) where :func:`_partial_gdragonfly` holds, else 0: what a
    step counted on part of a gdragonfly costs grows with (model.budget.counted_step_seconds)."""
    if not _partial_gdragonfly(layout):
        return 0
    p, a, b = layout.network[1:4]
    return int(p) * int(a) * int(b)


def _partial_gdragonfly_shift_steps(layout: Layout, shifts: np.ndarray) -> list[tuple]:
    """rank_traffic of every whole-job rank shift in ``shifts`` on a layout where
    :func:`_partial_gdragonfly` holds, any processes per node: the two node shifts of
    network_steps.node_shifts counted on one group of each kind a step
    (dragonfly.general_partial); each node's adapter carries near + far messages each
    way."""
    d, near, far, intra = network_steps.node_shifts(layout, shifts)
    hops, load = partial_shift_traffic(layout.network[1:], layout.endpoints, d, near, far)
    return network_steps.as_rank_steps(hops, load, near + far, intra)


def xor_traffic(layout: Layout, masks) -> list[tuple[int, int, int, bool]]:
    """rank_traffic of the messages r -> r XOR i for every mask i in ``masks``
    (0 < i < P, P a power of two), one tuple per mask."""
    masks = np.asarray(masks, dtype=np.int64).ravel()
    if _closed_torus(layout):
        return _as_steps(*patterns.xor_traffic(layout.radices, masks,
                                               layout.ring_ties or "plus"))
    if _crossbar(layout):
        return [(1, 1, 1, False)] * len(masks)
    if _linear_torus_or_crossbar(layout):
        return _rank_xor_steps(layout, masks)
    if network_steps.whole_group_network(layout):
        return network_steps.group_xor_steps(layout, masks)
    if network_steps.random_tree(layout) and network_steps.tree_xor_aligned(layout):
        return network_steps.tree_xor_steps(layout, masks)
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
    """Whether :func:`shift_traffic` and :func:`xor_traffic` count ``layout``'s steps
    without building their messages (module docstring): a torus the job fills, a full
    crossbar, a gdragonfly or dfplus the job fills, a fat tree with random up ports
    (XORs there when the pods that split the job hold powers of two), or a job on part of
    a gdragonfly (shifts only: P not a power of two), nodes placed linearly, any
    processes per node. There the pairwise algorithms' P - 1 steps cost
    O(P) or O(P + nodes x group) in all, not O(P^2), and need no rank limit."""
    power = layout.ranks & (layout.ranks - 1) == 0
    return (_linear_torus_or_crossbar(layout) or network_steps.whole_group_network(layout)
            or (network_steps.random_tree(layout)
                and (not power or network_steps.tree_xor_aligned(layout)))
            or (_partial_gdragonfly(layout) and not power))


def counts_shifts(layout: Layout) -> bool:
    """Whether :func:`shifted_traffic` counts ``layout``: a torus the job fills, nodes
    placed linearly, any processes per node."""
    return _whole_torus(layout) and layout.placement == "linear"


def shifted_traffic(layout: Layout, shifts) -> tuple[int, int, int, bool]:
    """Layout.rank_traffic of the messages of ``shifts``, pairs (offset, sources): every
    rank r of ``sources`` (an array of ranks) sends one message to (r + offset) mod P, all
    at once, on a layout where :func:`counts_shifts` holds (InputError otherwise).

    Rank r = ppn·n + i sits on node n, so with offset = ppn·a + b (0 <= b < ppn) its
    message goes to node n + a when i + b < ppn and to n + a + 1 otherwise: a rank shift
    is at most two node shifts. The node shifts of every rank shift with one node offset
    are summed into one weight per node and counted line by line
    (torus.shifts.ChannelLoads); a node offset of 0 is a message within a node. Each
    node's adapter carries the weights it sends and, shifted by the offset, those it
    receives."""
    if not counts_shifts(layout):
        raise InputError(f"rank shifts are counted on a torus the job fills, nodes placed "
                         f"linearly, not on {layout.text} with {layout.placement} placement")
    ppn, nodes = layout.processes_per_node, layout.endpoints
    weights: dict[int, np.ndarray] = {}
    intra = sending = False
    for offset, sources in shifts:
        sources = np.asarray(sources, dtype=np.int64)
        if sources.size == 0:
            continue
        sending = True
        whole, rest = divmod(int(offset), ppn)
        node = sources // ppn
        over = sources % ppn >= ppn - rest
        for step, chosen in ((whole, node[~over]), (whole + 1, node[over])):
            step %= nodes
            if chosen.size == 0:
                continue
            if step == 0:
                intra = True
                continue
            counted = np.bincount(chosen, minlength=nodes)
            weights[step] = weights[step] + counted if step in weights else counted
    if not sending:
        return (0, 0, 0, False)
    channels = ChannelLoads(layout.radices, layout.ring_ties or "plus")
    out = np.zeros(nodes, dtype=np.int64)
    into = np.zeros(nodes, dtype=np.int64)
    for step, counted in weights.items():
        channels.add_shift(step, counted)
        out += counted
        into += np.roll(counted, step)
    if layout.is_default_placement:
        return channels.hops, max(channels.load, 1), 1, False
    if not weights:
        return (0, 0, 0, intra)
    host = max(int(out.max()), int(into.max()))
    return channels.hops, max(channels.load, host), host, intra
