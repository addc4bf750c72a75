"""``icnperf machines`` and ``icnperf machine``: presets listed and one machine shown."""

from __future__ import annotations

from icnperf.reports.render import Column, aligned_table, csv_text, json_text


def presets_text(fmt: str) -> str:
    """The bundled presets, one per row."""
    from icnperf.data.machine import list_presets

    rows = [{"name": name, "description": description} for name, description in list_presets()]
    if fmt == "json":
        return json_text({"machines": rows})
    if fmt == "csv":
        return csv_text(rows, ["name", "description"])
    return aligned_table(rows, [Column("name", "name"), Column("description", "description")]) + "\n"


def machine_text(name: str, overrides: tuple[str, ...], fmt: str) -> str:
    """One machine's parameters with units and sources, after --set overrides."""
    from icnperf.data.machine import load_machine

    machine = load_machine(name).with_overrides(list(overrides))
    rows = [dict(zip(("section", "key", "value", "shown", "source"), row))
            for row in machine.rows()]
    if fmt == "json":
        return json_text({"inputs": {"machine": name, "set": list(overrides)},
                          "name": machine.name, "description": machine.description,
                          "topology": machine.topology, "parameters": rows,
                          "notes": list(machine.notes)})
    if fmt == "csv":
        return csv_text(rows, ["section", "key", "value", "source"])
    table = aligned_table(rows, [Column("section", "section"), Column("key", "key"),
                                 Column("shown", "value"), Column("source", "source")])
    notes = "".join(f"\n  - {n}" for n in machine.notes)
    header = f"{machine.name}: {machine.description}\ntopology: {machine.topology}\n\n"
    return header + table + (f"\n\nnotes:{notes}" if notes else "") + "\n"
