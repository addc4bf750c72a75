"""``icnperf predict p2p``: latency, bandwidth and message rate of one message per size."""

from __future__ import annotations

import numpy as np

from icnperf.errors import InputError
from icnperf.reports.page import Page
from icnperf.reports.render import (Column, csv_chunks, csv_text, json_column_chunks,
                                    json_float_column, json_text, number, require_finite)

GRID_FAMILIES = ("torus", "mesh", "hypercube")
"""Families whose endpoints ``--from``/``--to`` can name by coordinates or an index."""

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


def _endpoint(text: str, radices: tuple[int, ...], what: str):
    """An endpoint as coordinates: "3" is an index, "1,0,2" coordinates (dimension 0 first)."""
    from icnperf.model.topology.torus import endpoint_coordinates

    parts = [p.strip() for p in text.split(",")]
    if not all(p.isdigit() for p in parts):
        raise InputError(f"{what} {text!r}: give an endpoint index or coordinates like 1,0,2")
    values = [int(p) for p in parts]
    if len(values) == 1:
        total = 1
        for k in radices:
            total *= k
        if values[0] >= total:
            raise InputError(f"{what} {text!r}: endpoint index must be below {total}")
        return endpoint_coordinates(radices, values[0])
    if len(values) != len(radices) or any(v >= k for v, k in zip(values, radices)):
        shape = "x".join(map(str, radices))
        raise InputError(f"{what} {text!r}: coordinates must be {len(radices)} values within"
                         f" {shape}")
    return values


def _index(text: str, size: int, what: str) -> int:
    text = text.strip()
    if not text.isdigit() or len(text) > 15:
        raise InputError(f"{what} {text!r}: give an endpoint index")
    if int(text) >= size:
        raise InputError(f"{what} {text!r}: endpoint index must be below {size}")
    return int(text)


def _routed_hops(spec, source: str, destination: str) -> int:
    """Router hops between two endpoints (by index) of a fat tree (NCA) or dragonfly /
    megafly / gdragonfly (minimal routing), through the collectives' layout."""
    from icnperf.model.collectives import Layout

    layout = Layout.from_topology(spec.text)
    size = layout.network_endpoints
    a = _index(source, size, "--from")
    b = _index(destination, size, "--to")
    if a == b:
        return 0
    return layout.traffic([a], [b])[0]


def hops_between(topology: str, source: str, destination: str) -> int:
    """Router hops between two endpoints: dimension-order routing on a torus, mesh or
    hypercube; nearest common ancestor on a fat tree; minimal routing on a dragonfly,
    megafly or gdragonfly (its longest share)."""
    from icnperf.model.topology.spec import parse_spec
    from icnperf.model.topology.torus import hop_distance

    spec = parse_spec(topology)
    if spec.family.name in ROUTED_FAMILIES:
        return _routed_hops(spec, source, destination)
    if spec.family.name not in GRID_FAMILIES:
        raise InputError(f"--from/--to name endpoints of "
                         f"{', '.join(GRID_FAMILIES + ROUTED_FAMILIES)};"
                         f" for {spec.text} give --hops")
    radices = spec.params.get("radices") or (2,) * spec.params["n"]
    a = _endpoint(source, radices, "--from")
    b = _endpoint(destination, radices, "--to")
    return int(hop_distance(radices, a, b, wrap=spec.family.name != "mesh"))


def p2p_text(*args, **kwargs) -> str:
    """The rendered ``predict p2p`` output as one string (:func:`p2p_output`)."""
    out = p2p_output(*args, **kwargs)
    return out if isinstance(out, str) else "".join(out)


def p2p_output(machine_name: str, overrides: tuple[str, ...], sizes_text: str,
             hops: float | None, source: str | None, destination: str | None, api: str,
             processes_per_node: int, fmt: str, offered_load: float = 0.0,
             pattern: str = "uniform", wide: bool = False, same_node: bool = False,
             buffers: str = "host", from_gpu: int | None = None,
             to_gpu: int | None = None, sampling=None) -> str:
    """The rendered ``predict p2p`` table for one machine (``wide``: at full width;
    ``same_node``: both ranks on one node, through shared memory): a string for the table,
    an iterator of chunks for JSON and CSV (every check done before it is returned, so the
    rows stream out without being held). ``sampling`` (a
    :class:`icnperf.data.machine.sampling.Sampling`): each quantity's 5-95 % range over
    draws of the inputs (``<field>_low``, ``<field>_high``)."""
    from icnperf.data.limits import within_limits
    from icnperf.data.machine import load_machine
    from icnperf.model.budget import p2p_estimate
    from icnperf.model.network import p2p_table
    from icnperf.units import parse_range

    machine = load_machine(machine_name).with_overrides(list(overrides))
    if (source is None) != (destination is None):
        raise InputError("give both --from and --to, or neither")
    if same_node and (source is not None or hops is not None or offered_load):
        raise InputError("--same-node puts both ranks on one node: drop --hops, --from/--to"
                         " and --load")
    if buffers != "gpu" and (from_gpu is not None or to_gpu is not None):
        raise InputError("--from-gpu/--to-gpu name GPUs: give --buffers gpu")
    if to_gpu is not None and not same_node:
        raise InputError("--to-gpu names the receiving GPU inside a node: give --same-node"
                         " (between nodes the receiver is on another node)")
    if source is not None:
        if hops is not None:
            raise InputError("give --hops or --from/--to, not both")
        hops = hops_between(machine.topology, source, destination)
    if hops is not None:
        from icnperf.model.topology.spec import parse_spec

        diameter = float(parse_spec(machine.topology).evaluate().diameter)
        if hops > diameter:
            raise InputError(f"--hops {hops:g} exceeds the diameter {diameter:g} of"
                             f" {machine.topology}")
    sizes = parse_range(sizes_text, "size", default_unit="B")
    estimate = p2p_estimate(sizes.size, fmt)
    if sampling is not None:
        from icnperf.model.budget import with_draws

        estimate = with_draws(estimate, sampling.samples)
    within_limits(estimate)

    def table_of(drawn):
        return p2p_table(drawn, sizes, hops, api, processes_per_node=processes_per_node,
                         offered_load=offered_load, pattern=pattern, same_node=same_node,
                         buffers=buffers, from_gpu=from_gpu or 0, to_gpu=to_gpu)

    table = table_of(machine)
    spans = None
    if sampling is not None:
        from icnperf.data.machine.sampling import ranges

        def ranged(drawn):
            columns = table_of(drawn).columns
            return {name: columns[name] for name in P2P_RANGED}

        spans = ranges(machine, ranged, sampling)
    names = list(table.columns)
    columns = {name: np.asarray(table.columns[name], dtype=float) for name in names}
    count = len(columns["bytes"])

    def row_at(i: int) -> dict:
        row = {name: float(columns[name][i]) for name in names}
        if row["bytes"] == 0:
            row["rate_bound_per_s"] = None  # V/L bounds nothing without payload
        for name, (low, high) in (spans or {}).items():
            row[f"{name}_low"] = None if row[name] is None else float(low[i])
            row[f"{name}_high"] = None if row[name] is None else float(high[i])
        return row

    finite = np.ones(count, dtype=bool)
    for name in names:
        finite &= np.isfinite(columns[name]) | ((name == "rate_bound_per_s")
                                                & (columns["bytes"] == 0))
    if not finite.all():
        require_finite([row_at(int(np.argmin(finite)))], names, "predict p2p",
                       lambda row: f"at {row['bytes']:g} B")
    # JSON goes out by column, CSV a row at a time (emit streams them into the file or
    # terminal)
    rows = (row_at(i) for i in range(count))
    if fmt == "json":
        empty = np.flatnonzero(columns["bytes"] == 0).tolist()
        texts = {name: json_float_column(columns[name]) for name in names}
        if empty:
            texts["rate_bound_per_s"] = columns["rate_bound_per_s"].tolist()
            for i in empty:
                texts["rate_bound_per_s"][i] = "null"
        for name, (low, high) in (spans or {}).items():
            for end, values in (("low", low), ("high", high)):
                texts[f"{name}_{end}"] = _range_column(
                    values, empty if name == "rate_bound_per_s" else [])
        inputs = {"machine": machine.name, "topology": machine.topology,
                  "set": list(overrides), "bytes": sizes_text, "hops": hops,
                  "from": source, "to": destination, "api": api,
                  "processes_per_node": processes_per_node, "load": offered_load,
                  "pattern": pattern, "same_node": same_node, "buffers": buffers,
                  "from_gpu": from_gpu, "to_gpu": to_gpu,
                  **({} if sampling is None else {"uncertainty": sampling.as_dict(machine)})}
        return json_column_chunks({"inputs": inputs,
                                   "assumptions": list(table.assumptions)}, "rows", texts,
                                  count)
    ranged = [] if spans is None else [f"{n}_{end}" for n in P2P_RANGED
                                       for end in ("low", "high")]
    if fmt == "csv":
        return csv_chunks(rows, names + ranged)
    rows = list(rows)
    page = Page(wide)
    where = ("both GPUs in one scale-up domain" if buffers == "gpu" else
             "both ranks on one node (shared memory)")
    page.line(f"{machine.name} ({machine.topology}), "
              + (where if same_node else f"api {api}")
              + (", GPU buffers" if buffers == "gpu" else ""))
    page.blank()
    if spans is None:
        page.table(rows, P2P_COLUMNS)
    else:
        from icnperf.reports.text.ranges import add_cells, sampling_line, table_columns

        page.table(add_cells(rows, P2P_RANGE_SHOWN, P2P_COLUMNS),
                   table_columns(P2P_COLUMNS, P2P_RANGE_SHOWN))
        page.blank()
        page.line(sampling_line(sampling))
    page.blank()
    page.notes("assumptions", table.assumptions)
    return page.text()


def _range_column(values: np.ndarray, empty: list[int]) -> list | str:
    """A range end as a JSON column: ``null`` where the draws gave no value (NaN) and at
    the rows ``empty`` (no payload: no V/L bound)."""
    values = np.asarray(values, dtype=float)
    missing = ~np.isfinite(values)
    missing[empty] = True
    if not missing.any():
        return json_float_column(values)
    out = values.tolist()
    for i in np.flatnonzero(missing).tolist():
        out[i] = "null"
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


def collective_text(operation: str, machine_name: str, overrides: tuple[str, ...],
                    nodes_text: str | None, shape_text: str | None, sizes_text: str,
                    algorithm: str, api: str, fmt: str, processes_per_node: int = 1,
                    placement: str = "linear", wide: bool = False,
                    hierarchy: str | None = None, element_size_text: str = "8B",
                    buffers: str = "host", sampling=None, production: bool = False) -> str:
    """The rendered ``predict collective`` table (``wide``: at full width). Without
    --nodes/--shape the machine's own topology is used, whatever its family (torus, fat tree,
    Clos, dragonfly, megafly). ``element_size_text``: one element of the data (default a
    double), for the auto rules' element counts and Rabenseifner's whole-element split.
    ``sampling``: each row's 5-95 % range of :data:`COLLECTIVE_RANGED` over draws of the
    inputs. ``production``: each row's time under the machine's ``[production]`` values
    (reports/text/production.py)."""
    from icnperf.data.limits import within_limits
    from icnperf.data.machine import load_machine
    from icnperf.model.budget import collective_estimate
    from icnperf.model.collectives import ALL_ALGORITHMS, operation_name
    from icnperf.units import parse_range

    from icnperf.data.machine import with_buffers

    operation = operation_name(operation)
    base = load_machine(machine_name).with_overrides(list(overrides))
    machine = with_buffers(base, buffers)
    sizes = parse_range(sizes_text, "size", default_unit="B")
    mode = hierarchy_for(hierarchy, processes_per_node, operation)
    if nodes_text is not None and shape_text is None:
        # the node counts alone, before a layout is built for each (1,000,000 layouts took
        # two minutes to build before the estimate refused them)
        counts = parse_range(nodes_text, "count")
        within_limits(collective_estimate(
            [int(n) * (1 if mode == "node" else processes_per_node) for n in counts],
            sizes.size, ["all"], len(ALL_ALGORITHMS) if algorithm == "all" else 1, fmt,
            random_placement=placement == "random", operation=operation))
    layouts = layouts_for(machine.topology, nodes_text, shape_text,
                          machine.get("system.nodes"))
    element = parse_range(element_size_text, "size", default_unit="B")
    if len(element) != 1 or not element[0] > 0:
        raise InputError(f"--element-size takes one size > 0, not {element_size_text!r}")
    element_size = float(element[0])
    # collective_rows maps every algorithm on each layout (the best p2p column needs them)
    estimate = collective_estimate(
        [layout.endpoints * (1 if mode == "node" else processes_per_node)
         for layout in layouts], sizes.size,
        ["all"], len(ALL_ALGORITHMS) if algorithm == "all" else 1, fmt,
        random_placement=placement == "random",
        dims=[len(layout.radices or (0, 0, 0)) for layout in layouts], operation=operation,
        counted=placement == "linear" and (mode == "node" or processes_per_node == 1)
        and all(layout.is_torus or layout.family == "crossbar" for layout in layouts))
    if sampling is not None:
        from icnperf.model.budget import with_draws

        estimate = with_draws(estimate, sampling.samples)
    within_limits(estimate)
    rows, assumptions = collective_rows(machine, operation, algorithm, layouts, sizes, api,
                                        processes_per_node, placement, mode, element_size)
    if sampling is not None:
        from icnperf.data.machine.sampling import row_ranges
        from icnperf.reports.text.ranges import merged

        rows = merged(rows, row_ranges(
            base, lambda drawn: collective_rows(
                with_buffers(drawn, buffers), operation, algorithm, layouts, sizes, api,
                processes_per_node, placement, mode, element_size)[0],
            COLLECTIVE_RANGED, sampling))
    if production and sampling is None:
        from icnperf.reports.text.production import production_rows

        rows = production_rows(machine, rows, operation, layouts, api)
    elif production:
        from icnperf.reports.text.production import production_ranged_rows

        rows = production_ranged_rows(base, lambda drawn: with_buffers(drawn, buffers), rows,
                                      operation, layouts, api, sampling)
    absent = (absent_notes(machine, operation, layouts, processes_per_node, placement, mode)
              if algorithm == "all" else [])
    require_finite(rows, ("time_s", "best_p2p_s", "ratio_to_best_p2p", "ratio_to_p2p_tree"),
                   "predict collective",
                   lambda row: f"for {row['algorithm']} at {row['bytes']:g} B on {row['shape']}")
    if fmt == "json":
        return json_text({"inputs": {"operation": operation, "machine": machine.name,
                                     "set": list(overrides), "nodes": nodes_text,
                                     "shape": shape_text, "bytes": sizes_text,
                                     "algorithm": algorithm, "api": api,
                                     "processes_per_node": processes_per_node,
                                     "placement": placement, "hierarchy": mode,
                                     "element_bytes": element_size, "buffers": buffers,
                                     **({} if sampling is None else
                                        {"uncertainty": sampling.as_dict(base)}),
                                     **({"production": dict(machine.production)}
                                        if production else {})},
                          "assumptions": {a: list(n) for a, n in assumptions.items()},
                          "absent": absent, "rows": rows})
    if fmt == "csv":
        return csv_text(rows, [*rows[0]] if rows else ["nodes"])
    placed = ("" if processes_per_node == 1 and placement == "linear" else
              f", {processes_per_node} processes per node, {placement} placement")
    if processes_per_node > 1:
        placed += (", hierarchy node (node-local phases in shared memory, the algorithm"
                   " among one leader per node)" if mode == "node" else
                   ", hierarchy flat (the algorithm over every rank)")
    page = Page(wide)
    placed += ", GPU buffers" if buffers == "gpu" else ""
    page.line(f"{operation} on {machine.name}, api {api}{placed}; ratios are the best"
              " point-to-point algorithm's and the point-to-point tree's time over this one's")
    page.blank()
    columns = AUTO_COLUMNS if algorithm == "auto" else COLLECTIVE_COLUMNS
    if mode == "node" and processes_per_node > 1:
        columns = (*columns[:5], Column("node_local_s", "in node", _quantity("time")),
                   *columns[5:])
    if sampling is None and not production:
        page.table(rows, columns)
    else:
        from icnperf.reports.text.ranges import add_cells, sampling_line, table_columns

        page.table(add_cells(rows, ("time_s",), columns), table_columns(columns, ("time_s",)))
        page.blank()
        if production:
            from icnperf.reports.text.production import production_line

            page.line(production_line(machine))
        if sampling is not None:
            page.line(sampling_line(sampling))
    page.blank()
    lines = _shared_then_own(assumptions)
    if algorithm == "auto" and rows:
        library = machine.get("software.mpi_library")
        chosen = (f"the MPI library's default choice, software.mpi_library {library} "
                  f"({rows[0]['rule_set']})" if library else rows[0]["rule_set"])
        lines = [f"auto: {chosen}; element counts with {element_size:g}-byte elements "
                 "(--element-size)"] + lines
    if absent:
        page.notes("not in the table", absent)
        page.blank()
    page.notes("assumptions", lines)
    return page.text()
