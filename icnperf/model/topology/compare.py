"""Scalability comparison: the smallest design of each family that reaches N endpoints.

Reproduces the comparison of the NUDT topology paper (seeds/002, section "scalability",
Fig. 5): for a target endpoint count, how many routers, ports per router and total ports
each family needs. Each family's sizing rule is its module's ``design_for_endpoints``
(fat tree: 3 levels; dragonfly: balanced a = 2p = 2h; megafly: k endpoints per leaf;
slim fly: p ≈ k'/2; torus: equal radix per dimension).
"""

from __future__ import annotations

from dataclasses import dataclass

from icnperf.model.topology import dragonfly, fattree, slimfly, torus
from icnperf.model.topology.spec import FAMILIES, TopologySpec

COMPARED_FAMILIES = ("fattree", "dragonfly", "megafly", "slimfly", "torus")
"""Families ``compare_for_endpoints`` knows how to size."""


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
    if family in ("dragonfly", "megafly"):
        return dragonfly.design_for_endpoints(n_endpoints, family=family)
    if family == "slimfly":
        return slimfly.design_for_endpoints(n_endpoints)
    return torus.design_for_endpoints(n_endpoints, dims=dims)


def design(family: str, n_endpoints: int, *, levels: int = 3, dims: int = 3) -> Design:
    """The smallest design of ``family`` with at least ``n_endpoints`` endpoints."""
    spec = TopologySpec(FAMILIES[family], _params_for(family, n_endpoints, levels, dims))
    m = spec.evaluate()
    label = f"{dims}D torus" if family == "torus" else family
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
