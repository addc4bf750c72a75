"""``predict collective`` and ``explain collective`` with ``--api nccl|rccl``: the rows of
model/collectives/nccl_api.py rendered as nccl-tests reports them (size, time, algbw,
busbw), within 100 columns."""

from __future__ import annotations

from icnperf.errors import InputError
from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text, number, quantity


def _gbs(value) -> str:
    return "-" if value is None else f"{value / 1e9:.2f}"


CCL_COLUMNS = (
    Column("nodes", "nodes", number()),
    Column("gpus", "GPUs", number()),
    Column("bytes", "size", quantity("size")),
    Column("algorithm", "algorithm"),
    Column("protocol", "proto"),
    Column("time_s", "time", quantity("time")),
    Column("algbw_Bps", "algbw GB/s", _gbs),
    Column("busbw_Bps", "busbw GB/s", _gbs),
    Column("pick", "pick", lambda v: v or ""),
)


def ccl_collective_render(document: dict, fmt: str, wide: bool = False) -> str:
    """``predict collective --api nccl|rccl`` rendered from its document (``inputs``,
    ``assumptions``, ``rows``; the API builds it)."""
    rows = document["rows"]
    if fmt == "json":
        return json_text(document)
    if fmt == "csv":
        return csv_text(rows, [*rows[0]] if rows else ["nodes"])
    inputs = document["inputs"]
    operation, machine_name, library = inputs["operation"], inputs["machine"], inputs["api"]
    page = Page(wide)
    page.line(f"{operation} on {machine_name}, api {library}: nccl-tests' algbw and busbw"
              " (GB/s = 1e9 bytes/s)")
    page.blank()
    page.table(rows, CCL_COLUMNS)
    page.blank()
    page.notes("assumptions", document["assumptions"])
    return page.text()


def ccl_explain_render(document: dict, fmt: str, wide: bool = False,
                       tables_source: str = "", size_meaning: str = "",
                       efficiencies: dict | None = None) -> str:
    """``explain collective --api nccl|rccl`` rendered from its document (``inputs``,
    ``symbols``, ``tables``, ``algorithms``, ``auto`` and ``best``; the API builds it):
    each algorithm's closed form, whether it runs on this machine and node count, its
    symbols' values and its time per protocol. ``tables_source``: where the library's
    stated latencies come from; ``size_meaning``: what the size S counts for the operation;
    ``efficiencies``: each protocol's data bytes per byte moved (the model's
    collectives.nccl.EFFICIENCY)."""
    from icnperf.units import format_quantity

    if fmt == "json":
        return json_text(document)
    if fmt == "csv":
        raise InputError("explain collective --api nccl|rccl prints text or json")
    inputs = document["inputs"]
    operation, machine_name, library = inputs["operation"], inputs["machine"], inputs["api"]
    nodes, size, label = inputs["nodes"], inputs["bytes"], document["tables"]
    symbols, entries = document["symbols"], document["algorithms"]
    choice = {name: document[name] for name in ("auto", "best")}
    page = Page(wide)
    page.line(f"{operation} under {library} on {machine_name}, {nodes} node(s), "
              f"S = {format_quantity(size, 'size', 4)} ({size_meaning})")
    page.line("t = L + W: L0 the library's stated launch latency, a_* per-step latency = max("
              f"stated step of {label}, hardware); e: LL 1/2, LL128 120/128, Simple 1")
    page.line("; ".join(f"{k} = {v}" for k, v in symbols.items()))
    page.blank()
    for entry in entries:
        page.line(f"{entry['algorithm']}: {entry['formula']}", hang="    ")
        if entry["why_not"]:
            page.line(f"not here: {entry['why_not']}", indent="    ")
        else:
            parts = [f"{p} {format_quantity(t, 'time', 3)}"
                     f" (L {format_quantity(entry['latency_s'][p], 'time', 3)})"
                     for p, t in entry["time_s"].items()]
            page.line(", ".join(parts), indent="    ", hang="    ")
    page.blank()
    page.line(f"auto: {library.upper()} picks {choice['auto']['pick']} by its own cost model "
              f"({label}), {format_quantity(choice['auto']['time_s'], 'time', 3)} by "
              f"icnperf; best: {choice['best']['pick']}, "
              f"{format_quantity(choice['best']['time_s'], 'time', 3)}", hang="    ")
    page.blank()
    efficiency = ", ".join(f"{p} {e:.4g}" for p, e in (efficiencies or {}).items())
    page.notes("sources", [f"protocol efficiencies (data bytes per byte moved): {efficiency}"
                           " (Hu et al. 2025, NCCL's protocols)",
                           f"stated latencies: {tables_source}", "docs/nccl.md"])
    return page.text()
