"""A Machine written out: display rows (value with its unit and source), a JSON-ready dict,
and the TOML file that the parser reads back equal.

The functions take any Machine (:mod:`.machine`) and do not import it, so the record can
call them from its methods (``rows``, ``as_dict``, ``to_toml``) without an import circle.
"""

from __future__ import annotations

from typing import Any

from icnperf import units
from icnperf.data.machine.schema import FORMAT_VERSION, NODE_TYPE_KEYS, SCHEMA, SECTIONS, Key, Value
from icnperf.data.machine.uncertainty import default_for

_Machine = Any
"""Annotation of the ``machine`` arguments: an :class:`icnperf.data.machine.Machine` (not
imported here, since the record imports this module)."""


def machine_rows(machine: _Machine, digits: int = 4) -> list[tuple[str, str, Value, str, str]]:
    """(section, key, SI value, formatted value with unit, source) for every value set,
    in schema order; node types appear as sections ``node_types.NAME``."""
    out = [("machine", "topology", machine.topology, machine.topology,
            machine.source("topology"))]
    for section in SECTIONS:
        for name, value in getattr(machine, section).items():
            key = SCHEMA[section][name]
            out.append((section, name, value, _display(key, value, digits),
                        machine.source(key.path)))
    for type_name, node_type in machine.node_types.items():
        section = f"node_types.{type_name}"
        out.append((section, "count", node_type.count, str(node_type.count),
                    machine.source(f"{section}.count")))
        for name, value in node_type.params.items():
            out.append((section, name, value, _display(NODE_TYPE_KEYS[name], value, digits),
                        machine.source(f"{section}.{name}")))
    return out


def machine_dict(machine: _Machine) -> dict:
    """A JSON-serialisable description (SI numbers), for stamping outputs with inputs."""
    return {
        "name": machine.name,
        "description": machine.description,
        "topology": machine.topology,
        **{s: dict(getattr(machine, s)) for s in SECTIONS},
        "node_types": {
            n: {"count": t.count, **t.params}
            for n, t in machine.node_types.items()
        },
        "provenance": dict(machine.provenance),
        "uncertainty": {path: {"kind": u.kind, "form": u.form,
                               "amount": list(u.amount) if u.form == "alternatives"
                               else u.amount, "reason": u.reason,
                               "solved_with": list(u.solved_with)}
                        for path, u in machine.uncertainty.items()},
        "notes": list(machine.notes),
    }


def machine_toml(machine: _Machine) -> str:
    """The machine as a TOML file that :func:`icnperf.data.machine.parse_machine` reads back
    equal.

    Dimensioned values are written in their key's display unit (or the best prefix) with
    the shortest digits that give back exactly the same float.
    """
    lines = [
        f"# icnperf machine file, format {FORMAT_VERSION}; see docs/machine-format.md",
        f"format = {FORMAT_VERSION}",
        f"name = {_toml_str(machine.name)}",
        f"description = {_toml_str(machine.description)}",
    ]
    lines += _toml_entry("topology", _toml_str(machine.topology), machine.source("topology"),
                         machine.spread("topology"), None)
    if machine.notes:
        lines.append("notes = [")
        lines += [f"    {_toml_str(note)}," for note in machine.notes]
        lines.append("]")
    for section in SECTIONS:
        values = getattr(machine, section)
        if not values:
            continue
        lines += ["", f"[{section}]"]
        for name, value in values.items():
            key = SCHEMA[section][name]
            lines += _toml_entry(name, _toml_value(key, value), machine.source(key.path),
                                 machine.spread(key.path), key)
    for type_name, node_type in machine.node_types.items():
        prefix = f"node_types.{type_name}"
        lines += ["", f"[{prefix}]"]
        lines += _toml_entry("count", str(node_type.count), machine.source(f"{prefix}.count"),
                             machine.spread(f"{prefix}.count"), NODE_TYPE_KEYS["count"])
        for name, value in node_type.params.items():
            lines += _toml_entry(name, _toml_value(NODE_TYPE_KEYS[name], value),
                                 machine.source(f"{prefix}.{name}"),
                                 machine.spread(f"{prefix}.{name}"), NODE_TYPE_KEYS[name])
    return "\n".join(lines) + "\n"


def _display(key: Key, value: Value, digits: int) -> str:
    if key.kind in ("choice", "text"):
        return str(value)
    if key.kind == "count":
        return str(value)
    return units.format_quantity(value, key.kind, digits, key.unit)


# ------------------------------------------------------------------------------ TOML writing


def _toml_str(text: str) -> str:
    from icnperf.data.names import toml_string

    return toml_string(text)


def _toml_value(key: Key, value: Value) -> str:
    if key.kind in ("choice", "text"):
        return _toml_str(str(value))
    if key.kind in ("count", "cycles"):
        return str(int(value))
    return _toml_str(units.format_quantity(value, key.kind, None, key.unit))


def _toml_entry(name: str, value_text: str, source: str, spread=None,
                key: Key | None = None) -> list[str]:
    """``name = value``, or the dotted table form with the source and the uncertainty
    fields (kind; the spread, its reason and solved_with only where written)."""
    if not source and spread is None:
        return [f"{name} = {value_text}"]
    lines = [f"{name}.value = {value_text}"]
    if source:
        lines.append(f"{name}.source = {_toml_str(source)}")
    if spread is None:
        return lines
    lines.append(f"{name}.kind = {_toml_str(spread.kind)}")
    if spread.written != "":
        lines.append(f"{name}.uncertainty = {_toml_spread(spread, key)}")
    implied = default_for(spread.kind, key).reason if spread.written == "" else None
    if spread.reason and spread.reason != implied:
        lines.append(f"{name}.uncertainty_reason = {_toml_str(spread.reason)}")
    if spread.solved_with:
        paths = ", ".join(_toml_str(p) for p in spread.solved_with)
        lines.append(f"{name}.solved_with = [{paths}]")
    return lines


def _toml_spread(spread, key: Key | None) -> str:
    """The written spread: its text, or the alternatives as a TOML list."""
    if spread.form == "alternatives":
        return "[" + ", ".join(_toml_value(key, v) for v in spread.amount) + "]"
    return _toml_str(str(spread.written))
