"""Scalability comparison: the smallest design of each family that reaches N endpoints.

Reproduces the comparison of the NUDT topology paper (Jiang et al., section "scalability",
Fig. 5): for a target endpoint count, how many routers, ports per router and total ports
each family needs. Each family's sizing rule is its module's ``design_for_endpoints``
(fat tree: 3 levels; dragonfly: balanced a = 2p = 2h; megafly: k endpoints per leaf;
slim fly: p ≈ k'/2; torus: equal radix per dimension; xgft, asked for by name: the k-ary
n-tree with the fat tree's levels, ``xgft.kary_ntree``).
"""

from __future__ import annotations

from dataclasses import dataclass

from icnperf.errors import InputError
from icnperf.model.topology import dragonfly, fattree, slimfly, torus, xgft
from icnperf.model.topology.spec import FAMILIES, TopologySpec, checked_spec

COMPARED_FAMILIES = ("fattree", "dragonfly", "megafly", "slimfly", "torus")
"""Families ``compare_for_endpoints`` sizes by default."""

OPTIONAL_FAMILIES = ("xgft",)
"""Families sized only when asked for (``--families xgft``): the k-ary n-tree."""


@dataclass(frozen=True)
class Design:
    """One sized design: its spec and structural totals (counts; hops for distances)."""

    family: str
    spec: str
    endpoints: int
    routers: int
    radix: int
    ports: int
    links: int
    diameter: int
    average_distance: float

    @property
    def ports_per_endpoint(self) -> float:
        """Total router ports per endpoint, the port cost of one endpoint."""
        return self.ports / self.endpoints


def _params_for(family: str, n_endpoints: int, levels: int, dims: int) -> dict:
    if family == "fattree":
        return fattree.design_for_endpoints(n_endpoints, levels=levels)
    if family == "xgft":
        return xgft.kary_ntree_for_endpoints(n_endpoints, levels)
    if family in ("dragonfly", "megafly"):
        return dragonfly.design_for_endpoints(n_endpoints, family=family)
    if family == "slimfly":
        return slimfly.design_for_endpoints(n_endpoints)
    return torus.design_for_endpoints(n_endpoints, dims=dims)


def _design_of(spec: TopologySpec, label: str) -> Design:
    m = spec.evaluate()
    return Design(
        family=label,
        spec=spec.text,
        endpoints=int(m.endpoints),
        routers=int(m.routers),
        radix=int(m.radix),
        ports=int(m.routers) * int(m.radix),
        links=int(m.links),
        diameter=int(m.diameter),
        average_distance=float(m.average_distance),
    )


def design(family: str, n_endpoints: int, *, levels: int = 3, dims: int = 3) -> Design:
    """The smallest design of ``family`` with at least ``n_endpoints`` endpoints."""
    spec = checked_spec(FAMILIES[family], _params_for(family, n_endpoints, levels, dims))
    return _design_of(spec, f"{dims}D torus" if family == "torus" else family)


RADIX_FAMILIES = ("fattree", "dragonfly", "megafly", "slimfly")
"""Families whose size grows with router radix (a torus's radix is fixed by its dimension)."""


def _sized_by(family: str, t: int, levels: int) -> dict:
    """Parameters of the t-th design of a family, in increasing radix (NUDT Fig. 5 rules)."""
    if family == "fattree":
        return {"k": t, "n": levels}
    if family == "xgft":
        return xgft.kary_ntree(t, levels)
    if family == "dragonfly":
        return {"p": t, "a": 2 * t, "h": t}
    if family == "megafly":
        return {"k": t}
    if not slimfly.is_valid_q(t):
        return {"q": t}
    return {"q": t, "p": int(slimfly.default_endpoints_per_router(t))}


def largest_for_radix(family: str, radix: int, *, levels: int = 3) -> Design | None:
    """The largest design of ``family`` within ``radix`` ports per router and MAX_ENDPOINTS.

    Reproduces the size-vs-radix curves of the NUDT paper (Jiang et al., Fig. 5); None when
    even the smallest design needs more ports. Invalid sizes (a slim fly q that is not a
    prime power) are skipped.
    """
    best = None
    for t in range(1, radix + 1):
        try:
            spec = checked_spec(FAMILIES[family], _sized_by(family, t, levels))
        except InputError:
            continue
        candidate = _design_of(spec, family)
        if candidate.radix > radix:
            break
        best = candidate
    return best


def compare_for_radix(radix: int, families: tuple[str, ...] = RADIX_FAMILIES,
                      fattree_levels: int = 3) -> list[Design]:
    """The largest design of each family within a router radix (families that fit)."""
    designs = (largest_for_radix(f, radix, levels=fattree_levels) for f in families)
    return [d for d in designs if d is not None]


def compare_for_endpoints(
    n_endpoints: int,
    families: tuple[str, ...] = COMPARED_FAMILIES,
    torus_dims: tuple[int, ...] = (3, 6),
    fattree_levels: int = 3,
) -> list[Design]:
    """The smallest design of each family (and each torus dimension) reaching N endpoints."""
    designs = []
    for family in families:
        if family == "torus":
            designs.extend(design("torus", n_endpoints, dims=d) for d in torus_dims)
        else:
            designs.append(design(family, n_endpoints, levels=fattree_levels))
    return designs
