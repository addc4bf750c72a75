"""Indirect and low-diameter networks for the flit simulator, and the topology spec strings.

Built here from their definitions (never from ``icnperf.model``):

* ``fat_tree(k, n)``: the NUDT paper's FT(k, n) (seeds/002, fat-tree paragraph: router
  degree 2k, (2n-1)·k^(n-1) routers, 2·k^n terminals): levels 1 .. n-1 of 2k^(n-1)
  routers; a level-l router (P, j) serves the pod of endpoints [P·k^l, (P+1)·k^l), its
  up-port u joins (P // k, j·k + u) one level up (top router j·k + u from level n-1); the
  top level's k^(n-1) routers use all 2k ports downwards; k endpoints per leaf (2k when
  n = 1). Nearest-common-ancestor up/down routing: up to the lowest level whose pod holds
  the destination, then down; up-port by destination leaf (d-mod-k: digit l-1 of the
  destination leaf at level l) or, with ``up="first"``, always the lowest. Up/down routes
  are deadlock-free with one VC class. ``clos:radix=R,levels=L`` is FT(R/2, L).
* ``dragonfly(p, a, h)``: g = a*h + 1 groups of a routers, all-to-all inside a group, p
  endpoints and h global links per router; global channel c (= router*h + port) of group G
  goes to group (G + c + 1) mod g, arriving on its channel g - 2 - c (one link per group
  pair). Routing ``min`` (local-global-local through the one link joining the two groups,
  even where a path through a third group would be as short; VC class = hop index, 3
  classes),
  ``valiant`` (minimal to a random intermediate router, then minimal; 6 classes) or
  ``ugal`` (UGAL-L: at the source router, Valiant when the minimal output's queue times
  its hop count exceeds the non-minimal one's; 6 classes).
* ``slim_fly(q)``: the McKay-Miller-Siran graph for a prime q = 4w + 1 (q = 5, 13, 17, ...):
  routers (0, x, y) and (1, m, c) over GF(q); (0,x,y)~(0,x,y') when y - y' is an even power
  of a primitive element, (1,m,c)~(1,m,c') when c - c' is an odd power, (0,x,y)~(1,m,c) when
  y = m*x + c. Diameter 2; minimal routing, VC class = hop index (2 classes);
  p = ceil(degree / 2) endpoints per router unless given.

``network_from_spec("fattree:k=4,n=3")`` also reads ``torus:8x8``, ``mesh:4x4``,
``hypercube:4`` / ``hypercube:n=4``, ``dragonfly:p=2,a=4,h=2`` and ``slimfly:q=5``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from icnperf.errors import InputError
from icnperf.sim.network import (
    GridNetwork,
    TableNetwork,
    check_table_size,
)

ROUTINGS = {
    "torus": ("dor",), "mesh": ("dor",), "hypercube": ("dor",),
    "fattree": ("nca", "nca-first"), "clos": ("nca", "nca-first"), "dragonfly": ("min", "valiant", "ugal"),
    "slimfly": ("min",),
}
"""Routing algorithms per topology family (the first is the default)."""


def fat_tree(k: int, n: int, up: str = "d-mod-k") -> TableNetwork:
    """The NUDT fat tree FT(k, n) with nearest-common-ancestor routing (module docstring)."""
    if k < 1 or n < 1:
        raise InputError(f"flitsim: a fat tree needs k >= 1 and n >= 1, got k={k}, n={n}")
    if up not in ("d-mod-k", "first"):
        raise InputError(f"flitsim: unknown fat-tree up-port rule {up!r}")
    row = 2 * k ** (n - 1)            # routers on each of the levels 1 .. n-1
    top = k ** (n - 1) if n > 1 else 1
    routers = (n - 1) * row + top
    check_table_size(f"fattree:k={k},n={n}", routers)
    if n == 1:
        return TableNetwork(f"fattree:k={k},n=1", 1, [], endpoints_per_router=2 * k,
                            route_table=np.full((1, 1), -1, dtype=np.int64))

    def index(level: int, pod: int, j: int) -> int:
        """Router (pod, j) of a level (1-based); the top level has the single pod 0."""
        return (level - 1) * row + pod * k ** (level - 1) + j

    def parent(level: int, pod: int, j: int, u: int) -> int:
        if level == n - 1:
            return index(n, 0, j * k + u)
        return index(level + 1, pod // k, j * k + u)

    links = [(index(level, pod, j), parent(level, pod, j, u))
             for level in range(1, n) for pod in range(2 * k ** (n - level))
             for j in range(k ** (level - 1)) for u in range(k)]
    probe = TableNetwork("probe", routers, links, endpoints_per_router=1)
    table = np.full((routers, routers), -1, dtype=np.int64)
    leaves = row
    for level in range(1, n + 1):
        pods = 1 if level == n else 2 * k ** (n - level)
        for pod in range(pods):
            for j in range(k ** (level - 1)):
                r = index(level, pod, j)
                for leaf in range(leaves):
                    if level == 1 and leaf == pod:
                        continue                      # the destination's own leaf: eject
                    # leaf `leaf` holds endpoints [leaf*k, leaf*k + k): in this pod when
                    # leaf // k^(level-1) == pod (every leaf is under the top level)
                    inside = level == n or leaf // k ** (level - 1) == pod
                    if not inside:
                        u = (leaf // k ** (level - 1)) % k if up == "d-mod-k" else 0
                        table[r, leaf] = _port_to(probe, r, parent(level, pod, j, u))
                    else:
                        child_pod = leaf // k ** (level - 2)
                        table[r, leaf] = _port_to(probe, r, index(level - 1, child_pod,
                                                                  j // k))
    counts = np.zeros(routers, dtype=np.int64)
    counts[:leaves] = k
    return TableNetwork(f"fattree:k={k},n={n}", routers, links, endpoints_per_router=counts,
                        route_table=table)


def _port_to(net: TableNetwork, r: int, target: int) -> int:
    return int(np.flatnonzero(net.neighbour[r, :net.network_ports] == target)[0])


def dragonfly(p: int, a: int, h: int, routing: str = "min") -> TableNetwork:
    """The canonical dragonfly DF(p, a, h) (see the module docstring)."""
    if min(p, a, h) < 1:
        raise InputError(f"flitsim: a dragonfly needs p, a, h >= 1, got p={p}, a={a}, h={h}")
    if routing not in ROUTINGS["dragonfly"]:
        raise InputError(f"flitsim: routing {routing!r} does not exist for a dragonfly"
                         f" (choose from {', '.join(ROUTINGS['dragonfly'])})")
    g = a * h + 1
    check_table_size(f"dragonfly:p={p},a={a},h={h}", g * a)
    links = []
    for G in range(g):
        base = G * a
        links += [(base + i, base + j) for i, j in itertools.combinations(range(a), 2)]
        for c in range(a * h):
            G2 = (G + c + 1) % g
            if G < G2:
                c2 = g - 2 - c
                links.append((base + c // h, G2 * a + c2 // h))
    classes = 3 if routing == "min" else 6
    probe = TableNetwork("probe", g * a, links)
    table = np.full((g * a, g * a), -1, dtype=np.int64)
    for r in range(g * a):
        G = r // a
        for d in range(g * a):
            G2 = d // a
            if d == r:
                continue
            if G2 == G:
                table[r, d] = _port_to(probe, r, d)
                continue
            owner = G * a + ((G2 - G - 1) % g) // h  # the router holding the link to G2
            if owner != r:
                table[r, d] = _port_to(probe, r, owner)
            else:
                c2 = g - 2 - ((G2 - G - 1) % g)
                table[r, d] = _port_to(probe, r, G2 * a + c2 // h)
    net = TableNetwork(f"dragonfly:p={p},a={a},h={h}", g * a, links,
                       endpoints_per_router=p, route_table=table, vc_classes=classes)
    net.nonminimal = {"min": 0, "valiant": 1, "ugal": 2}[routing]
    net.routing = routing
    return net


def slim_fly(q: int, p: int | None = None) -> TableNetwork:
    """The MMS slim fly for a prime q = 4w + 1 (see the module docstring)."""
    if q < 5 or q % 4 != 1 or any(q % f == 0 for f in range(2, math.isqrt(q) + 1)):
        raise InputError(f"flitsim: the simulator builds slim flies for primes q = 4w + 1"
                         f" (5, 13, 17, ...), not q={q}")
    check_table_size(f"slimfly:q={q}", 2 * q * q)
    xi = next(x for x in range(2, q)
              if len({pow(x, e, q) for e in range(1, q)}) == q - 1)
    even = {pow(xi, e, q) for e in range(0, q - 1, 2)}
    odd = {pow(xi, e, q) for e in range(1, q - 1, 2)}

    def zero(x, y):
        return x * q + y

    def one(m, c):
        return q * q + m * q + c

    links = set()
    for x, y, y2 in itertools.product(range(q), repeat=3):
        if (y - y2) % q in even and y < y2:
            links.add((zero(x, y), zero(x, y2)))
        if (y - y2) % q in odd and y < y2:
            links.add((one(x, y), one(x, y2)))
    for x, m, c in itertools.product(range(q), repeat=3):
        links.add((zero(x, (m * x + c) % q), one(m, c)))
    degree = (3 * q - 1) // 2
    p = math.ceil(degree / 2) if p is None else int(p)
    return TableNetwork(f"slimfly:q={q}", 2 * q * q, sorted(links),
                        endpoints_per_router=p, vc_classes=2)


def choose_routing(family: str, routing: str | None = None) -> str:
    """The routing to simulate on a family: ``routing``, or the family's default when None;
    InputError naming the family's choices otherwise."""
    if family not in ROUTINGS:
        raise InputError(f"flitsim: the simulator has no {family!r} topology (choose from"
                         f" {', '.join(ROUTINGS)})")
    choices = ROUTINGS[family]
    routing = choices[0] if routing is None else routing
    if routing not in choices:
        raise InputError(f"flitsim: routing {routing!r} does not exist for {family} (choose"
                         f" from {', '.join(choices)})")
    return routing


def network_from_spec(text: str, routing: str | None = None):
    """The simulator's network for a topology spec string (InputError naming the problem)."""
    family, _, body = str(text).strip().partition(":")
    family = family.strip().lower()
    routing = choose_routing(family, routing)
    try:
        if family in ("torus", "mesh"):
            return GridNetwork([int(k) for k in body.lower().split("x")],
                               wrap=family == "torus")
        if family == "hypercube":
            n = int(body.split("=")[-1])
            return GridNetwork((2,) * n, wrap=True)
        params = {}
        for pair in body.split(","):
            name, _, value = pair.partition("=")
            params[name.strip()] = int(value)
    except ValueError:
        raise InputError(f"flitsim: cannot read the topology spec {text!r}") from None
    need = {"fattree": ("k", "n"), "clos": ("radix", "levels"), "dragonfly": ("p", "a", "h"), "slimfly": ("q",)}[family]
    missing = [n for n in need if n not in params]
    extra = [n for n in params if n not in need + (("p",) if family == "slimfly" else ())]
    if missing or extra:
        raise InputError(f"flitsim: {family} takes {', '.join(need)}; spec {text!r}")
    up = "first" if routing == "nca-first" else "d-mod-k"
    if family == "fattree":
        return fat_tree(params["k"], params["n"], up=up)
    if family == "clos":
        if params["radix"] % 2:
            raise InputError(f"flitsim: a folded Clos needs an even radix; spec {text!r}")
        net = fat_tree(params["radix"] // 2, params["levels"], up=up)
        net.name = f"clos:radix={params['radix']},levels={params['levels']}"
        return net
    if family == "dragonfly":
        return dragonfly(params["p"], params["a"], params["h"], routing=routing)
    return slim_fly(params["q"], params.get("p"))
