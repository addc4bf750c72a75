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
are mixed per channel (:func:`_mixed_busiest`).

Counted per pod (exact, O(levels) a step): whole-job shifts and XORs on a fat tree
(fattree, clos, xgft) with random up ports, whole or a job on its first nodes, linearly
placed, any processes per node (:func:`_tree_shift_steps`: a pod's messages that leave
it follow from its length alone).

Counted line by line (model.topology.torus.shifts, exact, O(nodes) per shift): rank shifts
restricted to any sets of sources (:func:`shifted_traffic`: a halo on a process grid that is
not the torus's own) on a torus the job fills, linearly placed.

Elsewhere (random or spread placement, a job on part of a torus or of a gdragonfly or
dfplus, fat trees with d mod k up ports, rail trees, DF(p, a, h) and megaflies) the
messages are built and mapped as before, which costs O(ranks) per shift or mask and O(ranks^2) for the all-to-all
(model/budget charges it; a skeleton's all-to-all is refused there beyond
apps.patterns.MAX_ALLTOALL_MESSAGES).
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.errors import InputError
from icnperf.model.collectives.layout import Layout
from icnperf.model.topology.dragonfly import dragonfly_alltoall_traffic
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


def _as_rank_steps(hops, load, host, intra) -> list[tuple[int, int, int, bool]]:
    """Layout.rank_traffic's tuples from arrays: the load raised to the adapter sharing,
    (0, 0, 0, intra) where no message leaves its node."""
    out = host > 0
    hops = np.where(out, hops, 0)
    load = np.where(out, np.maximum(load, host), 0)
    return list(zip(hops.tolist(), load.tolist(), host.tolist(), intra.tolist()))


def _node_shifts(layout: Layout, shifts: np.ndarray):
    """A rank shift by i with c ranks on a node, placed linearly: rank c·n + s goes to
    node n + floor(i / c) when s + i mod c < c, else to node n + floor(i / c) + 1, so
    every node sends near = c - i mod c messages by the node shift d = floor(i / c) and
    far = i mod c by d + 1 (mod N). Returns (d, near, far) with the weight of a move onto
    the node itself set to 0, and intra: whether such a move exists."""
    c, nodes = layout.processes_per_node, layout.endpoints
    d, far = np.divmod(shifts, c)
    near = c - far
    intra = (d == 0) | ((far > 0) & ((d + 1) % nodes == 0))
    near = np.where(d % nodes == 0, 0, near)
    far = np.where((d + 1) % nodes == 0, 0, far)
    return d % nodes, near, far, intra


def _rank_shift_steps(layout: Layout, shifts: np.ndarray) -> list[tuple[int, int, int, bool]]:
    """rank_traffic of every whole-job rank shift in ``shifts`` on a layout where
    :func:`_linear_torus_or_crossbar` holds, any processes per node: the two node shifts
    of :func:`_node_shifts` (patterns.shift_pair_traffic on a torus; one hop and no
    shared channel on a crossbar); each node's adapter carries near + far messages each
    way (every node sends and receives the same)."""
    d, near, far, intra = _node_shifts(layout, shifts)
    host = near + far
    if layout.is_torus:
        hops, load = patterns.shift_pair_traffic(layout.radices, d, near, far,
                                                 layout.ring_ties or "plus")
    else:
        hops, load = np.ones_like(d), np.zeros_like(d)
    return _as_rank_steps(hops, load, host, intra)


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
    return _as_rank_steps(hops, load * c, np.where(moves, c, 0), ~moves)


def _random_tree(layout: Layout) -> bool:
    """A fat tree (fattree, clos, xgft; not a rail tree) with up ports chosen ``random``
    (the pigeonhole count ceil(c / C_l) per pod), nodes placed linearly on its first
    endpoints, whole or a job on part of it."""
    return (layout.tree is not None and layout.family != "rail"
            and (layout.tree_routing or "random") == "random"
            and layout.placement == "linear")


def _tree_pods(layout: Layout):
    """(P_l, C_l) of each channel level whose pods split the job's N nodes."""
    from icnperf.model.topology.tree_routing import channel_levels

    return [(pod, channels) for pod, _, _, channels in channel_levels(*layout.tree)
            if pod < layout.endpoints]


def _tree_xor_aligned(layout: Layout) -> bool:
    """Whether every pod that splits the job holds a power of two of nodes, so a node XOR
    keeps a whole pod together or moves it whole."""
    return all(pod & (pod - 1) == 0 for pod, _ in _tree_pods(layout))


def _tree_shift_steps(layout: Layout, shifts: np.ndarray) -> list[tuple]:
    """rank_traffic of every whole-job rank shift in ``shifts`` on a layout where
    :func:`_random_tree` holds, any processes per node: the two node shifts of
    :func:`_node_shifts`. A pod's nodes are an interval A of L of the job's N nodes (the
    last pod that splits the job may hold fewer), and a node shift by x keeps
    |A ∩ (A + x mod N)| = max(0, L - x) + max(0, L + x - N) of them inside, so
    near (L - stay(x = d)) + far (L - stay(x = d + 1)) messages leave it and as many
    enter it; the busiest channel of the level is that over C_l, rounded up, for the
    longest-leaving pod length (at most two lengths a level). A message crosses 2 router
    hops per level it leaves, and the pods are nested: the hops are twice the levels
    some message leaves (tree_routing.hops, message_load)."""
    nodes = layout.endpoints
    d, near, far, intra = _node_shifts(layout, shifts)
    after = (d + 1) % nodes
    load = np.zeros_like(d)
    levels = np.zeros_like(d)
    for pod, channels in _tree_pods(layout):
        crossed = np.zeros(d.shape, dtype=bool)
        for length in sorted({pod, nodes % pod} - {0}):
            out = sum(weight * (length - np.maximum(0, length - x)
                                - np.maximum(0, length + x - nodes))
                      for weight, x in ((near, d), (far, after)))
            load = np.maximum(load, -(-out // channels))
            crossed |= out > 0
        levels += crossed
    return _as_rank_steps(2 * levels, load, near + far, intra)


def _tree_xor_steps(layout: Layout, masks: np.ndarray) -> list[tuple]:
    """rank_traffic of every whole-job XOR in ``masks`` on a layout where
    :func:`_random_tree` and :func:`_tree_xor_aligned` hold, P = c·N a power of two: a
    node's c ranks move together by the node XOR e = i >> lg c, which keeps an aligned
    pod of P_l nodes together when e < P_l and otherwise sends all its c·P_l messages out
    (and as many in): ceil(c·P_l / C_l) on its busiest channel, 2 hops a level left."""
    c = layout.processes_per_node
    node_masks = masks >> (c.bit_length() - 1)
    load = np.zeros_like(masks)
    levels = np.zeros_like(masks)
    for pod, channels in _tree_pods(layout):
        leaves = node_masks >= pod
        load = np.where(leaves, np.maximum(load, -(-(c * pod) // channels)), load)
        levels += leaves
    moves = node_masks > 0
    return _as_rank_steps(2 * levels, load, np.where(moves, c, 0), ~moves)


def _whole_group_network(layout: Layout) -> bool:
    """A gdragonfly or dfplus whose every endpoint the job holds, nodes placed linearly:
    their global wiring depends on the group offset alone (dragonfly.general_patterns,
    dragonfly.plus_patterns)."""
    return (layout.family in ("gdragonfly", "dfplus") and layout.machine_endpoints is None
            and layout.placement == "linear")


def _group_patterns(layout: Layout):
    """The module counting ``layout``'s node shifts and XORs channel by channel."""
    if layout.family == "dfplus":
        from icnperf.model.topology.dragonfly import plus_patterns

        return plus_patterns
    from icnperf.model.topology.dragonfly import general_patterns

    return general_patterns


def _busiest(batches: int, batch, cls, units, per) -> np.ndarray:
    """Per batch: the busiest channel in messages, units over the class's ``per``
    rounded up (0 for a batch without load)."""
    load = np.zeros(batches, dtype=np.int64)
    np.maximum.at(load, batch, -(-units // np.asarray(per, dtype=np.int64)[cls]))
    return load


def _pareto(segment: np.ndarray, x: np.ndarray, y: np.ndarray):
    """Indices of the points (x, y) >= 0 of each segment that no other point of it
    dominates (a greater or equal x and y, one of them greater), sorted by segment: only
    these can attain max(u·x + v·y) for weights u, v >= 0."""
    order = np.lexsort((-y, -x, segment))
    segment, y_sorted = segment[order], y[order]
    _, rank = np.unique(segment, return_inverse=True)
    lifted = rank.ravel() * (int(y.max(initial=0)) + 1) + y_sorted
    before = np.maximum.accumulate(lifted)
    keep = np.ones(order.size, dtype=bool)
    keep[1:] = lifted[1:] > before[:-1]
    return order[keep]


def _mixed_busiest(nodes: int, rows, per, d, near, far) -> np.ndarray:
    """The busiest channel, in messages, of each step that sends ``near`` messages from
    every node by the node shift d and ``far`` by d + 1 (mod ``nodes``; arrays, one entry a
    step): ``rows`` = (batch, class, channel, units) of the node shifts 1 .. nodes - 1
    with one message a node (batch = the shift; shift 0 sends nothing), a message putting
    ``per[class]`` units on a link of its class, loads rounded up as the mapper rounds. A
    channel carries near·x + far·y units (x, y its units in shifts d and d + 1), so its
    class's maximum is attained on the (x, y) Pareto front of the class's channels."""
    batch, cls, channel, units = rows
    span = int(channel.max(initial=0)) + 1
    # x: the channel in shift d; y: in shift d + 1, filed under d
    keys = np.concatenate([(batch * 3 + cls) * span + channel,
                           (((batch - 1) % nodes) * 3 + cls) * span + channel])
    distinct, index = np.unique(keys, return_inverse=True)
    index = index.ravel()
    zero = np.zeros_like(units)
    x = np.bincount(index, np.concatenate([units, zero]), distinct.size).round().astype(
        np.int64)
    y = np.bincount(index, np.concatenate([zero, units]), distinct.size).round().astype(
        np.int64)
    segment = distinct // span
    front = _pareto(segment, x, y)
    owner = segment[front] // 3
    divisor = np.asarray(per, dtype=np.int64)[segment[front] % 3]
    x, y = x[front], y[front]
    start = np.searchsorted(owner, np.arange(nodes))
    count = np.searchsorted(owner, np.arange(nodes), side="right") - start
    size = count[d]
    load = np.zeros(d.size, dtype=np.int64)
    sends = size > 0
    if not sends.any():
        return load
    step = np.repeat(np.flatnonzero(sends), size[sends])
    first = np.cumsum(size[sends]) - size[sends]
    entry = np.arange(step.size) - np.repeat(first, size[sends]) + np.repeat(
        start[d[sends]], size[sends])
    value = -(-(near[step] * x[entry] + far[step] * y[entry]) // divisor[entry])
    load[sends] = np.maximum.reduceat(value, first)
    return load


CHUNK_MESSAGES = 1 << 16
"""Most node messages (of one group for a shift, of the whole network for an XOR) whose
channels are counted at once: each expands to a few rows per global-link copy, so this
bounds the counting's memory (under 0.3 GB on the bundled presets)."""


def _counted_in_chunks(count, params, values: np.ndarray, messages_each: int):
    """``count`` (shift_units or xor_units) over ``values`` in chunks of at most
    :data:`CHUNK_MESSAGES` node messages: (hops per value, rows with batch = the value's
    index in ``values``)."""
    step = max(1, CHUNK_MESSAGES // max(messages_each, 1))
    hops, rows = [], []
    for start in range(0, values.size, step):
        part_hops, (batch, cls, channel, units) = count(params, values[start:start + step])
        hops.append(part_hops)
        rows.append((batch + start, cls, channel, units))
    if not rows:
        empty = np.zeros(0, dtype=np.int64)
        return empty, (empty, empty, empty, empty)
    return np.concatenate(hops), tuple(np.concatenate(x) for x in zip(*rows))


def _network_shift_steps(layout: Layout, shifts: np.ndarray) -> list[tuple]:
    """rank_traffic of every whole-job rank shift in ``shifts`` on a layout where
    :func:`_whole_group_network` holds, any processes per node: the two node shifts of
    :func:`_node_shifts`, every node shift's channels counted once (shift_units of
    dragonfly.general_patterns or plus_patterns) and mixed by :func:`_mixed_busiest`;
    the steps taken in blocks of node shifts, so that at most about
    :data:`CHUNK_MESSAGES` node messages are counted at once."""
    patterns_of = _group_patterns(layout)
    params = layout.network[1:]
    nodes = layout.endpoints
    d, near, far, intra = _node_shifts(layout, shifts)
    after = (d + 1) % nodes
    hops = np.zeros_like(d)
    load = np.zeros_like(d)
    block = max(1, CHUNK_MESSAGES // patterns_of.group_endpoints(params))
    for low in range(0, nodes, block):
        steps = np.flatnonzero((d >= low) & (d < low + block))
        if steps.size == 0:
            continue
        needed = np.unique(np.concatenate([d[steps][near[steps] > 0],
                                           after[steps][far[steps] > 0]]))
        needed = needed[needed > 0]
        node_hops = np.zeros(nodes, dtype=np.int64)
        node_hops[needed], (batch, cls, channel, units) = patterns_of.shift_units(params,
                                                                                  needed)
        load[steps] = _mixed_busiest(nodes, (needed[batch], cls, channel, units),
                                     patterns_of.divisors(params), d[steps], near[steps],
                                     far[steps])
        hops[steps] = np.maximum(np.where(near[steps] > 0, node_hops[d[steps]], 0),
                                 np.where(far[steps] > 0, node_hops[after[steps]], 0))
    return _as_rank_steps(hops, load, near + far, intra)


def _network_xor_steps(layout: Layout, masks: np.ndarray) -> list[tuple]:
    """rank_traffic of every whole-job XOR in ``masks`` on a layout where
    :func:`_whole_group_network` holds, P = c·N a power of two: the node XOR i >> lg c of
    every node's c ranks (:func:`_rank_xor_steps`), each distinct node XOR counted once
    (xor_units of dragonfly.general_patterns or plus_patterns) with its units times c."""
    patterns_of = _group_patterns(layout)
    params = layout.network[1:]
    c = layout.processes_per_node
    node_masks = masks >> (c.bit_length() - 1)
    distinct, index = np.unique(node_masks, return_inverse=True)
    index = index.ravel()
    moves = distinct > 0
    hops = np.zeros(distinct.size, dtype=np.int64)
    load = np.zeros(distinct.size, dtype=np.int64)
    if moves.any():
        mask_hops, (batch, cls, _, units) = _counted_in_chunks(
            patterns_of.xor_units, params, distinct[moves], layout.endpoints)
        hops[moves] = mask_hops
        load[moves] = _busiest(int(moves.sum()), batch, cls, units * c,
                               patterns_of.divisors(params))
    moving = moves[index]
    return _as_rank_steps(hops[index], load[index], np.where(moving, c, 0), ~moving)


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
    if _whole_group_network(layout):
        return _network_shift_steps(layout, shifts)
    if _random_tree(layout):
        return _tree_shift_steps(layout, shifts)
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
    if _linear_torus_or_crossbar(layout):
        return _rank_xor_steps(layout, masks)
    if _whole_group_network(layout):
        return _network_xor_steps(layout, masks)
    if _random_tree(layout) and _tree_xor_aligned(layout):
        return _tree_xor_steps(layout, masks)
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
    crossbar, a gdragonfly or dfplus the job fills, or a fat tree with random up ports
    (XORs there when the pods that split the job hold powers of two), nodes placed
    linearly, any processes per node. There the pairwise algorithms' P - 1 steps cost
    O(P) or O(P + nodes x group) in all, not O(P^2), and need no rank limit."""
    power = layout.ranks & (layout.ranks - 1) == 0
    return (_linear_torus_or_crossbar(layout) or _whole_group_network(layout)
            or (_random_tree(layout) and (not power or _tree_xor_aligned(layout))))


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
