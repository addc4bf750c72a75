"""``icnperf topology`` and ``icnperf compare-topologies``: rows and their rendering."""

from __future__ import annotations

from icnperf.errors import InputError
from icnperf.model.topology.base import PATTERNS
from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text, number


def _count(value) -> int | float:
    """A count as an int when it is whole (JSON prints 128, not 128.0)."""
    value = float(value)
    return int(value) if value.is_integer() else value


def topology_document(spec_text: str, tree_routing: str | None = None,
                      machine_name: str | None = None, overrides=(), machine=None) -> dict:
    """All metrics of one spec as a plain dict (the JSON layout of ``icnperf topology``);
    ``tree_routing`` picks a fat tree's up-port rule (TopologySpec.evaluate). The saturation
    estimate per pattern uses the routers of ``machine`` (a loaded Machine) or
    ``machine_name`` (with ``overrides``), or the simulator's default router."""
    from icnperf.model.topology.saturation import (DEFAULT_ROUTER, machine_router,
                                                   saturation_of)
    from icnperf.model.topology.spec import parse_spec

    spec = parse_spec(spec_text)
    m = spec.evaluate(tree_routing)
    throughput = m.throughput
    router = dict(DEFAULT_ROUTER)
    if machine is not None:
        router = machine_router(machine)
    elif machine_name is not None:
        from icnperf.data.machine import load_machine

        router = machine_router(load_machine(machine_name).with_overrides(list(overrides)))
    elif overrides:
        raise InputError("--set needs --machine (it overrides a machine's keys)")
    estimate = {p: float(saturation_of(spec.family.name, spec.params, m, p, router)
                         ["saturation_estimate"]) for p in PATTERNS}
    return {
        "family": spec.family.name,
        "spec": spec.text,
        "routers": int(m.routers),
        "endpoints": int(m.endpoints),
        "radix": int(m.radix),
        "links": int(m.links),
        "diameter": int(m.diameter),
        "average_distance": float(m.average_distance),
        "bisection_links": _count(m.bisection_links),
        "channel_load": {p: float(m.channel_load[p]) for p in PATTERNS},
        "throughput": {p: float(throughput[p]) for p in PATTERNS},
        "saturation_estimate": estimate,
        "router": router,
        "notes": list(m.notes) + [ESTIMATE_NOTE],
    }


ESTIMATE_NOTE = (
    "saturation estimate: the channel-load bound (throughput) as an input-queued VC router"
    " reaches it (model/topology/saturation.py, docs/saturation.md: allocator matching,"
    " head-of-line blocking, dateline VC classes, load balance, speedup, VC turnaround,"
    " credit round trip) for the machine's routers (--machine: network.virtual_channels,"
    " vc_buffer_flits, switch_allocator, internal_speedup, router_pipeline_cycles,"
    " router_link_latency, packet_max_flits) or the simulator's default router (2 VCs x 8"
    " flits, separable allocator, one-cycle router and links, 1-flit packets); patterns"
    " other than uniform on grids take the load balance as 1 (the pessimistic end)")


def topology_render(doc: dict, fmt: str, wide: bool = False) -> str:
    """``icnperf topology SPEC`` output of :func:`topology_document`'s ``doc`` in the chosen
    format (``wide``: notes unwrapped)."""
    if fmt == "json":
        return json_text(doc)
    scalar_keys = ("family", "spec", "routers", "endpoints", "radix", "links", "diameter",
                   "average_distance", "bisection_links")
    if fmt == "csv":
        rows = [{"metric": k, "value": doc[k]} for k in scalar_keys]
        rows += [{"metric": f"channel_load.{p}", "value": doc["channel_load"][p]}
                 for p in PATTERNS]
        rows += [{"metric": f"throughput.{p}", "value": doc["throughput"][p]}
                 for p in PATTERNS]
        rows += [{"metric": f"saturation_estimate.{p}", "value": doc["saturation_estimate"][p]}
                 for p in PATTERNS]
        return csv_text(rows, ["metric", "value"])
    fmt_number = number()
    head = [{"metric": k.replace("_", " "), "value": fmt_number(doc[k])
             if not isinstance(doc[k], str) else doc[k]} for k in scalar_keys]
    loads = [{"pattern": p, "gamma": doc["channel_load"][p], "theta": doc["throughput"][p],
              "estimate": doc["saturation_estimate"][p]} for p in PATTERNS]
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

COMPARE_NOTES = (
    "with --endpoints each row is the smallest design of its family reaching the target;"
    " with --radix the largest design whose routers have at most that many ports",
    "fattree: FT(k,n) of the NUDT paper (maximal folded Clos), (2n-1)k^(n-1) routers of "
    "radix 2k; xgft (asked for by name): the k-ary n-tree, k^n endpoints, n k^(n-1) "
    "routers of radix 2k",
    "dragonfly: balanced DF(p, a=2p, h=p); megafly: k endpoints and k spines per leaf",
    "slimfly: MMS graph, p endpoints per router as in the slimfly model's notes",
    "torus: equal radix in every dimension, one endpoint per router",
    "hops count router-to-router links only",
    "NUDT paper (Jiang et al.) vs exact constructions: its megafly count k(k^2+1) routers counts"
    " one layer only (the construction has 2k(k^2+1)); its '+26 % / +33 % more routers than"
    " slim fly' at 1e5 endpoints is near ports per endpoint, not routers"
    " (icnperf validate, nudt-* checks)",
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
