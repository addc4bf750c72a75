"""``icnperf.predict_collective``: a collective's time per node count, size and algorithm
(``icnperf predict collective``)."""

from __future__ import annotations

from typing import Any

from icnperf.api import options, values
from icnperf.api.guard import quiet
from icnperf.api.results import Result
from icnperf.errors import InputError


class CollectiveResult(Result):
    """``predict collective``: one row per (layout, size, algorithm), ``assumptions`` per
    algorithm."""

    command = "predict collective"

    def __init__(self, document: dict, mpi_library: str | None = None,
                 production_line: str | None = None) -> None:
        super().__init__(document)
        self._mpi_library = mpi_library
        self._production_line = production_line

    @property
    def assumptions(self) -> dict:
        return self.to_dict()["assumptions"]

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.predict import collective_render

        return collective_render(self._document, fmt, wide, self._mpi_library,
                                 self._production_line)

    def figure(self):
        from icnperf.reports.result_figures import collective_figure

        return collective_figure(self._document)


@quiet
def predict_collective(machine: Any, operation: str, *, set: Any = None, nodes: Any = None,
                       shape: Any = None, bytes: Any = "256B", algorithm: str = "all",
                       element_size: Any = "8B", api: str = "mpi", ppn: Any = None,
                       hierarchy: str | None = None, placement: str = "linear",
                       buffers: str = "host", uncertainty: bool = False,
                       samples: Any = None, seed: Any = None, production: bool = False,
                       budget_format: str = "json"):
    """What ``icnperf predict collective OPERATION`` computes (broadcast, reduce,
    allreduce, allgather, alltoall, barrier) on ``machine`` (a preset name, a machine TOML
    path or ``icnperf.machine(...)``).

    Keywords are the command's options: ``set``, ``nodes`` (``"8..32768:x2"``, a count or a
    list; default the whole machine), ``shape`` (``"4x4x8"`` or ``(4, 4, 8)``), ``bytes``
    (data per rank: text, a number or a list), ``algorithm`` (all, auto, hw-tree,
    binomial, ...), ``element_size`` (bytes of one element), ``api`` (mpi, shmem, none;
    nccl or rccl: the GPU libraries' algorithms as nccl-tests reports them, a
    :class:`icnperf.api.ccl.CclCollectiveResult`, with ``ppn`` the GPUs per node, default
    the machine's), ``ppn`` (default 1),
    ``hierarchy`` (node, flat; default node with ppn > 1 for the node-aware operations)
    ``placement`` (linear, spread, random) and ``buffers`` (host or gpu: the machine's
    GPU-buffer path). ``uncertainty``: each row's 5-95 % range of time, best p2p, both
    ratios and the node-local and inter-node parts over ``samples`` (default 200) seeded
    (``seed``, default 0) draws of the inputs within their stated uncertainty
    (``<field>_low``, ``<field>_high``). ``production``: each row's time under the
    machine's ``[production]`` OS noise and background traffic (the median, with its 5-95 %
    range; any ``ppn``, placement and hierarchy: api/production.py). With ``algorithm="all"`` the
    document's ``absent`` says which algorithms are left out and why. ``budget_format``:
    the output the work budget prices the rows for (the command line passes its
    ``--format``).
    """
    from icnperf.data.limits import within_limits
    from icnperf.data.machine import with_buffers
    from icnperf.model.budget import collective_estimate, counted_step_seconds
    from icnperf.model.collectives import ALL_ALGORITHMS, operation_name
    from icnperf.model.collectives import machine_layout, structured
    from icnperf.api.collective_table import (absent_notes, collective_rows,
                                              hierarchy_for)
    from icnperf.api.layouts import layouts_for
    from icnperf.reports.render import require_finite
    from icnperf.units import parse_range

    api = options.choice(api, options.APIS + options.CCL_APIS, "--api")
    if api in options.CCL_APIS:
        from icnperf.api.ccl import ccl_predict, refuse_mpi_only

        refuse_mpi_only(api, **{"--shape": shape is not None,
                                "--hierarchy": hierarchy is not None,
                                "--placement": placement != "linear",
                                "--buffers": buffers != "host",
                                "--element-size": element_size != "8B",
                                "--uncertainty": bool(uncertainty),
                                "--samples": samples is not None,
                                "--seed": seed is not None,
                                "--production": bool(production)})
        return ccl_predict(machine, operation, api, set=set, nodes=nodes, bytes=bytes,
                           algorithm=algorithm,
                           gpus_per_node=options.optional_integer(ppn, "--ppn", low=1))
    ppn = options.integer(1 if ppn is None else ppn, "--ppn", low=1)
    hierarchy = options.optional_choice(hierarchy, options.HIERARCHIES, "--hierarchy")
    placement = options.choice(placement, options.PLACEMENTS, "--placement")
    buffers = options.choice(buffers, options.BUFFERS, "--buffers")
    sampling = options.sampling(uncertainty, samples, seed)
    production = options.flag(production, "--production")
    nodes_text, nodes_recorded = values.counts_text(nodes)
    shape_text = values.shape_text(shape)
    element_text, _ = values.size_text(element_size, "--element-size")
    operation = operation_name(operation)
    base, overrides = values.machine(machine, set)
    machine = with_buffers(base, buffers)
    sizes, sizes_recorded = values.sizes(bytes)
    mode = hierarchy_for(hierarchy, ppn, operation)
    if nodes_text is not None and shape_text is None:
        # the node counts alone, before a layout is built for each (1,000,000 layouts took
        # two minutes to build before the estimate refused them)
        counts = parse_range(nodes_text, "count")
        within_limits(collective_estimate(
            [int(n) * (1 if mode == "node" else ppn) for n in counts], sizes.size, ["all"],
            len(ALL_ALGORITHMS) if algorithm == "all" else 1, budget_format,
            random_placement=placement == "random", operation=operation))
    layouts = layouts_for(machine.topology, nodes_text, shape_text,
                          machine.get("system.nodes"))
    element = parse_range(element_text, "size", default_unit="B")
    if len(element) != 1 or not element[0] > 0:
        raise InputError(f"--element-size takes one size > 0, not {element_text!r}")
    element_bytes = float(element[0])
    # collective_rows maps every algorithm on each layout (the best p2p column needs them)
    routed = [machine_layout(machine, layout) for layout in layouts]
    estimate = collective_estimate(
        [layout.endpoints * (1 if mode == "node" else ppn) for layout in layouts],
        sizes.size, ["all"], len(ALL_ALGORITHMS) if algorithm == "all" else 1,
        budget_format, random_placement=placement == "random",
        dims=[len(layout.radices or (0, 0, 0)) for layout in layouts], operation=operation,
        counted=placement == "linear"
        and all(structured.counts_steps_in_structure(layout) for layout in routed),
        step_seconds=counted_step_seconds(max(
            (structured.partial_group_endpoints(layout) for layout in routed), default=0)))
    if sampling is not None:
        from icnperf.model.budget import with_draws

        estimate = with_draws(estimate, sampling.samples)
    within_limits(estimate)
    rows, assumptions = collective_rows(machine, operation, algorithm, layouts, sizes, api,
                                        ppn, placement, mode, element_bytes)
    if sampling is not None:
        from icnperf.api.collective_table import COLLECTIVE_RANGED
        from icnperf.data.machine.sampling import row_ranges

        rows = _merged(rows, row_ranges(
            base, lambda drawn: collective_rows(
                with_buffers(drawn, buffers), operation, algorithm, layouts, sizes, api,
                ppn, placement, mode, element_bytes)[0],
            COLLECTIVE_RANGED, sampling))
    unscheduled_names: list[str] = []
    if production and algorithm == "all":
        from icnperf.api.production import unscheduled

        unscheduled_names = unscheduled(rows, operation)
        rows = [row for row in rows if row["algorithm"] not in unscheduled_names]
        if not rows:
            raise InputError(f"--production: none of {', '.join(unscheduled_names)} has a"
                             f" step schedule for {operation}")
    if production and sampling is None:
        from icnperf.api.production import production_rows

        rows = production_rows(machine, rows, operation, layouts, api,
                               processes_per_node=ppn, placement=placement, hierarchy=mode,
                               element_size=element_bytes)
    elif production:
        from icnperf.api.production import production_ranged_rows

        rows = production_ranged_rows(base, lambda drawn: with_buffers(drawn, buffers), rows,
                                      operation, layouts, api, sampling,
                                      processes_per_node=ppn, placement=placement,
                                      hierarchy=mode, element_size=element_bytes)
    absent = (absent_notes(machine, operation, layouts, ppn, placement, mode)
              if algorithm == "all" else [])
    absent += [f"{name}: no step schedule to charge --production's queueing and OS noise to"
               for name in unscheduled_names]
    assumptions = {name: notes for name, notes in assumptions.items()
                   if name not in unscheduled_names}
    require_finite(rows, ("time_s", "best_p2p_s", "ratio_to_best_p2p", "ratio_to_p2p_tree"),
                   "predict collective",
                   lambda row: f"for {row['algorithm']} at {row['bytes']:g} B on {row['shape']}")
    document = {"inputs": {"operation": operation, "machine": machine.name,
                           "set": overrides, "nodes": nodes_recorded, "shape": shape_text,
                           "bytes": sizes_recorded, "algorithm": algorithm, "api": api,
                           "processes_per_node": ppn, "placement": placement,
                           "hierarchy": mode, "element_bytes": element_bytes,
                           "buffers": buffers,
                           **({} if sampling is None else
                              {"uncertainty": sampling.as_dict(base)}),
                           **({"production": dict(machine.production)}
                              if production else {})},
                "assumptions": {a: list(n) for a, n in assumptions.items()},
                "absent": absent, "rows": rows}
    library = machine.get("software.mpi_library") if algorithm == "auto" else None
    if production:
        from icnperf.api.production import production_line

        return CollectiveResult(document, library, production_line(machine))
    return CollectiveResult(document, library)


def _merged(rows: list[dict], spans: list[dict]) -> list[dict]:
    """The rows with their ranges' fields (``<field>_low``, ``<field>_high``) added."""
    return [{**row, **span} for row, span in zip(rows, spans)]
