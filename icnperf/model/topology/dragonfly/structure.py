"""Dragonfly and megafly structure: counts, distances and bisections in closed form.

Every function broadcasts over NumPy arrays of its parameters and returns float64 arrays:
groups, routers, endpoints and links (counts), radix (router ports), diameter and mean
distances (router-to-router hops), bisection links (a count). Each refers to exactly the
graph that :mod:`icnperf.model.topology.dragonfly` constructs (consecutive global
arrangement, endpoints numbered group-major).

Sources: Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology",
ISCA 2008, §3; Jiang et al. (NUDT), Jiang et al. §1.3. What is marked "derived here" is checked
against networkx graphs, exhaustive search and MILP in tests/model/topology/test_dragonfly.py.
"""

from __future__ import annotations

import numpy as np


def _arrays(*values) -> list[np.ndarray]:
    """Broadcast parameter values to float64 arrays of one common shape."""
    return list(np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in values)))

# ---------------------------------------------------------------- dragonfly DF(p, a, h)


def dragonfly_groups(a, h) -> np.ndarray:
    """Number of groups g = a·h + 1 (Kim et al. 2008 §3.1; Jiang et al. §1.3)."""
    a, h = _arrays(a, h)
    return a * h + 1.0


def dragonfly_routers(a, h) -> np.ndarray:
    """Routers a·(a·h + 1) (Jiang et al. §1.3)."""
    a, h = _arrays(a, h)
    return a * dragonfly_groups(a, h)


def dragonfly_endpoints(p, a, h) -> np.ndarray:
    """Endpoints a·p·(a·h + 1) (Jiang et al. §1.3)."""
    p, a, h = _arrays(p, a, h)
    return p * dragonfly_routers(a, h)


def dragonfly_radix(p, a, h) -> np.ndarray:
    """Router ports k = p + (a - 1) + h: endpoint, local and global ports (Jiang et al. §1.3)."""
    p, a, h = _arrays(p, a, h)
    return p + a + h - 1.0


def dragonfly_local_links(a, h) -> np.ndarray:
    """Bidirectional local links g·a(a-1)/2 (each group is a complete graph on a routers)."""
    a, h = _arrays(a, h)
    return dragonfly_groups(a, h) * a * (a - 1.0) / 2.0


def dragonfly_global_links(a, h) -> np.ndarray:
    """Bidirectional global links g(g-1)/2 = g·a·h/2 (one per pair of groups)."""
    g = dragonfly_groups(a, h)
    return g * (g - 1.0) / 2.0


def dragonfly_links(a, h) -> np.ndarray:
    """All bidirectional router-router links, local + global."""
    return dragonfly_local_links(a, h) + dragonfly_global_links(a, h)


def dragonfly_diameter(a, h) -> np.ndarray:
    """Diameter in hops: 3 (local, global, local; Jiang et al. §1.3) for a >= 2, 1 for a = 1.

    Derived here for the exact value: with a = 1 the routers form a complete graph. With a >= 2
    router 0 owns the links to groups G+1..G+h only, so it is 3 hops from every non-landing
    router of the other groups (there are g-1-h >= h of them) and no 2-global-hop detour exists
    for router 0 (see dragonfly_shortcut_router_pairs). Hops are router-to-router channels.
    """
    a, h = _arrays(a, h)
    return np.where(a >= 2, 3.0, 1.0)


def _min_route_router_distance_sum(a, h) -> np.ndarray:
    """Sum of MIN-route hops over ordered pairs of distinct routers.

    Derived here: a group has a(a-1) ordered pairs at 1 hop. For an ordered pair of groups with
    global link (x, y), source s and destination d take 1 + [s != x] + [d != y] hops; summed
    over the a² router pairs: a² + 2a(a-1) = 3a² - 2a.
    """
    g = dragonfly_groups(a, h)
    return g * a * (a - 1.0) + g * (g - 1.0) * (3.0 * a * a - 2.0 * a)


def dragonfly_shortcut_router_pairs(a, h) -> np.ndarray:
    """Ordered router pairs whose shortest path (2 hops) is shorter than the MIN route (3 hops).

    Derived here for the consecutive arrangement: router r's global links reach groups
    G + r·h + 1 .. G + r·h + h and all land on router a-1-r, whose own links cover offsets
    (a-1-r)·h + 1 .. (a-r)·h. Two global hops therefore reach router r of the 2(h-1) groups at
    offsets ±1 .. ±(h-1). The links between G and those groups belong to routers 0 and a-1 at
    both ends, so for r in 1..a-2 each is a MIN-3 pair cut to 2: 2(h-1)(a-2) per group. Every
    other 2-hop path is itself a MIN path.
    """
    a, h = _arrays(a, h)
    return dragonfly_groups(a, h) * 2.0 * (h - 1.0) * np.maximum(a - 2.0, 0.0)


def _endpoint_average(router_distance_sum, p, routers) -> np.ndarray:
    """Mean over ordered distinct endpoint pairs given the ordered router-pair hop sum."""
    n = p * routers
    return p * p * router_distance_sum / (n * (n - 1.0))


def dragonfly_min_average_distance(p, a, h) -> np.ndarray:
    """Mean MIN-route hops over ordered distinct endpoint pairs (any global arrangement).

    Derived here: p²·[g·a(a-1) + g(g-1)(3a² - 2a)] / (N(N-1)); endpoint pairs on one router
    are 0 hops apart. Independent of the global-link arrangement.
    """
    p, a, h = _arrays(p, a, h)
    return _endpoint_average(_min_route_router_distance_sum(a, h), p, dragonfly_routers(a, h))


def dragonfly_average_distance(p, a, h) -> np.ndarray:
    """Mean shortest-path hops over ordered distinct endpoint pairs (consecutive arrangement).

    Derived here: the MIN-route sum less one hop per shortcut router pair
    (dragonfly_shortcut_router_pairs), times p², over N(N-1).
    """
    p, a, h = _arrays(p, a, h)
    total = _min_route_router_distance_sum(a, h) - dragonfly_shortcut_router_pairs(a, h)
    return _endpoint_average(total, p, dragonfly_routers(a, h))


def dragonfly_group_cut_links(a, h) -> np.ndarray:
    """Links cut by the group-halving bisection (consecutive arrangement).

    Derived here. g even: g/2 whole groups a side, (g/2)² global links cross. g odd: side A
    takes groups S+1..S+m (m = (g-1)/2 = ah/2) and routers 0..⌊a/2⌋-1 of group S, which own
    exactly the links from S to offsets 1..⌊a/2⌋·h. Cut: m² global links between whole groups,
    ⌊a/2⌋⌈a/2⌉ local links in S, and for odd a the h/2 links from S to side A owned by
    router ⌊a/2⌋ on side B: m² + a²/4 (a even) or m² + (a²-1)/4 + h/2 (a odd).
    """
    a, h = _arrays(a, h)
    g = dragonfly_groups(a, h)
    m = (g - 1.0) / 2.0
    odd_a = a % 2.0
    split = m * m + (a * a - odd_a) / 4.0 + odd_a * h / 2.0
    return np.where(g % 2.0 == 0.0, g * g / 4.0, split)


def dragonfly_index_cut_links(a, h) -> np.ndarray:
    """Links cut by the router-index bisection, defined when 4 divides a (inf otherwise).

    Derived here: global links join router r only to routers a-1-r, so putting the a/4 index
    pairs {r, a-1-r}, r < a/4, on one side in every group cuts no global link and (a/2)² local
    links per group: g·a²/4. Smaller than the group-halving cut when a < h.
    """
    a, h = _arrays(a, h)
    g = dragonfly_groups(a, h)
    return np.where(a % 4.0 == 0.0, g * a * a / 4.0, np.inf)


def dragonfly_bisection_links(a, h) -> np.ndarray:
    """Bisection links: the smaller of the group-halving and router-index cuts (upper bound).

    Balanced means routers (with their endpoints) split ⌊R/2⌋ / ⌈R/2⌉. Derived here; see
    dragonfly_group_cut_links and dragonfly_index_cut_links. Not proven minimal in general:
    exact for a = 1 (complete graph); exhaustive search and MILP confirm it for a <= 4 with
    h = 1, a = 2 with h <= 2, DF(., 3, 2) and the balanced DF(., 4, 2); cuts splitting many
    groups do better when a is small against h (a = 2, h >= 3; a = 3, h = 3; a = 4, h = 3).
    """
    return np.minimum(dragonfly_group_cut_links(a, h), dragonfly_index_cut_links(a, h))

def dragonfly_is_balanced(p, a, h) -> np.ndarray:
    """True where a = 2p = 2h, the balanced dragonfly (Kim et al. 2008 §3.1; Jiang et al.)."""
    p, a, h = _arrays(p, a, h)
    return (a == 2.0 * p) & (a == 2.0 * h)

# ---------------------------------------------------------------- megafly (dragonfly+) k


def megafly_groups(k) -> np.ndarray:
    """Groups g = k² + 1: a group has k spines x k global links, one to every other group."""
    (k,) = _arrays(k)
    return k * k + 1.0


def megafly_routers(k) -> np.ndarray:
    """Routers 2k(k² + 1): k leaves and k spines per group (derived here; Jiang et al.'s k(k²+1)
    counts one router layer only)."""
    (k,) = _arrays(k)
    return 2.0 * k * megafly_groups(k)


def megafly_endpoints(k) -> np.ndarray:
    """Endpoints k²(k² + 1): k leaves of k endpoints per group (Jiang et al. §1.3)."""
    (k,) = _arrays(k)
    return k * k * megafly_groups(k)


def megafly_radix(k) -> np.ndarray:
    """Router ports 2k: leaf k endpoints + k spines; spine k leaves + k global (Jiang et al.)."""
    (k,) = _arrays(k)
    return 2.0 * k


def megafly_links(k) -> np.ndarray:
    """Bidirectional router links: k² leaf-spine per group plus g(g-1)/2 global = 3k²g/2."""
    (k,) = _arrays(k)
    g = megafly_groups(k)
    return k * k * g + g * (g - 1.0) / 2.0


def megafly_diameter(k) -> np.ndarray:
    """Diameter 3 hops (leaf-spine, global, spine-leaf); derived here, g >= 2 for every k."""
    (k,) = _arrays(k)
    return np.full(k.shape, 3.0)


def megafly_average_distance(k) -> np.ndarray:
    """Mean hops over ordered distinct endpoint pairs: [2k(k-1) + 3k²(g-1)] / (N-1).

    Derived here: from one endpoint, k-1 others share its leaf (0 hops), k(k-1) sit on the
    other leaves of its group (2 hops) and k²(g-1) in other groups (3 hops). MIN paths are
    shortest paths.
    """
    (k,) = _arrays(k)
    g = megafly_groups(k)
    n = megafly_endpoints(k)
    return (2.0 * k * (k - 1.0) + 3.0 * k * k * (g - 1.0)) / (n - 1.0)


def megafly_bisection_links(k) -> np.ndarray:
    """Links cut by the group-halving balanced cut of the endpoints (upper bound; minimal for
    k <= 3 by exhaustive search / MILP).

    Derived here. k odd (g even): g/2 groups a side, (g/2)² global links. k even (g odd): side A
    takes groups S+1..S+m (m = k²/2), leaves 0..k/2-1 and spines 0..k/2-1 of group S (those
    spines own exactly the links from S to side A): m² global + k²/2 leaf-spine links.
    """
    (k,) = _arrays(k)
    g = megafly_groups(k)
    m = (g - 1.0) / 2.0
    return np.where(g % 2.0 == 0.0, g * g / 4.0, m * m + k * k / 2.0)
