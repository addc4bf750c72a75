"""Candidate designs: every family's feasible configurations for N endpoints within a radix.

A candidate reaches at least N endpoints with routers of at most ``radix_max`` ports. The
structure of each comes from the family's own ``evaluate`` (model/topology, through
``spec.checked_spec``); the per-family *canonical* design is the NUDT sizing rule of
``compare.design`` (seeds/002), and the other candidates use the freedom each family has:

* torus: per dimension count d, the balanced k^d of ``torus.design_for_endpoints`` and the
  tightest shape (k-1)^j k^(d-j) that still reaches N.
* fattree FT(k, n): the smallest k for each level count n, the three smallest feasible n.
* clos: common switch radices (CLOS_RADICES), each with the fewest levels reaching N; of
  those with the same level count only the smallest radix (the others only add ports).
* dragonfly DF(p, a, h): balanced a = 2p = 2h (canonical) and near-balanced triples,
  |2p - a| <= 2 and |2h - a| <= 2 (Kim et al. 2008 §3.1 balance a = 2p = 2h), that are
  minimal (no parameter can drop by one and still reach N); the few smallest.
* megafly k: one parameter, so only the smallest k reaching N.
* slimfly (q, p): the canonical p = ⌈k'/2⌉ (Besta & Hoefler §3.1) and, for other prime
  powers q, the p = ⌈N / 2q²⌉ needed, kept when within SLIMFLY_P_BAND of ⌈k'/2⌉.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from icnperf.errors import InputError
from icnperf.model.topology import compare, slimfly
from icnperf.model.topology.spec import FAMILIES, checked_spec, parse_spec

SIZING_FAMILIES = ("torus", "fattree", "clos", "dragonfly", "megafly", "slimfly")
"""Families ``enumerate_designs`` knows how to size, in table order."""

CLOS_RADICES = (16, 24, 32, 36, 48, 64, 96, 128)
"""Switch radices offered for ``clos``: common merchant-silicon and InfiniBand switch port
counts (illustrative, not a product list)."""

FATTREE_LEVEL_CHOICES = 3
"""Fat-tree level counts tried: the smallest feasible n and the next ones."""

DRAGONFLY_CHOICES = 3
"""Near-balanced dragonflies kept besides the balanced one (the smallest by endpoints)."""

SLIMFLY_P_BAND = 0.2
"""Relative band around ⌈k'/2⌉ in which a slim fly's p counts as near-balanced."""

SLIMFLY_CHOICES = 3
"""Slim flies kept besides the canonical one (nearest in q)."""

MAX_LEVELS = 8
"""Deepest fat tree / Clos tried."""


@dataclass(frozen=True)
class Candidate:
    """One sized design: its spec, why it was chosen, its structure and its links by role.

    ``link_roles`` maps a role name (``"local"``, ``"global"``, ``"level 1-2"``, ...) to the
    number of bidirectional router-router links in that role; the roles add up to
    ``links``. Counts are exact integers; ``average_distance`` in hops.
    """

    family: str
    spec: str
    rule: str
    canonical: bool
    endpoints: int
    routers: int
    radix: int
    links: int
    diameter: int
    average_distance: float
    bisection_links: int
    uniform_throughput: float
    link_roles: dict[str, int] = field(default_factory=dict)

    @property
    def ports(self) -> int:
        """Router ports, routers x radix."""
        return self.routers * self.radix

    @property
    def bisection_per_endpoint(self) -> float:
        """Bisection links per endpoint (N/2 for a full-bisection network)."""
        return self.bisection_links / self.endpoints


# --- links by role ------------------------------------------------------------------------


def link_roles(family: str, params: dict) -> dict[str, int]:
    """Bidirectional router-router links of a design by role (exact integers).

    torus: all links one role. fattree / clos: FT(k, n) has 2k^n links between each pair
    of adjacent levels (fattree.FatTree.links). dragonfly: local g·a(a-1)/2 and global
    g(g-1)/2 (dragonfly.dragonfly_local_links / _global_links). megafly: leaf-spine k²·g and
    global g(g-1)/2. slimfly: racks pair column x of subgraph 0 with column x of subgraph 1
    (Besta & Hoefler 2014, physical layout); in-rack links are the q²(q-δ)/2 intra-column
    links plus the q cross links of each of the q column pairs, the other q³ - q² cross
    links run between racks.
    """
    if family == "torus":
        spec = checked_spec(FAMILIES["torus"], params)
        return {"torus": int(spec.evaluate().links)}
    if family in ("fattree", "clos"):
        k = params["k"] if family == "fattree" else params["radix"] // 2
        n = params["n"] if family == "fattree" else params["levels"]
        return {f"level {level}-{level + 1}": 2 * k**n for level in range(1, n)}
    if family == "dragonfly":
        a, h = params["a"], params["h"]
        g = a * h + 1
        return {"local": g * a * (a - 1) // 2, "global": g * (g - 1) // 2}
    if family == "megafly":
        k = params["k"]
        g = k * k + 1
        return {"leaf-spine": k * k * g, "global": g * (g - 1) // 2}
    if family == "slimfly":
        q = params["q"]
        d = int(slimfly.delta(q))
        return {"in-rack": q * q * (q - d) // 2 + q * q, "between racks": q**3 - q * q}
    raise InputError(f"no link roles for family {family!r}")


# --- candidates per family ----------------------------------------------------------------


def candidate(family: str, params: dict, rule: str = "given", canonical: bool = False) -> Candidate:
    """The Candidate of one checked configuration of a family (InputError if infeasible)."""
    spec = checked_spec(FAMILIES[family], params)
    m = spec.evaluate()
    roles = link_roles(family, spec.params)
    return Candidate(
        family=family,
        spec=spec.text,
        rule=rule,
        canonical=canonical,
        endpoints=int(m.endpoints),
        routers=int(m.routers),
        radix=int(m.radix),
        links=int(m.links),
        diameter=int(m.diameter),
        average_distance=float(m.average_distance),
        bisection_links=int(m.bisection_links),
        uniform_throughput=float(m.throughput["uniform"]),
        link_roles=roles,
    )


def _canonical(family: str, n_endpoints: int, **sizing) -> dict:
    """Parameters of compare.design's design (the NUDT sizing rule), parsed back."""
    return parse_spec(compare.design(family, n_endpoints, **sizing).spec).params


def _torus_params(n_endpoints: int, dims: int) -> list[tuple[dict, str, bool]]:
    k = _canonical("torus", n_endpoints, dims=dims)["radices"][0]
    out = [({"radices": (k,) * dims}, f"{dims}D balanced k^{dims} (NUDT rule)", True)]
    tightest = None
    for j in range(1, dims + 1):
        if k - 1 >= 2 and (k - 1) ** j * k ** (dims - j) >= n_endpoints:
            tightest = j
    if tightest is not None:
        shape = (k - 1,) * tightest + (k,) * (dims - tightest)
        out.append(({"radices": shape}, f"{dims}D tightest (k-1)^j k^(d-j) shape", False))
    return out


def _fattree_params(n_endpoints: int, radix_max: int) -> list[tuple[dict, str, bool]]:
    out = []
    for n in range(2, MAX_LEVELS + 1):
        k = _canonical("fattree", n_endpoints, levels=n)["k"]
        if 2 * k <= radix_max:
            out.append(({"k": k, "n": n}, f"smallest k for {n} levels"
                        + (" (NUDT rule)" if n == 3 else ""), n == 3))
        if len(out) == FATTREE_LEVEL_CHOICES:
            break
    return out


def _clos_params(n_endpoints: int, radix_max: int) -> list[tuple[dict, str, bool]]:
    by_levels: dict[int, int] = {}
    for radix in CLOS_RADICES:
        if radix > radix_max:
            continue
        levels = 1
        while 2 * (radix // 2) ** levels < n_endpoints and levels < MAX_LEVELS:
            levels += 1
        if 2 * (radix // 2) ** levels >= n_endpoints and levels not in by_levels:
            by_levels[levels] = radix
    return [({"radix": r, "levels": n}, f"{r}-port switches, fewest levels", False)
            for n, r in sorted(by_levels.items())]


def _dragonfly_endpoints(p: int, a: int, h: int) -> int:
    return a * p * (a * h + 1)


def _near_balanced(p: int, a: int, h: int) -> bool:
    return p >= 1 and h >= 1 and abs(2 * p - a) <= 2 and abs(2 * h - a) <= 2


def _dragonfly_params(n_endpoints: int, radix_max: int) -> list[tuple[dict, str, bool]]:
    balanced = _canonical("dragonfly", n_endpoints)
    out = []
    if sum(balanced.values()) - 1 <= radix_max:
        out.append((balanced, "balanced a = 2p = 2h (NUDT rule)", True))
    found = []
    for a in range(1, radix_max + 1):
        for p in range(max(1, (a - 2 + 1) // 2), (a + 2) // 2 + 1):
            for h in range(max(1, (a - 2 + 1) // 2), (a + 2) // 2 + 1):
                if not _near_balanced(p, a, h) or p + a + h - 1 > radix_max:
                    continue
                if _dragonfly_endpoints(p, a, h) < n_endpoints:
                    continue
                smaller = ((p - 1, a, h), (p, a - 1, h), (p, a, h - 1))
                if any(_near_balanced(*t) and t[1] >= 1 and _dragonfly_endpoints(*t) >= n_endpoints
                       for t in smaller):
                    continue
                if {"p": p, "a": a, "h": h} != balanced:
                    found.append((_dragonfly_endpoints(p, a, h), p, a, h))
    for _, p, a, h in sorted(found)[:DRAGONFLY_CHOICES]:
        out.append(({"p": p, "a": a, "h": h}, "near-balanced |2p-a|,|2h-a| <= 2, minimal",
                    False))
    return out


def _megafly_params(n_endpoints: int, radix_max: int) -> list[tuple[dict, str, bool]]:
    params = _canonical("megafly", n_endpoints)
    if 2 * params["k"] > radix_max:
        return []
    return [(params, "smallest k (NUDT rule)", True)]


def _slimfly_params(n_endpoints: int, radix_max: int) -> list[tuple[dict, str, bool]]:
    canonical = _canonical("slimfly", n_endpoints)
    out = []
    if int(slimfly.radix(canonical["q"], canonical["p"])) <= radix_max:
        out.append((canonical, "p = ceil(k'/2) (NUDT rule)", True))
    others = []
    q = 3
    while int(slimfly.network_radix(q)) + 1 <= radix_max:
        default_p = int(slimfly.default_endpoints_per_router(q))
        p = max(1, math.ceil(n_endpoints / (2 * q * q)))
        if (q != canonical["q"] and abs(p - default_p) <= SLIMFLY_P_BAND * default_p
                and int(slimfly.radix(q, p)) <= radix_max):
            others.append((abs(q - canonical["q"]), q, p))
        q = slimfly.smallest_valid_q_at_least(q + 1)
    for _, q, p in sorted(others)[:SLIMFLY_CHOICES]:
        out.append(({"q": q, "p": p}, f"p within {SLIMFLY_P_BAND:.0%} of ceil(k'/2)", False))
    return out


def family_designs(family: str, n_endpoints: int, radix_max: int,
                   torus_dims: tuple[int, ...] = (3, 6)) -> list[Candidate]:
    """The candidates of one family (module docstring); empty when none fits the radix."""
    if family == "torus":
        chosen = [c for d in torus_dims for c in _torus_params(n_endpoints, d)
                  if 2 * d + 1 <= radix_max]
    elif family == "fattree":
        chosen = _fattree_params(n_endpoints, radix_max)
    elif family == "clos":
        chosen = _clos_params(n_endpoints, radix_max)
    elif family == "dragonfly":
        chosen = _dragonfly_params(n_endpoints, radix_max)
    elif family == "megafly":
        chosen = _megafly_params(n_endpoints, radix_max)
    elif family == "slimfly":
        chosen = _slimfly_params(n_endpoints, radix_max)
    else:
        raise InputError(f"unknown family {family!r} for sizing"
                         f" (known: {', '.join(SIZING_FAMILIES)})")
    out = [candidate(family, params, rule, canonical) for params, rule, canonical in chosen]
    return [c for c in out if c.radix <= radix_max and c.endpoints >= n_endpoints]


def enumerate_designs(n_endpoints: int, families: tuple[str, ...] = SIZING_FAMILIES,
                      torus_dims: tuple[int, ...] = (3, 6),
                      radix_max: int = 128) -> list[Candidate]:
    """Every family's candidates for ``n_endpoints`` within ``radix_max`` ports per router.

    Raises InputError for a non-positive endpoint count, an unknown family, a torus
    dimension count < 1 or when no family has a feasible design.
    """
    if not (isinstance(n_endpoints, (int, np.integer)) and n_endpoints >= 2):
        raise InputError(f"--endpoints must be a whole number >= 2, not {n_endpoints!r}")
    if not (isinstance(radix_max, (int, np.integer)) and radix_max >= 2):
        raise InputError(f"--radix-max must be a whole number >= 2, not {radix_max!r}")
    for family in families:
        if family not in SIZING_FAMILIES:
            raise InputError(f"unknown family {family!r} for sizing"
                             f" (known: {', '.join(SIZING_FAMILIES)})")
    if any(d < 1 for d in torus_dims):
        raise InputError("--torus-dims: dimension counts must be >= 1")
    out = [c for f in families for c in family_designs(f, int(n_endpoints), int(radix_max),
                                                       tuple(torus_dims))]
    if not out:
        raise InputError(f"no design of {', '.join(families)} reaches {n_endpoints} endpoints"
                         f" with routers of at most {radix_max} ports")
    return out

