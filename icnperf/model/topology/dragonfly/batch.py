"""One message round on many dragonflies at once: the MIN-route hops and busiest channel of
the same endpoint pairs on every design DF(p, a_i, h_i) of a list sharing p, vectorised
over the designs (a sizing study's dragonflies; model/sizing/).

Exactly :func:`routes.dragonfly_route_traffic` design by design, counted router pair by
router pair instead of message by message: endpoint e sits on router e // p, which depends
only on p, and MIN routing (Kim et al., ISCA 2008, §4; the consecutive global arrangement
of this package) gives every message between the same two routers the same route. So the
pairs are merged once into (source router, destination router, messages) for the whole
list, and each design only routes its router pairs: a round whose messages stay near each
other (a shift, an exchange by a rank distance, a fold) has about twice as many router
pairs as routers, p times fewer than messages. The channel numbering, the hops and the
loads are those of :mod:`routes`; the sums of equal channels are the same integer sums.
"""

from __future__ import annotations

import numpy as np


def router_pairs(p: int, sources, destinations) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(source router, destination router, messages) of the distinct router pairs of the
    endpoint pairs on routers of ``p`` endpoints (router = endpoint // p), pairs within
    one router left out (they cross no channel); sorted by source then destination."""
    s = np.asarray(sources, dtype=np.int64).ravel() // p
    d = np.asarray(destinations, dtype=np.int64).ravel() // p
    keep = s != d
    s, d = s[keep], d[keep]
    if not s.size:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    span = int(max(s.max(), d.max())) + 1
    keys, counts = np.unique(s * span + d, return_counts=True)
    return keys // span, keys % span, counts.astype(np.int64)


def rounds_traffic(p: int, a, h, sources, destinations) -> tuple[np.ndarray, np.ndarray]:
    """(largest hops, busiest channel) of one round of endpoint pairs on every design
    DF(p, a[i], h[i]) (int64 arrays, one value per design): per design exactly
    routes.dragonfly_route_traffic(p, a[i], h[i], sources, destinations). Every endpoint
    must exist on every design (a·p·(a·h + 1) of them). No pairs: zeros; pairs all within
    one router: 0 hops, load 0, as the routes' count."""
    a = np.asarray(a, dtype=np.int64).ravel()
    h = np.asarray(h, dtype=np.int64).ravel()
    designs = a.size
    hops = np.zeros(designs, dtype=np.int64)
    load = np.zeros(designs, dtype=np.int64)
    rs, rd, count = router_pairs(p, sources, destinations)
    if not rs.size or not designs:
        return hops, load
    # rows: designs, columns: router pairs
    A, H = a[:, None], h[:, None]
    g = A * H + 1
    gs, u = rs // A, rs % A
    gd, v = rd // A, rd % A
    across = gs != gd
    x = ((gd - gs - 1) % g) // H
    y = A - 1 - x
    first = across & (u != x)
    last = across & (v != y)
    route_hops = np.where(across, 1 + first + last, 1)
    hops = route_hops.max(axis=1)

    # channel numbers as routes._route_channels: local u -> v of group G is (G a + u) a + v,
    # global G -> G' is g a^2 + G g + G'; offset per design so that no two designs share one
    space = (a * h + 1) * (a * a + a * h + 1)      # g a^2 + g^2 > every channel number
    offset = np.concatenate([[0], np.cumsum(space)[:-1]])[:, None]
    weight = np.broadcast_to(count, gs.shape)
    row = np.broadcast_to(np.arange(designs)[:, None], gs.shape)
    crossings = ((~across, (gs * A + u) * A + v), (first, (gs * A + u) * A + x),
                 (across, g * A * A + gs * g + gd), (last, (gd * A + y) * A + v))
    channels = np.concatenate([(offset + number)[mask] for mask, number in crossings])
    weights = np.concatenate([weight[mask] for mask, _ in crossings])
    rows = np.concatenate([row[mask] for mask, _ in crossings])
    order = np.argsort(channels, kind="stable")
    channels = channels[order]
    starts = np.flatnonzero(np.concatenate([[True], channels[1:] != channels[:-1]]))
    totals = np.add.reduceat(weights[order], starts)
    np.maximum.at(load, rows[order][starts], totals)
    return hops, load
