"""Machine = topology + network + node + software parameters, with the source of each value.

A machine comes from a TOML file: a bundled preset (``icnperf/data/machines/NAME.toml``) or a
user's file. Values are written with units (``"80 ns"``, ``"75 Gbit/s"``), counts as bare
integers; inside a :class:`Machine` every value is an SI number. Each value may carry its
source next to it::

    [network]
    link_latency.value = "80 ns"
    link_latency.source = "seeds/000 Table 'Parameters of the evaluated supercomputer'"
    flit_size = "16 B"                      # a value without a recorded source

The format, every key and its unit kind are documented in docs/machine-format.md; the keys
are declared once, in :data:`SCHEMA`. Nothing here knows formulas: models take the numbers.
"""

from __future__ import annotations

import math
import numbers
import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from icnperf import units
from icnperf.errors import InputError

__all__ = [
    "FORMAT_VERSION",
    "SCHEMA",
    "SECTIONS",
    "Key",
    "Machine",
    "NodeType",
    "list_presets",
    "load_machine",
    "parse_machine",
    "write_machine",
]

FORMAT_VERSION = 1
"""The machine-file format this module reads and writes (top-level key ``format``)."""


@dataclass(frozen=True)
class Key:
    """One allowed machine parameter.

    ``kind`` is a units.py kind (time, bandwidth, size, frequency, rate, count, cycles) or
    ``choice`` (one of ``choices``) or ``text`` (free text, shown but not used by models).
    ``positive`` keys must be > 0 (others ≥ 0); ``unit`` is the preferred display unit.
    """

    section: str
    name: str
    kind: str
    meaning: str
    positive: bool = False
    unit: str | None = None
    choices: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        return f"{self.section}.{self.name}"

    @property
    def dimensioned(self) -> bool:
        """True when a bare number is not enough: the value needs a unit."""
        return self.kind in ("time", "bandwidth", "size", "frequency", "rate")


_SWITCHING = ("cut-through", "store-and-forward")


def _keys(section: str, *rows: tuple) -> dict[str, Key]:
    out = {}
    for name, kind, meaning, *extra in rows:
        options = extra[0] if extra else {}
        out[name] = Key(section, name, kind, meaning, **options)
    return out


SCHEMA: dict[str, dict[str, Key]] = {
    "network": _keys(
        "network",
        ("link_latency", "time",
         "time for data to cross one router-router link (wire + SerDes), charged per hop"),
        ("link_bandwidth", "bandwidth",
         "payload bandwidth of one link in one direction", {"positive": True, "unit": "Gbit/s"}),
        ("router_latency", "time",
         "time for a packet head to pass one router's pipeline, charged per router traversed"),
        ("router_clock", "frequency", "router (network adapter) clock", {"positive": True}),
        ("router_pipeline_cycles", "cycles",
         "router pipeline depth in router clock cycles (routing, VC allocation, switch "
         "allocation, traversal) for cycle-level descriptions"),
        ("terminal_link_latency", "cycles",
         "router-terminal (endpoint) link traversal in router clock cycles"),
        ("router_link_latency", "cycles",
         "router-router link traversal in router clock cycles"),
        ("flit_size", "size", "smallest unit of transfer (flit)", {"positive": True}),
        ("packet_max_flits", "count",
         "largest packet in flits, header flits included", {"positive": True}),
        ("packet_header_flits", "count",
         "flits of every packet that carry the header instead of payload"),
        ("injection_latency", "time",
         "host -> router: from the send call's doorbell to the packet entering the router, "
         "host interface (e.g. PCIe) included"),
        ("ejection_latency", "time",
         "router -> host: from the packet leaving the router to the data in host memory"),
        ("host_bandwidth", "bandwidth",
         "host interface (e.g. PCIe) bandwidth per direction", {"positive": True, "unit": "GB/s"}),
        ("virtual_channels", "count", "virtual channels per input port", {"positive": True}),
        ("vc_buffer_flits", "count", "buffer depth of one virtual channel in flits",
         {"positive": True}),
        ("switching", "choice",
         "how ordinary packets cross a router: cut-through forwards the head before the tail "
         "arrives, store-and-forward waits for the whole packet", {"choices": _SWITCHING}),
        ("collective_switching", "choice",
         "the same for hardware-collective (tree) channels", {"choices": _SWITCHING}),
        ("ring_ties", "choice",
         "how a torus routes a message exactly half a ring away in the collective and "
         "application message mapping: plus sends it in the + direction, split sends it + "
         "from even and - from odd ring positions (absent: plus)",
         {"choices": ("plus", "split")}),
        ("tree_routing", "choice",
         "up-port rule of fat trees (fattree, clos, xgft): random spreads every packet over "
         "the up ports, dmodk picks port floor(d / w1..w_l) mod (w·p) by destination d as "
         "SimGrid's FatTreeZone (absent: random)",
         {"choices": ("random", "dmodk")}),
        ("collective_trees", "count",
         "hardware collective trees the routers support (absent: no hardware collectives)"),
    ),
    "node": _keys(
        "node",
        ("cpu", "text", "processor(s) of one node, for display"),
        ("peak_flops", "rate", "peak floating-point rate of one node", {"positive": True}),
        ("memory_bandwidth", "bandwidth", "peak DRAM bandwidth of one node (all sockets)",
         {"positive": True, "unit": "GB/s"}),
        ("cores", "count", "CPU cores of one node", {"positive": True}),
        ("processes_per_node", "count", "default number of processes placed on one node",
         {"positive": True}),
        ("spmv_rate", "rate", "measured single-node sparse matrix-vector product rate",
         {"positive": True}),
        ("stencil_rate", "rate", "measured single-node rate of the heat-equation stencil",
         {"positive": True}),
        ("stencil_overhead", "time",
         "fixed time of one stencil sweep on one node whatever the block size (thread "
         "start-up and join, loop set-up; absent: 0)"),
    ),
    "software": _keys(
        "software",
        ("mpi_latency", "time",
         "published one-way latency of a small MPI message between two neighbouring nodes"),
        ("shmem_latency", "time",
         "published one-way latency of a small SHMEM put between two neighbouring nodes"),
        ("mpi_overhead", "time",
         "software time MPI adds per message on top of the network path (send + receive)"),
        ("shmem_overhead", "time",
         "software time SHMEM adds per message on top of the network path"),
        ("eager_limit", "size",
         "largest message MPI sends eagerly; larger ones pay a rendezvous handshake"),
    ),
}
"""Every allowed key, by section and name: its unit kind and meaning. The one place keys live."""

SECTIONS = tuple(SCHEMA)
"""The parameter sections, in file order."""

NODE_TYPE_KEYS: dict[str, Key] = {
    "count": Key("node_types", "count", "count", "nodes of this type in the machine"),
    **{
        name: replace(key, section="node_types")
        for name, key in SCHEMA["node"].items()
        if name != "processes_per_node"
    },
}
"""Keys of a ``[node_types.NAME]`` table: a count and the node keys."""

_TOP_LEVEL = ("format", "name", "description", "topology", "notes", *SECTIONS, "node_types")
_TYPE_NAME_RE = re.compile(r"[A-Za-z0-9_-]+")
_PRESET_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]*")

Value = float | int | str


class _FrozenMap(Mapping):
    """A read-only, picklable, hashable mapping (dataclass fields of a frozen Machine)."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping | Iterable = ()):
        self._data = dict(data)

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self) -> Iterator:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        return hash(frozenset(self._data.items()))

    def __repr__(self) -> str:
        return repr(self._data)

    def __getstate__(self):
        return self._data

    def __setstate__(self, state):
        self._data = state


@dataclass(frozen=True)
class NodeType:
    """One kind of node in a heterogeneous machine: how many, and its node parameters
    (keys of the ``node`` section, ``cpu`` naming the processor)."""

    count: int
    params: Mapping[str, Value] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "params", _FrozenMap(self.params))


@dataclass(frozen=True)
class Machine:
    """A machine: topology spec text plus SI-valued parameters and where each came from.

    ``network``, ``node`` and ``software`` map key names of :data:`SCHEMA` to SI numbers
    (ints for counts and cycles, str for choices and text). ``provenance`` maps a dotted path
    (``"network.link_latency"``, ``"topology"``, ``"node_types.A.count"``) to its source text.
    ``node_types`` (optional) records a heterogeneous node mix. ``origin`` says where the
    machine was loaded from and takes no part in equality.
    """

    name: str
    topology: str
    description: str = ""
    network: Mapping[str, Value] = field(default_factory=dict)
    node: Mapping[str, Value] = field(default_factory=dict)
    software: Mapping[str, Value] = field(default_factory=dict)
    node_types: Mapping[str, NodeType] = field(default_factory=dict)
    provenance: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    origin: str = field(default="", compare=False)

    def __post_init__(self):
        where = self.origin or f"machine {self.name!r}"
        if not isinstance(self.name, str) or not self.name.strip():
            raise InputError(f"{where}: name must be non-empty text")
        _check_topology(self.topology, where)
        object.__setattr__(self, "topology", self.topology.strip())
        if not isinstance(self.description, str):
            raise InputError(f"{where}: description must be text")
        for section in SECTIONS:
            values = {}
            for name, value in getattr(self, section).items():
                key = SCHEMA[section].get(name)
                if key is None:
                    raise _unknown_key(where, f"{section}.{name}", SCHEMA[section])
                values[name] = _check_value(key, value, where, key.path)
            object.__setattr__(self, section, _FrozenMap(_ordered(values, SCHEMA[section])))
        node_types = {}
        for type_name, node_type in self.node_types.items():
            if not isinstance(node_type, NodeType) or not _TYPE_NAME_RE.fullmatch(type_name):
                raise InputError(f"{where}: bad node type {type_name!r}")
            prefix = f"node_types.{type_name}"
            count = _check_value(NODE_TYPE_KEYS["count"], node_type.count, where, f"{prefix}.count")
            params = {}
            for name, value in node_type.params.items():
                key = NODE_TYPE_KEYS.get(name)
                if key is None or name == "count":
                    raise _unknown_key(where, f"{prefix}.{name}", NODE_TYPE_KEYS)
                params[name] = _check_value(key, value, where, f"{prefix}.{name}")
            node_types[type_name] = NodeType(count, _ordered(params, NODE_TYPE_KEYS))
        object.__setattr__(self, "node_types", _FrozenMap(node_types))
        object.__setattr__(self, "provenance", _FrozenMap(
            {str(k): str(v) for k, v in self.provenance.items()}))
        object.__setattr__(self, "notes", tuple(str(n) for n in self.notes))

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
            example = units.KINDS[key.kind].example if key.kind in units.KINDS else "..."
            raise InputError(
                f"machine {self.name!r} has no {path} ({key.meaning}); add it to the machine "
                f"file or pass --set {path}={example.replace(' ', '')}"
            )
        return value

    def source(self, path: str) -> str:
        """Where the value at ``path`` came from ("" when the file does not say)."""
        return self.provenance.get(path, "")

    # --------------------------------------------------------------------------- changing

    def with_overrides(self, items: Iterable[str]) -> Machine:
        """A copy with ``section.key=value`` items applied (the CLI's ``--set``).

        Values are parsed with the key's unit kind (``network.link_latency=60ns``); paths are
        ``topology``, ``SECTION.KEY`` or ``node_types.NAME.KEY``. Each overridden value's
        provenance becomes ``--set PATH=VALUE``. Unknown paths and bad values raise InputError.
        """
        values: dict[str, Value] = {}
        sources: dict[str, str] = {}
        for item in items:
            path, sep, text = item.partition("=")
            path = path.strip()
            if not sep or not path:
                raise InputError(
                    f"--set {item!r}: expected SECTION.KEY=VALUE (e.g. network.link_latency=60ns)"
                )
            where = f"--set {item}"
            if path == "topology":
                value: Value = text.strip()
                _check_topology(value, where)
            else:
                key = _key_for_path(path, where)
                value = _parse_value(key, text, where, path)
            values[path] = value
            sources[path] = f"--set {path}={text.strip()}"
        return self._with(values, sources)

    def with_values(self, values: Mapping[str, Value], source: str) -> Machine:
        """A copy with SI values set at the given paths, each credited to ``source``
        (e.g. a calibration: ``{"network.router_latency": 1.2e-8}``)."""
        checked = {}
        for path, value in values.items():
            if path == "topology":
                _check_topology(value, source)
            else:
                value = _check_value(_key_for_path(path, source), value, source, path)
            checked[path] = value
        return self._with(checked, {path: source for path in checked})

    def _with(self, values: Mapping[str, Value], sources: Mapping[str, str]) -> Machine:
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
            **sections,
        )

    # ---------------------------------------------------------------------------- output

    def rows(self, digits: int = 4) -> list[tuple[str, str, Value, str, str]]:
        """(section, key, SI value, formatted value with unit, source) for every value set,
        in schema order; node types appear as sections ``node_types.NAME``."""
        out = [("machine", "topology", self.topology, self.topology, self.source("topology"))]
        for section in SECTIONS:
            for name, value in getattr(self, section).items():
                key = SCHEMA[section][name]
                out.append((section, name, value, _display(key, value, digits),
                            self.source(key.path)))
        for type_name, node_type in self.node_types.items():
            section = f"node_types.{type_name}"
            out.append((section, "count", node_type.count, str(node_type.count),
                        self.source(f"{section}.count")))
            for name, value in node_type.params.items():
                out.append((section, name, value, _display(NODE_TYPE_KEYS[name], value, digits),
                            self.source(f"{section}.{name}")))
        return out

    def as_dict(self) -> dict:
        """A JSON-serialisable description (SI numbers), for stamping outputs with inputs."""
        return {
            "name": self.name,
            "description": self.description,
            "topology": self.topology,
            **{s: dict(getattr(self, s)) for s in SECTIONS},
            "node_types": {
                n: {"count": t.count, **t.params}
                for n, t in self.node_types.items()
            },
            "provenance": dict(self.provenance),
            "notes": list(self.notes),
        }

    def to_toml(self) -> str:
        """The machine as a TOML file that :func:`parse_machine` reads back equal.

        Dimensioned values are written in their key's display unit (or the best prefix) with
        the shortest digits that give back exactly the same float.
        """
        lines = [
            f"# icnperf machine file, format {FORMAT_VERSION}; see docs/machine-format.md",
            f"format = {FORMAT_VERSION}",
            f"name = {_toml_str(self.name)}",
            f"description = {_toml_str(self.description)}",
        ]
        lines += _toml_entry("topology", _toml_str(self.topology), self.source("topology"))
        if self.notes:
            lines.append("notes = [")
            lines += [f"    {_toml_str(note)}," for note in self.notes]
            lines.append("]")
        for section in SECTIONS:
            values = getattr(self, section)
            if not values:
                continue
            lines += ["", f"[{section}]"]
            for name, value in values.items():
                key = SCHEMA[section][name]
                lines += _toml_entry(name, _toml_value(key, value), self.source(key.path))
        for type_name, node_type in self.node_types.items():
            prefix = f"node_types.{type_name}"
            lines += ["", f"[{prefix}]"]
            lines += _toml_entry("count", str(node_type.count), self.source(f"{prefix}.count"))
            for name, value in node_type.params.items():
                lines += _toml_entry(name, _toml_value(NODE_TYPE_KEYS[name], value),
                                     self.source(f"{prefix}.{name}"))
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------- checks


def _ordered(values: Mapping[str, Value], keys: Mapping[str, Key]) -> dict[str, Value]:
    return {name: values[name] for name in keys if name in values}


def _unknown_key(where: str, path: str, known: Mapping[str, Key]) -> InputError:
    return InputError(f"{where}: unknown key {path!r} (known: {', '.join(known)})")


def _check_topology(value: Any, where: str) -> None:
    """Raise InputError unless value is a topology spec the model accepts."""
    from icnperf.model.topology.spec import parse_spec

    if not isinstance(value, str):
        raise InputError(f"{where}: topology must be a spec such as 'torus:16x16x32', got {value!r}")
    try:
        parse_spec(value)
    except InputError as error:
        raise InputError(f"{where}: {error}") from None


def _check_value(key: Key, value: Any, where: str, path: str) -> Value:
    """Check an already-SI value against its key (type, sign, integrality, choices) and
    return it as a plain Python int (counts, cycles), float or str."""
    if key.kind in ("choice", "text"):
        if not isinstance(value, str):
            raise InputError(f"{where}: {path} must be text, got {value!r}")
        if key.kind == "choice" and value not in key.choices:
            raise InputError(
                f"{where}: {path} = {value!r} is not one of: {', '.join(key.choices)}"
            )
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{where}: {path} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise InputError(f"{where}: {path} must be finite, got {value!r}")
    if value < 0:
        raise InputError(f"{where}: {path} = {value!r} is negative; values must be >= 0")
    if key.positive and value == 0:
        raise InputError(f"{where}: {path} must be greater than 0")
    if key.kind in ("count", "cycles"):
        if not isinstance(value, numbers.Integral):
            raise InputError(f"{where}: {path} must be a whole number, got {value!r}")
        return int(value)
    return float(value)


def _parse_value(key: Key, raw: Any, where: str, path: str) -> Value:
    """A TOML or --set value (text, number) for ``key`` -> checked SI value."""
    if key.kind in ("choice", "text"):
        return _check_value(key, raw.strip() if isinstance(raw, str) else raw, where, path)
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        raise InputError(f"{where}: {path} must be a number or text with a unit, got {raw!r}")
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        if not math.isfinite(raw):
            raise InputError(f"{where}: {path} must be finite, got {raw!r}")
        if raw < 0:
            raise InputError(f"{where}: {path} = {raw!r} is negative; values must be >= 0")
        if key.dimensioned and raw != 0:
            example = units.KINDS[key.kind].example.split(" ", 1)[1]
            raise InputError(f"{where}: {path}: {raw!r} has no unit; write e.g. '{raw} {example}'")
    try:
        value = units.parse_quantity(raw, key.kind)
    except InputError as err:
        raise InputError(f"{where}: {path}: {err}") from None
    if key.kind in ("count", "cycles"):
        value = int(value)
    return _check_value(key, value, where, path)


def _key_for_path(path: str, where: str) -> Key:
    parts = path.split(".")
    if parts[0] == "node_types":
        if len(parts) != 3 or not _TYPE_NAME_RE.fullmatch(parts[1]):
            raise InputError(f"{where}: expected node_types.NAME.KEY, got {path!r}")
        key = NODE_TYPE_KEYS.get(parts[2])
        if key is None:
            raise _unknown_key(where, path, NODE_TYPE_KEYS)
        return key
    if parts[0] not in SCHEMA:
        raise InputError(
            f"{where}: unknown section {parts[0]!r} "
            f"(known: topology, {', '.join(SECTIONS)}, node_types.NAME)"
        )
    if len(parts) != 2:
        raise InputError(f"{where}: expected SECTION.KEY, got {path!r}")
    key = SCHEMA[parts[0]].get(parts[1])
    if key is None:
        raise _unknown_key(where, path, SCHEMA[parts[0]])
    return key


def _display(key: Key, value: Value, digits: int) -> str:
    if key.kind in ("choice", "text"):
        return str(value)
    if key.kind == "count":
        return str(value)
    return units.format_quantity(value, key.kind, digits, key.unit)


# ------------------------------------------------------------------------------ TOML writing


def _toml_str(text: str) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _toml_value(key: Key, value: Value) -> str:
    if key.kind in ("choice", "text"):
        return _toml_str(str(value))
    if key.kind in ("count", "cycles"):
        return str(int(value))
    return _toml_str(units.format_quantity(value, key.kind, None, key.unit))


def _toml_entry(name: str, value_text: str, source: str) -> list[str]:
    if not source:
        return [f"{name} = {value_text}"]
    return [f"{name}.value = {value_text}", f"{name}.source = {_toml_str(source)}"]


# ------------------------------------------------------------------------------ TOML reading


def _line_of(text: str, name: str) -> str:
    """", line N" of the first line that assigns ``name`` (best effort, for messages)."""
    quoted = rf"[\"']?{re.escape(name)}[\"']?"
    pattern = re.compile(rf"^\s*(\[+\s*{quoted}\s*[.\]]|{quoted}\s*[.=])")
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return f", line {number}"
    return ""


def _split_entry(raw: Any, where: str, path: str) -> tuple[Any, str]:
    """``value`` or ``{value = ..., source = ...}`` -> (value, source)."""
    if isinstance(raw, dict):
        extra = set(raw) - {"value", "source"}
        if extra or "value" not in raw:
            raise InputError(
                f"{where}: {path} must be a value or a table with 'value' and optional "
                f"'source', got keys {sorted(raw)}"
            )
        source = raw.get("source", "")
        if not isinstance(source, str):
            raise InputError(f"{where}: {path}.source must be text")
        return raw["value"], source
    return raw, ""


def parse_machine(text: str, origin: str = "<string>", default_name: str | None = None) -> Machine:
    """Build a Machine from machine-file TOML text; errors name ``origin`` and, where they
    can, the line. ``default_name`` is used when the file has no ``name``."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{origin}: malformed TOML: {err}") from None

    def where(name: str) -> str:
        return f"{origin}{_line_of(text, name)}"

    for top in doc:
        if top not in _TOP_LEVEL:
            raise InputError(
                f"{where(top)}: unknown key {top!r} (known top-level keys: {', '.join(_TOP_LEVEL)})"
            )
    version = doc.get("format", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise InputError(f"{where('format')}: format {version!r} is not supported "
                         f"(this icnperf reads format {FORMAT_VERSION})")
    provenance: dict[str, str] = {}
    name = doc.get("name", default_name)
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"{where('name')}: 'name' must be non-empty text")
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise InputError(f"{where('description')}: 'description' must be text")
    notes = doc.get("notes", ())
    if isinstance(notes, str):
        notes = (notes,)
    if not isinstance(notes, (list, tuple)) or not all(isinstance(n, str) for n in notes):
        raise InputError(f"{where('notes')}: 'notes' must be text or a list of texts")

    sections: dict[str, dict[str, Value]] = {}
    for section in SECTIONS:
        table = doc.get(section, {})
        if not isinstance(table, dict):
            raise InputError(f"{where(section)}: [{section}] must be a table")
        sections[section] = _read_table(table, SCHEMA[section], section, provenance, where)

    node_types = {}
    types_table = doc.get("node_types", {})
    if not isinstance(types_table, dict):
        raise InputError(f"{where('node_types')}: [node_types] must hold [node_types.NAME] tables")
    for type_name, table in types_table.items():
        prefix = f"node_types.{type_name}"
        if not isinstance(table, dict) or not _TYPE_NAME_RE.fullmatch(type_name):
            raise InputError(f"{where(type_name)}: {prefix} must be a table of node keys")
        params = _read_table(table, NODE_TYPE_KEYS, prefix, provenance, where)
        if "count" not in params:
            raise InputError(f"{where(type_name)}: {prefix} has no 'count'")
        count = params.pop("count")
        node_types[type_name] = NodeType(count, params)

    if "topology" not in doc:
        raise InputError(f"{origin}: no 'topology' (e.g. topology = \"torus:16x16x32\")")
    topology, source = _split_entry(doc["topology"], where("topology"), "topology")
    _check_topology(topology, where("topology"))
    if source:
        provenance["topology"] = source

    return Machine(
        name=name.strip(),
        topology=topology.strip(),
        description=description,
        node_types=node_types,
        provenance=provenance,
        notes=tuple(notes),
        origin=origin,
        **sections,
    )


def _read_table(table, keys, prefix, provenance, where) -> dict[str, Value]:
    values = {}
    for name, raw in table.items():
        path = f"{prefix}.{name}"
        if name not in keys:
            raise _unknown_key(where(name), path, keys)
        value, source = _split_entry(raw, where(name), path)
        values[name] = _parse_value(keys[name], value, where(name), path)
        if source:
            provenance[path] = source
    return values


# ------------------------------------------------------------------------- files and presets


def _presets_dir():
    return resources.files("icnperf").joinpath("data", "machines")


def list_presets() -> list[tuple[str, str]]:
    """(name, description) of every bundled preset, sorted by name."""
    out = []
    for entry in _presets_dir().iterdir():
        if entry.name.endswith(".toml"):
            name = entry.name[: -len(".toml")]
            out.append((name, load_machine(name).description))
    return sorted(out)


def _is_toml_path(name_or_path: str) -> bool:
    from icnperf.data.files import looks_like_path

    return looks_like_path(name_or_path, ".toml")


def load_machine(name_or_path: str) -> Machine:
    """A bundled preset by name (``angara-3d``) or a machine file by path.

    Anything containing a path separator or ending in ``.toml`` is a path; anything else is
    a preset name. Raises InputError for unknown presets, unreadable or invalid files.
    """
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        raise InputError("machine: give a preset name or a path to a .toml file")
    name_or_path = name_or_path.strip()
    if _is_toml_path(name_or_path):
        path = Path(name_or_path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(f"machine file {name_or_path!r} not found") from None
        except IsADirectoryError:
            raise InputError(f"machine file {name_or_path!r} is a directory") from None
        except UnicodeDecodeError:
            raise InputError(f"machine file {name_or_path!r} is not UTF-8 text") from None
        except OSError as err:
            raise InputError(f"cannot read machine file {name_or_path!r}: {err.strerror}") from None
        return parse_machine(text, origin=name_or_path, default_name=path.stem)
    entry = _presets_dir().joinpath(f"{name_or_path}.toml")
    if not _PRESET_NAME_RE.fullmatch(name_or_path) or not entry.is_file():
        names = sorted(
            e.name[: -len(".toml")] for e in _presets_dir().iterdir() if e.name.endswith(".toml")
        )
        raise InputError(
            f"unknown machine preset {name_or_path!r} (presets: {', '.join(names)}; "
            "or give a path to a .toml file)"
        )
    text = entry.read_text(encoding="utf-8")
    return parse_machine(text, origin=f"preset {name_or_path}", default_name=name_or_path)


def write_machine(machine: Machine, path: str | os.PathLike, overwrite: bool = False) -> None:
    """Write ``machine.to_toml()`` to ``path`` atomically (temporary file, then rename).
    Refuses to replace an existing file unless ``overwrite``."""
    from icnperf.data.files import write_atomically

    write_atomically(path, machine.to_toml(), force=overwrite)
