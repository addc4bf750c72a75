"""``icnperf machines`` and ``icnperf machine``: presets listed and one machine shown."""

from __future__ import annotations

from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text

PRESET_COLUMNS = (Column("name", "name"), Column("system", "system"), Column("site", "site"),
                  Column("year", "year"),
                  Column("description", "description", overflow="wrap"))
MACHINE_COLUMNS = (Column("section", "section"), Column("key", "key", keep=True),
                   Column("shown", "value", overflow="wrap"),
                   Column("source", "source", overflow="note"))


def presets_text(fmt: str, wide: bool = False) -> str:
    """The bundled presets, one per row with the system, site and year their [system]
    section names (descriptions wrapped unless ``wide``)."""
    from icnperf.data.machine import list_presets, load_machine

    rows = []
    for name, description in list_presets():
        machine = load_machine(name)
        year = machine.system.get("year")
        rows.append({"name": name, "system": machine.system.get("name", ""),
                     "site": machine.system.get("site", ""),
                     "year": "" if year is None else str(year), "description": description})
    if fmt == "json":
        return json_text({"machines": rows})
    if fmt == "csv":
        return csv_text(rows, ["name", "system", "site", "year", "description"])
    page = Page(wide)
    page.table(rows, PRESET_COLUMNS)
    return page.text()


UNCERTAINTY_COLUMNS = MACHINE_COLUMNS[:3] + (
    Column("kind", "kind"), Column("spread", "spread"),
    Column("spread_reason", "why", overflow="note"), MACHINE_COLUMNS[3])
"""``icnperf machine --uncertainty``: each value's kind, spread and its reason."""


def machine_text(name: str, overrides: tuple[str, ...], fmt: str, wide: bool = False,
                 uncertainty: bool = False) -> str:
    """One machine's parameters with units and sources, after --set overrides (sources as
    numbered notes under the table unless ``wide``); ``uncertainty``: each value's kind,
    spread (as a few characters; counts and choices exact unless alternatives are listed)
    and the spread's reason."""
    from icnperf.data.machine import load_machine

    machine = load_machine(name).with_overrides(list(overrides))
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
    if fmt == "json":
        return json_text({"inputs": {"machine": name, "set": list(overrides)},
                          "name": machine.name, "description": machine.description,
                          "topology": machine.topology, "size": machine.size_note(),
                          "parameters": rows,
                          "notes": list(machine.notes)})
    if fmt == "csv":
        return csv_text(rows, ["section", "key", "value", "source"] + (
            ["kind", "spread", "spread_reason"] if uncertainty else []))
    page = Page(wide)
    page.line(f"{machine.name}: {machine.description}")
    page.line(f"topology: {machine.topology}")
    if machine.size_note():
        page.line(machine.size_note())
    page.blank()
    page.table(rows, UNCERTAINTY_COLUMNS if uncertainty else MACHINE_COLUMNS)
    if machine.notes:
        page.blank()
        page.notes("notes", machine.notes)
    return page.text()
