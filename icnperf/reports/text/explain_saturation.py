"""``icnperf explain saturation`` rendered: every factor of the saturation estimate, its
value, formula and source (the API's rows: icnperf.api.saturation_factors)."""

from __future__ import annotations

from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text, number


def explain_saturation_render(document: dict, fmt: str, wide: bool = False) -> str:
    """The factors (``document``: ``inputs`` and ``factors``, from api.saturation_factors)
    as a table, CSV or JSON."""
    if fmt == "json":
        return json_text(document)
    rows, inputs = document["factors"], document["inputs"]
    if fmt == "csv":
        return csv_text(rows, ["key", "factor", "value", "formula", "source"])
    router = ", ".join(f"{k} {v}" for k, v in inputs["router"].items())
    page = Page(wide)
    page.line(f"{inputs['topology']}, {inputs['traffic']} traffic (flits/endpoint/cycle;"
              f" router: {router})")
    page.blank()
    page.table(rows, [Column("factor", "factor"), Column("value", "value", number(4)),
                      Column("formula", "formula", overflow="wrap"),
                      Column("source", "source", overflow="note")])
    page.blank()
    page.notes("notes", ["the smallest ceiling is the estimate; docs/saturation.md derives"
                         " each factor and shows where the estimate stops being right"])
    return page.text()
