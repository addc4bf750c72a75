"""``icnperf topology`` and ``icnperf compare-topologies``: the documents the API builds
(api/topology_metrics.py, api/catalog.py), rendered."""

from __future__ import annotations

from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text, number


def topology_render(doc: dict, fmt: str, wide: bool = False) -> str:
    """``icnperf topology SPEC`` output of its ``doc`` (api.topology_metrics'
    topology_document; traffic patterns in the order its ``channel_load`` keys them) in the
    chosen format (``wide``: notes unwrapped)."""
    if fmt == "json":
        return json_text(doc)
    patterns = list(doc["channel_load"])
    scalar_keys = ("family", "spec", "routers", "endpoints", "radix", "links", "diameter",
                   "average_distance", "bisection_links")
    if fmt == "csv":
        rows = [{"metric": k, "value": doc[k]} for k in scalar_keys]
        rows += [{"metric": f"channel_load.{p}", "value": doc["channel_load"][p]}
                 for p in patterns]
        rows += [{"metric": f"throughput.{p}", "value": doc["throughput"][p]}
                 for p in patterns]
        rows += [{"metric": f"saturation_estimate.{p}", "value": doc["saturation_estimate"][p]}
                 for p in patterns]
        return csv_text(rows, ["metric", "value"])
    fmt_number = number()
    head = [{"metric": k.replace("_", " "), "value": fmt_number(doc[k])
             if not isinstance(doc[k], str) else doc[k]} for k in scalar_keys]
    loads = [{"pattern": p, "gamma": doc["channel_load"][p], "theta": doc["throughput"][p],
              "estimate": doc["saturation_estimate"][p]} for p in patterns]
    page = Page(wide)
    page.table(head, [Column("metric", "metric"), Column("value", "value")])
    page.blank()
    page.table(loads, [
        Column("pattern", "traffic"),
        Column("gamma", "channel load (flits/cycle)", fmt_number),
        Column("theta", "throughput bound (flits/endpoint/cycle)", fmt_number),
        Column("estimate", "saturation estimate (flits/endpoint/cycle)", number(3)),
    ])
    page.blank()
    page.notes("notes", doc["notes"])
    return page.text()


COMPARE_COLUMNS = (
    Column("family", "family", keep=True),
    Column("spec", "spec"),
    Column("endpoints", "endpoints", number()),
    Column("routers", "routers", number()),
    Column("radix", "ports/router", number()),
    Column("ports", "total ports", number()),
    Column("ports_per_endpoint", "ports/endpoint", number(3)),
    Column("links", "links", number()),
    Column("diameter", "diameter", number()),
    Column("average_distance", "avg hops", number(3)),
)

def compare_render(document: dict, fmt: str, wide: bool = False) -> str:
    """``icnperf compare-topologies`` output of its ``document`` (``inputs``, ``notes``,
    ``designs``) in the chosen format (``wide``: the table and notes at full width)."""
    rows = document["designs"]
    columns = COMPARE_COLUMNS if document["inputs"]["radix"] is None else (
        Column("radix_limit", "radix limit", number(), keep=True), *COMPARE_COLUMNS)
    if fmt == "json":
        return json_text(document)
    if fmt == "csv":
        return csv_text(rows, [c.key for c in columns])
    page = Page(wide)
    page.table(rows, columns)
    page.blank()
    page.notes("notes", document["notes"])
    return page.text()
