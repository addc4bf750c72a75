"""Explicit messages on a dragonfly or megafly under MIN routing (collectives: one message
per endpoint pair).

For endpoint pairs given by index (group-major numbering, as in
:mod:`icnperf.model.topology.dragonfly`): the router-to-router hops of each pair's MIN route,
and the largest number of the messages on one channel (one direction of a local, leaf-spine
or global link) when every pair sends one message at once. Vectorized over the pairs.

Sources: MIN routing of Kim et al., ISCA 2008, §4; the megafly's even spreading over the
spines is this package's convention. The counting is derived here and checked against
walked routes in tests/model/test_collectives_placement.py.
"""

from __future__ import annotations

import math

import numpy as np


# ---------------------------------------------------------------- dragonfly DF(p, a, h)


def _pairs(sources, destinations) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(sources, dtype=np.int64).ravel()
    d = np.asarray(destinations, dtype=np.int64).ravel()
    return s, d


def _dragonfly_routes(p: int, a: int, h: int, sources, destinations):
    """(group_s, router_s, group_d, router_d, x, y) of each pair: routers numbered within
    their group; x owns the group pair's global link in the source group, y = a - 1 - x
    holds its far end (consecutive arrangement: port j = (G_d - G_s - 1) mod g, owner
    j // h). x, y are meaningless for pairs within one group."""
    s, d = _pairs(sources, destinations)
    g = a * h + 1
    rs, rd = s // p, d // p
    gs, gd = rs // a, rd // a
    x = ((gd - gs - 1) % g) // h
    return gs, rs % a, gd, rd % a, x, a - 1 - x


def dragonfly_route_hops(p: int, a: int, h: int, sources, destinations) -> np.ndarray:
    """Router-router hops of MIN routing between endpoint pairs of DF(p, a, h):
    0 on one router, 1 within a group (the direct local link), 1 + [s != x] + [d != y]
    across groups (local to the owner x of the group pair's global link, the global link,
    local from its landing router y; Kim et al. 2008 §4). Vectorized over the pairs."""
    return _route_hops(*_dragonfly_routes(p, a, h, sources, destinations))


def _route_hops(gs, r_s, gd, r_d, x, y) -> np.ndarray:
    same_router = (gs == gd) & (r_s == r_d)
    across = 1 + (r_s != x).astype(np.int64) + (r_d != y).astype(np.int64)
    return np.where(same_router, 0, np.where(gs == gd, 1, across)).astype(np.int64)


def dragonfly_route_load(p: int, a: int, h: int, sources, destinations,
                         weights=None) -> int | float:
    """Most messages on one channel (one direction of a local or global link) when the
    pairs each send one message at once under MIN routing; exact, routes being unique.
    With ``weights`` (one amount per pair) the busiest channel's total amount, a float.

    A global channel G -> G' carries every message from group G to group G' (one global
    link per group pair); a local channel u -> v of a group carries the messages from u to
    v within it, those leaving through v's global link from u and those arriving at u
    for v. 0 when no message leaves its router.
    """
    return _route_load(a, h, *_dragonfly_routes(p, a, h, sources, destinations),
                       weights=weights)


def dragonfly_route_traffic(p: int, a: int, h: int, sources, destinations) -> tuple[int, int]:
    """(largest :func:`dragonfly_route_hops`, :func:`dragonfly_route_load`) of the pairs,
    their routes worked out once; (0, 0) for no pairs."""
    routes = _dragonfly_routes(p, a, h, sources, destinations)
    if routes[0].size == 0:
        return 0, 0
    return int(_route_hops(*routes).max()), _route_load(a, h, *routes)


def dragonfly_route_channels(p: int, a: int, h: int, sources,
                             destinations) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pair, channel, after_global) of every channel crossed by the pairs' MIN routes on
    DF(p, a, h): the pair's index, the channel (local u -> v of group G: (G a + u) a + v;
    global G -> G': g a^2 + G g + G'), and whether the hop is the global one or after it.
    Grouped by hop: the local hops within a group, the first local hops across groups, the
    global hops, the last local hops."""
    return _route_channels(a, h, *_dragonfly_routes(p, a, h, sources, destinations))


def _route_channels(a: int, h: int, gs, r_s, gd, r_d, x, y):
    g = a * h + 1

    def local(group, u, v):
        return (group * a + u) * a + v

    inner = (gs == gd) & (r_s != r_d)
    across = gs != gd
    first = across & (r_s != x)
    last = across & (r_d != y)
    pair = np.arange(gs.size, dtype=np.int64)
    pairs = np.concatenate([pair[inner], pair[first], pair[across], pair[last]])
    ids = np.concatenate([
        local(gs[inner], r_s[inner], r_d[inner]),
        local(gs[first], r_s[first], x[first]),
        g * a * a + gs[across] * g + gd[across],
        local(gd[last], y[last], r_d[last]),
    ])
    after_global = np.arange(pairs.size) >= int(inner.sum() + first.sum())
    return pairs, ids, after_global


def _route_load(a: int, h: int, *routes, weights=None) -> int | float:
    pairs, ids, _ = _route_channels(a, h, *routes)
    if ids.size == 0:
        return 0 if weights is None else 0.0
    if weights is None:
        return int(np.unique(ids, return_counts=True)[1].max())
    index = np.unique(ids, return_inverse=True)[1].ravel()
    amounts = np.asarray(weights, dtype=float).ravel()[pairs]
    return float(np.bincount(index, weights=amounts).max())


def dragonfly_alltoall_traffic(p: int, a: int, h: int) -> tuple[int, int]:
    """(largest hops, :func:`dragonfly_route_load`) of every endpoint of DF(p, a, h)
    sending to every other at once under MIN routing, in closed form (derived here; checked
    against the pairs mapped in tests/model/test_collectives_structured.py).

    g = a h + 1 groups of a p endpoints. A global channel G -> G' carries every message
    between the two groups: (a p)^2. A local channel u -> v carries p^2 messages from u's
    endpoints to v's, the p (h groups x a p endpoints) messages from u leaving through v's h
    global links, and as many arriving on u's h global links for v's endpoints (a router
    lands the links of h groups): p^2 + 2 a h p^2. Hops: 1 + 2 across groups when a group
    has two routers or more (local, global, local), else 1; 1 within a group."""
    groups = a * h + 1
    load = 0
    if groups >= 2:
        load = (a * p) ** 2
    if a >= 2:
        load = max(load, p * p + (2 * a * h * p * p if groups >= 2 else 0))
    if groups >= 2:
        hops = 3 if a >= 2 else 1
    else:
        hops = 1 if a >= 2 else 0
    return hops, load


# ---------------------------------------------------------------- megafly (dragonfly+) k


def _megafly_routes(k: int, sources, destinations):
    """(leaf_s, leaf_d, group_s, group_d, x, y) of each pair: global leaf numbers, x the
    spine of the source group owning the group pair's global link (port j = (G_d - G_s - 1)
    mod g, owner j // k), y = k - 1 - x its landing spine."""
    s, d = _pairs(sources, destinations)
    g = k * k + 1
    ls, ld = s // k, d // k
    gs, gd = ls // k, ld // k
    x = ((gd - gs - 1) % g) // k
    return ls, ld, gs, gd, x, k - 1 - x


def megafly_route_hops(k: int, sources, destinations) -> np.ndarray:
    """Router-router hops of MIN routing between endpoint pairs of megafly k: 0 on one leaf,
    2 within a group (leaf, spine, leaf), 3 across groups (leaf-spine, global,
    spine-leaf). Vectorized over the pairs."""
    ls, ld, gs, gd, _, _ = _megafly_routes(k, sources, destinations)
    return np.where(ls == ld, 0, np.where(gs == gd, 2, 3)).astype(np.int64)


def megafly_route_load(k: int, sources, destinations) -> int:
    """Most messages on one channel when the pairs each send one message at once under MIN
    routing, rounded up: a global channel carries every message between its two groups, a
    leaf -> spine channel the messages leaving the leaf for the groups that spine reaches
    plus 1/k of the leaf's messages to other leaves of its group (spread evenly over the k
    spines, MEGAFLY_NOTES), spine -> leaf alike. 0 when no message leaves its leaf."""
    ls, ld, gs, gd, x, y = _megafly_routes(k, sources, destinations)
    if ls.size == 0:
        return 0
    g = k * k + 1
    leaves = k * g
    across = gs != gd
    inner = (gs == gd) & (ls != ld)
    busiest = 0.0
    if across.any():
        busiest = float(np.unique(gs[across] * g + gd[across], return_counts=True)[1].max())
    for leaf, spine in ((ls, x), (ld, y)):
        fixed = np.bincount(leaf[across] * k + spine[across],
                            minlength=leaves * k).reshape(leaves, k).max(axis=1)
        spread = np.bincount(leaf[inner], minlength=leaves) / k
        busiest = max(busiest, float((fixed + spread).max()))
    return int(math.ceil(busiest - 1e-9))
