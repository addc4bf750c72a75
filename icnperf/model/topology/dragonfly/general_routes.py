"""Explicit messages on the generalized dragonfly ``gdragonfly`` under its MIN routing
(collectives: one message per endpoint pair).

The graph and the routing are those of :mod:`icnperf.model.topology.dragonfly.general`:
router r = i + a·j of a group (i its row position, j its row), endpoint e = (G·R + r)·p +
port; group G's global port k (0 .. m(g-1)-1) goes to group G + k // m + 1 as copy k mod m,
is owned by router k mod R and lands on port (g - o - 1)·m + copy of group G + o,
o = k // m + 1. Inside a group a route takes a rank-1 hop to the destination's row position,
then a rank-2 hop to its row (each skipped when already equal). A message between groups is
split evenly over the m global links of its group pair: each 1/m share goes the local route
to the link's owner, the link, the local route from its landing router. Parallel local
links (la rank-1, lb rank-2 per router pair) share a segment's traffic equally.

Per message, :func:`gdragonfly_route_hops` gives the hops of its longest share (the share
that arrives last); :func:`gdragonfly_route_load` the busiest channel (one direction of one
link) when all messages are sent at once, in messages, rounded up. Derived here; checked
against routes walked on explicit multigraphs in
tests/model/topology/test_gdragonfly_routes.py.

Cost: messages are first merged by (source router, group offset, destination router) for
the hops and by (group, router, offset) for the loads; each merged entry is expanded over
the min(m, R) distinct owners of its m ports (the hops in chunks of :data:`CHUNK` entries).
"""

from __future__ import annotations

import numpy as np

CHUNK = 1 << 20
"""Largest number of (message, copy) entries the hop count expands at once (memory)."""


def _split(params, endpoints) -> tuple[np.ndarray, np.ndarray]:
    """(group, router within group) of every endpoint index."""
    p, a, b = params[0], params[1], params[2]
    router = np.asarray(endpoints, dtype=np.int64).ravel() // p
    return router // (a * b), router % (a * b)


def _local_hops(u, w, a) -> np.ndarray:
    """Hops of the in-group route between routers u and w: [rows positions differ] +
    [rows differ]."""
    return (u % a != w % a).astype(np.int64) + (u // a != w // a).astype(np.int64)


def _copies(m: int, routers: int) -> tuple[np.ndarray, np.ndarray]:
    """(k, count): the min(m, R) distinct copy shifts k of a window of m consecutive ports
    and how many of the m ports fall on each (port start + c is owned by router
    (start + c) mod R, so copies c and c + R share a router): count = m // R + [k < m % R]."""
    k = np.arange(min(m, routers), dtype=np.int64)
    return k, m // routers + (k < m % routers).astype(np.int64)


def _chunks(rows: int, width: int):
    """Slices of ``rows`` so that each slice times ``width`` stays near CHUNK."""
    step = max(1, CHUNK // max(width, 1))
    for start in range(0, rows, step):
        yield slice(start, min(rows, start + step))


def gdragonfly_route_hops(p, a, b, la, lb, g, m, sources, destinations) -> np.ndarray:
    """Router-router hops of each message's MIN route on gdragonfly(p, a, b, la, lb, g, m):
    0 on one router, the local route's 1 or 2 hops within a group, and between groups the
    most over the m shares of 1 + d(source router, owner) + d(landing router, destination
    router), d the local route's hops (module docstring). Vectorized over the pairs."""
    routers = a * b
    gs, us = _split((p, a, b), sources)
    gd, ud = _split((p, a, b), destinations)
    hops = np.where(gs == gd, _local_hops(us, ud, a), 0)
    across = np.flatnonzero(gs != gd)
    if across.size == 0:
        return hops
    offset = (gd[across] - gs[across]) % g
    keys, inverse = np.unique((us[across] * g + offset) * routers + ud[across],
                              return_inverse=True)
    inverse = inverse.ravel()
    u = keys // (g * routers)
    o = (keys // routers) % g
    v = keys % routers
    shift, _ = _copies(m, routers)
    longest = np.empty(keys.size, dtype=np.int64)
    for part in _chunks(keys.size, shift.size):
        owner = (((o[part] - 1) * m)[:, None] + shift[None, :]) % routers
        landing = (((g - o[part] - 1) * m)[:, None] + shift[None, :]) % routers
        longest[part] = (_local_hops(u[part, None], owner, a)
                         + _local_hops(landing, v[part, None], a)).max(axis=1)
    hops[across] = 1 + longest[inverse]
    return hops


def _segment_loads(group, u, w, units, a, b) -> tuple:
    """(busiest rank-1, busiest rank-2) channel in units of 1/m message per parallel-link
    set (before la / lb share it), of in-group route segments u -> w of ``group`` carrying
    ``units`` (1/m messages each): rank-1 channel (i_u, j_u) -> (i_w, j_u), then rank-2
    channel (i_w, j_u) -> (i_w, j_w)."""
    keep = (u != w) & (units > 0)
    group, u, w, units = group[keep], u[keep], w[keep], units[keep]
    iu, ju, iw, jw = u % a, u // a, w % a, w // a
    r1 = iu != iw
    r2 = ju != jw
    busiest = []
    for mask, ids in ((r1, ((group * b + ju) * a + iu) * a + iw),
                      (r2, ((group * a + iw) * b + ju) * b + jw)):
        if mask.any():
            value = _sums(ids[mask], units[mask]).max()
            busiest.append(float(value) if units.dtype.kind == "f" else int(round(value)))
        else:
            busiest.append(0)
    return busiest[0], busiest[1]


def gdragonfly_route_load(p, a, b, la, lb, g, m, sources, destinations,
                          weights=None) -> int | float:
    """Most messages on one channel (one direction of one local or global link) when the
    pairs each send one message at once under MIN routing, rounded up; 0 when no message
    leaves its router. With ``weights`` (one amount per pair) the busiest channel's total
    amount, not rounded (a float).

    Counted in units of 1/m message: a message within a group puts m units on each channel
    of its local route; a message from group G to G + o puts 1 unit on each of the m global
    channels of offset o, and on the local routes from its source router to each port's
    owner and from each port's landing router to its destination (min(m, R) distinct
    owners, ``count`` ports each). A rank-1 (rank-2) channel's load is shared by its la (lb)
    parallel links; a global channel is one link.
    """
    routers = a * b
    gs, us = _split((p, a, b), sources)
    gd, ud = _split((p, a, b), destinations)
    amount = (np.ones(gs.size, dtype=np.int64) if weights is None
              else np.asarray(weights, dtype=float).ravel())
    units = [0, 0, 0]  # busiest rank-1, rank-2 (before parallel sharing), global
    inner = (gs == gd) & (us != ud)
    across = gs != gd
    seg_group = [gs[inner]]
    seg_u = [us[inner]]
    seg_w = [ud[inner]]
    seg_units = [m * amount[inner]]
    if across.any():
        offset = (gd[across] - gs[across]) % g
        units[2] = _sums(gs[across] * g + offset, amount[across]).max()
        # c messages of a group pair: c/m = c units on each of its links
        shift, count = _copies(m, routers)
        legs = ((gs[across], us[across], offset - 1, True),
                (gd[across], ud[across], g - offset - 1, False))
        for group, router, window, leaving in legs:
            # messages of one (group, router, window) share their segments: aggregate first
            keys, weight = _sums((group * g + window) * routers + router, amount[across],
                                 keys_too=True)
            grp, win, rtr = keys // (g * routers), (keys // routers) % g, keys % routers
            ports = ((win * m)[:, None] + shift[None, :]) % routers
            here = np.broadcast_to(rtr[:, None], ports.shape)
            seg_group.append(np.broadcast_to(grp[:, None], ports.shape).ravel())
            seg_u.append((here if leaving else ports).ravel())
            seg_w.append((ports if leaving else here).ravel())
            seg_units.append((weight[:, None] * count[None, :]).ravel())
    group = np.concatenate(seg_group)
    if group.size:
        units[0], units[1] = _segment_loads(group, np.concatenate(seg_u),
                                            np.concatenate(seg_w), np.concatenate(seg_units),
                                            a, b)
    if not (inner.any() or across.any()):
        return 0 if weights is None else 0.0
    if weights is not None:
        return float(max(units[0] / (m * la), units[1] / (m * lb), units[2] / m))
    return max(-(-units[0] // (m * la)), -(-units[1] // (m * lb)), -(-units[2] // m))


DIRECT_BINS = 1024
"""Keys below 8 bins a key plus this many are counted in bins indexed by the key itself
(np.bincount, linear in the keys and bins), not sorted first (np.unique, n log n): the
same sums, each added in the keys' order either way."""


def _sums(keys, amounts, keys_too: bool = False):
    """The amounts summed per distinct key (sorted by key); with ``keys_too`` (keys, sums).
    Integer amounts stay integers. Keys are non-negative integers."""
    keys = np.asarray(keys).ravel()
    if keys.size and int(keys.max()) < 8 * keys.size + DIRECT_BINS:
        bins = np.bincount(keys, weights=amounts)
        distinct = np.flatnonzero(np.bincount(keys))
        sums = bins[distinct]
    else:
        distinct, index = np.unique(keys, return_inverse=True)
        sums = np.bincount(index.ravel(), weights=amounts, minlength=distinct.size)
    if amounts.dtype.kind != "f":
        sums = np.rint(sums).astype(np.int64)
    return (distinct, sums) if keys_too else sums
