"""Bill of materials and cost of a design: routers, ports, links by kind, adapters.

Cost = routers x (router base + radix x per-port)
     + electrical links x electrical link price + optical links x optical link price
     + endpoints x (endpoint cable + adapter).

Every router is built with exactly its design radix (no unused ports). Which router-router
links are electrical (short copper, within a cabinet or a row) and which optical (long,
between cabinets) is a rule per family, LINK_KIND_RULES, stated with its reasoning:

* torus: every link electrical -- a folded torus keeps each link between neighbouring
  cabinets, including the wraparound (Dally & Towles 2004, ch. 5: the folded torus).
* fattree / clos / xgft / rail: links between levels 1 and 2 electrical (a leaf and its aggregation
  switches share a cabinet row), links between higher levels optical (they span the
  machine room).
* dragonfly: local (in-group) links electrical, global links optical (Kim et al. 2008 §3:
  a group is packaged in one or a few cabinets; global channels are long optical cables).
* megafly: leaf-spine links electrical (the group is one cabinet set), global optical.
* slimfly: in-rack links electrical, between-rack links optical (Besta & Hoefler 2014,
  physical layout: a rack holds one column of each subgraph).
* Endpoint links (adapter to router) are electrical and priced separately; on a rail
  design an endpoint is a NIC, so each NIC has its cable and adapter.

The prices live in a CostModel (the bundled data/costs/default.toml states each one's
assumption); this module only multiplies counts by prices.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from icnperf.errors import InputError
from icnperf.model.sizing.designs import Candidate

LINK_KIND_RULES = {
    "torus": "all links electrical (folded torus: neighbouring cabinets)",
    "fattree": "levels 1-2 electrical, higher levels optical",
    "clos": "levels 1-2 electrical, higher levels optical",
    "xgft": "levels 1-2 electrical, higher levels optical",
    "rail": "levels 1-2 electrical, higher levels optical",
    "dragonfly": "local links electrical, global links optical",
    "megafly": "leaf-spine links electrical, global links optical",
    "slimfly": "in-rack links electrical, between-rack links optical",
}
"""The electrical/optical rule of each family, as printed in the study's notes."""

ELECTRICAL_ROLES = frozenset({"torus", "level 1-2", "local", "leaf-spine", "in-rack"})
"""Link roles (designs.link_roles) that are electrical; every other role is optical."""

COST_KEYS = {
    "router": ("base", "per_port"),
    "link": ("electrical", "optical", "endpoint"),
    "adapter": ("per_endpoint",),
}
"""Sections and keys of a cost model; all are required numbers >= 0."""

COST_PARTS = ("routers", "ports", "electrical links", "optical links", "endpoint links",
              "adapters")
"""The parts of a cost breakdown, in order."""


@dataclass(frozen=True)
class CostModel:
    """Prices in ``unit`` (e.g. "USD, illustrative"): per router, per router port, per
    electrical / optical router-router link (cable and its transceivers), per endpoint link
    and per endpoint adapter (NIC)."""

    unit: str
    router_base: float
    router_per_port: float
    link_electrical: float
    link_optical: float
    link_endpoint: float
    adapter_per_endpoint: float
    description: str = ""
    sources: dict = field(default_factory=dict, compare=False)
    """Where each price comes from, by ``section.key`` (the TOML's ``source`` texts)."""


def _number(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where} must be a number, not {value!r}")
    if not value >= 0 or value == float("inf"):
        raise InputError(f"{where} must be a finite number >= 0, not {value!r}")
    return float(value)


def cost_model_from_dict(data: dict, origin: str) -> CostModel:
    """A CostModel from a parsed cost TOML (``unit``, ``description`` and the sections of
    COST_KEYS, each key a table ``{value = ..., source = "..."}`` or a bare number).
    Raises InputError naming the first unknown, missing or bad key."""
    allowed = {"unit", "description", *COST_KEYS}
    for key in data:
        if key not in allowed:
            raise InputError(f"{origin}: unknown key {key!r} (known: {', '.join(sorted(allowed))})")
    unit = data.get("unit")
    if not isinstance(unit, str) or not unit.strip():
        raise InputError(f"{origin}: 'unit' must name the currency or unit, e.g. \"USD\"")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise InputError(f"{origin}: 'description' must be text")
    values, sources = {}, {}
    for section, keys in COST_KEYS.items():
        table = data.get(section)
        if not isinstance(table, dict):
            raise InputError(f"{origin}: missing section [{section}] (keys: {', '.join(keys)})")
        for key in table:
            if key not in keys:
                raise InputError(f"{origin}: unknown key {section}.{key}"
                                 f" (known: {', '.join(keys)})")
        for key in keys:
            if key not in table:
                raise InputError(f"{origin}: missing {section}.{key}")
            raw = table[key]
            if isinstance(raw, dict):
                stray = set(raw) - {"value", "source"}
                if stray or "value" not in raw:
                    raise InputError(f"{origin}: {section}.{key} must be a number or"
                                     " {value = NUMBER, source = \"...\"}")
                sources[f"{section}.{key}"] = str(raw.get("source", ""))
                raw = raw["value"]
            values[f"{section}_{key}"] = _number(raw, f"{origin}: {section}.{key}")
    return CostModel(unit=unit.strip(), description=description, sources=sources, **values)


def link_counts(design: Candidate) -> dict[str, int]:
    """Router-router links of a design by kind (electrical, optical) and its endpoint links,
    under LINK_KIND_RULES."""
    electrical = sum(n for role, n in design.link_roles.items() if role in ELECTRICAL_ROLES)
    optical = sum(n for role, n in design.link_roles.items() if role not in ELECTRICAL_ROLES)
    return {"electrical": electrical, "optical": optical, "endpoint": design.endpoints}


def cost_breakdown(design: Candidate, model: CostModel) -> dict[str, float]:
    """The cost of each part of COST_PARTS, in the model's unit (module docstring)."""
    links = link_counts(design)
    return {
        "routers": design.routers * model.router_base,
        "ports": design.ports * model.router_per_port,
        "electrical links": links["electrical"] * model.link_electrical,
        "optical links": links["optical"] * model.link_optical,
        "endpoint links": links["endpoint"] * model.link_endpoint,
        "adapters": design.endpoints * model.adapter_per_endpoint,
    }


def total_cost(design: Candidate, model: CostModel) -> float:
    """The design's whole cost, the sum of cost_breakdown."""
    return sum(cost_breakdown(design, model).values())


def total_cost_arrays(routers, radix, electrical, optical, endpoints, model: CostModel):
    """total_cost over arrays of counts (NumPy broadcasting): the same formula for a whole
    design space at once (space.Block's metrics and links by kind)."""
    return (routers * (model.router_base + radix * model.router_per_port)
            + electrical * model.link_electrical + optical * model.link_optical
            + endpoints * (model.link_endpoint + model.adapter_per_endpoint))
