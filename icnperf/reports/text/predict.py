"""``icnperf predict p2p`` and ``predict collective`` rendered (:func:`p2p_render`,
:func:`collective_render`) from what the API (icnperf.api.point_to_point,
collective_prediction) computes; and the row builders the API and the HTML report share
until the report moves onto the API: job layouts per node count (:func:`layouts_for`),
collective rows (:func:`collective_rows`)."""

from __future__ import annotations

import numpy as np

from icnperf.errors import InputError
from icnperf.reports.page import Page
from icnperf.reports.render import (Column, csv_chunks, csv_text, json_column_chunks,
                                    json_float_column, json_text, number)


ROUTED_FAMILIES = ("fattree", "clos", "xgft", "rail", "dragonfly", "megafly", "gdragonfly",
                   "dfplus")
"""Families whose endpoints ``--from``/``--to`` name by index (hops of their routing)."""


def _quantity(kind: str, digits: int = 3):
    from icnperf.units import format_quantity

    return lambda value: format_quantity(value, kind, digits)


P2P_COLUMNS = (
    Column("bytes", "size", _quantity("size"), keep=True),
    Column("hops", "hops", number(3)),
    Column("packets", "packets", number()),
    Column("latency_s", "latency", _quantity("time")),
    Column("hardware_latency_s", "hardware part", _quantity("time")),
    Column("queueing_delay_s", "queueing", _quantity("time")),
    Column("bandwidth_Bps", "ping-pong bw", _quantity("bandwidth")),
    Column("streaming_bandwidth_Bps", "streaming bw", _quantity("bandwidth")),
    Column("message_rate_per_s", "msg rate (1/s)", number(3)),
    Column("rate_bound_per_s", "V/L bound (1/s)", number(3)),
)

P2P_RANGED = ("latency_s", "hardware_latency_s", "queueing_delay_s", "bandwidth_Bps",
              "streaming_bandwidth_Bps", "message_rate_per_s", "rate_bound_per_s")
"""The predicted quantities of ``predict p2p`` that ``--uncertainty`` gives ranges of."""

P2P_RANGE_SHOWN = ("latency_s", "bandwidth_Bps")
"""Those the table shows the range of (JSON and CSV carry all)."""


def p2p_json(document: dict, columns: dict, spans: dict | None = None):
    """``predict p2p --format json`` by column (render.json_column_chunks): ``document``
    (``inputs`` and ``assumptions``) with the model's ``columns`` (NumPy arrays, SI units)
    as its rows, a 0-byte row's ``rate_bound_per_s`` null; the same bytes as json.dumps of
    the rows, chunk by chunk. ``spans`` (--uncertainty): name -> (low, high) arrays, written
    as ``<name>_low``/``<name>_high`` columns (null where a draw has no value)."""
    names = list(columns)
    count = len(columns["bytes"])
    empty = np.flatnonzero(columns["bytes"] == 0).tolist()
    texts = {name: json_float_column(columns[name]) for name in names}
    if empty:
        texts["rate_bound_per_s"] = _with_nulls(columns["rate_bound_per_s"], empty)
    for name, (low, high) in (spans or {}).items():
        for end, values in (("low", low), ("high", high)):
            texts[f"{name}_{end}"] = _range_column(
                values, empty if name == "rate_bound_per_s" else [])
    return json_column_chunks(document, "rows", texts, count)


def p2p_render(document: dict, rows, names, fmt: str, wide: bool = False):
    """``predict p2p`` rendered from what the API hands over: ``document`` (``inputs`` and
    ``assumptions``), ``rows`` an iterable of row dicts (SI units) in column order
    ``names``: CSV as an iterator of chunks (the rows streamed, never all held), the table
    as one string (JSON: :func:`p2p_json`)."""
    if fmt == "csv":
        return csv_chunks(rows, names)
    inputs = document["inputs"]
    gpu = inputs["buffers"] == "gpu"
    where = ("both GPUs in one scale-up domain" if gpu else
             "both ranks on one node (shared memory)")
    page = Page(wide)
    page.line(f"{inputs['machine']} ({inputs['topology']}), "
              + (where if inputs["same_node"] else f"api {inputs['api']}")
              + (", GPU buffers" if gpu else ""))
    page.blank()
    if "uncertainty" not in inputs and "production" not in inputs:
        page.table(list(rows), P2P_COLUMNS)
    else:
        from icnperf.reports.text.production import values_line
        from icnperf.reports.text.ranges import add_cells, sampling_line, table_columns

        page.table(add_cells(list(rows), P2P_RANGE_SHOWN, P2P_COLUMNS),
                   table_columns(P2P_COLUMNS, P2P_RANGE_SHOWN))
        page.blank()
        for line in ([sampling_line(inputs["uncertainty"])] if "uncertainty" in inputs
                     else []) + ([values_line(inputs["production"], "latency")]
                                 if "production" in inputs else []):
            page.line(line)
    page.blank()
    page.notes("assumptions", document["assumptions"])
    return page.text()


def _range_column(values: np.ndarray, empty: list[int]) -> list | str:
    """A range end as a JSON column: ``null`` where the draws gave no value (NaN) and at
    the rows ``empty`` (no payload: no V/L bound)."""
    values = np.asarray(values, dtype=float)
    missing = ~np.isfinite(values)
    missing[empty] = True
    if not missing.any():
        return json_float_column(values)
    return _with_nulls(values, missing)


def _with_nulls(values: np.ndarray, missing) -> np.ndarray:
    """``values`` as an object array whose entries at ``missing`` (indices or a mask) are
    the JSON text ``null``."""
    out = np.asarray(values, dtype=float).astype(object)
    out[missing] = "null"
    return out


def layouts_for(topology: str, nodes_text: str | None, shape_text: str | None,
                system_nodes: int | None = None):
    """Layouts to evaluate: the machine's own job (``Layout.machine_job``: its
    ``system_nodes`` on a larger fat tree or dragonfly), a fixed --shape, or per node count of
    --nodes one balanced torus shape in the machine's dimension count (Mukosey 2015 §3.1
    sweeps) or, on a fat tree or dragonfly, a job of that many nodes on the machine as it
    is (Layout.on_part); 1 node is Layout.one_node (no network)."""
    from icnperf.model.collectives import Layout
    from icnperf.model.topology.spec import parse_spec
    from icnperf.model.topology.torus import job_torus_shape
    from icnperf.units import parse_range

    if shape_text is not None:
        shape = parse_spec(f"torus:{shape_text}").params["radices"]
        if nodes_text is not None:
            nodes = parse_range(nodes_text, "count")
            product = 1
            for k in shape:
                product *= k
            if len(nodes) != 1 or int(nodes[0]) != product:
                raise InputError(f"--shape {shape_text} has {product} nodes, --nodes says"
                                 f" {nodes_text}; give one node count equal to the shape's")
        return [Layout.torus(shape)]
    if nodes_text is None:
        return [Layout.machine_job(topology, system_nodes)]
    spec = parse_spec(topology)
    counts = [int(n) for n in parse_range(nodes_text, "count")]
    if spec.family.name in ROUTED_FAMILIES:
        machine = Layout.from_topology(spec.text)
        return [Layout.one_node() if n == 1 else machine.on_part(n) for n in counts]
    if spec.family.name not in ("torus", "hypercube"):
        raise InputError(f"--nodes takes torus, fat-tree and dragonfly machines; "
                         f"{spec.text} is a {spec.family.name}")
    dims = len(spec.params["radices"]) if "radices" in spec.params else spec.params["n"]
    return [Layout.one_node() if n == 1 else Layout.torus(job_torus_shape(n, dims))
            for n in counts]


NODE_AWARE_OPERATIONS = ("broadcast", "reduce", "allreduce", "barrier")
"""The operations MPICH's SMP-aware collectives run hierarchically by default; its and Open
MPI's default all-gathers and all-to-alls run over every rank (collectives.hierarchy)."""


def hierarchy_for(hierarchy: str | None, processes_per_node: int,
                  operation: str = "allreduce") -> str:
    """The hierarchy of ``predict collective``: as given, else ``node`` with more than one
    process per node for the operations MPI libraries run hierarchically by default
    (:data:`NODE_AWARE_OPERATIONS`), ``flat`` otherwise and with one process per node (the
    two are then the same)."""
    if hierarchy is not None:
        return hierarchy
    return "node" if processes_per_node > 1 and operation in NODE_AWARE_OPERATIONS \
        else "flat"


def auto_choices(machine, operation: str, layout, sizes, processes_per_node: int,
                 element_size: float) -> tuple[list[tuple[str, str]], str]:
    """What ``--algorithm auto`` runs on ``layout`` per size: [(algorithm, reason)] from the
    machine's MPI library rules (collectives.library_rules) for ``layout.endpoints`` x
    ``processes_per_node`` ranks (pass 1 for the node leaders of a hierarchical collective)
    and the rule set's note; a one-line InputError when the machine names no library or one
    without rules."""
    from icnperf.model.collectives import machine_choice

    ranks = layout.endpoints * processes_per_node
    picks = [machine_choice(machine, operation, float(m), ranks, element_size) for m in sizes]
    return [(algorithm, reason) for algorithm, reason, _ in picks], picks[0][2]


def _auto_rows(machine, operation, layout, sizes, api, processes_per_node, placement,
               mode, element_size, results, best, tree):
    from icnperf.model.collectives import collective_time

    leaders = mode == "node" and processes_per_node > 1
    # the leaders' all-to-all carries every block of their node's ranks (hierarchy.py)
    scale = processes_per_node if leaders and operation == "alltoall" else 1
    choices, why = auto_choices(machine, operation, layout, [m * scale for m in sizes],
                                1 if leaders else processes_per_node, element_size)
    rows, assumptions = [], {}
    for i, (chosen, reason) in enumerate(choices):
        result = results.get(chosen)
        if result is None:
            try:
                result = collective_time(machine, operation, chosen, sizes, layout=layout,
                                         api=api, processes_per_node=processes_per_node,
                                         placement=placement, hierarchy=mode,
                                         element_size=element_size)
            except InputError as error:
                raise InputError(f"auto picks {chosen} ({reason}); {error}") from None
        assumptions.setdefault(chosen, result.assumptions)
        if leaders and layout.endpoints == 1:
            name, reason = "auto: node-local only", "one node: shared memory, no leaders' step"
        else:
            name = f"auto: {chosen}"
            reason += " (among the node leaders)" if leaders else ""
        rows.append({**_row(result, i, layout, name, best, tree), "rule": reason,
                     "rule_set": why})
    return rows, assumptions


def _row(result, i: int, layout, name: str, best, tree) -> dict:
    """One table row: size i of ``result`` on ``layout`` under the algorithm name shown."""
    return {"nodes": result.endpoints, "shape": layout.text,
            "bytes": float(result.bytes[i]), "algorithm": name,
            "time_s": float(result.time[i]),
            "best_p2p_s": None if best is None else float(best[i]),
            "ratio_to_best_p2p": None if best is None else float(best[i] / result.time[i]),
            "ratio_to_p2p_tree": None if tree is None else float(tree[i] / result.time[i]),
            "hierarchy": result.hierarchy,
            "node_local_s": None if result.node_time is None
            else float(result.node_time[i]),
            "inter_node_s": None if result.network_time is None
            else float(result.network_time[i])}


def collective_rows(machine, operation: str, algorithm: str, layouts, sizes, api: str,
                    processes_per_node: int = 1, placement: str = "linear",
                    hierarchy: str | None = None, element_size: float = 8.0):
    """One row per (layout, size, algorithm): time, and the hardware tree's speedup over the
    best point-to-point algorithm of the same layout and size. ``processes_per_node``,
    ``placement`` and ``hierarchy`` (:func:`hierarchy_for`) go to collectives.compare (with
    ppn > 1 the trees need hierarchy node). With hierarchy node a row also gives the
    node-local and the inter-node time. ``algorithm`` ``auto``: one row per (layout, size),
    the algorithm the machine's MPI library picks (:func:`auto_choices`; among the node
    leaders with hierarchy node) with its rule; ``element_size`` (bytes) counts the elements
    its rules and Rabenseifner's split take."""
    from icnperf.model.collectives import ALGORITHMS as TEXTBOOK
    from icnperf.model.collectives import ALL_ALGORITHMS as ALGORITHMS, compare

    if algorithm not in ("all", "auto") and algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; choose all, auto or one of"
                         f" {', '.join(ALGORITHMS)}")
    if algorithm == "auto":
        # the one-line error for a machine without a library comes before any timing
        auto_choices(machine, operation, layouts[0], sizes[:1], processes_per_node,
                     element_size)
    chosen = None if algorithm in ("all", "auto") else [algorithm]
    mode = hierarchy_for(hierarchy, processes_per_node, operation)
    if algorithm in ("hw-tree", "p2p-tree") and processes_per_node != 1 and mode == "flat":
        raise InputError(f"{algorithm} is modelled with one process per node; use"
                         " --hierarchy node, drop --ppn or choose a point-to-point algorithm")
    rows, assumptions = [], {}
    for layout in layouts:
        results = compare(machine, operation, sizes, layout=layout, api=api,
                          processes_per_node=processes_per_node, placement=placement,
                          hierarchy=mode, element_size=element_size)
        if chosen is not None and algorithm not in results:
            raise InputError(f"algorithm {algorithm} does not define {operation} on"
                             f" {layout.text} (available: {', '.join(results)})")
        # the best textbook algorithm (the MPI libraries' own are listed, not compared)
        p2p = [r.time for a, r in results.items() if a != "hw-tree" and a in TEXTBOOK]
        best = None if not p2p else np.minimum.reduce(p2p)
        tree = results["p2p-tree"].time if "p2p-tree" in results else None
        if algorithm == "auto":
            more, notes = _auto_rows(machine, operation, layout, sizes, api,
                                     processes_per_node, placement, mode, element_size,
                                     results, best, tree)
            rows += more
            for name, lines in notes.items():
                assumptions.setdefault(name, lines)
            continue
        for name in chosen or [a for a in ALGORITHMS if a in results]:
            result = results[name]
            assumptions.setdefault(name, result.assumptions)
            rows += [_row(result, i, layout, name, best, tree)
                     for i in range(len(result.bytes))]
    return rows, assumptions


def absent_notes(machine, operation: str, layouts, processes_per_node: int, placement: str,
                 hierarchy: str) -> list[str]:
    """``--algorithm all``: one line per algorithm of the operation left out of the table,
    with why (collectives.left_out), naming the node counts when it is absent on some
    layouts only."""
    from icnperf.model.collectives import left_out

    by_reason: dict[tuple[str, str], list[int]] = {}
    for layout in layouts:
        for name, why in left_out(machine, operation, layout,
                                  processes_per_node=processes_per_node, placement=placement,
                                  hierarchy=hierarchy).items():
            by_reason.setdefault((name, why), []).append(layout.endpoints)
    every = len(layouts)
    return [f"{name}: {why}" + ("" if len(nodes) == every else
                                f" (at {', '.join(f'{n:,}' for n in nodes)} nodes)")
            for (name, why), nodes in by_reason.items()]


def _shared_then_own(assumptions: dict[str, tuple[str, ...]]) -> list[str]:
    """Assumption lines: those every algorithm shares once, then each algorithm's own."""
    lists = list(assumptions.values())
    shared = [n for n in lists[0] if all(n in other for other in lists[1:])] if lists else []
    own = [f"[{a}] {n}" for a, ns in assumptions.items() for n in ns if n not in shared]
    return shared + own


COLLECTIVE_COLUMNS = (
    Column("nodes", "nodes", number()),
    Column("shape", "shape"),
    Column("bytes", "size", _quantity("size")),
    Column("algorithm", "algorithm"),
    Column("time_s", "time", _quantity("time")),
    Column("ratio_to_best_p2p", "best p2p / time", number(3)),
    Column("ratio_to_p2p_tree", "p2p-tree / time", number(3)),
)


COLLECTIVE_RANGED = ("time_s", "best_p2p_s", "ratio_to_best_p2p", "ratio_to_p2p_tree",
                     "node_local_s", "inter_node_s")
"""The predicted quantities of ``predict collective`` that ``--uncertainty`` ranges."""

AUTO_COLUMNS = COLLECTIVE_COLUMNS + (Column("rule", "rule", overflow="note"),)
"""``--algorithm auto``: the rule each row's algorithm follows, as notes when too wide."""


def collective_render(document: dict, fmt: str, wide: bool = False,
                      mpi_library: str | None = None,
                      production_line: str | None = None) -> str:
    """``predict collective`` rendered from its document (``inputs``, ``assumptions`` per
    algorithm, ``rows``; the API builds it). ``mpi_library``: the machine's
    software.mpi_library, named in the note of ``--algorithm auto``; ``production_line``:
    what ``--production`` applied (reports.text.production.production_line)."""
    if fmt == "json":
        return json_text(document)
    rows = document["rows"]
    if fmt == "csv":
        return csv_text(rows, [*rows[0]] if rows else ["nodes"])
    inputs = document["inputs"]
    ppn, placement, mode = (inputs["processes_per_node"], inputs["placement"],
                            inputs["hierarchy"])
    algorithm = inputs["algorithm"]
    placed = ("" if ppn == 1 and placement == "linear" else
              f", {ppn} processes per node, {placement} placement")
    if ppn > 1:
        placed += (", hierarchy node (node-local phases in shared memory, the algorithm"
                   " among one leader per node)" if mode == "node" else
                   ", hierarchy flat (the algorithm over every rank)")
    page = Page(wide)
    placed += ", GPU buffers" if inputs["buffers"] == "gpu" else ""
    page.line(f"{inputs['operation']} on {inputs['machine']}, api {inputs['api']}{placed};"
              " ratios are the best point-to-point algorithm's and the point-to-point tree's"
              " time over this one's")
    page.blank()
    columns = AUTO_COLUMNS if algorithm == "auto" else COLLECTIVE_COLUMNS
    if mode == "node" and ppn > 1:
        columns = (*columns[:5], Column("node_local_s", "in node", _quantity("time")),
                   *columns[5:])
    if "uncertainty" not in inputs and "production" not in inputs:
        page.table(rows, columns)
    else:
        from icnperf.reports.text.ranges import add_cells, sampling_line, table_columns

        page.table(add_cells(rows, ("time_s",), columns), table_columns(columns, ("time_s",)))
        page.blank()
        if "production" in inputs:
            page.line(production_line)
        if "uncertainty" in inputs:
            page.line(sampling_line(inputs["uncertainty"]))
    page.blank()
    lines = _shared_then_own(document["assumptions"])
    if algorithm == "auto" and rows:
        chosen = (f"the MPI library's default choice, software.mpi_library {mpi_library} "
                  f"({rows[0]['rule_set']})" if mpi_library else rows[0]["rule_set"])
        lines = [f"auto: {chosen}; element counts with {inputs['element_bytes']:g}-byte "
                 "elements (--element-size)"] + lines
    if document["absent"]:
        page.notes("not in the table", document["absent"])
        page.blank()
    page.notes("assumptions", lines)
    return page.text()
