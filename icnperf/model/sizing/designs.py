"""Candidate designs: the record of one sized design, its links by role, the NUDT rule.

The design space itself (every feasible configuration, as arrays) is space.py's; a design
that reaches the short list (screen.py) becomes a Candidate here, its structure from the
family's own ``evaluate`` (model/topology, through ``spec.checked_spec``). The per-family
*canonical* design is the NUDT sizing rule of ``compare.design`` (Jiang et al.).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from icnperf.errors import InputError
from icnperf.model.topology import compare, slimfly
from icnperf.model.topology.base import Metrics
from icnperf.model.topology.spec import FAMILIES, checked_spec, parse_spec

SIZING_FAMILIES = ("torus", "fattree", "clos", "xgft", "dragonfly", "megafly", "slimfly")
"""Families a sizing study knows how to size, in table order."""

GPU_FAMILIES = ("rail",)
"""Families a study sizes only when asked (--families rail) on a GPU machine: the rail and
plain trees of NIC endpoints, NICs per GPU and taper (rail_designs.py)."""

CLOS_RADICES = (16, 24, 32, 36, 48, 64, 96, 128)
"""Switch radices offered for ``clos``: common merchant-silicon and InfiniBand switch port
counts (illustrative, not a product list)."""

MAX_LEVELS = 8
"""Deepest fat tree / Clos enumerated."""


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


def link_roles(family: str, params: dict, metrics=None) -> dict[str, int]:
    """Bidirectional router-router links of a design by role (exact integers); ``metrics``:
    the design's own (spec.evaluate()) when the caller has them, so a torus is not
    evaluated twice.

    torus: all links one role. fattree / clos: FT(k, n) has 2k^n links between each pair
    of adjacent levels (fattree.FatTree.links). dragonfly: local g·a(a-1)/2 and global
    g(g-1)/2 (dragonfly.dragonfly_local_links / _global_links). megafly: leaf-spine k²·g and
    global g(g-1)/2. slimfly: racks pair column x of subgraph 0 with column x of subgraph 1
    (Besta & Hoefler 2014, physical layout); in-rack links are the q²(q-δ)/2 intra-column
    links plus the q cross links of each of the q column pairs, the other q³ - q² cross
    links run between racks.
    """
    if family == "torus":
        if metrics is None:
            metrics = checked_spec(FAMILIES["torus"], params).evaluate()
        return {"torus": int(metrics.links)}
    if family in ("fattree", "clos"):
        k = params["k"] if family == "fattree" else params["radix"] // 2
        n = params["n"] if family == "fattree" else params["levels"]
        return {f"level {level}-{level + 1}": 2 * k**n for level in range(1, n)}
    if family in ("xgft", "rail"):
        from icnperf.model.topology.xgft import XGFT

        spec = checked_spec(FAMILIES[family], params)
        m, w = spec.params["m"], spec.params["w"]
        per_level = XGFT(m, w, spec.params.get("p")).links_by_level()
        return {f"level {level}-{level + 1}": int(round(float(n)))
                for level, n in enumerate(per_level, start=1)}
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
    return _built(family, spec, spec.evaluate(), rule, canonical)


def candidates(designs) -> list[Candidate]:
    """:func:`candidate` of each (family, params, rule, canonical) of ``designs``, in order,
    the tori of one dimension count evaluated together (torus_metrics over a batch of
    radices: the same elementwise operations, so the same values as one at a time)."""
    specs = [checked_spec(FAMILIES[family], params) for family, params, _, _ in designs]
    metrics: list = [None] * len(specs)
    tori: dict[int, list[int]] = {}
    for i, spec in enumerate(specs):
        if spec.family.name == "torus" and set(spec.params) == {"radices"}:
            tori.setdefault(len(spec.params["radices"]), []).append(i)
        else:
            metrics[i] = spec.evaluate()
    for rows in tori.values():
        batch = FAMILIES["torus"].evaluate(
            radices=np.array([specs[i].params["radices"] for i in rows], dtype=np.int64))
        for j, i in enumerate(rows):
            metrics[i] = _row(batch, j)
    return [_built(family, spec, m, rule, canonical)
            for (family, _, rule, canonical), spec, m in zip(designs, specs, metrics)]


def _row(batch: Metrics, j: int) -> Metrics:
    """Configuration ``j`` of a batch of Metrics, as spec.evaluate() gives it alone (0-d
    values)."""
    pick = (lambda values: np.asarray(values)[j])
    return replace(batch, routers=pick(batch.routers), endpoints=pick(batch.endpoints),
                   radix=pick(batch.radix), links=pick(batch.links),
                   diameter=pick(batch.diameter),
                   average_distance=pick(batch.average_distance),
                   bisection_links=pick(batch.bisection_links),
                   channel_load={p: pick(v) for p, v in batch.channel_load.items()})


def _built(family: str, spec, m: Metrics, rule: str, canonical: bool) -> Candidate:
    """The Candidate of a checked spec and its metrics."""
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
        uniform_throughput=float(m.pattern_throughput("uniform")),
        link_roles=link_roles(family, spec.params, m),
    )


def canonical_params(family: str, n_endpoints: int, *, dims: int = 3) -> dict | None:
    """Parameters of compare.design's design for N endpoints (the NUDT sizing rule,
    Jiang et al.: balanced k^dims torus, FT(k, 3), balanced dragonfly, smallest megafly k, slim
    fly with p = ceil(k'/2)); None for clos and xgft, which have no such rule."""
    if family in ("clos", "xgft", "rail"):
        return None
    return parse_spec(compare.design(family, n_endpoints, dims=dims).spec).params


def canonical_rule(family: str, params: dict) -> str:
    """The NUDT sizing rule a canonical design follows, as a row's ``rule`` text."""
    if family == "torus":
        dims = len(params["radices"])
        return f"{dims}D balanced k^{dims} (NUDT rule)"
    return {"fattree": "smallest k for 3 levels (NUDT rule)",
            "dragonfly": "balanced a = 2p = 2h (NUDT rule)",
            "megafly": "smallest k (NUDT rule)",
            "slimfly": "p = ceil(k'/2) (NUDT rule)"}[family]




def taper(params: dict) -> int:
    """The top-level taper t of an xgft design (t:1 = m_(h-1) : w_h, space.xgft_space)."""
    m, w = params["m"], params["w"]
    return m[-2] // w[-1]


def design_rule(family: str, params: dict, canonical: bool) -> str:
    """A row's ``rule`` text: the NUDT rule of a canonical design, an xgft tree's taper
    ("2:1 taper"), else empty."""
    if canonical:
        return canonical_rule(family, params)
    if family == "rail":
        from icnperf.model.sizing.rail_designs import describe

        return describe(params)
    if family == "xgft":
        return f"{taper(params)}:1 taper"
    return ""
