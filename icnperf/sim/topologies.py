"""Low-diameter networks for the flit simulator, and the topology spec strings.

Built here from their definitions (never from ``icnperf.model``; fat trees: ``trees``):

* ``dragonfly(p, a, h)``: g = a*h + 1 groups of a routers, all-to-all inside a group, p
  endpoints and h global links per router; a group's global slots s = 0 .. a·h - 1 belong
  to its router s // h. Global wiring: ``relative`` (slot s of group G goes to group
  (G + s + 1) mod g, arriving on its slot g - 2 - s) or ``absolute`` (BookSim2's
  ``dragonflynew``: slot s of G goes to group s if s < G, else s + 1, arriving on slot G
  if G < D, else G - 1); one link per group pair either way. BookSim builds the balanced
  DF(k, 2k, k) only; any p, a, h run here. Routing (``routing``'s docstring):

  - ``min``: local-global-local through the one link joining the two groups (even where
    a path through a third group would be as short); VC classes by phase as BookSim's
    ``min_dragonflynew``: source-group hops in class 0, the global hop and after in
    class 1 (2 classes);
  - ``valiant``: minimal to a random intermediate router, then minimal; hop-index classes
    (6);
  - ``ugal``: BookSim2's ``ugal_dragonflynew``: at the source router, for a destination in
    another group, a random intermediate router; non-minimal (Valiant) when
    q_min > 2·q_nonmin + 30, q the credits in use at the candidate output; 3 phase
    classes (BookSim requires exactly 3 VCs; here V // 3 per class);
  - ``ugal-hops``: UGAL-L of Kim et al. (ISCA 2008), icnperf's rule before BookSim's:
    non-minimal when q_min·H_min > q_nonmin·H_nonmin; hop-index classes (6). Kept beside
    BookSim's because its comparison needs no threshold, so it diverts traffic with
    shallow buffers too (BookSim's +30 flits is out of reach of 8-flit VCs).

  Under ``min`` and ``ugal`` an iSLIP router's endpoints draw their injection VC at random
  (BookSim's dragonfly routing functions).
* ``slim_fly(q)``: the McKay-Miller-Siran graph for a prime q = 4w + 1 (q = 5, 13, 17, ...):
  routers (0, x, y) and (1, m, c) over GF(q); (0,x,y)~(0,x,y') when y - y' is an even power
  of a primitive element, (1,m,c)~(1,m,c') when c - c' is an odd power, (0,x,y)~(1,m,c) when
  y = m*x + c. Diameter 2; minimal routing, VC class = hop index (2 classes);
  p = ceil(degree / 2) endpoints per router unless given.

``network_from_spec("dragonfly:p=2,a=4,h=2", "ugal")`` also reads ``torus:8x8``,
``mesh:4x4``, ``hypercube:4`` / ``hypercube:n=4``, ``fattree:k=4,n=3``,
``clos:radix=8,levels=2``, ``xgft:m=4x4x4,w=1x4x4[,p=1x1x1]``,
``rail:rails=4,m=8x8,w=1x8[,p=..][,join=2]`` and ``slimfly:q=5``.
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
from icnperf.sim.routing import (
    CLASS_PHASE,
    NONMIN_NONE,
    NONMIN_UGAL,
    NONMIN_UGAL_HOPS,
    NONMIN_VALIANT,
)
from icnperf.sim.trees import TREE_ROUTINGS, fat_tree, rail, xgft

ROUTINGS = {
    "torus": ("dor",), "mesh": ("dor",), "hypercube": ("dor",),
    "fattree": TREE_ROUTINGS, "clos": TREE_ROUTINGS, "xgft": TREE_ROUTINGS,
    "rail": TREE_ROUTINGS,
    "dragonfly": ("min", "valiant", "ugal", "ugal-hops"),
    "slimfly": ("min",),
}
"""Routing algorithms per topology family (the first is the default)."""

GLOBAL_WIRINGS = ("relative", "absolute")
"""Dragonfly inter-group wiring (module docstring); the first is the default."""

_DRAGONFLY_RULES = {
    # routing: (non-minimal kind, VC classes, phase classes)
    "min": (NONMIN_NONE, 2, True),
    "valiant": (NONMIN_VALIANT, 6, False),
    "ugal": (NONMIN_UGAL, 3, True),
    "ugal-hops": (NONMIN_UGAL_HOPS, 6, False),
}


def _port_to(net: TableNetwork, r: int, target: int) -> int:
    return int(np.flatnonzero(net.neighbour[r, :net.network_ports] == target)[0])


def _global_slots(G: int, D: int, g: int, wiring: str) -> tuple[int, int]:
    """(slot of group G towards group D, slot of D towards G) under a wiring."""
    if wiring == "relative":
        s = (D - G - 1) % g
        return s, g - 2 - s
    return (D if D < G else D - 1), (G if G < D else G - 1)


def dragonfly(p: int, a: int, h: int, routing: str = "min",
              wiring: str = "relative") -> TableNetwork:
    """The canonical dragonfly DF(p, a, h) (see the module docstring)."""
    if min(p, a, h) < 1:
        raise InputError(f"flitsim: a dragonfly needs p, a, h >= 1, got p={p}, a={a}, h={h}")
    if routing not in ROUTINGS["dragonfly"]:
        raise InputError(f"flitsim: routing {routing!r} does not exist for a dragonfly"
                         f" (choose from {', '.join(ROUTINGS['dragonfly'])})")
    if wiring not in GLOBAL_WIRINGS:
        raise InputError(f"flitsim: unknown dragonfly global wiring {wiring!r} (choose from"
                         f" {', '.join(GLOBAL_WIRINGS)})")
    g = a * h + 1
    check_table_size(f"dragonfly:p={p},a={a},h={h}", g * a)
    links = []
    for G in range(g):
        base = G * a
        links += [(base + i, base + j) for i, j in itertools.combinations(range(a), 2)]
        for s in range(a * h):
            D = (G + s + 1) % g if wiring == "relative" else (s if s < G else s + 1)
            if G < D:
                links.append((base + s // h, D * a + _global_slots(G, D, g, wiring)[1] // h))
    nonmin, classes, phases = _DRAGONFLY_RULES[routing]
    probe = TableNetwork("probe", g * a, links)
    table = np.full((g * a, g * a), -1, dtype=np.int64)
    for r in range(g * a):
        G = r // a
        for d in range(g * a):
            D = d // a
            if d == r:
                continue
            if D == G:
                table[r, d] = _port_to(probe, r, d)
                continue
            s, s2 = _global_slots(G, D, g, wiring)
            owner = G * a + s // h               # the router holding the link to D
            if owner != r:
                table[r, d] = _port_to(probe, r, owner)
            else:
                table[r, d] = _port_to(probe, r, D * a + s2 // h)
    suffix = "" if wiring == "relative" else " (absolute global wiring)"
    net = TableNetwork(f"dragonfly:p={p},a={a},h={h}{suffix}", g * a, links,
                       endpoints_per_router=p, route_table=table, vc_classes=classes)
    net.nonminimal = nonmin
    net.routing = routing
    net.group = a
    nbr = net.neighbour[:, :net.network_ports]
    link_class = np.zeros(net.neighbour.shape, dtype=np.int8)
    link_class[:, :net.network_ports] = (nbr >= 0) & (nbr // a != np.arange(g * a)[:, None] // a)
    net.link_class = link_class
    if phases:
        net.class_kind = CLASS_PHASE
        net.inject_random = True
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


def _levels(text: str, spec: str) -> list[int]:
    """An XGFT list value ("4x4x4", or SimGrid's "4,4,4" inside its own string)."""
    try:
        return [int(v) for v in text.lower().split("x")]
    except ValueError:
        raise InputError(f"flitsim: cannot read the level list {text!r} in {spec!r}") from None


def network_from_spec(text: str, routing: str | None = None, wiring: str | None = None):
    """The simulator's network for a topology spec string (InputError naming the problem).

    ``wiring`` picks a dragonfly's global wiring (GLOBAL_WIRINGS; default relative) and is
    refused for other families."""
    family, _, body = str(text).strip().partition(":")
    family = family.strip().lower()
    routing = choose_routing(family, routing)
    if wiring is not None and family != "dragonfly":
        raise InputError(f"flitsim: a global wiring applies to dragonflies, not {family}")
    if family in ("xgft", "rail"):
        params = dict(pair.partition("=")[::2] for pair in body.split(","))
        params = {k.strip(): v.strip() for k, v in params.items()}
        extra = {"rails", "join"} if family == "rail" else set()
        need = {"m", "w"} | ({"rails"} if family == "rail" else set())
        if set(params) - {"m", "w", "p"} - extra or not need <= set(params):
            raise InputError(f"flitsim: {family} takes {'rails, ' if extra else ''}m, w and "
                             f"optionally p{', join' if extra else ''}; spec {text!r}")
        levels = (_levels(params["m"], text), _levels(params["w"], text),
                  _levels(params["p"], text) if "p" in params else None)
        if family == "xgft":
            return xgft(*levels, routing=routing)
        try:
            rails, join = int(params["rails"]), int(params.get("join", len(levels[0])))
        except ValueError:
            raise InputError(f"flitsim: cannot read rails or join in {text!r}") from None
        return rail(rails, *levels, join=join, routing=routing)
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
    need = {"fattree": ("k", "n"), "clos": ("radix", "levels"), "dragonfly": ("p", "a", "h"),
            "slimfly": ("q",)}[family]
    missing = [n for n in need if n not in params]
    extra = [n for n in params if n not in need + (("p",) if family == "slimfly" else ())]
    if missing or extra:
        raise InputError(f"flitsim: {family} takes {', '.join(need)}; spec {text!r}")
    if family == "fattree":
        return fat_tree(params["k"], params["n"], routing)
    if family == "clos":
        if params["radix"] % 2:
            raise InputError(f"flitsim: a folded Clos needs an even radix; spec {text!r}")
        net = fat_tree(params["radix"] // 2, params["levels"], routing)
        net.name = f"clos:radix={params['radix']},levels={params['levels']}"
        return net
    if family == "dragonfly":
        return dragonfly(params["p"], params["a"], params["h"], routing=routing,
                         wiring=wiring or "relative")
    return slim_fly(params["q"], params.get("p"))
