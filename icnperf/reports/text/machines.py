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


def presets_render(rows: list[dict], fmt: str, wide: bool = False) -> str:
    """The bundled presets, one per row with the system, site and year their [system]
    section names (descriptions wrapped unless ``wide``)."""
    if fmt == "json":
        return json_text({"machines": rows})
    if fmt == "csv":
        return csv_text(rows, ["name", "system", "site", "year", "description"])
    page = Page(wide)
    page.table(rows, PRESET_COLUMNS)
    return page.text()


def machine_document(machine, inputs: dict) -> dict:
    """One machine as ``icnperf machine --format json`` writes it: ``inputs`` (the name
    asked for and the --set items), name, description, topology, its size (the job it is on
    a larger network), each parameter with its unit and source, notes."""
    rows = [dict(zip(("section", "key", "value", "shown", "source"), row))
            for row in machine.rows()]
    return {"inputs": inputs, "name": machine.name, "description": machine.description,
            "topology": machine.topology, "size": machine.size_note(), "parameters": rows,
            "notes": list(machine.notes)}


def machine_render(document: dict, fmt: str, wide: bool = False) -> str:
    """One machine's parameters with units and sources (:func:`machine_document`), after
    --set overrides (sources as numbered notes under the table unless ``wide``)."""
    if fmt == "json":
        return json_text(document)
    rows = document["parameters"]
    if fmt == "csv":
        return csv_text(rows, ["section", "key", "value", "source"])
    page = Page(wide)
    page.line(f"{document['name']}: {document['description']}")
    page.line(f"topology: {document['topology']}")
    if document["size"]:
        page.line(document["size"])
    page.blank()
    page.table(rows, MACHINE_COLUMNS)
    if document["notes"]:
        page.blank()
        page.notes("notes", document["notes"])
    return page.text()
