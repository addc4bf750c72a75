"""``icnperf explain saturation``: every factor of the saturation estimate, its value,
formula and source (:func:`saturation_rows`, which the API calls, and their rendering)."""

from __future__ import annotations

from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text, number


def saturation_rows(spec_text: str, pattern: str, machine_name: str | None,
                    doc: dict) -> tuple[list[dict], dict]:
    """(one row per factor, the document's inputs) for one topology and pattern; ``doc``
    the topology's document (api.topology_metrics.topology_document: its router and
    channel loads)."""
    from icnperf.model.network.saturation import FACTORS
    from icnperf.model.topology.saturation import saturation_of
    from icnperf.model.topology.spec import parse_spec

    spec = parse_spec(spec_text)
    terms = saturation_of(spec.family.name, spec.params, spec.evaluate(), pattern,
                          doc["router"])
    rows = [{"factor": name, "value": float(terms[key]), "formula": formula,
             "source": source, "key": key} for key, name, formula, source in FACTORS]
    inputs = {"topology": spec.text, "traffic": pattern, "machine": machine_name,
              "router": doc["router"], "gamma_max": doc["channel_load"][pattern]}
    return rows, inputs


def explain_saturation_render(document: dict, fmt: str, wide: bool = False) -> str:
    """The factors (``document``: ``inputs`` and ``factors``, from :func:`saturation_rows`)
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
