"""Collectives under the GPU libraries (``api="nccl"`` or ``"rccl"`` of
``icnperf.predict_collective`` and ``icnperf.explain_collective``): the rows of
model/collectives/nccl_api.py as nccl-tests reports them (size, time, algbw, busbw), and
each of the library's algorithms' closed form with its time per protocol (docs/nccl.md)."""

from __future__ import annotations

from typing import Any

from icnperf.api import values
from icnperf.api.results import Result
from icnperf.errors import InputError

MAX_NODE_COUNTS = 4096
"""Node counts one call may ask for."""

MAX_POINTS = 200_000
"""Node counts x sizes one call may ask for."""


class CclCollectiveResult(Result):
    """``predict collective --api nccl|rccl``: one row per (node count, size, algorithm)
    with nccl-tests' algbw and busbw, and the library's pick."""

    command = "predict collective"

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.nccl import ccl_collective_render

        return ccl_collective_render(self._document, fmt, wide)


class CclExplanationResult(Result):
    """``explain collective --api nccl|rccl``: each algorithm's closed form, whether it
    runs here, its time per protocol (``rows``: the document's ``algorithms``), and the
    library's own pick (``auto``) beside the fastest (``best``)."""

    command = "explain collective"
    rows_key = "algorithms"

    def __init__(self, document: dict, tables_source: str) -> None:
        super().__init__(document)
        self._tables_source = tables_source

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.model.collectives.nccl import EFFICIENCY, SIZE_MEANING
        from icnperf.reports.text.nccl import ccl_explain_render

        return ccl_explain_render(self._document, fmt, wide, self._tables_source,
                                  SIZE_MEANING[self._document["inputs"]["operation"]],
                                  dict(EFFICIENCY))


def refuse_mpi_only(library: str, **given: bool) -> None:
    """InputError naming the options (``{"--shape": True, ...}``) that do not apply under
    the GPU libraries."""
    stray = [flag for flag, present in given.items() if present]
    if stray:
        raise InputError(f"{', '.join(stray)} does not apply with --api {library} (GPU"
                         " buffers, one rank per GPU; the tree is NCCL's hierarchy;"
                         " docs/nccl.md)")


def _machine(operation: str, machine: Any, set: Any):
    from icnperf.model.collectives.nccl import operation_name

    operation = operation_name(operation)
    loaded, overrides = values.machine(machine, set)
    return operation, loaded, overrides


def _within_machine(machine, counts) -> None:
    """InputError for a node count above the machine's ``system.nodes``."""
    size = machine.get("system.nodes")
    if size is not None and max(counts) > int(size):
        raise InputError(f"{max(counts)} nodes: {machine.name} has {int(size)} "
                         "(system.nodes)")


def ccl_predict(machine: Any, operation: str, library: str, *, set: Any, nodes: Any,
                bytes: Any, algorithm: str, gpus_per_node: int | None
                ) -> CclCollectiveResult:
    """The rows of ``predict collective --api nccl|rccl`` (``nodes`` default: one node;
    ``gpus_per_node`` default: the machine's)."""
    from icnperf.model.collectives.nccl_api import ccl_collective
    from icnperf.reports.render import require_finite
    from icnperf.units import parse_range

    operation, machine, overrides = _machine(operation, machine, set)
    nodes_text, nodes_recorded = values.counts_text(nodes)
    counts = [int(n) for n in parse_range(nodes_text or "1", "count")]
    if any(n < 1 for n in counts):
        raise InputError("--nodes takes node counts of 1 or more")
    _within_machine(machine, counts)
    if len(counts) > MAX_NODE_COUNTS:
        raise InputError(f"--nodes {nodes_text}: {len(counts)} node counts; give at most"
                         f" {MAX_NODE_COUNTS}")
    sizes, sizes_recorded = values.sizes(bytes)
    if len(sizes) * len(counts) > MAX_POINTS:
        raise InputError("--nodes x --bytes asks for more than 200,000 points; give fewer")
    if any(s <= 0 for s in sizes):
        raise InputError("--bytes takes sizes above 0 with --api nccl|rccl")
    rows, notes = ccl_collective(machine, operation, counts, [float(s) for s in sizes],
                                 algorithm, library, gpus_per_node)
    require_finite(rows, ("time_s", "algbw_Bps", "busbw_Bps"), "predict collective",
                   lambda row: f"for {row['algorithm']} at {row['bytes']:g} B")
    return CclCollectiveResult({"inputs": {"operation": operation, "machine": machine.name,
                                           "set": overrides, "nodes": nodes_recorded,
                                           "bytes": sizes_recorded, "algorithm": algorithm,
                                           "api": library, "gpus_per_node": gpus_per_node},
                                "assumptions": notes, "rows": rows})


def ccl_explain(machine: Any, operation: str, library: str, *, set: Any, nodes: int | None,
                bytes: Any, gpus_per_node: int | None) -> CclExplanationResult:
    """``explain collective --api nccl|rccl``: each of the library's algorithms' closed
    form, whether it runs on this machine and node count, its symbols' values and its time
    per protocol at one size (default 1 MiB)."""
    from icnperf.model.collectives.nccl_api import ccl_collective, closed_forms
    from icnperf.units import format_quantity, parse_range

    operation, machine, _ = _machine(operation, machine, set)
    text = "1MiB" if bytes is None else values.size_text(bytes, "--bytes")[0]
    sizes = parse_range(text, "size", default_unit="B")
    if len(sizes) != 1 or not sizes[0] > 0:
        raise InputError("--bytes takes one size above 0 with --api nccl|rccl")
    size = float(sizes[0])
    count = nodes or 1
    _within_machine(machine, [count])
    fabric, tables, forms = closed_forms(machine, operation, count, library, gpus_per_node)
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
    picked = {r["algorithm"]: r for r in ccl_collective(machine, operation, [count], [size],
                                                        "auto", library, gpus_per_node)[0]}
    choice = {name: {"pick": picked[name]["pick"], "time_s": picked[name]["time_s"]}
              for name in ("auto", "best")}
    return CclExplanationResult(
        {"inputs": {"operation": operation, "machine": machine.name, "nodes": count,
                    "bytes": size, "api": library},
         "symbols": {k: str(v) for k, v in symbols.items()},
         "tables": tables.label, "algorithms": entries, **choice}, tables.source)
