"""``predict collective`` and ``explain collective`` with ``--api nccl|rccl``: the rows of
model/collectives/nccl_api.py rendered as nccl-tests reports them (size, time, algbw,
busbw), within 100 columns."""

from __future__ import annotations

from icnperf.errors import InputError
from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text, number, require_finite


def _quantity(kind: str, digits: int = 3):
    from icnperf.units import format_quantity

    return lambda value: format_quantity(value, kind, digits)


def _gbs(value) -> str:
    return "-" if value is None else f"{value / 1e9:.2f}"


CCL_COLUMNS = (
    Column("nodes", "nodes", number()),
    Column("gpus", "GPUs", number()),
    Column("bytes", "size", _quantity("size")),
    Column("algorithm", "algorithm"),
    Column("protocol", "proto"),
    Column("time_s", "time", _quantity("time")),
    Column("algbw_Bps", "algbw GB/s", _gbs),
    Column("busbw_Bps", "busbw GB/s", _gbs),
    Column("pick", "pick", lambda v: v or ""),
)


def _setup(operation, machine_name, overrides, library):
    from icnperf.data.machine import load_machine
    from icnperf.model.collectives.nccl import operation_name

    operation = operation_name(operation)
    machine = load_machine(machine_name).with_overrides(list(overrides))
    return operation, machine


def _within_machine(machine, counts) -> None:
    """InputError for a node count above the machine's ``system.nodes``."""
    size = machine.get("system.nodes")
    if size is not None and max(counts) > int(size):
        raise InputError(f"{max(counts)} nodes: {machine.name} has {int(size)} "
                         "(system.nodes)")


def ccl_collective_text(operation: str, machine_name: str, overrides: tuple[str, ...],
                        nodes_text: str | None, sizes_text: str, algorithm: str,
                        library: str, fmt: str, gpus_per_node: int | None = None,
                        wide: bool = False) -> str:
    """The rendered ``predict collective --api nccl|rccl`` output (``nodes_text`` default:
    one node)."""
    from icnperf.model.collectives.nccl_api import ccl_collective
    from icnperf.units import parse_range

    operation, machine = _setup(operation, machine_name, overrides, library)
    counts = [int(n) for n in parse_range(nodes_text or "1", "count")]
    if any(n < 1 for n in counts):
        raise InputError("--nodes takes node counts of 1 or more")
    _within_machine(machine, counts)
    if len(counts) > 4096:
        raise InputError(f"--nodes {nodes_text}: {len(counts)} node counts; give at most 4096")
    sizes = parse_range(sizes_text, "size", default_unit="B")
    if len(sizes) * len(counts) > 200_000:
        raise InputError("--nodes x --bytes asks for more than 200,000 points; give fewer")
    if any(s <= 0 for s in sizes):
        raise InputError("--bytes takes sizes above 0 with --api nccl|rccl")
    rows, notes = ccl_collective(machine, operation, counts, [float(s) for s in sizes],
                                 algorithm, library, gpus_per_node)
    require_finite(rows, ("time_s", "algbw_Bps", "busbw_Bps"), "predict collective",
                   lambda row: f"for {row['algorithm']} at {row['bytes']:g} B")
    if fmt == "json":
        return json_text({"inputs": {"operation": operation, "machine": machine.name,
                                     "set": list(overrides), "nodes": nodes_text,
                                     "bytes": sizes_text, "algorithm": algorithm,
                                     "api": library, "gpus_per_node": gpus_per_node},
                          "assumptions": notes, "rows": rows})
    if fmt == "csv":
        return csv_text(rows, [*rows[0]] if rows else ["nodes"])
    page = Page(wide)
    page.line(f"{operation} on {machine.name}, api {library}: nccl-tests' algbw and busbw"
              " (GB/s = 1e9 bytes/s)")
    page.blank()
    page.table(rows, CCL_COLUMNS)
    page.blank()
    page.notes("assumptions", notes)
    return page.text()


def ccl_explain_text(operation: str, machine_name: str, overrides: tuple[str, ...],
                     nodes: int | None, bytes_text: str | None, library: str, fmt: str,
                     gpus_per_node: int | None = None, wide: bool = False) -> str:
    """``explain collective --api nccl|rccl``: each algorithm's closed form, whether it runs
    on this machine and node count, its symbols' values and its time per protocol."""
    from icnperf.model.collectives.nccl import EFFICIENCY, SIZE_MEANING
    from icnperf.model.collectives.nccl_api import closed_forms
    from icnperf.units import format_quantity, parse_range

    operation, machine = _setup(operation, machine_name, overrides, library)
    sizes = parse_range(bytes_text or "1MiB", "size", default_unit="B")
    if len(sizes) != 1 or not sizes[0] > 0:
        raise InputError("--bytes takes one size above 0 with --api nccl|rccl")
    size = float(sizes[0])
    _within_machine(machine, [nodes or 1])
    fabric, tables, forms = closed_forms(machine, operation, nodes or 1, library,
                                         gpus_per_node)
    symbols = {
        "N": fabric.ranks, "n": fabric.domains, "g": fabric.per_domain,
        "B_up": format_quantity(fabric.scaleup_bandwidth, "bandwidth", 4),
        "B_net": format_quantity(fabric.net_bandwidth, "bandwidth", 4),
        "one NIC": format_quantity(fabric.nic_bandwidth, "bandwidth", 4),
        "a_up (hardware)": format_quantity(fabric.scaleup_latency, "time", 3),
        "a_net (hardware)": format_quantity(fabric.net_latency, "time", 3),
    }
    entries = []
    for name, formula, reason, per_protocol in forms:
        times = {p: float(f.time([size])[0]) for p, f in per_protocol.items()}
        entries.append({"algorithm": name, "formula": formula, "runs": reason is None,
                        "why_not": reason, "time_s": times,
                        "latency_s": {p: f.latency for p, f in per_protocol.items()}})
    from icnperf.model.collectives.nccl_api import ccl_collective

    picked = {r["algorithm"]: r for r in ccl_collective(machine, operation, [nodes or 1],
                                                        [size], "auto", library,
                                                        gpus_per_node)[0]}
    choice = {name: {"pick": picked[name]["pick"], "time_s": picked[name]["time_s"]}
              for name in ("auto", "best")}
    if fmt == "json":
        return json_text({"inputs": {"operation": operation, "machine": machine.name,
                                     "nodes": nodes or 1, "bytes": size, "api": library},
                          "symbols": {k: str(v) for k, v in symbols.items()},
                          "tables": tables.label, "algorithms": entries, **choice})
    if fmt == "csv":
        raise InputError("explain collective --api nccl|rccl prints text or json")
    page = Page(wide)
    page.line(f"{operation} under {library} on {machine.name}, {nodes or 1} node(s), "
              f"S = {format_quantity(size, 'size', 4)} ({SIZE_MEANING[operation]})")
    page.line("t = L + W: L0 the library's stated launch latency, a_* per-step latency = max("
              f"stated step of {tables.label}, hardware); e: LL 1/2, LL128 120/128, Simple 1")
    page.line("; ".join(f"{k} = {v}" for k, v in symbols.items()))
    page.blank()
    for entry in entries:
        page.line(f"{entry['algorithm']}: {entry['formula']}", hang="    ")
        if entry["why_not"]:
            page.line(f"not here: {entry['why_not']}", indent="    ")
        else:
            parts = [f"{p} {format_quantity(t, 'time', 3)} (L {format_quantity(entry['latency_s'][p], 'time', 3)})"
                     for p, t in entry["time_s"].items()]
            page.line(", ".join(parts), indent="    ", hang="    ")
    page.blank()
    page.line(f"auto: {library.upper()} picks {choice['auto']['pick']} by its own cost model "
              f"({tables.label}), {format_quantity(choice['auto']['time_s'], 'time', 3)} by "
              f"icnperf; best: {choice['best']['pick']}, "
              f"{format_quantity(choice['best']['time_s'], 'time', 3)}", hang="    ")
    page.blank()
    efficiency = ", ".join(f"{p} {e:.4g}" for p, e in EFFICIENCY.items())
    page.notes("sources", [f"protocol efficiencies (data bytes per byte moved): {efficiency}"
                           " (Hu et al. 2025, NCCL's protocols)",
                           f"stated latencies: {tables.source}", "docs/nccl.md"])
    return page.text()
