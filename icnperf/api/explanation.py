"""``icnperf.explain_collective`` and ``icnperf.crossover``: a collective's closed form with
its elasticities (``icnperf explain collective``), and where one algorithm overtakes
another by a factor (``icnperf crossover collective``)."""

from __future__ import annotations

from typing import Any

from icnperf.api import options, values
from icnperf.api.guard import quiet
from icnperf.api.results import Result
from icnperf.errors import InputError

class ExplanationResult(Result):
    """``explain collective``: the formula (``formula`` text, LaTeX, symbols), its value
    ``time_s``, the substituted structure and one row per parameter (``rows``: its
    elasticity). ``expression`` is the SymPy expression itself."""

    command = "explain collective"
    rows_key = "elasticities"

    def __init__(self, document: dict, expression, latex: bool) -> None:
        super().__init__(document)
        self.expression = expression
        self._latex = latex

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.api.explain_documents import formula_pieces
        from icnperf.reports.text.explain import explain_render

        pieces = None if fmt != "table" or self._latex else formula_pieces(self.expression)
        return explain_render(self._document, fmt, wide, pieces, self._latex)

    def figure(self):
        from icnperf.reports.result_figures import elasticity_figure

        return elasticity_figure(self._document)


class CrossoverResult(Result):
    """``crossover collective``: the scan (``rows``) and the crossover found (``crossover``:
    status, at, below, reverts, best, statement)."""

    command = "crossover collective"

    def __init__(self, document: dict, operation: str) -> None:
        super().__init__(document)
        self._operation = operation

    @property
    def crossover(self) -> dict:
        return self.to_dict()["crossover"]

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.explain import crossover_render

        return crossover_render(self._document, fmt, wide, self._operation)

    def figure(self):
        from icnperf.reports.result_figures import crossover_figure

        return crossover_figure(self._document)


@quiet
def explain_collective(machine: Any, operation: str, *, algorithm: str | None = None,
                       set: Any = None, nodes: Any = None, shape: Any = None,
                       bytes: Any = None, api: str = "mpi", latex: bool = False,
                       all_symbols: bool = False, uncertainty: bool = False,
                       ppn: Any = None):
    """What ``icnperf explain collective OPERATION --algorithm ALG`` computes: the closed
    form, its value on ``machine`` and each parameter's elasticity. Keywords: ``set``,
    ``nodes`` (one node count), ``shape``, ``bytes`` (one size; default 256 B), ``api``,
    ``latex`` (the table shows the formula as LaTeX), ``all_symbols`` (keep the discrete
    counts as symbols), ``uncertainty`` (each input's stated spread and its share of the
    prediction's range: ``spread``, ``spread_kind``, ``range_contribution``,
    ``range_share`` in each elasticity row). With ``api`` nccl or rccl: each of the
    library's algorithms' closed form and time per protocol at ``bytes`` (default 1 MiB)
    on ``nodes`` (default 1) with ``ppn`` GPUs per node (default the machine's), a
    :class:`icnperf.api.ccl.CclExplanationResult`; ``algorithm``, ``shape``, ``latex``,
    ``all_symbols`` and ``uncertainty`` do not apply there."""
    from icnperf.data.limits import within_limits
    from icnperf.model.budget import counted_step_seconds, explain_estimate
    from icnperf.model.collectives import machine_layout, operation_name, structured
    from icnperf.model.explain import check_pair, explain
    from icnperf.reports.render import require_finite
    from icnperf.api.explain_documents import (DEFAULT_BYTES, auto_algorithm, elasticity_row,
                                               explanation_document, message_size,
                                               range_rows)
    from icnperf.api.layouts import layout_for

    nodes = options.optional_count(nodes, "--nodes")
    api = options.choice(api, options.APIS + options.CCL_APIS, "--api")
    if api in options.CCL_APIS:
        from icnperf.api.ccl import ccl_explain, refuse_mpi_only

        refuse_mpi_only(api, **{"--algorithm": algorithm is not None,
                                "--shape": shape is not None, "--latex": bool(latex),
                                "--all-symbols": bool(all_symbols),
                                "--uncertainty": bool(uncertainty)})
        return ccl_explain(machine, operation, api, set=set, nodes=nodes, bytes=bytes,
                           gpus_per_node=options.optional_integer(ppn, "--ppn", low=1))
    if algorithm is None:
        raise InputError("--algorithm is required with --api mpi|shmem|none")
    if ppn is not None:
        raise InputError("--ppn (GPUs per node) applies with --api nccl|rccl")
    latex = options.flag(latex, "--latex")
    all_symbols = options.flag(all_symbols, "--all-symbols")
    uncertainty = options.flag(uncertainty, "--uncertainty")
    bytes_text, bytes_recorded = (None, None) if bytes is None else values.size_text(
        bytes, "--bytes")
    shape_text = values.shape_text(shape)
    asked = values.asked_name(machine)
    machine, overrides = values.machine(machine, set)
    layout = layout_for(machine.topology, nodes, shape_text, machine.get("system.nodes"))
    size = message_size(bytes_text or DEFAULT_BYTES)
    rule = None
    if algorithm == "auto":
        algorithm, rule = auto_algorithm(machine, operation, layout, size)
    check_pair(algorithm, operation)
    routed = machine_layout(machine, layout)
    within_limits(explain_estimate(layout.ranks, algorithm, len(layout.radices or (0, 0, 0)),
                                   operation_name(operation),
                                   counted=structured.counts_steps_in_structure(routed),
                                   step_seconds=counted_step_seconds(
                                       structured.partial_group_endpoints(routed))))
    explanation = explain(machine, operation, algorithm, size, layout=layout, api=api,
                          symbolic_discrete=all_symbols)
    require_finite([{"time_s": explanation.time}], ["time_s"], "explain")
    require_finite([elasticity_row(e) for e in explanation.elasticities],
                   ["value", "derivative", "elasticity"], "explain",
                   lambda row: f"for {row['key']}")
    inputs = {"what": "collective", "operation": operation,
              "algorithm": algorithm if rule is None else "auto",
              "machine": asked, "set": overrides, "nodes": nodes,
              "shape": shape_text, "bytes": bytes_recorded or DEFAULT_BYTES, "api": api,
              "all_symbols": all_symbols}
    if rule is not None:
        inputs["auto"] = {"algorithm": algorithm, "rule": rule}
    if uncertainty:
        inputs["uncertainty"] = True
    document = explanation_document(machine, explanation, inputs)
    if uncertainty:
        document["elasticities"] = range_rows(machine, document["elasticities"],
                                              explanation.time)
    return ExplanationResult(document, explanation.expression, latex)


@quiet
def crossover(machine: Any, operation: str, *, faster: str, slower: str, factor: Any,
              set: Any = None, vary: str = "nodes", dims: Any = None, range: Any = None,
              bytes: Any = None, nodes: Any = None, shape: Any = None,
              any_shape: bool = False, api: str = "mpi",
              budget_format: str = "json") -> CrossoverResult:
    """What ``icnperf crossover collective OPERATION`` computes: the smallest node count
    (``vary="nodes"``) or message size (``vary="bytes"``) at which ``faster`` is ``factor``
    times faster than ``slower``. Keywords: ``set``, ``dims`` (torus dimensions when
    varying nodes), ``range`` (the values scanned: text, or a list), ``bytes`` (the size
    when varying nodes), ``nodes``/``shape`` (the torus when varying bytes), ``any_shape``,
    ``api``."""
    from icnperf.data.limits import within_limits
    from icnperf.model.budget import counted_step_seconds, crossover_estimate
    from icnperf.model.collectives import Layout, machine_layout, operation_name, structured
    from icnperf.model.crossover import crossover as solve
    from icnperf.reports.render import require_finite
    from icnperf.api.crossover_records import crossover_document, scan_rows
    from icnperf.api.explain_documents import DEFAULT_BYTES, message_size
    from icnperf.api.layouts import layout_for
    from icnperf.units import parse_quantity, parse_range

    vary = options.choice(vary, options.VARY, "--vary")
    dims = options.optional_integer(dims, "--dims", low=1)
    nodes = options.optional_count(nodes, "--nodes")
    any_shape = options.flag(any_shape, "--any-shape")
    api = options.choice(api, options.APIS, "--api")
    factor_text, _ = values.size_text(factor, "--factor")
    bytes_text, bytes_recorded = (None, None) if bytes is None else values.size_text(
        bytes, "--bytes")
    range_text, range_recorded = values.counts_text(range, "--range")
    shape_text = values.shape_text(shape)
    try:
        factor = parse_quantity(factor_text, "number")
    except InputError as error:
        raise InputError(f"--factor: {error}") from None
    if not factor > 1:
        raise InputError(f"--factor must be > 1 (how many times faster), not {factor_text!r}")
    asked = values.asked_name(machine)
    machine, overrides = values.machine(machine, set)
    scanned = (layout_for(machine.topology, nodes, shape_text, machine.get("system.nodes"))
               if vary == "bytes" else Layout.from_topology(machine.topology))
    torus_dims = (dims if vary == "nodes" and dims is not None
                  else len(scanned.radices or (0, 0, 0)))
    counted_bytes = structured.counts_steps_in_structure(machine_layout(machine, scanned))
    step_seconds = counted_step_seconds(
        structured.partial_group_endpoints(machine_layout(machine, scanned)))

    def budget(ranks, points=None):
        within_limits(crossover_estimate(ranks, [faster, slower],
                                         len(ranks) if points is None else points,
                                         budget_format,
                                         "node count" if vary == "nodes" else "size",
                                         torus_dims, operation_name(operation),
                                         counted=vary == "nodes" or counted_bytes,
                                         step_seconds=step_seconds))

    if vary == "nodes":
        if nodes is not None or shape_text is not None:
            raise InputError("--nodes/--shape fix the torus when varying bytes; with --vary "
                             "nodes give --range and --dims")
        scan = None if range_text is None else parse_range(range_text, "count")
        size = message_size(bytes_text or DEFAULT_BYTES)
        record = solve(machine, operation, faster, slower, factor, variable="nodes",
                       values=scan, dims=dims, m=size, api=api,
                       max_aspect=None if any_shape else 2.0, budget=budget)
    else:
        if bytes_text is not None or dims is not None:
            raise InputError("--bytes and --dims apply when varying nodes; with --vary bytes "
                             "give the sizes as --range")
        scan = (None if range_text is None
                else parse_range(range_text, "size", default_unit="B"))
        record = solve(machine, operation, faster, slower, factor, variable="bytes",
                       values=scan, layout=layout_for(machine.topology, nodes, shape_text,
                                                      machine.get("system.nodes")),
                       api=api, budget=lambda ranks: budget(
                           ranks, 27 if scan is None else len(scan)))
    rows = scan_rows(record, factor)
    require_finite(rows, ("value", "time_faster_s", "time_slower_s", "ratio"), "crossover",
                   lambda row: f"on {row['layout']}")
    inputs = {"what": "collective", "operation": operation, "machine": asked,
              "set": overrides, "faster": faster, "slower": slower, "factor": factor,
              "vary": vary, "dims": dims, "range": range_recorded, "bytes": bytes_recorded,
              "nodes": nodes, "shape": shape_text, "api": api, "any_shape": any_shape}
    return CrossoverResult(crossover_document(record, rows, inputs, machine.name),
                           record.operation)


class AppExplanationResult(Result):
    """``explain app``: each phase's closed form at one node count (``phases``: terms,
    compute and communication with their hops and channel loads), the totals and notes.
    ``form`` is the model's record (model.apps.closed_form)."""

    command = "explain app"
    rows_key = "phases"

    def __init__(self, document: dict, form) -> None:
        super().__init__(document)
        self.form = form

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.explain_app import explain_app_render

        return explain_app_render(self._document, fmt, wide)

    def figure(self):
        from icnperf.reports.result_figures import phase_share_figure

        return phase_share_figure(self._document)


@quiet
def explain_app(machine: Any, app: str, *, set: Any = None, nodes: Any = None,
                shape: Any = None, param: Any = None, algorithm: str | None = None,
                ppn: Any = None, budget_format: str = "json") -> AppExplanationResult:
    """What ``icnperf explain app APP`` computes: each phase of a skeleton (a bundled name
    or a TOML path) in closed form at one node count (``nodes``; default the machine's).
    Keywords: ``set``, ``nodes``, ``shape``, ``param`` (a dict or ``"n=2048"`` items),
    ``algorithm``, ``ppn``."""
    from dataclasses import asdict

    from icnperf.data.limits import skeleton_within_limits
    from icnperf.model.apps.closed_form import explain_skeleton
    from icnperf.model.apps.timing import derived_notes
    from icnperf.model.budget import SYMBOLIC_SECONDS
    from icnperf.api.skeletons import resolve_skeleton
    from icnperf.api.layouts import layouts_for

    nodes = options.optional_count(nodes, "--nodes")
    ppn = options.optional_integer(ppn, "--ppn", low=1)
    params = values.items(param, "--param")
    shape_text = values.shape_text(shape)
    if app == "npb-is":
        raise InputError("npb-is is a Python model (placement tables), not a skeleton; "
                         "explain app takes a skeleton file or a bundled skeleton")
    machine, _ = values.machine(machine, set)
    skeleton, _ = resolve_skeleton(app, {}, params)
    layouts = layouts_for(machine.topology, None if nodes is None else str(nodes), shape_text,
                          machine.get("system.nodes"))
    skeleton_within_limits(skeleton, machine, [layouts[0].endpoints], ppn, algorithm,
                           budget_format, "explain app", SYMBOLIC_SECONDS)
    form = explain_skeleton(skeleton, machine, layouts[0], ppn=ppn, algorithm=algorithm)
    notes = [f"{skeleton.name}: {skeleton.description}" if skeleton.description
             else skeleton.name, *skeleton.notes, *derived_notes(skeleton, machine)]
    document = {"inputs": {"app": app, "machine": machine.name, "nodes": nodes,
                           "shape": shape_text, "algorithm": algorithm},
                "notes": notes, **asdict(form)}
    return AppExplanationResult(document, form)


class SaturationResult(Result):
    """``explain saturation``: every factor of a topology's saturation estimate (``rows``:
    factor, value, formula, source) for one traffic pattern and router."""

    command = "explain saturation"
    rows_key = "factors"

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.explain_saturation import explain_saturation_render

        return explain_saturation_render(self._document, fmt, wide)

    def figure(self):
        from icnperf.reports.result_figures import saturation_figure

        return saturation_figure(self._document)


@quiet
def explain_saturation(spec: str, *, traffic: str = "uniform", machine: str | None = None,
                       set: Any = None) -> SaturationResult:
    """What ``icnperf explain saturation SPEC`` shows: every factor of the saturation
    estimate of topology ``spec`` under ``traffic``, with the routers of ``machine`` (a
    preset name or TOML path; ``set`` overrides its keys) or the simulator's default
    router."""
    from icnperf.api.saturation_factors import saturation_rows
    from icnperf.api.topology_metrics import topology_document
    from icnperf.model.topology.base import PATTERNS

    if machine is not None and not isinstance(machine, str):
        raise InputError("explain saturation: give the machine as a preset name or a"
                         " machine TOML path")
    overrides = values.items(set, "--set")
    if traffic not in PATTERNS:
        raise InputError(f"--traffic: unknown pattern {traffic!r} (choose from"
                         f" {', '.join(PATTERNS)})")
    doc = topology_document(spec, None, machine, overrides)
    rows, inputs = saturation_rows(spec, traffic, machine, doc)
    return SaturationResult({"inputs": inputs, "factors": rows})
