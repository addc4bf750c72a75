"""The generalized dragonfly ``gdragonfly``: groups that are 1D or 2D all-to-all, several
parallel local links, several global links between every pair of groups.

``dragonfly:p,a,h`` (Kim et al. 2008) has complete-graph groups and exactly one global link per
group pair. The machines of today are not built so:

* **Cray XC (Aries)**: a group is 96 routers in a 16 x 6 grid; the 16 routers of a chassis are
  all-to-all by rank-1 (backplane) links, the 6 routers of the same slot in the 6 chassis are
  all-to-all by rank-2 links, 3 per router pair; rank-3 optical links join groups, several per
  group pair (Alverson, Froese, Kaplan, Roweth, "Cray XC Series Network", Cray white paper
  WP-Aries01-1112, 2012, §3). ``gdragonfly:p=4,a=16,b=6,lb=3,g=...,m=...``.
* **HPE Slingshot**: a group is all-to-all (one link per switch pair), several global links
  between every pair of groups (De Sensi et al., "An In-Depth Analysis of the Slingshot
  Interconnect", SC20, §II). ``gdragonfly:p=16,a=32,g=...,m=...``.

Parameters (positive integers): p endpoints per router; a routers along a row (rank-1,
all-to-all, ``la`` parallel links per router pair); b rows (rank-2: the routers of one row
position are all-to-all, ``lb`` parallel links per pair); g groups; m global links between
every pair of groups. b, la, lb and m default to 1. A group holds R = a·b routers.

Construction (every count and load refers to exactly this graph):

* Router index within a group r = i + a·j (i: position in its row, j: its row). Endpoint index
  e = (G·R + r)·p + port (group-major).
* Global ports of a group are numbered j = 0 .. m(g-1) - 1; port j links to group
  (G + j // m + 1) mod g as copy j mod m, and is owned by router j mod R (round robin, so the
  routers hold floor or ceil of m(g-1)/R ports each). Its far end is port (g - o - 1)·m + copy
  of group G + o, o = j // m + 1.
* **MIN routing.** Within a group: a rank-1 hop to the destination's row position, then a
  rank-2 hop to its row (each skipped when already equal). Between groups: the traffic of an
  endpoint pair is split evenly over the m global links of its two groups (oblivious, the
  balance adaptive minimal routing approaches); each share goes the local route to the link's
  owner, the global link, the local route from its landing router. The traffic of a router
  pair is split evenly over their la (or lb) parallel links.

Hop counts (diameter, average_distance) are those of these routes (the hops the traffic
takes), not BFS shortest paths: a share may use a global link whose owner is two local hops
away when another is nearer. Channel loads are counted exactly on one group's R x R matrix of
local route segments (every group carries the same local traffic under uniform, the group
shift and e -> e+1), which costs O(R²) per configuration: groups are limited to
:data:`MAX_GROUP_ROUTERS` routers. Derived here; checked against routes walked on networkx
multigraphs in tests/model/topology/test_gdragonfly.py.
"""

from __future__ import annotations

import numpy as np

from icnperf.model.topology.base import COMMON_NOTES, Family, Metrics, is_integer, require

MAX_GROUP_ROUTERS = 1024
"""Largest group (a·b routers) accepted: the load count keeps an R x R matrix per pattern."""

MAX_GROUP_PORTS = 1 << 22
"""Largest number of global ports a group may hold, m·(g-1): the bisection counts them."""

PARAMETERS = ("p", "a", "b", "la", "lb", "g", "m")
DEFAULTS = {"b": 1, "la": 1, "lb": 1, "m": 1}

NOTES = (
    "gdragonfly: p endpoints per router; a group is a x b routers, rank-1 all-to-all along a row "
    "of a (la parallel links per pair) and rank-2 all-to-all along a column of b (lb links per "
    "pair); g groups, m global links between every pair of groups",
    "global links: group port j (0 .. m(g-1)-1) goes to group G + j//m + 1, owned by router "
    "j mod (a*b) (round robin); router index r = i + a*j_row",
    "routing MIN: rank-1 then rank-2 inside a group; between groups the traffic is split evenly "
    "over the m global links of the group pair (local, global, local); parallel links share "
    "equally",
    "diameter and average_distance are the hops of these routes (1 + 2 x the group's diameter "
    "between groups), not BFS shortest paths",
    "links: g*b*a(a-1)/2*la rank-1 + g*a*b(b-1)/2*lb rank-2 + m*g(g-1)/2 global",
    "radix = p + (a-1)*la + (b-1)*lb + ceil(m(g-1)/(a*b)) global ports",
    "tornado = adversarial group shift (endpoint of group G -> same router/port of group G+1): "
    "a*b*p/m on the global channels of a group pair, local channels counted exactly",
    "nearest-neighbour: e -> e+1 mod N",
    "bit-complement, transpose, worst-case: NaN, not derived for this family",
    "bisection: the smallest of explicit balanced cuts (an upper bound on the minimum): group "
    "halving (g even: g/2 whole groups a side, m(g/2)^2 links; g odd: (g-1)/2 groups a side "
    "and the routers r < floor(R/2) of the remaining group on the first); for R even every "
    "group split at r < R/2; for a even every row split at i < a/2 (local links across the "
    "split plus the global links joining the two sides); by exhaustive search minimal on small "
    "instances such as p=1,a=2,g=3 and p=1,a=4,g=4,m=2, larger than the minimum when g is odd "
    "and small (p=1,a=2,g=5: 7 vs 5; p=1,a=2,b=2,lb=3,g=3: 8 vs 3)",
)


def _ints(params: dict) -> tuple[int, ...]:
    """(p, a, b, la, lb, g, m) as Python ints, defaults filled."""
    full = {**DEFAULTS, **params}
    return tuple(int(full[name]) for name in PARAMETERS)


def check_gdragonfly(params: dict) -> None:
    """Raise InputError unless p, a, g (and the optional b, la, lb, m) are positive integers
    and a group holds at most MAX_GROUP_ROUTERS routers."""
    for name in ("p", "a", "g"):
        require(name in params, f"gdragonfly: missing parameter {name}")
    for name, value in params.items():
        require(name in PARAMETERS, f"gdragonfly: unknown parameter {name}")
        require(is_integer(value) and value >= 1,
                f"gdragonfly: {name}={value} must be a positive integer")
    p, a, b, _, _, g, m = _ints(params)
    require(p * a * b * g >= 2, "gdragonfly: the network needs at least 2 endpoints")
    require(m * (g - 1) <= MAX_GROUP_PORTS,
            f"gdragonfly: m*(g-1) = {m * (g - 1)} global ports a group is more than "
            f"{MAX_GROUP_PORTS}")
    require(a * b <= MAX_GROUP_ROUTERS,
            f"gdragonfly: a group of a*b = {a * b} routers is more than {MAX_GROUP_ROUTERS}")


def gdragonfly_endpoint_count(params: dict) -> int:
    """Exact endpoint count p·a·b·g as a Python int."""
    p, a, b, _, _, g, _ = _ints(params)
    return p * a * b * g


# ---------------------------------------------------------------- structure (closed forms)


def _group_diameter(a, b) -> np.ndarray:
    """Hops across a group: one rank-1 hop if a >= 2, one rank-2 hop if b >= 2."""
    return (a >= 2).astype(float) + (b >= 2).astype(float)


def gdragonfly_structure(p, a, b, la, lb, g, m) -> dict[str, np.ndarray]:
    """routers, endpoints, radix, links, diameter, average_distance (closed forms, arrays).

    Derived here. Within a group the route distance of routers is [i differs] + [j differs]
    (Hamming graph), so a router's distances sum to D = b(a-1) + a(b-1) whichever router it is.
    Between groups a pair's hops average 1 + d(s, owner) + d(landing, d) over the m links;
    summed over the R² router pairs of two groups this is R² + 2RD for any arrangement.
    Ordered router pairs: g·R·D inside groups, g(g-1)(R² + 2RD) between; endpoints on one
    router are 0 hops apart; average = p²·sum / (N(N-1)). Diameter: 1 + 2·(group diameter)
    for g >= 2 (a router two local hops from a link's owner always exists), else the group's.
    """
    p, a, b, la, lb, g, m = (np.asarray(v, dtype=float) for v in (p, a, b, la, lb, g, m))
    p, a, b, la, lb, g, m = np.broadcast_arrays(p, a, b, la, lb, g, m)
    routers_per_group = a * b
    endpoints = p * routers_per_group * g
    local = g * (b * a * (a - 1.0) / 2.0 * la + a * b * (b - 1.0) / 2.0 * lb)
    global_links = m * g * (g - 1.0) / 2.0
    ports = np.ceil(m * (g - 1.0) / routers_per_group)
    d = b * (a - 1.0) + a * (b - 1.0)
    total = (g * routers_per_group * d
             + g * (g - 1.0) * (routers_per_group**2 + 2.0 * routers_per_group * d))
    with np.errstate(divide="ignore", invalid="ignore"):
        average = p * p * total / (endpoints * (endpoints - 1.0))
    group_diameter = _group_diameter(a, b)
    return {
        "routers": routers_per_group * g,
        "endpoints": endpoints,
        "radix": p + (a - 1.0) * la + (b - 1.0) * lb + ports,
        "links": local + global_links,
        "diameter": np.where(g >= 2, 1.0 + 2.0 * group_diameter, group_diameter),
        "average_distance": average,
    }


def _crossing_below(n: int, routers: int, half: int) -> int:
    """#{j < n : j mod routers < half}."""
    return (n // routers) * half + min(n % routers, half)


def _group_halving_cut(a, b, la, lb, g, m) -> int:
    """Whole groups a side (g even); g odd: (g-1)/2 groups a side and the routers
    r < floor(R/2) of the remaining group S on the first (NOTES). Links cut."""
    if g % 2 == 0:
        return m * (g // 2) ** 2
    routers = a * b
    half = routers // 2
    whole = m * ((g - 1) // 2) ** 2
    ports = m * (g - 1)
    to_first = ports // 2  # ports j < m(g-1)/2 reach offsets 1 .. (g-1)/2: the first side
    below_half = _crossing_below(to_first, routers, half)
    crossing_global = (to_first - below_half) + (_crossing_below(ports, routers, half)
                                                 - below_half)
    rows, partial = divmod(half, a)  # routers r < half: `rows` full rows, `partial` more
    rank1 = partial * (a - partial) * la
    rank2 = (partial * (rows + 1) * (b - rows - 1) + (a - partial) * rows * (b - rows)) * lb
    return whole + crossing_global + rank1 + rank2


def _split_groups_cut(first: np.ndarray, a, b, la, lb, g, m) -> int:
    """Every group split alike, ``first[r]`` True for its routers on the first side: the
    local links across the split in every group, plus the global links whose two ends lie on
    different sides. Port j of any group (offset o, copy t) lands on port j' with
    j + j' = (g-2)m + 2t, so the count is the same from every group; each link is seen from
    both its ends."""
    side = first.reshape(b, a)
    on_first_row = side.sum(axis=1)
    on_first_column = side.sum(axis=0)
    local = (int((on_first_row * (a - on_first_row)).sum()) * la
             + int((on_first_column * (b - on_first_column)).sum()) * lb)
    port = np.arange(m * (g - 1), dtype=np.int64)
    far = ((g - 2) * m + 2 * (port % m) - port) % (a * b)
    crossing = int(np.count_nonzero(first[port % (a * b)] != first[far]))
    return g * local + g * crossing // 2


def _bisection_one(a, b, la, lb, g, m) -> float:
    """The smallest of the explicit balanced cuts of NOTES (links), for one configuration."""
    routers = a * b
    cuts = [_group_halving_cut(a, b, la, lb, g, m)]
    index = np.arange(routers)
    if routers % 2 == 0:
        cuts.append(_split_groups_cut(index < routers // 2, a, b, la, lb, g, m))
    if a % 2 == 0:
        cuts.append(_split_groups_cut(index % a < a // 2, a, b, la, lb, g, m))
    return float(min(cuts))


# ---------------------------------------------------------------- channel loads (counted)


def _window(start: int, length: int, routers: int) -> np.ndarray:
    """How many of the global ports start .. start + length - 1 each router owns (port j is
    owned by router j mod R), as a length-R array."""
    whole, extra = divmod(length, routers)
    return whole + ((np.arange(routers) - start) % routers < extra)


def _segments(pattern: str, p: int, routers: int, g: int, m: int) -> tuple[np.ndarray, float]:
    """(R x R matrix of local route segments, flits/cycle from router u to router w of one
    group; the load of the busiest global channel) for one pattern.

    Every group carries the same segments under these patterns (each is invariant under
    the group shift G -> G+1, and so is the arrangement).
    """
    t = np.zeros((routers, routers))
    n = p * routers * g
    if g >= 2:
        held = _window(0, m * (g - 1), routers)  # every port of the group
        leaving = _window(0, m, routers) / m  # share of a flow to group G+1 per owner
        arriving = _window((g - 2) * m, m, routers) / m  # ... from group G-1 per landing
    if pattern == "uniform":
        # u -> w: the u-w endpoint pairs, plus per port of w the flows from u's endpoints to
        # the port's group (1/m of them), plus per port of u the flows landing for w's.
        t += p * p / n
        glob = 0.0
        if g >= 2:
            per_port = routers * p * p / (n * m)
            t += per_port * (held[:, None] + held[None, :])
            glob = (routers * p) ** 2 / (n * m)
    elif pattern == "tornado":
        # group shift: router r's p endpoints -> router r of group G+1, over the m links
        # of offset 1 and landing, from group G-1, on the owners of offset g-1's ports.
        glob = 0.0
        if g >= 2:
            t += p * leaving[None, :] + p * arriving[:, None]
            glob = routers * p / m
    elif pattern == "nearest-neighbour":
        # e -> e+1: one flow from router r to r+1; the last router's flow leaves the group
        # (g >= 2) or wraps to router 0 (g = 1)
        if routers >= 2:
            t[np.arange(routers - 1), np.arange(1, routers)] += 1.0
        glob = 0.0
        if g >= 2:
            t[routers - 1, :] += leaving
            t[:, 0] += arriving
            glob = 1.0 / m
        elif routers >= 2:
            t[routers - 1, 0] += 1.0
    else:
        raise ValueError(pattern)
    np.fill_diagonal(t, 0.0)
    return t, glob


def _local_loads(t: np.ndarray, a: int, b: int, la: int, lb: int) -> tuple[float, float]:
    """(busiest rank-1 channel, busiest rank-2 channel) of the segment matrix t.

    Segment (i, j) -> (i', j'): rank-1 channel (i, j) -> (i', j) if i != i', then rank-2
    channel (i', j) -> (i', j') if j != j'; each shared by the parallel links.
    """
    t4 = t.reshape(b, a, b, a)  # [j, i, j', i']
    rank1 = t4.sum(axis=2)  # [j, i, i']: from (i, j) towards row position i'
    rank1[:, np.arange(a), np.arange(a)] = 0.0
    rank2 = t4.sum(axis=1)  # [j, j', i']: from row j to row j' at position i'
    rank2[np.arange(b), np.arange(b), :] = 0.0
    return float(rank1.max(initial=0.0)) / la, float(rank2.max(initial=0.0)) / lb


LOAD_PATTERNS = ("uniform", "tornado", "nearest-neighbour")
"""The patterns counted exactly; the others of base.PATTERNS are NaN (NOTES)."""


def gdragonfly_loads_one(p, a, b, la, lb, g, m) -> dict[str, dict[str, float]]:
    """{pattern: {"global", "rank1", "rank2"}} busiest channel of each class, flits/cycle
    (0 where the class has no channel or carries nothing), for one configuration."""
    routers = a * b
    out = {}
    for pattern in LOAD_PATTERNS:
        t, glob = _segments(pattern, p, routers, g, m)
        rank1, rank2 = _local_loads(t, a, b, la, lb)
        out[pattern] = {"global": glob, "rank1": rank1, "rank2": rank2}
    return out


def _one_configuration(p, a, b, la, lb, g, m) -> tuple[float, ...]:
    loads = gdragonfly_loads_one(p, a, b, la, lb, g, m)
    gammas = tuple(max(loads[pattern].values()) for pattern in LOAD_PATTERNS)
    return gammas + (_bisection_one(a, b, la, lb, g, m),)


def evaluate_gdragonfly(p, a, g, b=1, la=1, lb=1, m=1) -> Metrics:
    """Metrics of gdragonfly configurations; broadcasts over NumPy arrays of the parameters
    (structure in closed form, loads and bisection counted per configuration)."""
    values = [np.asarray(v) for v in (p, a, b, la, lb, g, m)]
    for name, v in zip(PARAMETERS, values):
        ok = bool(np.all((v >= 1) & (v == np.floor(v))))
        require(ok, f"gdragonfly: {name} must be a positive integer")
    arrays = np.broadcast_arrays(*values)
    require(bool(np.all(arrays[1] * arrays[2] <= MAX_GROUP_ROUTERS)),
            f"gdragonfly: a group has at most {MAX_GROUP_ROUTERS} routers")
    require(bool(np.all(arrays[6] * (arrays[5] - 1) <= MAX_GROUP_PORTS)),
            f"gdragonfly: a group has at most {MAX_GROUP_PORTS} global ports")
    structure = gdragonfly_structure(*arrays)
    shape = arrays[0].shape
    counted = np.empty(shape + (len(LOAD_PATTERNS) + 1,))
    for index in np.ndindex(shape):
        counted[index] = _one_configuration(*(int(v[index]) for v in arrays))
    nan = np.full(shape, np.nan)
    loads = {pattern: counted[..., k] for k, pattern in enumerate(LOAD_PATTERNS)}
    return Metrics(
        family="gdragonfly",
        routers=structure["routers"],
        endpoints=structure["endpoints"],
        radix=structure["radix"],
        links=structure["links"],
        diameter=structure["diameter"],
        average_distance=structure["average_distance"],
        bisection_links=counted[..., -1],
        channel_load={"uniform": loads["uniform"], "tornado": loads["tornado"],
                      "bit-complement": nan, "transpose": nan.copy(),
                      "nearest-neighbour": loads["nearest-neighbour"], "worst-case": nan.copy()},
        notes=COMMON_NOTES + NOTES,
    )


FAMILY = Family(
    name="gdragonfly",
    description="generalized dragonfly: a x b router groups (rank-1 rows, rank-2 columns, "
    "la/lb parallel links), g groups, m global links per group pair (Aries, Slingshot)",
    parameters=PARAMETERS,
    positional=None,
    check=check_gdragonfly,
    endpoints=gdragonfly_endpoint_count,
    evaluate=evaluate_gdragonfly,
    example="gdragonfly:p=4,a=16,b=6,lb=3,g=9,m=40",
)
