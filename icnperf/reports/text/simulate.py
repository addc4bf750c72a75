"""``icnperf simulate traffic``: the flit simulator's runs beside the closed forms, as the
API hands them over (api/traffic_runs.py runs the simulator and builds the rows), rendered.
"""

from __future__ import annotations

from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text, number

TRAFFIC_COLUMNS = (
    Column("rate", "offered rate", number(3), keep=True),
    Column("average_latency", "sim avg latency", number(4)),
    Column("p99_latency", "sim p99", number(4)),
    Column("zero_load_latency", "zero-load (model)", number(4)),
    Column("latency_diff", "avg - zero-load", number(3)),
    Column("queueing_latency", "queueing (model)", number(4)),
    Column("queueing_diff", "avg - queueing", number(3)),
    Column("accepted", "sim accepted", number(4)),
    Column("accepted_min", "sim worst dest", number(4)),
    Column("predicted_accepted", "model min(rate, bound)", number(4)),
    Column("accepted_diff", "sim - model", number(3)),
    Column("estimate_accepted", "model min(rate, estimate)", number(4)),
    Column("estimate_diff", "sim - estimate", number(3)),
    Column("saturated", "saturated"),
    Column("packets", "packets"),
)


def _replicate_columns() -> tuple:
    """TRAFFIC_COLUMNS for rows that summarise several seeds: the simulated figures are
    means, and min..max follows the mean latency and the mean accepted throughput."""
    means = {"average_latency", "p99_latency", "accepted"}
    spread = {"average_latency": "latency_range", "accepted": "accepted_range"}
    out = []
    for column in TRAFFIC_COLUMNS:
        header = f"{column.header} (mean)" if column.key in means else column.header
        out.append(Column(column.key, header, column.fmt, keep=column.keep))
        if column.key in spread:
            out.append(Column(spread[column.key], "min..max", str, with_previous=True))
    return tuple(out)


REPLICATE_COLUMNS = _replicate_columns()


def _span(lo: float, hi: float) -> str:
    fmt = number(4)
    return f"{fmt(lo)}..{fmt(hi)}"


def traffic_render(document: dict, fmt: str, wide: bool = False) -> str:
    """``icnperf simulate traffic`` rendered from its document (api.traffic_runs'
    traffic_document; ``wide``: the table and notes at full width)."""
    if fmt == "json":
        return json_text(document)
    inputs, model, rows = document["inputs"], document["model"], document["rows"]
    seeds, traffic = inputs["seeds"], inputs["traffic"]
    keys = [c.key for c in TRAFFIC_COLUMNS] + ["offered", "unfinished", "flit_hops"]
    if seeds > 1:
        keys += ["seeds", "average_latency_lo", "average_latency_hi", "accepted_lo",
                 "accepted_hi"]
    if fmt == "csv":
        return csv_text(rows, keys)
    fmt4 = number(4)
    head = (f"{inputs['topology']} ({inputs['routing']} routing), {traffic} traffic:"
            f" mean hops {fmt4(model['mean_hops'])}, gamma_max {fmt4(model['gamma_max'])},"
            f" saturation bound {fmt4(model['saturation_bound'])}, saturation estimate"
            f" {fmt4(model['saturation_estimate'])} flits/endpoint/cycle")
    stable = model.get("stable_saturation_estimate", model["saturation_estimate"])
    if stable != model["saturation_estimate"]:
        head += (f" (an overload run's mean accepted rate; stable runs to"
                 f" {fmt4(stable)}, docs/saturation.md)")
    columns = TRAFFIC_COLUMNS
    if seeds > 1:
        head += f"; {seeds} seeds per rate"
        columns = REPLICATE_COLUMNS
        rows = [{**row,
                 "latency_range": _span(row["average_latency_lo"], row["average_latency_hi"]),
                 "accepted_range": _span(row["accepted_lo"], row["accepted_hi"])}
                for row in rows]
    page = Page(wide)
    page.line(head)
    page.blank()
    page.table(rows, columns)
    page.blank()
    page.notes("notes", document["notes"])
    return page.text()
