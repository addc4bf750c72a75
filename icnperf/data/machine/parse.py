"""Machine text in: a machine file's TOML -> the Machine's fields, and the CLI's ``--set
SECTION.KEY=VALUE`` items -> checked values with their provenance.

Values are parsed with their key's unit kind (:mod:`.schema`); every problem is a one-line
InputError naming the file (or the ``--set`` item) and, where it can, the line. TOML is
read by :func:`icnperf.data.files.load_toml` (a byte-order mark allowed, nesting capped). The fields
are plain data; :func:`icnperf.data.machine.parse_machine` builds the Machine from them.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from icnperf.data.files import TOMLProblem, load_toml, printable
from icnperf.data.machine.schema import (
    FORMAT_VERSION,
    NODE_TYPE_KEYS,
    SCHEMA,
    SECTIONS,
    TOP_LEVEL,
    TYPE_NAME_RE,
    NodeType,
    Value,
    check_topology,
    key_for_path,
    parse_value,
    unknown_key,
)
from icnperf.data.machine.uncertainty import Uncertainty, make
from icnperf.data.names import MAX_LABEL, MAX_TEXT, check_label
from icnperf.errors import InputError

_SPREAD_SIGNS = ("±", "+-")
"""What separates a ``--set`` value from its own spread (``60ns+-10%``)."""

_ENTRY_KEYS = ("value", "source", "kind", "uncertainty", "uncertainty_reason", "solved_with")


def parse_overrides(items: Iterable[str]) -> tuple[dict[str, Value], dict[str, str],
                                                   dict[str, Uncertainty]]:
    """``--set`` items -> ({path: checked value}, {path: provenance ``--set PATH=VALUE``},
    {path: its uncertainty}).

    Paths are ``topology``, ``SECTION.KEY`` or ``node_types.NAME.KEY``; values are parsed
    with the key's unit kind (``network.link_latency=60ns``). A value is exact (kind
    ``given``) unless it carries its own spread after ``+-`` or ``±``
    (``network.link_latency=60ns+-10%``, ``...=60ns+-5ns``). Unknown paths and bad values
    raise InputError.
    """
    values: dict[str, Value] = {}
    sources: dict[str, str] = {}
    spreads: dict[str, Uncertainty] = {}
    for item in items:
        path, sep, text = item.partition("=")
        path = path.strip()
        if not sep or not path:
            raise InputError(
                f"--set {item!r}: expected SECTION.KEY=VALUE (e.g. network.link_latency=60ns)"
            )
        where = f"--set {printable(item)}"
        if path == "topology":
            value: Value = text.strip()
            check_topology(value, where)
            key = None
        else:
            key = key_for_path(path, where)
        spread = ""
        if key is not None and key.kind != "text":
            for sign in _SPREAD_SIGNS:
                if sign in text:
                    text, _, spread = text.partition(sign)
                    spread = spread.strip()
                    break
        if key is not None:
            value = parse_value(key, text, where, path)
        values[path] = value
        sources[path] = f"--set {path}={text.strip()}" + (f" +- {spread}" if spread else "")
        spreads[path] = make(key, "given", spread, "given on the command line" if spread
                             else "", (), where, path)
    return values, sources, spreads


def _line_of(text: str, name: str) -> str:
    """", line N" of the first line that assigns ``name`` (best effort, for messages)."""
    quoted = rf"[\"']?{re.escape(name)}[\"']?"
    pattern = re.compile(rf"^\s*(\[+\s*{quoted}\s*[.\]]|{quoted}\s*[.=])")
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return f", line {number}"
    return ""


def _split_entry(raw: Any, where: str, path: str) -> tuple[Any, str, dict]:
    """``value`` or ``{value = ..., source = ..., kind = ..., ...}`` -> (value, source,
    the uncertainty fields written: kind, uncertainty, uncertainty_reason, solved_with)."""
    if isinstance(raw, dict):
        extra = set(raw) - set(_ENTRY_KEYS)
        if extra or "value" not in raw:
            raise InputError(
                f"{where}: {path} must be a value or a table with 'value' and optional "
                f"{', '.join(repr(k) for k in _ENTRY_KEYS[1:])}, got keys {sorted(raw)}"
            )
        source = raw.get("source", "")
        if not isinstance(source, str):
            raise InputError(f"{where}: {path}.source must be text")
        try:
            check_label(source, f"{path}.source", MAX_TEXT)
        except InputError as error:
            raise InputError(f"{where}: {error}") from None
        fields = {k: raw[k] for k in _ENTRY_KEYS[2:] if k in raw}
        if fields and "kind" not in fields:
            raise InputError(f"{where}: {path} gives {', '.join(sorted(fields))} without a"
                             " kind: add kind (one of the words in docs/machine-format.md,"
                             " 'Uncertainty')")
        reason = fields.get("uncertainty_reason", "")
        if isinstance(reason, str):
            try:
                check_label(reason, f"{path}.uncertainty_reason", MAX_TEXT)
            except InputError as error:
                raise InputError(f"{where}: {error}") from None
        return raw["value"], source, fields
    return raw, "", {}


def _uncertainty(key, fields: dict, where: str, path: str) -> Uncertainty | None:
    """The record of an entry's uncertainty fields (None when it gives no kind)."""
    if not fields:
        return None
    return make(key, fields["kind"], fields.get("uncertainty", ""),
                fields.get("uncertainty_reason", ""), fields.get("solved_with", ()),
                where, path)


def machine_fields(text: str, origin: str = "<string>",
                   default_name: str | None = None) -> dict[str, Any]:
    """Machine-file TOML text -> the keyword arguments of ``Machine`` (name, topology,
    description, the sections, node_types, provenance, notes, origin). Errors name
    ``origin`` and, where they can, the line. ``default_name`` is used when the file has
    no ``name``."""
    try:
        doc = load_toml(text)
    except TOMLProblem as err:
        raise InputError(f"{origin}: malformed TOML: {err}") from None

    def where(name: str) -> str:
        return f"{origin}{_line_of(text, name)}"

    for top in doc:
        if top not in TOP_LEVEL:
            raise InputError(
                f"{where(top)}: unknown key {top!r} (known top-level keys: {', '.join(TOP_LEVEL)})"
            )
    version = doc.get("format", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise InputError(f"{where('format')}: format {version!r} is not supported "
                         f"(this icnperf reads format {FORMAT_VERSION})")
    provenance: dict[str, str] = {}
    spreads: dict[str, Uncertainty] = {}
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
    for key, texts, limit in (("name", [name] if "name" in doc else [], MAX_LABEL),
                              ("description", [description], MAX_TEXT),
                              ("notes", notes, MAX_TEXT)):
        for shown in texts:
            try:
                check_label(shown, f"'{key}'", limit)
            except InputError as error:
                raise InputError(f"{where(key)}: {error}") from None

    sections: dict[str, dict[str, Value]] = {}
    for section in SECTIONS:
        table = doc.get(section, {})
        if not isinstance(table, dict):
            raise InputError(f"{where(section)}: [{section}] must be a table")
        sections[section] = _read_table(table, SCHEMA[section], section, provenance, spreads,
                                        where)

    node_types = {}
    types_table = doc.get("node_types", {})
    if not isinstance(types_table, dict):
        raise InputError(f"{where('node_types')}: [node_types] must hold [node_types.NAME] tables")
    for type_name, table in types_table.items():
        prefix = f"node_types.{type_name}"
        if not isinstance(table, dict) or not TYPE_NAME_RE.fullmatch(type_name):
            raise InputError(f"{where(type_name)}: {prefix} must be a table of node keys")
        params = _read_table(table, NODE_TYPE_KEYS, prefix, provenance, spreads, where)
        if "count" not in params:
            raise InputError(f"{where(type_name)}: {prefix} has no 'count'")
        count = params.pop("count")
        node_types[type_name] = NodeType(count, params)

    if "topology" not in doc:
        raise InputError(f"{origin}: no 'topology' (e.g. topology = \"torus:16x16x32\")")
    topology, source, fields = _split_entry(doc["topology"], where("topology"), "topology")
    check_topology(topology, where("topology"))
    if source:
        provenance["topology"] = source
    if fields:
        spreads["topology"] = _uncertainty(None, fields, where("topology"), "topology")

    return {
        "name": name.strip(),
        "topology": topology.strip(),
        "description": description,
        "node_types": node_types,
        "provenance": provenance,
        "uncertainty": spreads,
        "notes": tuple(notes),
        "origin": origin,
        **sections,
    }


def _read_table(table, keys, prefix, provenance, spreads, where) -> dict[str, Value]:
    values = {}
    for name, raw in table.items():
        path = f"{prefix}.{name}"
        if name not in keys:
            raise unknown_key(where(name), path, keys)
        value, source, fields = _split_entry(raw, where(name), path)
        values[name] = parse_value(keys[name], value, where(name), path)
        if source:
            provenance[path] = source
        if fields:
            spreads[path] = _uncertainty(keys[name], fields, where(name), path)
    return values

