"""Node shifts of a job on the first N endpoints of a gdragonfly (linear placement, N below
the network's E endpoints) under MIN routing, counted exactly without mapping every
message: what ``gdragonfly_route_hops`` (largest) and ``gdragonfly_route_load`` return
for the messages n -> (n + s) mod N of every job node n, for a pair of shifts s = d
(``near`` messages a node) and d + 1 (``far``), one pair a step.

**Few kinds of group a step.** On the whole network every group is loaded alike
(general_patterns); on part of it the shift wraps at N, not at E. A node n of group X
sends by s without wrapping when n + s < N (the message goes n -> n + s) and with a wrap
otherwise (n -> n + s - N); a node e receives without wrapping when e >= s. A group all
of whose endpoints hold job nodes and whose sources and destinations each wrap all or
none, per shift, sees its own messages and those arriving into it moved, with it, by
whole groups: a group Y of the same kind has exactly the loads of X translated by Y - X
groups (the global port k of a group goes to the group k // m + 1 further on and the
groups are wired alike inside; the route of a message depends on its source router, the
group offset and its destination router alone). Under MIN routing a group's channels
carry only the messages leaving it, arriving into it or staying in it, and a global link
only those of its source group. So a step is counted on one representative group of
each kind: the groups holding the wrap points N - s and s and the job's last, partly
filled group (each its own kind), and at most three ranges of groups between them.

**A group's channels from its router-pair traffic.** A message of weight w from router u
of X to router v' of group X + o (o > 0) puts w units (1/m message) on each of the m
global links of offset o, on the local route from u to the owner of each port of the
window (o - 1)·m .. o·m - 1 (router k mod R, R = a·b: m consecutive routers, cyclically)
and arrives on the ports (g - o - 1)·m .. (g - o)·m - 1 of its destination group; a
message within X puts m·w units on the local route u -> v. With T[u, v] the units on
the route u -> v (T = m·W_intra + W_out·C_out + C_inᵀ·W_in, C the ports of each
offset's window that each router owns), a local route takes the rank-1 hop (row j_u,
position i_u -> i_v) then the rank-2 hop (position i_v, row j_u -> j_v): the rank-1
channel loads are T summed over j_v, the rank-2 over i_u (general_routes' route). These
sums are taken without T: a window of routers counted per position (m // a each, one
more for m mod a positions, cyclically) or per row (its overlap with each row of a
routers), by difference arrays. The busiest channel of a class is its most units over
m·la, m·lb or m (global), rounded up, as ``gdragonfly_route_load`` counts. Derived here;
equal to the mapper in tests/model/topology/test_gdragonfly_partial.py.

Cost: a step is about six groups of p·a·b endpoints, two shifts, sent and received, and
O(R·(a + b)) channels a representative; steps in chunks of :data:`CHUNK_CELLS`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from icnperf.model.topology.dragonfly.general_routes import gdragonfly_route_hops

CHUNK_CELLS = 1 << 22
"""Most router-pair cells (representatives x R x R) a chunk of steps stands for, about
eight representatives a step: bounds the arrays held at once (each a fraction of it)."""


def _window_starts(params) -> tuple[np.ndarray, np.ndarray]:
    """(out, into), one entry a group offset o (0 unused): the router owning the first of
    the m ports a message by offset o leaves by ((o - 1)·m mod R) and lands on
    ((g - o - 1)·m mod R); the m ports of a window are owned by the m routers that follow
    cyclically (C_out, C_in of the module docstring)."""
    _, a, b, _, _, g, m = params
    o = np.arange(g, dtype=np.int64)
    return ((o - 1) * m) % (a * b), ((g - o - 1) * m) % (a * b)


def _window_sums(rows: int, routers: int, m: int, lead, start) -> np.ndarray:
    """out[l, r]: over the entries (one message each) with row ``lead``, how many of the m
    ports of a window beginning at router ``start`` router r owns (m // R each, one more
    for the m mod R routers from start on, cyclically), summed by a difference array per
    row: (rows, R)."""
    whole, rem = divmod(m, routers)
    end = start + rem
    wraps = end > routers
    width = routers + 1
    base = lead * width
    plus = np.concatenate([base + start, base[wraps]])
    minus = np.concatenate([base + np.minimum(end, routers), base[wraps] + end[wraps] - routers])
    diff = (np.bincount(plus, minlength=rows * width)
            - np.bincount(minus, minlength=rows * width)).reshape(rows, width)
    out = np.cumsum(diff[:, :routers], axis=1)
    if whole:
        out += whole * np.bincount(lead, minlength=rows)[:, None]
    return out


def _residue_windows(rows: int, a: int, m: int, lead, start) -> np.ndarray:
    """out[l, i]: over the entries with row ``lead``, how many of the m routers from
    ``start`` on (cyclically over R, a multiple of a) sit at row position i: m // a each,
    one more for the m mod a positions from start mod a on, cyclically: (rows, a)."""
    return _window_sums(rows, a, m, lead, start % a)


def _row_windows(rows: int, a: int, b: int, m: int, lead, start) -> np.ndarray:
    """out[l, j]: over the entries with row ``lead``, how many of the m routers from
    ``start`` on (cyclically over R = a·b, router i + a·j in row j) sit in row j: a·(m //
    R) each, and the m mod R routers from start cut into at most two intervals, each
    adding its overlap with every row (a partial first and last row, whole rows between,
    by a difference array): (rows, b)."""
    routers = a * b
    whole, rem = divmod(m, routers)
    point = np.zeros(rows * b, dtype=np.int64)
    diff = np.zeros(rows * (b + 1), dtype=np.int64)
    end = start + rem
    for low, high, keep in ((start, np.minimum(end, routers), end > start),
                            (np.zeros_like(start), end - routers, end > routers)):
        low, high, at = low[keep], high[keep], lead[keep]
        first, last = low // a, (high - 1) // a
        one = first == last
        point += np.bincount(at * b + first, np.where(one, high - low, a * (first + 1) - low),
                             rows * b).astype(np.int64)
        point += np.bincount((at * b + last)[~one], (high - a * last)[~one],
                             rows * b).astype(np.int64)
        diff += np.bincount((at * (b + 1) + first + 1)[~one], minlength=rows * (b + 1)) * a
        diff -= np.bincount((at * (b + 1) + last)[~one], minlength=rows * (b + 1)) * a
    out = point.reshape(rows, b) + np.cumsum(diff.reshape(rows, b + 1)[:, :b], axis=1)
    if whole:
        out += whole * a * np.bincount(lead, minlength=rows)[:, None]
    return out


@lru_cache(maxsize=8)
def _hop_table(params: tuple) -> np.ndarray:
    """H[u, o, v]: gdragonfly_route_hops of a message from router u of group 0 to router v
    of group o (the hops depend on u, o and v alone); kept per shape (a schedule such as
    Bruck's asks step by step), read-only."""
    p, a, b, _, _, g, _ = params
    routers = a * b
    u, o, v = (x.ravel() for x in np.meshgrid(np.arange(routers), np.arange(g),
                                              np.arange(routers), indexing="ij"))
    hops = gdragonfly_route_hops(*params, u * p, (o * routers + v) * p)
    hops = hops.reshape(routers, g, routers)
    hops.flags.writeable = False
    return hops


def _kinds(nodes: int, size: int, groups: np.ndarray, s: np.ndarray, active: np.ndarray):
    """Per (step, group): the wrap kind of the sources (0 none, 1 all, 2 some) and of the
    destinations (0 none, 1 all, 2 some) under the node shift s (0 where not active)."""
    low = groups * size
    high = np.minimum(low + size, nodes)
    out = np.where(high <= nodes - s, 0, np.where(low >= nodes - s, 1, 2))
    into = np.where(low >= s, 0, np.where(high <= s, 1, 2))
    return np.where(active, out, 0), np.where(active, into, 0)


def _representatives(nodes: int, size: int, d: np.ndarray, near, far):
    """(step, group) of one group of each kind a step (module docstring), sorted by step."""
    jobs = -(-nodes // size)
    groups = np.arange(jobs, dtype=np.int64)[None, :]
    s1, s2 = d[:, None], ((d + 1) % nodes)[:, None]
    o1, i1 = _kinds(nodes, size, groups, s1, (near > 0)[:, None])
    o2, i2 = _kinds(nodes, size, groups, s2, (far > 0)[:, None])
    full = np.broadcast_to((groups + 1) * size <= nodes, o1.shape)
    special = ~full | (o1 == 2) | (i1 == 2) | (o2 == 2) | (i2 == 2)
    kind = np.where(special, 81 + groups, ((o1 * 3 + i1) * 3 + o2) * 3 + i2)
    order = np.argsort(kind, axis=1, kind="stable")
    ranked = np.take_along_axis(kind, order, axis=1)
    first = np.ones(ranked.shape, dtype=bool)
    first[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    step, column = np.nonzero(first)
    return step, order[step, column]


def _pair_channels(params, nodes: int, d, near_on, far_on, windows, table):
    """For each pair of node shifts (d with one message a node where ``near_on``, d + 1
    where ``far_on``) and each representative group of it: (pair, hops, class, x, y) of
    the channels of the representative, x its units under the shift d, y under d + 1
    (classes 0, 1, 2 = rank-1, rank-2, global; module docstring): (step, hops, x, y),
    hops a pair (under d, under d + 1) of arrays, x and y triples of arrays (rank-1,
    rank-2, global channels), None for a shift no pair sends by."""
    p, a, b, _, _, g, m = params
    routers = a * b
    size = p * routers
    step, group = _representatives(nodes, size, d, near_on, far_on)
    reps = step.size
    node = (group * size)[:, None] + np.arange(size, dtype=np.int64)[None, :]
    valid = node < nodes
    u = (node // p) % routers
    rep = np.arange(reps, dtype=np.int64)[:, None]
    rep_hops = []
    flat_table = table.ravel()
    units = []
    for shift, on in ((d[step], near_on[step]), ((d[step] + 1) % nodes, far_on[step])):
        if not on.any():
            units.append(None)
            rep_hops.append(np.zeros(reps, dtype=np.int64))
            continue
        sending = valid & on[:, None]
        dst = (node + shift[:, None]) % nodes
        src = (node - shift[:, None]) % nodes
        offset = (dst // size - group[:, None]) % g
        v = (dst // p) % routers
        inside = sending & (offset == 0)
        leaving = sending & (offset > 0)
        arriving = sending & (src // size != group[:, None])
        back = (group[:, None] - src // size) % g
        rep_hops.append(np.where(sending, flat_table[(u * g + offset) * routers + v],
                                 0).max(axis=1))
        lead = rep * routers + u
        # rank-1 channels [rep, j_u, i_u, i_v] (flat: lead·a + i_v), rank-2 channels
        # [rep, j_u, j_v, i_v] (flat: (rep·b + j_u)·R + v)
        row = rep * b + u // a
        first = m * np.bincount((lead * a + v % a)[inside], minlength=reps * routers * a)
        out_start = windows[0][offset[leaving]]
        in_start = windows[1][back[arriving]]
        first += _residue_windows(reps * routers, a, m, lead[leaving], out_start).ravel()
        landing = _window_sums(reps * a, routers, m, (rep * a + u % a)[arriving], in_start)
        first += landing.reshape(reps, a, b, a).transpose(0, 2, 3, 1).ravel()
        first = first.reshape(reps, b, a, a)
        first[:, :, np.arange(a), np.arange(a)] = 0
        second = np.zeros((reps, 0), dtype=np.int64)
        if b > 1:  # one row a group: no rank-2 channel
            second = m * np.bincount((row * routers + v)[inside],
                                     minlength=reps * b * routers)
            second += _window_sums(reps * b, routers, m, row[leaving], out_start).ravel()
            second += _row_windows(reps * routers, a, b, m, lead[arriving], in_start).reshape(
                reps, b, a, b).transpose(0, 3, 1, 2).ravel()
            second = second.reshape(reps, b, b, a)
            second[:, np.arange(b), np.arange(b), :] = 0
        across = np.bincount((rep * g + offset)[leaving], minlength=reps * g)
        units.append((first.reshape(reps, -1), second.reshape(reps, -1),
                      across.reshape(reps, g)[:, 1:]))
    return step, rep_hops, units[0], units[1]


def _mixed_maxima(x: np.ndarray, y: np.ndarray, mix: np.ndarray) -> np.ndarray:
    """max over the channels (columns) of u·x + v·y for each row and each weight pair
    (u, v) = mix[:, j] (u, v >= 0): (rows, M). Only channels with max(x, y) at least the
    row's largest min(x, y) can attain it (u·x + v·y <= (u + v)·max(x, y), and the
    channel of that largest min reaches (u + v)·min), so only those are evaluated."""
    floor = np.minimum(x, y).max(axis=1)
    row, col = np.nonzero(np.maximum(x, y) >= floor[:, None])
    values = x[row, col][:, None] * mix[0][None, :] + y[row, col][:, None] * mix[1][None, :]
    firsts = np.searchsorted(row, np.arange(x.shape[0]))
    return np.maximum.reduceat(values, firsts, axis=0)


def partial_shift_traffic(params, nodes: int, d, near, far) -> tuple[np.ndarray, np.ndarray]:
    """(hops, load) per step of the messages n -> (n + d) mod N (``near`` each) and
    n -> (n + d + 1) mod N (``far`` each) of every node n < N = ``nodes`` on the first N
    endpoints of gdragonfly(p, a, b, la, lb, g, m) (``params``), linear placement: the
    largest hops of a message with a weight and the busiest channel in messages, rounded
    up (gdragonfly_route_hops, gdragonfly_route_load of the explicit messages; 0, 0 for a
    step without a message between routers). d, near, far: arrays, one entry a step,
    0 <= d < N, a weight 0 where its shift is 0 mod N. The steps sharing d share their
    representatives (:func:`_pair_channels`, the kinds under both shifts wherever some
    step sends by each: a finer split than either shift's alone, so it serves a step
    sending by one); a step's channel carries near·x + far·y units, evaluated for every
    (near, far) of the steps at once."""
    p, a, b, la, lb, g, m = params
    routers = a * b
    d = np.asarray(d, dtype=np.int64).ravel()
    near = np.asarray(near, dtype=np.int64).ravel()
    far = np.asarray(far, dtype=np.int64).ravel()
    hops = np.zeros(d.size, dtype=np.int64)
    load = np.zeros(d.size, dtype=np.int64)
    pairs, index = np.unique(d, return_inverse=True)
    index = index.ravel()
    near_on = np.bincount(index, near > 0, pairs.size) > 0
    far_on = np.bincount(index, far > 0, pairs.size) > 0
    weights, combo = np.unique(near * (int(far.max(initial=0)) + 1) + far, return_inverse=True)
    combo = combo.ravel()
    mix = np.stack([weights // (int(far.max(initial=0)) + 1),
                    weights % (int(far.max(initial=0)) + 1)])  # 2 x M
    windows = _window_starts(params)
    table = _hop_table(tuple(int(x) for x in params))
    divisor = np.array([m * la, m * lb, m], dtype=np.int64)
    chunk = max(1, CHUNK_CELLS // (routers * routers) // 8 // mix.shape[1])
    by_pair = np.argsort(index, kind="stable")
    bounds = np.searchsorted(index[by_pair], np.arange(pairs.size + 1))
    for start in range(0, pairs.size, chunk):
        chosen = pairs[start:start + chunk]
        step, rep_hops, x, y = _pair_channels(
            params, nodes, chosen, near_on[start:start + chunk], far_on[start:start + chunk],
            windows, table)
        firsts = np.searchsorted(step, np.arange(chosen.size))
        near_hops, far_hops = (np.maximum.reduceat(h, firsts) for h in rep_hops)
        rep_load = np.zeros((step.size, mix.shape[1]), dtype=np.int64)
        for cls in range(3):
            width = (x if x is not None else y)[cls].shape[1]
            if width == 0:
                continue
            if x is not None and y is not None:
                busiest = _mixed_maxima(x[cls], y[cls], mix)
            else:  # one shift: the busiest channel of it, times each weight
                busiest = np.outer((x if x is not None else y)[cls].max(axis=1),
                                   mix[0 if x is not None else 1])
            rep_load = np.maximum(rep_load, -(-busiest // divisor[cls]))
        pair_load = np.maximum.reduceat(rep_load, firsts, axis=0)
        steps = by_pair[bounds[start]:bounds[start + chosen.size]]
        q = index[steps] - start
        hops[steps] = np.maximum(np.where(near[steps] > 0, near_hops[q], 0),
                                 np.where(far[steps] > 0, far_hops[q], 0))
        load[steps] = pair_load[q, combo[steps]]
    return hops, load
