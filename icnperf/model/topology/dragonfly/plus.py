"""The general dragonfly+ (``dfplus``): megafly with its sizes free.

Source of the family: Shpiner, Haramaty, Eliad, Zdornov, Gafni & Zahavi, "Dragonfly+:
Low cost topology for scaling datacenters", HiPINEB 2017: groups that are two-level Clos
networks (leaves with the endpoints, spines with the global links), the groups joined
all-to-all by global links between spines. ``megafly:k`` is its maximal form p = l = s =
h = k, g = k² + 1; machines such as JUWELS Booster and JUPITER are built with other sizes.

Parameters (all integers >= 1): ``p`` endpoints per leaf, ``l`` leaves per group, ``s``
spines per group, ``h`` global ports per spine, ``g`` groups (default s·h + 1, one link per
group pair), ``c`` cables between each leaf and each spine of its group (default 1; a flow
is split evenly over them). The g - 1 other groups
share a group's s·h global ports evenly, m = floor(s·h / (g - 1)) links per group pair
(g >= 2 and s·h >= g - 1); the last s·h - m(g - 1) ports of a group (the highest-numbered
spines') stay unconnected, as in a machine whose group count does not divide its ports.

Construction (the consecutive arrangement of dragonfly/__init__.py, repeated m times):
spine x of group G owns global ports j = x·h .. x·h + h - 1; port j = c·(g-1) + t
(c < m, t < g - 1) links to group G + t + 1 (mod g), landing on its port
c·(g-1) + g - 2 - t (an involution: the far port's group is G again, and the connected
ports j < m(g-1) map onto themselves, so a spine receives as many links as it owns). Endpoint
e = (G·l + leaf)·p + port.

MIN routing: same leaf, no router-router hop; same group, leaf -> spine -> leaf with the
flow split evenly over the s spines (1/s each); other group, leaf -> spine -> global ->
spine -> leaf with the flow split evenly over the m links of the group pair (1/m each,
the spines that own them), and each leaf-spine hop evenly over its c cables. Every split
path is a shortest path and every shortest path is used, so MIN is the even split over
shortest paths.

Closed forms (derived here, checked in tests/model/topology/test_dfplus.py against the
graph built and routed there, maximum matchings per channel and exhaustive bisection):
routers g(l + s), endpoints N = g·l·p, radix max(p + s·c, l·c + h), router links
g·l·s·c + g·m(g-1)/2, diameter 3, mean distance (2p(l-1) + 3lp(g-1)) / (N - 1); uniform
load max(lp / (g·m), [p²(l-1)/(N·s) + o·l·p²/(N·m)] / c) (global; a leaf-spine cable,
either direction; o the most connected ports of one spine, h when every port is used);
worst-case max(lp/m, p·max(1/s if l >= 2, L/m) / c), L the most links one spine has to
one group. Tornado (the group shift e -> e + lp), bit-complement, transpose and nearest-
neighbour are counted flow by flow (:func:`pattern_load`) up to COUNT_LIMIT endpoints.
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.model.topology.base import COMMON_NOTES, PATTERNS, Family, Metrics, is_integer, require

PARAMETERS = ("p", "l", "s", "h", "g", "c")
"""Spec parameters of ``dfplus``, in order (g and c optional)."""

COUNT_LIMIT = 2**20
"""Most endpoints for which the label-dependent patterns are counted flow by flow."""


class DFPlus:
    """One dragonfly+ (module docstring); Python ints, assumed checked."""

    def __init__(self, p: int, l: int, s: int, h: int, g: int | None = None,
                 c: int | None = None):
        self.p, self.l, self.s, self.h = int(p), int(l), int(s), int(h)
        self.c = 1 if c is None else int(c)
        self.g = self.s * self.h + 1 if g is None else int(g)
        self.m = self.s * self.h // (self.g - 1)
        self.ports = self.m * (self.g - 1)
        self.n = self.g * self.l * self.p

    # --- structure -------------------------------------------------------------------

    def routers(self) -> int:
        return self.g * (self.l + self.s)

    def endpoints(self) -> int:
        return self.n

    def radix(self) -> int:
        return max(self.p + self.s * self.c, self.l * self.c + self.h)

    def links(self) -> int:
        return self.g * self.l * self.s * self.c + self.g * self.ports // 2

    def diameter(self) -> int:
        return 3

    def average_distance(self) -> float:
        p, l, g = self.p, self.l, self.g
        return (2.0 * p * (l - 1) + 3.0 * l * p * (g - 1)) / (self.n - 1)

    def spine_group_links(self) -> np.ndarray:
        """[x, t]: links of spine x to group G + t + 1 (the same in every group)."""
        ports = np.arange(self.ports)
        counts = np.zeros((self.s, self.g - 1), dtype=np.int64)
        np.add.at(counts, (ports // self.h, ports % (self.g - 1)), 1)
        return counts

    def bisection_links(self) -> int:
        """An explicit balanced cut of the leaves (an upper bound). g even: g/2 whole
        groups a side, (g/2)²·m global links. g odd: groups S+1..S+M (M = (g-1)/2) and
        floor(l/2) leaves of group S on side A; each spine of S goes to the side its
        links cross least: M²·m + Σ_x min(c·l_B + b_x, c·l_A + a_x), a_x (b_x) its global
        links to side A's (B's) groups."""
        g, m = self.g, self.m
        if g % 2 == 0:
            return (g // 2) ** 2 * m
        half = (g - 1) // 2
        counts = self.spine_group_links()
        to_a, to_b = counts[:, :half].sum(axis=1), counts[:, half:].sum(axis=1)
        leaves_a = self.l // 2
        leaves_b = self.l - leaves_a
        c = self.c
        return int(half * half * m
                   + np.minimum(c * leaves_b + to_b, c * leaves_a + to_a).sum())

    # --- routes and loads ------------------------------------------------------------

    def hops(self, sources, destinations) -> np.ndarray:
        """MIN hops: 0 on one leaf, 2 in one group, 3 across groups."""
        s = np.asarray(sources, dtype=np.int64) // self.p
        d = np.asarray(destinations, dtype=np.int64) // self.p
        return np.where(s == d, 0, np.where(s // self.l == d // self.l, 2, 3)).astype(np.int64)

    def channel_loads(self, sources, destinations, weights=None):
        """(up, down, global) loads of flows s -> d of rate ``weights`` (default 1):
        up[leaf, spine], down[leaf, spine] (spine -> leaf), per cable, global[group,
        port]."""
        src = np.asarray(sources, dtype=np.int64).ravel()
        dst = np.asarray(destinations, dtype=np.int64).ravel()
        w = np.ones(src.shape) if weights is None else np.asarray(weights, float).ravel()
        p, l, s, h, g, m = self.p, self.l, self.s, self.h, self.g, self.m
        leaves = g * l
        ls, ld = src // p, dst // p
        gs, gd = ls // l, ld // l
        up = np.zeros(leaves * s)
        down = np.zeros(leaves * s)
        glob = np.zeros(g * s * h)
        inner = (gs == gd) & (ls != ld)
        if inner.any():
            up += np.repeat(np.bincount(ls[inner], w[inner], minlength=leaves) / s, s)
            down += np.repeat(np.bincount(ld[inner], w[inner], minlength=leaves) / s, s)
        across = gs != gd
        if across.any():
            t = (gd[across] - gs[across] - 1) % g
            wa = w[across] / m
            for c in range(m):
                port = c * (g - 1) + t
                far = c * (g - 1) + g - 2 - t
                up += np.bincount(ls[across] * s + port // h, wa, minlength=leaves * s)
                glob += np.bincount(gs[across] * s * h + port, wa, minlength=g * s * h)
                down += np.bincount(ld[across] * s + far // h, wa, minlength=leaves * s)
        return up / self.c, down / self.c, glob

    def pattern_load(self, sources, destinations, weights=None) -> float:
        """γ_max of the flows (flits/cycle); 0 when none leaves its leaf."""
        return max(float(x.max(initial=0.0))
                   for x in self.channel_loads(sources, destinations, weights))

    def uniform_load(self) -> float:
        p, l, s, g, m, n = self.p, self.l, self.s, self.g, self.m, self.n
        owned = self.spine_group_links().sum(axis=1).max()
        spine = (p * p * (l - 1) / (n * s) + owned * l * p * p / (n * m)) / self.c
        return max(l * p / (g * m), spine)

    def worst_case_load(self) -> float:
        most = self.spine_group_links().max() / self.m
        spine = max(most, 1.0 / self.s if self.l >= 2 else 0.0)
        return max(self.l * self.p / self.m, self.p * spine / self.c)

    def loads(self) -> dict:
        """γ_max per pattern (base.PATTERNS)."""
        n = self.n
        out = {"uniform": self.uniform_load(), "worst-case": self.worst_case_load()}
        ids = np.arange(n, dtype=np.int64) if n <= COUNT_LIMIT else None
        root = math.isqrt(n)
        flows = {
            "tornado": None if ids is None else (ids, (ids + self.l * self.p) % n, None),
            "bit-complement": None if ids is None or n & (n - 1) else (ids, n - 1 - ids, None),
            "transpose": None if ids is None or root * root != n
            else (ids, (ids % root) * root + ids // root, None),
            "nearest-neighbour": None if ids is None else (ids, (ids + 1) % n, None),
        }
        for pattern, flow in flows.items():
            out[pattern] = math.nan if flow is None else self.pattern_load(*flow)
        return {pattern: np.array(float(out[pattern])) for pattern in PATTERNS}


NOTES = (
    "dragonfly+ (Shpiner et al. 2017): g groups, each a complete bipartite Clos of l leaves "
    "(p endpoints each) and s spines (h global ports each); m = floor(s*h/(g-1)) global "
    "links per group pair, a group's last s*h - m(g-1) ports unconnected; megafly:k is "
    "p = l = s = h = k, g = k^2+1; c cables per leaf-spine pair (default 1), loads per cable",
    "global links: consecutive arrangement repeated m times -- spine x owns ports "
    "x*h..x*h+h-1, port c*(g-1)+t links to group G+t+1 and lands on its port c*(g-1)+g-2-t",
    "routing MIN: leaf-spine-leaf in a group split 1/s over the spines; across groups "
    "leaf-spine-global-spine-leaf split 1/m over the group pair's links",
    "tornado = group shift (e -> e + l*p); bit-complement / transpose on the endpoint index "
    "where N allows; nearest-neighbour e -> e + 1 (as dragonfly, megafly); these four counted "
    "flow by flow up to 1048576 endpoints (NaN beyond)",
    "worst-case: maximum over permutations (a maximum matching per channel, derived in "
    "closed form)",
    "bisection_links: an explicit balanced cut of the leaves (whole groups, half a group "
    "when g is odd), an upper bound",
)


def _full(params: dict) -> dict:
    out = {key: int(params[key]) for key in ("p", "l", "s", "h")}
    out["g"] = int(params.get("g", out["s"] * out["h"] + 1))
    out["c"] = int(params.get("c", 1))
    return out


def check_dfplus(params: dict) -> None:
    """InputError unless p, l, s, h (and g) are whole numbers >= 1, g >= 2 and
    s·h >= g - 1 (every group pair joined)."""
    for key in params:
        require(key in PARAMETERS, f"dfplus: unknown parameter {key!r} (known: "
                f"{', '.join(PARAMETERS)})")
    for key in ("p", "l", "s", "h"):
        require(key in params, f"dfplus: give p, l, s and h (e.g. dfplus:p=4,l=8,s=8,h=4)")
    for key, value in params.items():
        require(is_integer(value) and value >= 1,
                f"dfplus: {key} must be a whole number >= 1, not {value!r}")
    full = _full(params)
    s, h, g = full["s"], full["h"], full["g"]
    require(g >= 2, "dfplus: g must be at least 2 groups")
    require(s * h >= g - 1,
            f"dfplus: a group's {s * h} global ports (s*h) cannot reach the {g - 1} other "
            "groups; give g <= s*h + 1")
    require(math.log2(full["p"]) + math.log2(full["l"]) + math.log2(g) <= 40
            and g * (full["l"] + s) <= 10**12 and full["c"] <= 10**6,
            "dfplus: the network would have more than 1e12 endpoints or routers, the "
            "largest icnperf accepts")


def dfplus_endpoint_count(params: dict) -> int:
    full = _full(params)
    return full["g"] * full["l"] * full["p"]


def evaluate_dfplus(p, l, s, h, g=None, c=None) -> Metrics:
    """Metrics of one dragonfly+ (Python ints)."""
    net = DFPlus(p, l, s, h, g, c)
    return Metrics(
        family="dfplus", routers=np.array(float(net.routers())),
        endpoints=np.array(float(net.endpoints())), radix=np.array(float(net.radix())),
        links=np.array(float(net.links())), diameter=np.array(float(net.diameter())),
        average_distance=np.array(net.average_distance()),
        bisection_links=np.array(float(net.bisection_links())), channel_load=net.loads(),
        notes=COMMON_NOTES + NOTES)


FAMILY = Family(
    name="dfplus",
    description="dragonfly+ with free sizes: g groups of l leaves (p endpoints each) and s "
    "spines (h global ports each), floor(s*h/(g-1)) links per group pair",
    parameters=PARAMETERS,
    positional=None,
    check=check_dfplus,
    endpoints=dfplus_endpoint_count,
    evaluate=evaluate_dfplus,
    example="dfplus:p=4,l=8,s=8,h=4,g=33",
)
