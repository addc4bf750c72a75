"""``icnperf simulate collective``: one collective simulated flit by flit on the machine's
torus next to the closed form, as the API hands it over (api/collective_simulation.py runs
the simulator and builds the rows), rendered.
"""

from __future__ import annotations

from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text, number

COLUMNS = (
    Column("nodes", "nodes", number()),
    Column("shape", "shape"),
    Column("bytes", "size", lambda v: _format(v, "size")),
    Column("algorithm", "algorithm"),
    Column("simulated_cycles", "sim cycles", number()),
    Column("simulated_s", "simulated", lambda v: _format(v, "time")),
    Column("predicted_s", "predicted", lambda v: _format(v, "time")),
    Column("difference_percent", "sim - model (%)", number(3)),
)


def _format(value, kind: str) -> str:
    from icnperf.units import format_quantity

    return format_quantity(value, kind, 4)


def collective_render(document: dict, fmt: str, wide: bool = False) -> str:
    """The rendered ``simulate collective`` table from its document (``inputs``,
    ``notes``, ``rows``; ``wide``: notes unwrapped)."""
    if fmt == "json":
        return json_text(document)
    rows, inputs = document["rows"], document["inputs"]
    if fmt == "csv":
        return csv_text(rows, [c.key for c in COLUMNS])
    fabric = inputs["fabric"]
    head = (f"{inputs['operation']} ({inputs['algorithm']}) on {inputs['machine']}, api"
            f" {inputs['api']}: cycle {inputs['cycle_s'] * 1e9:.4g} ns, router"
            f" {fabric['router_delay']}, link {fabric['link_delay']}, injection"
            f" {fabric['injection_delay']}, ejection {fabric['ejection_delay']} cycles; link"
            f" {fabric['link_rate']:.4g}, host {fabric['host_rate']:.4g} flits/cycle")
    page = Page(wide)
    page.line(head)
    page.blank()
    page.table(rows, COLUMNS)
    page.blank()
    page.notes("notes", document["notes"])
    return page.text()
