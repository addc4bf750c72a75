"""The machines and topologies: ``icnperf.machines``, ``icnperf.machine``,
``icnperf.topology`` and ``icnperf.compare_topologies`` (the commands of the same names)."""

from __future__ import annotations

from typing import Any

from icnperf.api import options, values
from icnperf.api.guard import quiet
from icnperf.api.results import Result
from icnperf.errors import InputError

COMPARE_NOTES = (
    "with --endpoints each row is the smallest design of its family reaching the target;"
    " with --radix the largest design whose routers have at most that many ports",
    "fattree: FT(k,n) of the NUDT paper (maximal folded Clos), (2n-1)k^(n-1) routers of "
    "radix 2k; xgft (asked for by name): the k-ary n-tree, k^n endpoints, n k^(n-1) "
    "routers of radix 2k",
    "dragonfly: balanced DF(p, a=2p, h=p); megafly: k endpoints and k spines per leaf",
    "slimfly: MMS graph, p endpoints per router as in the slimfly model's notes",
    "torus: equal radix in every dimension, one endpoint per router",
    "hops count router-to-router links only",
    "NUDT paper (Jiang et al.) vs exact constructions: its megafly count k(k^2+1) routers counts"
    " one layer only (the construction has 2k(k^2+1)); its '+26 % / +33 % more routers than"
    " slim fly' at 1e5 endpoints is near ports per endpoint, not routers"
    " (icnperf validate, nudt-* checks)",
)
"""The notes of ``compare-topologies``: how each family is sized, and what the NUDT paper's
counts are against the constructions."""


class MachinesResult(Result):
    """``machines``: the bundled presets, one record each (``name``, ``system``, ``site``,
    ``year``, ``description``); iterates, indexes and counts like the list of records."""

    command = "machines"
    rows_key = "machines"

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.machines import presets_render

        return presets_render(self._document["machines"], fmt, wide)

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self._document["machines"])

    def __getitem__(self, index):
        return self.rows[index]

    @property
    def names(self) -> list[str]:
        return [row["name"] for row in self._document["machines"]]


class MachineResult(Result):
    """One machine (``icnperf.machine``): renders what ``icnperf machine NAME`` prints, and
    is what the other functions take as their ``machine``. ``.machine`` is the record
    itself (icnperf.data.machine.Machine); its attributes (``name``, ``topology``,
    ``get(path)``, ...) are reachable from here too. ``rows`` are the parameters."""

    command = "machine"
    rows_key = "parameters"

    def __init__(self, machine, document: dict) -> None:
        super().__init__(document)
        self.machine = machine

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.machines import machine_render

        return machine_render(self._document, fmt, wide)

    def __getattr__(self, name: str):
        if name.startswith("_") or name == "machine":
            raise AttributeError(name)
        return getattr(self.machine, name)

    def _repr_text(self) -> str:
        return f"<icnperf machine {self.machine.name}: {self.machine.topology}>"


class TopologyResult(Result):
    """``topology``: one topology's metrics (a flat document: family, spec, routers, ...,
    channel_load and throughput per traffic pattern, notes); ``rows`` one per pattern."""

    command = "topology"

    @property
    def rows(self) -> list[dict]:
        doc = self._document
        return [{"pattern": p, "channel_load": doc["channel_load"][p],
                 "throughput": doc["throughput"][p]} for p in doc["channel_load"]]

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.topology import topology_render

        return topology_render(self._document, fmt, wide)

    def figure(self):
        from icnperf.reports.result_figures import topology_figure

        return topology_figure(self._document)


class ComparisonResult(Result):
    """``compare-topologies``: one design per family (``designs``, also ``rows``)."""

    command = "compare-topologies"
    rows_key = "designs"

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.topology import compare_render

        return compare_render(self._document, fmt, wide)

    def figure(self):
        from icnperf.reports.result_figures import comparison_figure

        return comparison_figure(self._document)


def machine_document(machine, inputs: dict, uncertainty: bool = False) -> dict:
    """One machine as ``icnperf machine --format json`` writes it: ``inputs`` (the name
    asked for and the --set items), name, description, topology, its size (the job it is on
    a larger network), each parameter with its unit and source, notes; ``uncertainty``:
    each parameter's kind, spread (as a few characters; counts and choices exact unless
    alternatives are listed), the spread's reason and the values it was solved with."""
    rows = [dict(zip(("section", "key", "value", "shown", "source"), row))
            for row in machine.rows()]
    if uncertainty:
        for row in rows:
            path = "topology" if row["key"] == "topology" else f"{row['section']}.{row['key']}"
            spread = machine.spread(path)
            row.update({"kind": "" if spread is None else spread.kind,
                        "spread": "-" if spread is None else spread.text(),
                        "spread_reason": "" if spread is None else spread.reason,
                        "solved_with": [] if spread is None else list(spread.solved_with)})
    return {"inputs": inputs, "name": machine.name, "description": machine.description,
            "topology": machine.topology, "size": machine.size_note(), "parameters": rows,
            "notes": list(machine.notes)}


@quiet
def machines() -> MachinesResult:
    """The bundled machine presets (``icnperf machines``)."""
    from icnperf.data.machine import list_presets, load_machine

    rows = []
    for name, description in list_presets():
        preset = load_machine(name)
        year = preset.system.get("year")
        rows.append({"name": name, "system": preset.system.get("name", ""),
                     "site": preset.system.get("site", ""),
                     "year": "" if year is None else str(year), "description": description})
    return MachinesResult({"machines": rows})


@quiet
def machine(name_or_path: Any, set: Any = None, uncertainty: bool = False) -> MachineResult:
    """A bundled preset by name or a machine TOML file by path (or a machine already
    loaded), with ``set`` applied: ``{"section.key": value}`` (numbers in SI units, text as
    on the command line: ``"60ns"``) or ``"section.key=value"`` items, as ``--set``.
    ``uncertainty``: each parameter row adds its value's ``kind``, ``spread``,
    ``spread_reason`` and ``solved_with`` (``icnperf machine --uncertainty``)."""
    loaded, overrides = values.machine(name_or_path, set)
    asked = name_or_path if isinstance(name_or_path, str) else loaded.name
    uncertainty = options.flag(uncertainty, "--uncertainty")
    return MachineResult(loaded, machine_document(loaded, {"machine": asked,
                                                          "set": overrides}, uncertainty))


@quiet
def topology(spec: str, *, tree_routing: str | None = None, machine: Any = None,
             set: Any = None) -> TopologyResult:
    """Structural metrics, channel loads, throughput bound and saturation estimate of one
    topology ``spec`` (``"torus:8x8x16"``; ``icnperf topology SPEC``); ``tree_routing`` a
    fat tree's up-port rule (random, dmodk); ``machine`` (with ``set``) the routers of the
    saturation estimate [default: the simulator's default router]."""
    from icnperf.api.topology_metrics import topology_document

    tree_routing = options.optional_choice(tree_routing, options.TREE_ROUTINGS,
                                           "--tree-routing")
    if machine is None:
        return TopologyResult(topology_document(spec, tree_routing,
                                                overrides=values.items(set, "--set")))
    from icnperf.model.topology.spec import parse_spec

    parse_spec(spec)  # a bad spec is named before the machine is read
    loaded, _ = values.machine(machine, set)
    return TopologyResult(topology_document(spec, tree_routing, machine=loaded))


@quiet
def compare_topologies(*, endpoints: Any = None, radix: Any = None, families: Any = None,
                       torus_dims: Any = "3,6", levels: Any = 3,
                       budget_format: str = "json") -> ComparisonResult:
    """Every family sized for ``endpoints`` endpoints, or the largest design within each
    router ``radix`` (``"36,64"`` or ``[36, 64]``) (``icnperf compare-topologies``);
    ``families`` (``"fattree,dragonfly"`` or a list), ``torus_dims``, ``levels`` (fat-tree
    levels)."""
    endpoints = options.optional_count(endpoints, "--endpoints")
    levels = options.count(levels, "--levels")
    radix = values.sequence_of_text(radix, "--radix")
    families = values.sequence_of_text(families, "--families")
    torus_dims = values.sequence_of_text(torus_dims, "--torus-dims")
    rows = compare_rows(endpoints, radix, families, torus_dims, levels, budget_format)
    return ComparisonResult({"inputs": {"endpoints": endpoints, "radix": radix,
                                        "families": families, "torus_dims": torus_dims,
                                        "fattree_levels": levels},
                             "notes": list(COMPARE_NOTES), "designs": rows})


def _choices(text: str, allowed: tuple[str, ...], what: str) -> tuple[str, ...]:
    items = tuple(t.strip() for t in text.split(",") if t.strip())
    unknown = [t for t in items if t not in allowed]
    if not items or unknown:
        raise InputError(f"--{what}: unknown {', '.join(unknown) or 'empty list'}"
                         f" (choose from {', '.join(allowed)})")
    return items


def _integers(text: str, what: str, low: int, high: int) -> tuple[int, ...]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items or not all(t.isdigit() and low <= int(t) <= high for t in items):
        raise InputError(f"--{what}: expected comma-separated integers in {low}..{high},"
                         f" got {text!r}")
    return tuple(int(t) for t in items)


def _designs_for_endpoints(endpoints: int, families: str | None, torus_dims: str,
                           levels: int) -> list[dict]:
    from icnperf.model.topology.base import MAX_ENDPOINTS
    from icnperf.model.topology.compare import (COMPARED_FAMILIES, OPTIONAL_FAMILIES,
                                                compare_for_endpoints)

    if not 1 <= endpoints <= MAX_ENDPOINTS:
        raise InputError(f"--endpoints must be in 1..{MAX_ENDPOINTS:.0e}, got {endpoints}")
    chosen = _choices(families or ",".join(COMPARED_FAMILIES),
                      COMPARED_FAMILIES + OPTIONAL_FAMILIES, "families")
    dims = _integers(torus_dims, "torus-dims", 1, 12)
    designs = compare_for_endpoints(endpoints, chosen, dims, levels)
    return [{**d.__dict__, "ports_per_endpoint": d.ports_per_endpoint} for d in designs]


def _designs_for_radix(radix: str, families: str | None, levels: int,
                      fmt: str = "table") -> list[dict]:
    from icnperf.data.limits import within_limits
    from icnperf.model.budget import compare_estimate
    from icnperf.model.topology.compare import (OPTIONAL_FAMILIES, RADIX_FAMILIES,
                                                compare_for_radix)

    chosen = _choices(families or ",".join(RADIX_FAMILIES), RADIX_FAMILIES + OPTIONAL_FAMILIES,
                      "families")
    radices = _integers(radix, "radix", 2, 1024)
    within_limits(compare_estimate(len(radices), fmt))
    rows = []
    for limit in radices:
        rows += [{**d.__dict__, "radix_limit": limit,
                  "ports_per_endpoint": d.ports_per_endpoint}
                 for d in compare_for_radix(limit, chosen, levels)]
    return rows


def compare_rows(endpoints: int | None, radix: str | None, families: str | None,
                 torus_dims: str, levels: int, fmt: str = "table") -> list[dict]:
    """Rows of the scalability comparison: per family for N endpoints, or per radix (the
    radices' search checked against the limits first, ``fmt`` the output format)."""
    if (endpoints is None) == (radix is None):
        raise InputError("give exactly one of --endpoints N or --radix R[,R...]")
    if not 1 <= levels <= 8:
        raise InputError(f"--levels must be in 1..8, got {levels}")
    if endpoints is not None:
        return _designs_for_endpoints(endpoints, families, torus_dims, levels)
    return _designs_for_radix(radix, families, levels, fmt)
