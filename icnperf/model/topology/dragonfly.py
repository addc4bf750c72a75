"""Dragonfly DF(p, a, h) and megafly (dragonfly+): structure and channel loads in closed form.

Sources:

* Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008
  (§3 topology, §4 minimal routing and the adversarial group-shift traffic).
* Jiang et al. (NUDT), seeds/002 §1.3: DF(t, a, h) with t = p endpoints per router, radix
  k = p + a + h - 1, a(ah + 1) routers, a·p·(ah + 1) endpoints, at most 3 hops, balanced when
  a = 2p = 2h; megafly (dragonfly+, Shpiner et al., HiPINEB 2017) with 2-level Clos groups and
  router radix 2k.

Construction conventions (every count and load below refers to exactly this graph):

* **Dragonfly.** g = a·h + 1 groups G = 0..g-1 of a routers r = 0..a-1, fully connected by
  local links; each router has p endpoints. *Consecutive global arrangement*: router r of
  group G owns global ports j = r·h .. r·h + h - 1 and port j links to group (G + j + 1) mod g.
  The far end of that link is port g - 2 - j of the other group, so router r's global links all
  land on router a - 1 - r, and every pair of groups shares exactly one global link.
* **Megafly.** g = k² + 1 groups; a group is a complete bipartite graph between k leaf routers
  (k endpoints each) and k spine routers; spine s owns global ports s·k .. s·k + k - 1 with the
  same consecutive rule (port j -> group G + j + 1, landing on spine k - 1 - s).
* Endpoint index e = (router index)·(endpoints per router) + port, routers numbered group-major
  (dragonfly router G·a + r; megafly leaf G·k + l).
* **MIN routing.** Dragonfly: same group: the direct local link; other group: local hop to the
  router owning the group pair's global link (if not already there), the global link, local hop
  to the destination router (if not already there) -- Kim et al. 2008 §4. Megafly: other group:
  leaf -> spine owning the global link -> global -> spine -> leaf (unique); same group,
  different leaf: leaf -> spine -> leaf with the flow split evenly over the k spines (oblivious
  spreading, weight 1/k per spine).

Traffic patterns, on the endpoint index e (N endpoints):

* tornado: the dragonfly adversarial group shift of Kim et al. 2008 §4 -- every endpoint sends to
  the endpoint with the same router index and port in group G + 1 (mod g). This is not the ring
  tornado of Dally & Towles; on groups that are all pairwise linked every non-zero group shift
  loads a global channel alike.
* bit-complement: e -> N - 1 - e, defined only when N is a power of two (dragonfly: only a = 1;
  megafly: only k = 1); transpose: swap the high and low halves of the b-bit address, defined
  only when N = 2^b with b even (dragonfly: only a = 1; megafly: never). NaN otherwise.
* nearest-neighbour: e -> (e + 1) mod N (Dally & Towles 2004 "neighbor" on the endpoint index).
* worst-case: maximum of γ_max over all permutations (Towles & Dally 2002).
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.model.topology.base import (
    COMMON_NOTES, PATTERNS, Family, Metrics, is_integer, require)

DRAGONFLY_NOTES = (
    "dragonfly DF(p,a,h): p endpoints per router, a routers per group fully connected by "
    "local links, h global links per router, g = a*h+1 groups, one global link per group pair",
    "global links: consecutive arrangement -- router r of group G owns ports j = r*h..r*h+h-1, "
    "port j links to group (G+j+1) mod g and lands on router a-1-r",
    "links = local a(a-1)/2 per group + global g(g-1)/2",
    "routing MIN (Kim et al. 2008): local, global, local; the path between groups is unique",
    "diameter and average_distance are shortest-path (BFS) hops; under this arrangement a "
    "packet routed MIN takes 3 hops where a 2-global-hop path exists for 2(h-1)max(a-2,0) "
    "ordered router pairs per group, so MIN hops average slightly more "
    "(dragonfly_min_average_distance, arrangement-independent)",
    "uniform gamma: global channel a*p/g, local channel p(2g-1)/(a*g) (arrangement-independent)",
    "tornado = adversarial group shift (endpoint of group G -> same router/port of group G+1): "
    "a*p on the group pair's global channel",
    "bit-complement / transpose: on endpoint index; need N a power of two (transpose: 2^b, b "
    "even), which for a dragonfly requires a = 1; NaN otherwise",
    "nearest-neighbour: e -> e+1 mod N; gamma 2 for a >= 2 under this arrangement (the owner of "
    "the +1 group's link is router 0, the landing router a-1), 1 for a = 1",
    "worst-case permutation: a*p (global channel carries at most one group's a*p endpoints; "
    "a local channel at most 2p)",
    "bisection: routers keep their endpoints; sides hold floor(R/2) and ceil(R/2) routers; "
    "value = smaller of the group-halving cut and (a divisible by 4) the router-index cut; an "
    "upper bound on the minimum: exact for a = 1 (K_g) and, by exhaustive search / MILP, for "
    "a <= 4 with h = 1, a = 2 with h <= 2, DF(.,3,2), DF(.,4,2); cuts splitting many groups "
    "are smaller when a is small against h (e.g. a = 2, h = 4: 13 vs 17; a = 3, h = 3: 21 vs "
    "25; a = 4, h = 3: 38 vs 40)",
)

MEGAFLY_NOTES = (
    "megafly (dragonfly+) k: groups are complete bipartite leaf/spine Clos with k leaves "
    "(k endpoints each) and k spines (k global links each); g = k^2+1 groups, one global link "
    "per group pair; radix 2k",
    "global links: consecutive arrangement -- spine s of group G owns ports j = s*k..s*k+k-1, "
    "port j links to group (G+j+1) mod g and lands on spine k-1-s",
    "links = leaf-spine k^2 per group + global g(g-1)/2",
    "routing MIN: leaf, spine, global, spine, leaf between groups; within a group leaf, spine, "
    "leaf split evenly over the k spines",
    "MIN paths are shortest paths: same leaf 0 hops, same group 2, other group 3",
    "uniform gamma: global k^2/g, leaf-spine channels (k^4+k^2-k)/N",
    "tornado = adversarial group shift (endpoint of group G -> same leaf/port of group G+1): "
    "k^2 on the global channel",
    "bit-complement needs N a power of two (only k = 1); transpose needs N = 2^b with b even "
    "(never); NaN otherwise",
    "nearest-neighbour: e -> e+1 mod N",
    "worst-case permutation: k^2 (global channel carries at most one group's k^2 endpoints; a "
    "leaf-spine channel at most k)",
    "bisection: balanced cut of the endpoints (leaves split evenly, spines free); value = "
    "group-halving cut, an upper bound on the minimum, shown minimal by exhaustive search for "
    "k = 1, 2 and by MILP for k = 3",
)


def _arrays(*values) -> list[np.ndarray]:
    """Broadcast parameter values to float64 arrays of one common shape."""
    return list(np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in values)))


def _require_positive_integers(family: str, **params) -> None:
    """Raise InputError unless every value of every parameter is an integer >= 1."""
    for name, value in params.items():
        v = np.asarray(value, dtype=float)
        ok = bool(np.all((v >= 1) & (v == np.floor(v)) & np.isfinite(v)))
        require(ok, f"{family}: {name} must be a positive integer")


def _metrics(family: str, channel_load: dict, notes: tuple[str, ...], **fields) -> Metrics:
    """Metrics with every count and load as a float64 ndarray (0-d for one configuration)."""
    arrays = {name: np.asarray(value, dtype=float) for name, value in fields.items()}
    loads = {pattern: np.asarray(channel_load[pattern], dtype=float) for pattern in PATTERNS}
    return Metrics(family=family, channel_load=loads, notes=notes, **arrays)


def _is_power_of_two(n: np.ndarray) -> np.ndarray:
    """True where n (a positive integer below 2^63) is 2^b."""
    whole = n.astype(np.int64)
    return (whole & (whole - 1)) == 0


def _is_power_of_four(n: np.ndarray) -> np.ndarray:
    """True where n (a positive integer below 2^63) is 2^b with b even."""
    whole = n.astype(np.int64)
    return _is_power_of_two(n) & ((whole & 0x5555555555555555) != 0)


def _complete_graph_permutation_loads(p, g) -> tuple[np.ndarray, np.ndarray]:
    """γ_max of bit-complement and transpose on g routers, all pairwise linked, p endpoints each.

    Derived here. Bit-complement e -> N-1-e maps router R to router g-1-R (R != g-1-R as g is
    even), so each used channel carries p flows. Transpose with N = 2^b, b even, p = 2^m: if
    m <= b/2 the p endpoints of a router differ in low address bits that become router bits of
    the destination, so they reach p distinct routers (load 1); if m > b/2 a router sends
    2^(2m-b) = p²/N flows to every other router. Hence max(1, p²/N). NaN where undefined.
    """
    n = p * g
    defined = _is_power_of_two(n) & _is_power_of_two(p)
    complement = np.where(defined, p, np.nan)
    transpose = np.where(defined & _is_power_of_four(n), np.maximum(1.0, p * p / n), np.nan)
    return complement, transpose


# ---------------------------------------------------------------- dragonfly DF(p, a, h)


def dragonfly_groups(a, h) -> np.ndarray:
    """Number of groups g = a·h + 1 (Kim et al. 2008 §3.1; seeds/002 §1.3)."""
    a, h = _arrays(a, h)
    return a * h + 1.0


def dragonfly_routers(a, h) -> np.ndarray:
    """Routers a·(a·h + 1) (seeds/002 §1.3)."""
    a, h = _arrays(a, h)
    return a * dragonfly_groups(a, h)


def dragonfly_endpoints(p, a, h) -> np.ndarray:
    """Endpoints a·p·(a·h + 1) (seeds/002 §1.3)."""
    p, a, h = _arrays(p, a, h)
    return p * dragonfly_routers(a, h)


def dragonfly_radix(p, a, h) -> np.ndarray:
    """Router ports k = p + (a - 1) + h: endpoint, local and global ports (seeds/002 §1.3)."""
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
    """Diameter in hops: 3 (local, global, local; seeds/002 §1.3) for a >= 2, 1 for a = 1.

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


def dragonfly_uniform_loads(p, a, h) -> dict[str, np.ndarray]:
    """Uniform-traffic channel load per class under MIN, flits/cycle: {"global", "local"}.

    Derived here (every endpoint sends 1/N to every endpoint, self included). Global channel
    G -> G': all (a·p)² pairs of the two groups, a·p/g. Local channel u -> v: p² intra-router
    pairs, p·h·a·p leaving through v (v owns h global links) and h·a·p·p entering at u (h
    links land on u): p(2ah + 1)/N = p(2g - 1)/(a·g). Local is NaN for a = 1 (no local links).
    Both hold for any arrangement giving every router h global links.
    """
    p, a, h = _arrays(p, a, h)
    g = dragonfly_groups(a, h)
    local = np.where(a >= 2, p * (2.0 * g - 1.0) / (a * g), np.nan)
    return {"global": a * p / g, "local": local}


def dragonfly_channel_load(p, a, h) -> dict[str, np.ndarray]:
    """γ_max (flits/cycle) per pattern in base.PATTERNS under MIN routing.

    uniform: max of dragonfly_uniform_loads. tornado (group shift +1) and worst-case: a·p
    (Kim et al. 2008 §4 for the shift; derived here that it is the maximum: a global channel
    only carries flows leaving one group, a local channel u -> v only flows from u's p endpoints
    or to v's p endpoints, 2p <= a·p). bit-complement, transpose: defined only for a = 1 (see
    _complete_graph_permutation_loads). nearest-neighbour e -> e+1: router R sends one flow to
    router R+1; for a >= 2 the local channel a-1 -> 0 of every group carries the flow leaving
    the group and the one entering it (2); for a = 1 each link carries one flow (1).
    """
    p, a, h = _arrays(p, a, h)
    loads = dragonfly_uniform_loads(p, a, h)
    uniform = np.fmax(loads["global"], loads["local"])
    shift = a * p
    complement, transpose = _complete_graph_permutation_loads(p, dragonfly_groups(a, h))
    one_router_groups = a == 1
    return {
        "uniform": uniform,
        "tornado": shift,
        "bit-complement": np.where(one_router_groups, complement, np.nan),
        "transpose": np.where(one_router_groups, transpose, np.nan),
        "nearest-neighbour": np.where(one_router_groups, 1.0, 2.0),
        "worst-case": shift,
    }


def dragonfly_is_balanced(p, a, h) -> np.ndarray:
    """True where a = 2p = 2h, the balanced dragonfly (Kim et al. 2008 §3.1; seeds/002)."""
    p, a, h = _arrays(p, a, h)
    return (a == 2.0 * p) & (a == 2.0 * h)


def _balance_note(p, a, h) -> str:
    """One note saying whether the configuration (or how many of the batch) is balanced."""
    balanced = dragonfly_is_balanced(p, a, h)
    if balanced.ndim == 0:
        if bool(balanced):
            return "balanced: a = 2p = 2h"
        return (
            f"not balanced: a = {float(a):g}, 2p = {2 * float(p):g}, 2h = {2 * float(h):g} "
            "(balanced is a = 2p = 2h)"
        )
    return f"balanced (a = 2p = 2h): {int(balanced.sum())} of {balanced.size} configurations"



# --- endpoint-to-endpoint MIN routes (collectives: one message per pair) -------------------


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
    gs, r_s, gd, r_d, x, y = _dragonfly_routes(p, a, h, sources, destinations)
    same_router = (gs == gd) & (r_s == r_d)
    across = 1 + (r_s != x).astype(np.int64) + (r_d != y).astype(np.int64)
    return np.where(same_router, 0, np.where(gs == gd, 1, across)).astype(np.int64)


def dragonfly_route_load(p: int, a: int, h: int, sources, destinations) -> int:
    """Most messages on one channel (one direction of a local or global link) when the
    pairs each send one message at once under MIN routing; exact, routes being unique.

    A global channel G -> G' carries every message from group G to group G' (one global
    link per group pair); a local channel u -> v of a group carries the messages from u to
    v within it, those leaving through v's global link from u and those arriving at u
    for v. 0 when no message leaves its router.
    """
    gs, r_s, gd, r_d, x, y = _dragonfly_routes(p, a, h, sources, destinations)
    g = a * h + 1

    def local(group, u, v):
        return (group * a + u) * a + v

    inner = (gs == gd) & (r_s != r_d)
    across = gs != gd
    first = across & (r_s != x)
    last = across & (r_d != y)
    ids = np.concatenate([
        local(gs[inner], r_s[inner], r_d[inner]),
        local(gs[first], r_s[first], x[first]),
        g * a * a + gs[across] * g + gd[across],
        local(gd[last], y[last], r_d[last]),
    ])
    if ids.size == 0:
        return 0
    return int(np.unique(ids, return_counts=True)[1].max())


def evaluate_dragonfly(p, a, h) -> Metrics:
    """Metrics of DF(p, a, h); broadcasts over NumPy arrays of p, a, h (positive integers)."""
    _require_positive_integers("dragonfly", p=p, a=a, h=h)
    p, a, h = _arrays(p, a, h)
    return _metrics(
        family="dragonfly",
        routers=dragonfly_routers(a, h),
        endpoints=dragonfly_endpoints(p, a, h),
        radix=dragonfly_radix(p, a, h),
        links=dragonfly_links(a, h),
        diameter=dragonfly_diameter(a, h),
        average_distance=dragonfly_average_distance(p, a, h),
        bisection_links=dragonfly_bisection_links(a, h),
        channel_load=dragonfly_channel_load(p, a, h),
        notes=COMMON_NOTES + DRAGONFLY_NOTES + (_balance_note(p, a, h),),
    )


def _check_names(family: str, params: dict, names: tuple[str, ...]) -> None:
    """Raise InputError for a missing, unknown or non-positive-integer parameter."""
    for name in names:
        require(name in params, f"{family}: missing parameter {name}")
    for name in params:
        require(name in names, f"{family}: unknown parameter {name}")
    for name in names:
        value = params[name]
        require(is_integer(value) and value >= 1, f"{family}: {name}={value} must be a positive integer")


def check_dragonfly(params: dict) -> None:
    """Raise InputError unless params are p, a, h, each a positive integer."""
    _check_names("dragonfly", params, ("p", "a", "h"))


def dragonfly_endpoint_count(params: dict) -> int:
    """Exact endpoint count a·p·(a·h + 1) as a Python int."""
    p, a, h = (int(params[name]) for name in ("p", "a", "h"))
    return a * p * (a * h + 1)


def design_dragonfly_for_endpoints(n_endpoints: int) -> dict:
    """Smallest balanced dragonfly (p = h = t, a = 2t) with at least n_endpoints endpoints.

    Balanced DF(t, 2t, t) has 2t²(2t² + 1) endpoints, increasing in t; returns the least t.
    """
    require(int(n_endpoints) >= 1, "dragonfly: the endpoint count must be positive")
    t = max(1, math.isqrt(math.isqrt(int(n_endpoints) // 4)))
    while t > 1 and 2 * (t - 1) ** 2 * (2 * (t - 1) ** 2 + 1) >= n_endpoints:
        t -= 1
    while 2 * t * t * (2 * t * t + 1) < n_endpoints:
        t += 1
    return {"p": t, "a": 2 * t, "h": t}


# ---------------------------------------------------------------- megafly (dragonfly+) k


def megafly_groups(k) -> np.ndarray:
    """Groups g = k² + 1: a group has k spines x k global links, one to every other group."""
    (k,) = _arrays(k)
    return k * k + 1.0


def megafly_routers(k) -> np.ndarray:
    """Routers 2k(k² + 1): k leaves and k spines per group (derived here; seeds/002's k(k²+1)
    counts one router layer only)."""
    (k,) = _arrays(k)
    return 2.0 * k * megafly_groups(k)


def megafly_endpoints(k) -> np.ndarray:
    """Endpoints k²(k² + 1): k leaves of k endpoints per group (seeds/002 §1.3)."""
    (k,) = _arrays(k)
    return k * k * megafly_groups(k)


def megafly_radix(k) -> np.ndarray:
    """Router ports 2k: leaf k endpoints + k spines; spine k leaves + k global (seeds/002)."""
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


def megafly_uniform_loads(k) -> dict[str, np.ndarray]:
    """Uniform-traffic load per channel class under MIN, flits/cycle: global, up, down.

    Derived here. Global: (k²)² pairs between two groups over N: k²/g. Leaf -> spine x: the
    k endpoints of the leaf send 1/k of their k(k-1) intra-group flows through each spine and
    all flows to the k groups x links to (k·k·k²): (k(k-1) + k⁴)/N; spine -> leaf alike.
    """
    (k,) = _arrays(k)
    n = megafly_endpoints(k)
    leaf_spine = (k * (k - 1.0) + k**4) / n
    return {"global": k * k / megafly_groups(k), "up": leaf_spine, "down": leaf_spine}


def megafly_channel_load(k) -> dict[str, np.ndarray]:
    """γ_max (flits/cycle) per pattern in base.PATTERNS under MIN routing.

    uniform: max of megafly_uniform_loads = 1 - 1/(k³ + k) for every k. tornado (group shift)
    and worst-case: k² (a global channel carries flows of one group's k² endpoints; a leaf-spine
    channel flows of one leaf's k endpoints). bit-complement: N = k²(k²+1) is a power of two
    only for k = 1 (N = 2: one flow per channel, 1); transpose never defined. nearest-neighbour
    e -> e+1: the flow leaving a group uses its own up, global and down channels alone (1);
    intra-group flows add 1/k per spine.
    """
    (k,) = _arrays(k)
    loads = megafly_uniform_loads(k)
    shift = k * k
    return {
        "uniform": np.maximum(loads["global"], loads["up"]),
        "tornado": shift,
        "bit-complement": np.where(k == 1, 1.0, np.nan),
        "transpose": np.full(k.shape, np.nan),
        "nearest-neighbour": np.ones(k.shape),
        "worst-case": shift,
    }



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


def evaluate_megafly(k) -> Metrics:
    """Metrics of megafly k; broadcasts over a NumPy array of k (positive integers)."""
    _require_positive_integers("megafly", k=k)
    (k,) = _arrays(k)
    return _metrics(
        family="megafly",
        routers=megafly_routers(k),
        endpoints=megafly_endpoints(k),
        radix=megafly_radix(k),
        links=megafly_links(k),
        diameter=megafly_diameter(k),
        average_distance=megafly_average_distance(k),
        bisection_links=megafly_bisection_links(k),
        channel_load=megafly_channel_load(k),
        notes=COMMON_NOTES + MEGAFLY_NOTES,
    )


def check_megafly(params: dict) -> None:
    """Raise InputError unless params are k, a positive integer."""
    _check_names("megafly", params, ("k",))


def megafly_endpoint_count(params: dict) -> int:
    """Exact endpoint count k²(k² + 1) as a Python int."""
    k = int(params["k"])
    return k * k * (k * k + 1)


def design_megafly_for_endpoints(n_endpoints: int) -> dict:
    """Smallest megafly k with k²(k² + 1) >= n_endpoints."""
    require(int(n_endpoints) >= 1, "megafly: the endpoint count must be positive")
    k = max(1, math.isqrt(math.isqrt(int(n_endpoints))))
    while k > 1 and (k - 1) ** 2 * ((k - 1) ** 2 + 1) >= n_endpoints:
        k -= 1
    while k * k * (k * k + 1) < n_endpoints:
        k += 1
    return {"k": k}


def design_for_endpoints(n_endpoints: int, family: str = "dragonfly") -> dict:
    """Params of the smallest canonical configuration reaching n_endpoints endpoints.

    family "dragonfly": design_dragonfly_for_endpoints (balanced a = 2p = 2h);
    family "megafly": design_megafly_for_endpoints.
    """
    designers = {
        "dragonfly": design_dragonfly_for_endpoints,
        "megafly": design_megafly_for_endpoints,
    }
    require(family in designers, f"design_for_endpoints: unknown family {family!r}")
    return designers[family](n_endpoints)


FAMILIES: tuple[Family, ...] = (
    Family(
        name="dragonfly",
        description="dragonfly DF(p,a,h): p endpoints/router, a routers/group, "
        "h global links/router",
        parameters=("p", "a", "h"),
        positional=None,
        check=check_dragonfly,
        endpoints=dragonfly_endpoint_count,
        evaluate=evaluate_dragonfly,
        example="dragonfly:p=4,a=8,h=4",
    ),
    Family(
        name="megafly",
        description="megafly / dragonfly+ k: leaf-spine groups, k^2+1 groups, radix 2k",
        parameters=("k",),
        positional="k",
        check=check_megafly,
        endpoints=megafly_endpoint_count,
        evaluate=evaluate_megafly,
        example="megafly:k=18",
    ),
)
