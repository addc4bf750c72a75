"""Whole-job rank shifts and XORs (the pairwise algorithms' steps) counted without
building their messages on network families, exactly as Layout.rank_traffic maps them
(collectives.structured dispatches here): a whole gdragonfly or dfplus, each node shift's
channels counted once from one group (dragonfly.general_patterns, plus_patterns) and the
two node shifts of a rank step mixed channel by channel (:func:`group_shift_steps`); a
fat tree with random up ports, per pod length (:func:`tree_shift_steps`). A rank shift
with c ranks a node, placed linearly, is two weighted node shifts (:func:`node_shifts`).
Equal to the mapper in tests/model/test_collectives_structured_networks.py."""

from __future__ import annotations

import numpy as np

from icnperf.model.collectives.layout import Layout


def as_rank_steps(hops, load, host, intra) -> list[tuple[int, int, int, bool]]:
    """Layout.rank_traffic's tuples from arrays: the load raised to the adapter sharing,
    (0, 0, 0, intra) where no message leaves its node."""
    out = host > 0
    hops = np.where(out, hops, 0)
    load = np.where(out, np.maximum(load, host), 0)
    return list(zip(hops.tolist(), load.tolist(), host.tolist(), intra.tolist()))


def node_shifts(layout: Layout, shifts: np.ndarray):
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


def random_tree(layout: Layout) -> bool:
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


def tree_xor_aligned(layout: Layout) -> bool:
    """Whether every pod that splits the job holds a power of two of nodes, so a node XOR
    keeps a whole pod together or moves it whole."""
    return all(pod & (pod - 1) == 0 for pod, _ in _tree_pods(layout))


def tree_shift_steps(layout: Layout, shifts: np.ndarray) -> list[tuple]:
    """rank_traffic of every whole-job rank shift in ``shifts`` on a layout where
    :func:`random_tree` holds, any processes per node: the two node shifts of
    :func:`node_shifts`. A pod's nodes are an interval A of L of the job's N nodes (the
    last pod that splits the job may hold fewer), and a node shift by x keeps
    |A ∩ (A + x mod N)| = max(0, L - x) + max(0, L + x - N) of them inside, so
    near (L - stay(x = d)) + far (L - stay(x = d + 1)) messages leave it and as many
    enter it; the busiest channel of the level is that over C_l, rounded up, for the
    longest-leaving pod length (at most two lengths a level). A message crosses 2 router
    hops per level it leaves, and the pods are nested: the hops are twice the levels
    some message leaves (tree_routing.hops, message_load)."""
    nodes = layout.endpoints
    d, near, far, intra = node_shifts(layout, shifts)
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
    return as_rank_steps(2 * levels, load, near + far, intra)


def tree_xor_steps(layout: Layout, masks: np.ndarray) -> list[tuple]:
    """rank_traffic of every whole-job XOR in ``masks`` on a layout where
    :func:`random_tree` and :func:`tree_xor_aligned` hold, P = c·N a power of two: a
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
    return as_rank_steps(2 * levels, load, np.where(moves, c, 0), ~moves)


def whole_group_network(layout: Layout) -> bool:
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


def group_shift_steps(layout: Layout, shifts: np.ndarray) -> list[tuple]:
    """rank_traffic of every whole-job rank shift in ``shifts`` on a layout where
    :func:`whole_group_network` holds, any processes per node: the two node shifts of
    :func:`node_shifts`, every node shift's channels counted once (shift_units of
    dragonfly.general_patterns or plus_patterns) and mixed by :func:`_mixed_busiest`;
    the steps taken in blocks of node shifts, so that at most about
    :data:`CHUNK_MESSAGES` node messages are counted at once."""
    patterns_of = _group_patterns(layout)
    params = layout.network[1:]
    nodes = layout.endpoints
    d, near, far, intra = node_shifts(layout, shifts)
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
    return as_rank_steps(hops, load, near + far, intra)


def group_xor_steps(layout: Layout, masks: np.ndarray) -> list[tuple]:
    """rank_traffic of every whole-job XOR in ``masks`` on a layout where
    :func:`whole_group_network` holds, P = c·N a power of two: the node XOR i >> lg c of
    every node's c ranks (collectives.structured), each distinct node XOR counted once
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
    return as_rank_steps(hops[index], load[index], np.where(moving, c, 0), ~moving)
