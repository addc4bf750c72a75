"""The Machine record: topology spec text plus SI-valued parameters and the source of each,
checked against the schema when built; copies with ``--set`` overrides or fitted values.

Reading (:mod:`.parse`) and writing (:mod:`.serialize`) live beside it; the methods
``with_overrides``, ``rows``, ``as_dict`` and ``to_toml`` call them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

from icnperf.data.machine.parse import machine_fields, parse_overrides
from icnperf.data.machine.schema import (
    NODE_TYPE_KEYS,
    SCHEMA,
    SECTIONS,
    TYPE_NAME_RE,
    FrozenMap,
    NodeType,
    Value,
    check_topology,
    check_value,
    key_for_path,
    ordered,
    unknown_key,
    value_syntax,
)
from icnperf.data.machine.serialize import machine_dict, machine_rows, machine_toml
from icnperf.data.machine.uncertainty import DISCRETE, Uncertainty
from icnperf.errors import InputError


@dataclass(frozen=True)
class Machine:
    """A machine: topology spec text plus SI-valued parameters and where each came from.

    ``network``, ``node``, ``software``, ``system`` and ``production`` map key names of
    :data:`SCHEMA` to SI numbers (ints for counts and cycles, floats, str for choices and
    text). ``provenance`` maps a dotted path
    (``"network.link_latency"``, ``"topology"``, ``"node_types.A.count"``) to its source text.
    ``node_types`` (optional) records a heterogeneous node mix. ``uncertainty`` maps a
    dotted path to its kind and spread (:mod:`.uncertainty`; a value without one has no
    stated uncertainty). ``origin`` says where the machine was loaded from and takes no
    part in equality.
    """

    name: str
    topology: str
    description: str = ""
    network: Mapping[str, Value] = field(default_factory=dict)
    node: Mapping[str, Value] = field(default_factory=dict)
    software: Mapping[str, Value] = field(default_factory=dict)
    system: Mapping[str, Value] = field(default_factory=dict)
    production: Mapping[str, Value] = field(default_factory=dict)
    node_types: Mapping[str, NodeType] = field(default_factory=dict)
    provenance: Mapping[str, str] = field(default_factory=dict)
    uncertainty: Mapping[str, Uncertainty] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    origin: str = field(default="", compare=False)

    def __post_init__(self):
        where = self.origin or f"machine {self.name!r}"
        if not isinstance(self.name, str) or not self.name.strip():
            raise InputError(f"{where}: name must be non-empty text")
        check_topology(self.topology, where)
        object.__setattr__(self, "topology", self.topology.strip())
        if not isinstance(self.description, str):
            raise InputError(f"{where}: description must be text")
        for section in SECTIONS:
            values = {}
            for name, value in getattr(self, section).items():
                key = SCHEMA[section].get(name)
                if key is None:
                    raise unknown_key(where, f"{section}.{name}", SCHEMA[section])
                values[name] = check_value(key, value, where, key.path)
            object.__setattr__(self, section, FrozenMap(ordered(values, SCHEMA[section])))
        node_types = {}
        for type_name, node_type in self.node_types.items():
            if not isinstance(node_type, NodeType) or not TYPE_NAME_RE.fullmatch(type_name):
                raise InputError(f"{where}: bad node type {type_name!r}")
            prefix = f"node_types.{type_name}"
            count = check_value(NODE_TYPE_KEYS["count"], node_type.count, where, f"{prefix}.count")
            params = {}
            for name, value in node_type.params.items():
                key = NODE_TYPE_KEYS.get(name)
                if key is None or name == "count":
                    raise unknown_key(where, f"{prefix}.{name}", NODE_TYPE_KEYS)
                params[name] = check_value(key, value, where, f"{prefix}.{name}")
            node_types[type_name] = NodeType(count, ordered(params, NODE_TYPE_KEYS))
        object.__setattr__(self, "node_types", FrozenMap(node_types))
        object.__setattr__(self, "provenance", FrozenMap(
            {str(k): str(v) for k, v in self.provenance.items()}))
        object.__setattr__(self, "notes", tuple(str(n) for n in self.notes))
        self._check_uncertainty(where)

    def _check_uncertainty(self, where: str) -> None:
        """Every uncertainty names a value the machine has; ``solved_with`` names numeric
        values; alternatives pass their key's checks."""
        for path, record in self.uncertainty.items():
            if not isinstance(record, Uncertainty):
                raise InputError(f"{where}: {path}: bad uncertainty record {record!r}")
            if path != "topology" and self.get_path(path) is None:
                raise InputError(f"{where}: {path} has a kind but no value")
            for part in record.solved_with:
                key = key_for_path(part, f"{where}: {path}.solved_with")
                if key.kind in DISCRETE or self.get_path(part) is None:
                    raise InputError(f"{where}: {path}.solved_with names {part}, which is"
                                     " not a numeric value of this machine")
                if part == path:
                    raise InputError(f"{where}: {path}.solved_with names itself")
        object.__setattr__(self, "uncertainty", FrozenMap(self.uncertainty))

    # ------------------------------------------------------------------------------ access

    def get(self, path: str, default: Any = None) -> Any:
        """The value at ``"section.key"`` (or ``"topology"``), or ``default`` when absent."""
        if path == "topology":
            return self.topology
        section, _, name = path.partition(".")
        if section not in SCHEMA:
            return default
        return getattr(self, section).get(name, default)

    def require(self, path: str) -> Value:
        """The value at ``"section.key"``; InputError saying how to supply it when absent."""
        section, _, name = path.partition(".")
        if section not in SCHEMA or name not in SCHEMA[section]:
            raise ValueError(f"{path!r} is not a machine key")
        value = getattr(self, section).get(name)
        if value is None:
            key = SCHEMA[section][name]
            raise InputError(
                f"machine {self.name!r} has no {path} ({key.meaning}); add it to the machine "
                f"file or pass --set {path}={value_syntax(key)}"
            )
        return value

    def size_note(self) -> str:
        """How ``system.nodes`` compares with the topology's endpoints, in one sentence
        ("" when the key is absent or they are equal): a network built from whole switches
        often holds more endpoints than the machine has nodes, and default jobs run on the
        nodes (``Layout.machine_job``)."""
        from icnperf.model.topology.spec import parse_spec

        nodes = self.system.get("nodes")
        spec = parse_spec(self.topology)
        endpoints = int(spec.family.endpoints(spec.params))
        if nodes is None or nodes == endpoints:
            return ""
        if nodes > endpoints:
            return (f"system.nodes = {nodes:,} is more than the {endpoints:,} endpoints of "
                    f"{self.topology}: default jobs run on all {endpoints:,}")
        if spec.family.name in ("torus", "hypercube"):
            return (f"the torus {self.topology} holds {endpoints:,} nodes, system.nodes "
                    f"says {nodes:,}: default jobs run on the whole torus")
        return (f"the topology {self.topology} holds {endpoints:,} endpoints, more than the "
                f"machine's {nodes:,} nodes (system.nodes): a default job takes {nodes:,} "
                "of them")

    def get_path(self, path: str) -> Any:
        """The value at any dotted path, node types included (``node_types.A.count``), or
        None when absent."""
        parts = path.split(".")
        if parts[0] == "node_types" and len(parts) == 3:
            node_type = self.node_types.get(parts[1])
            if node_type is None:
                return None
            return node_type.count if parts[2] == "count" else node_type.params.get(parts[2])
        return self.get(path)

    def spread(self, path: str) -> Uncertainty | None:
        """The kind and spread of the value at ``path`` (None when none is stated)."""
        return self.uncertainty.get(path)

    def source(self, path: str) -> str:
        """Where the value at ``path`` came from ("" when the file does not say)."""
        return self.provenance.get(path, "")

    # --------------------------------------------------------------------------- changing

    def with_overrides(self, items: Iterable[str]) -> Machine:
        """A copy with ``section.key=value`` items applied (the CLI's ``--set``).

        Values are parsed with the key's unit kind (``network.link_latency=60ns``); paths are
        ``topology``, ``SECTION.KEY`` or ``node_types.NAME.KEY``. Each overridden value's
        provenance becomes ``--set PATH=VALUE``; it is exact (kind ``given``) unless written
        with its own spread (``network.link_latency=60ns+-10%``). Unknown paths and bad
        values raise InputError.
        """
        values, sources, spreads = parse_overrides(items)
        return self._with(values, sources, spreads)

    def with_values(self, values: Mapping[str, Value], source: str,
                    spreads: Mapping[str, Uncertainty] | None = None) -> Machine:
        """A copy with SI values set at the given paths, each credited to ``source``
        (e.g. a calibration: ``{"network.router_latency": 1.2e-8}``) with its uncertainty
        from ``spreads`` (a path not in it has none stated: it was computed from other
        values)."""
        checked = {}
        for path, value in values.items():
            if path == "topology":
                check_topology(value, source)
            else:
                value = check_value(key_for_path(path, source), value, source, path)
            checked[path] = value
        return self._with(checked, {path: source for path in checked}, spreads or {})

    def _with(self, values: Mapping[str, Value], sources: Mapping[str, str],
              spreads: Mapping[str, Uncertainty]) -> Machine:
        sections = {s: dict(getattr(self, s)) for s in SECTIONS}
        types = {n: (t.count, dict(t.params)) for n, t in self.node_types.items()}
        topology = self.topology
        for path, value in values.items():
            parts = path.split(".")
            if parts[0] == "topology":
                topology = value
            elif parts[0] == "node_types":
                count, params = types.get(parts[1], (None, {}))
                if parts[2] == "count":
                    count = value
                else:
                    params[parts[2]] = value
                types[parts[1]] = (count, params)
            else:
                sections[parts[0]][parts[1]] = value
        node_types = {}
        for name, (count, params) in types.items():
            if count is None:
                raise InputError(
                    f"node type {name!r} is new: set node_types.{name}.count as well"
                )
            node_types[name] = NodeType(count, params)
        return replace(
            self,
            topology=topology,
            node_types=node_types,
            provenance={**self.provenance, **sources},
            uncertainty={**{p: u for p, u in self.uncertainty.items() if p not in values},
                         **{p: u for p, u in spreads.items() if p in values}},
            **sections,
        )

    # ---------------------------------------------------------------------------- output

    def rows(self, digits: int = 4) -> list[tuple[str, str, Value, str, str]]:
        """(section, key, SI value, formatted value with unit, source) for every value set,
        in schema order; node types appear as sections ``node_types.NAME``."""
        return machine_rows(self, digits)

    def as_dict(self) -> dict:
        """A JSON-serialisable description (SI numbers), for stamping outputs with inputs."""
        return machine_dict(self)

    def to_toml(self) -> str:
        """The machine as a TOML file that :func:`parse_machine` reads back equal.

        Dimensioned values are written in their key's display unit (or the best prefix) with
        the shortest digits that give back exactly the same float.
        """
        return machine_toml(self)


def parse_machine(text: str, origin: str = "<string>", default_name: str | None = None) -> Machine:
    """Build a Machine from machine-file TOML text; errors name ``origin`` and, where they
    can, the line. ``default_name`` is used when the file has no ``name``."""
    return Machine(**machine_fields(text, origin, default_name))
