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
UNCERTAINTY_COLUMNS = MACHINE_COLUMNS[:3] + (
    Column("kind", "kind"), Column("spread", "spread"),
    Column("spread_reason", "why", overflow="note"), MACHINE_COLUMNS[3])
"""``icnperf machine --uncertainty``: each value's kind, spread and its reason."""


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


def machine_render(document: dict, fmt: str, wide: bool = False) -> str:
    """One machine's parameters with units and sources (the document of api.catalog's
    machine_document), after --set overrides (sources as numbered notes under the table
    unless ``wide``)."""
    if fmt == "json":
        return json_text(document)
    rows = document["parameters"]
    uncertainty = bool(rows) and "kind" in rows[0]
    if fmt == "csv":
        return csv_text(rows, ["section", "key", "value", "source"] + (
            ["kind", "spread", "spread_reason"] if uncertainty else []))
    page = Page(wide)
    page.line(f"{document['name']}: {document['description']}")
    page.line(f"topology: {document['topology']}")
    if document["size"]:
        page.line(document["size"])
    page.blank()
    page.table(rows, UNCERTAINTY_COLUMNS if uncertainty else MACHINE_COLUMNS)
    if document["notes"]:
        page.blank()
        page.notes("notes", document["notes"])
    return page.text()
