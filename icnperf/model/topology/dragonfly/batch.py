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
Designs that route every router pair alike (equal a, and h placing each pair's global
link on the same router) are counted once (:func:`_distinct_routings`).
"""

from __future__ import annotations

import numpy as np

from icnperf.model.hash_groups import hash_groups, hash_weights


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
    # rows: the distinct a, then designs; columns: router pairs. x, the router of the
    # source group owning the pair's global link, is ((G' - G - 1) mod g) // h: a (no
    # router) for a pair within one group, whose G' - G - 1 = -1 is g - 1 = a h mod g
    sizes, size_of = np.unique(a, return_inverse=True)
    gs_of, gd_of = rs // sizes[:, None], rd // sizes[:, None]
    # in int32 (faster division): g and |G' - G| are below the design's endpoint count
    distance = (gd_of - gs_of - 1).astype(np.int32)
    g32, h32 = (a * h + 1).astype(np.int32)[:, None], h.astype(np.int32)[:, None]
    x = distance[size_of] % g32 // h32
    distinct, back = _distinct_routings(a, x)
    a, h, x, size_of = a[distinct], h[distinct], x[distinct], size_of[distinct]
    S = sizes[:, None]
    gs, gd = gs_of[size_of], gd_of[size_of]
    u, v = (rs - gs_of * S)[size_of], (rd - gd_of * S)[size_of]
    across = (gs_of != gd_of)[size_of]
    A, H = a[:, None], h[:, None]
    g = A * H + 1
    y = A - 1 - x
    first = across & (u != x)
    last = across & (v != y)
    # 1 hop within a group (first and last are false there), 1 + first + last across
    hops = 1 + (first.view(np.int8) + last.view(np.int8)).max(axis=1).astype(np.int64)

    # channel numbers as routes._route_channels: local u -> v of group G is (G a + u) a + v
    # (= r a + v for the router r = G a + u), global G -> G' is g a^2 + G g + G'; offset
    # per design so that no two designs share one
    space = (a * h + 1) * (a * a + a * h + 1)      # g a^2 + g^2 > every channel number
    offset = np.concatenate([[0], np.cumsum(space)[:-1]])
    O = offset[:, None]
    weight = np.broadcast_to(count, gs.shape)
    leaving = rs * A + O
    crossings = ((~across, leaving + v), (first, leaving + x),
                 (across, g * A * A + O + gs * g + gd), (last, (rd - v + y) * A + O + v))
    channels = np.concatenate([number[mask] for mask, number in crossings])
    weights = np.concatenate([weight[mask] for mask, _ in crossings])
    # four runs, each nearly sorted: a stable (merge) sort takes them almost in one pass
    order = np.argsort(channels, kind="stable")
    channels = channels[order]
    starts = np.flatnonzero(np.concatenate([[True], channels[1:] != channels[:-1]]))
    totals = np.add.reduceat(weights[order], starts)
    # a design's channels are contiguous (offsets); each design has one (a pair between
    # two routers crosses at least one channel)
    load = np.maximum.reduceat(totals, np.searchsorted(channels[starts], offset))
    return hops[back], load[back]


def _distinct_routings(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(one design of each distinct routing, each design's routing among them) of designs
    (rows) with ``x``, the router owning each router pair's global link in its source
    group (a, no router, for a pair within one group). Designs of equal a put every
    router pair in the same groups and routers; equal x too and every message takes the
    same route, up to the numbering of the global channels (one per group pair whatever
    h): equal hops, equal channel loads. A round on a job's first endpoints spans few
    group distances, and h changes which router serves each only in steps, so a study's
    designs of one a share a few routings.

    Rows are told apart by a hash of a and x (model.hash_groups) and the grouping is
    checked exactly: every design's row must equal its representative's, else every
    design is its own routing."""
    weights = hash_weights(x.shape[1] + 1)
    return hash_groups(x @ weights[1:] + a * weights[0],
                       lambda first, group: np.array_equal(a[first][group], a)
                       and np.array_equal(x[first][group], x))
