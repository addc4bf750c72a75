"""``icnperf.predict_app`` and ``icnperf.place``: an application skeleton per node count
(``icnperf predict app``), NPB IS's placements ranked (``icnperf place``)."""

from __future__ import annotations

from typing import Any

from icnperf.api import options, values
from icnperf.api.guard import quiet
from icnperf.api.results import Result
from icnperf.errors import InputError

ALL = "all"
"""``algorithm="all"``: the hardware tree and each phase's point-to-point algorithm."""

class AppResult(Result):
    """``predict app``: one row per (node count, phase) with its time and share, one total
    per node count (``totals``), and the notes."""

    command = "predict app"

    @property
    def totals(self) -> list[dict]:
        return self.to_dict()["totals"]

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.apps import app_render

        return app_render(self._document, fmt, wide)

    def figure(self):
        from icnperf.reports.result_figures import app_figure

        return app_figure(self._document)


class PlacementResult(Result):
    """NPB IS placements ranked by predicted time (``place``, ``predict app npb-is``)."""

    command = "place"
    rows_key = "placements"

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.apps import placement_render

        return placement_render(self._document, fmt, wide)

    def figure(self):
        from icnperf.reports.result_figures import placement_figure

        return placement_figure(self._document)


def _problem(given: dict) -> dict:
    """The legacy keywords as resolve_skeleton takes them (the CLI's parameter names)."""
    return {
        "rows": options.optional_count(given.get("rows"), "--rows"),
        "nonzeros_per_row": options.optional_count(given.get("nnz_per_row"),
                                                   "--nnz-per-row"),
        "cells": options.optional_count(given.get("cells"), "--cells"),
        "steps": options.optional_count(given.get("steps"), "--steps"),
        "iterations": options.optional_count(given.get("iterations"), "--iterations"),
        "local": values.shape_text(given.get("local")),
        "variant": options.optional_choice(given.get("variant"), options.HPCG_VARIANTS,
                                           "--variant"),
        "klass": None if given.get("class_") is None else str(given["class_"]),
    }


@quiet
def predict_app(machine: Any, app: str, *, set: Any = None, nodes: Any = None,
                shape: Any = None, param: Any = None, algorithm: str | None = None,
                ppn: Any = None, placement: str = "linear", buffers: str = "host",
                compute: str | None = None, rows: Any = None,
                nnz_per_row: Any = None, cells: Any = None, steps: Any = None,
                iterations: Any = None, local: Any = None, variant: str | None = None,
                class_: str | None = None, uncertainty: bool = False, samples: Any = None,
                seed: Any = None, production: bool = False, budget_format: str = "json"):
    """What ``icnperf predict app APP`` computes: a skeleton (a bundled name such as
    ``"heat"`` or a TOML path) on ``machine`` per node count; ``"npb-is"`` ranks
    placements with its Python model (a :class:`PlacementResult`).

    Keywords are the command's options: ``set``, ``nodes``, ``shape``, ``param``
    (``{"n": 2048}`` or ``"n=2048"`` items), ``algorithm`` (each phase's own by default;
    best, auto, hw-tree, ...; all: the hardware tree beside the point-to-point
    algorithm), ``ppn``, ``placement``, ``buffers`` (host or gpu: the machine's GPU-buffer
    path), ``compute`` (cpu: the skeleton as written; gpu: the roofline of the node's
    accelerators), and the bundled apps' own ``rows``,
    ``nnz_per_row``, ``cells``, ``steps``, ``iterations``, ``local`` (``"16x16x16"``),
    ``variant`` (hpcg: reference, optimized) and ``class_`` (npb-is: S..D).
    ``uncertainty``: each phase's time and share and each node count's total, GFLOP/s and
    efficiency as 5-95 % ranges (``<field>_low``, ``<field>_high``) over ``samples``
    (default 200) draws seeded with ``seed`` (default 0) of the machine's inputs within
    their stated uncertainty (skeletons only; not npb-is). ``production``: each phase's
    time and each total under the machine's ``[production]`` background traffic and OS
    noise, the median of the production distribution with its 5-95 % range
    (api/production_app.py; ``empty_time_s``, ``empty_total_s`` the empty machine's).
    """
    from icnperf.data.files import printable
    from icnperf.data.limits import skeleton_within_limits
    from icnperf.data.machine import with_buffers
    from icnperf.api.skeletons import (NPB_IS_OPTIONS, compared_results, option_flag,
                                       resolve_skeleton)
    from icnperf.api.app_runs import (set_comparison, skeleton_notes_of_runs,
                                     skeleton_results, skeleton_rows)
    from icnperf.api.layouts import layouts_for

    given = _problem({"rows": rows, "nnz_per_row": nnz_per_row, "cells": cells,
                      "steps": steps, "iterations": iterations, "local": local,
                      "variant": variant, "class_": class_})
    given["processes_per_node"] = options.optional_integer(ppn, "--ppn", low=1)
    given["compute"] = options.optional_choice(compute, options.COMPUTES, "--compute")
    placement = options.choice(placement, options.PLACEMENTS, "--placement")
    buffers = options.choice(buffers, options.BUFFERS, "--buffers")
    sampling = options.sampling(uncertainty, samples, seed)
    production = options.flag(production, "--production")
    params = values.items(param, "--param")
    nodes_text, nodes_recorded = values.counts_text(nodes)
    shape_text = values.shape_text(shape)
    base, overrides = values.machine(machine, set)
    machine = with_buffers(base, buffers)
    if app == "npb-is":
        if sampling is not None or production:
            raise InputError(f"--{'uncertainty' if sampling is not None else 'production'}"
                             " takes skeletons; npb-is ranks placements with its Python"
                             " model")
        used = {k: v for k, v in given.items() if v is not None}
        stray = sorted({*used} - NPB_IS_OPTIONS)
        if stray or params or algorithm is not None or placement != "linear":
            names = ", ".join([option_flag(s) for s in stray] + (["--param"] if params else [])
                              + (["--algorithm"] if algorithm is not None else [])
                              + (["--placement"] if placement != "linear" else []))
            raise InputError(f"{names} does not apply to npb-is (its Python model takes "
                             "--class and --ppn)")
        return _placements(machine, used.get("klass", "C"), None, nodes_text,
                           used.get("processes_per_node"))
    if given.get("klass") is not None:
        raise InputError(f"--class does not apply to {printable(app)} (npb-is only)")
    skeleton, ppn = resolve_skeleton(app, {**{k: v for k, v in given.items() if k != "klass"},
                                           "buffers": buffers}, params, machine)
    if any(phase.on_gpu_library for phase in skeleton.phases):
        from icnperf.model.network.gpu import gpus_per_node

        gpus_per_node(machine)  # ranks are GPUs: a machine without them is refused first
    if nodes_text is not None and shape_text is None:  # the node counts alone, before layouts
        from icnperf.units import parse_range

        skeleton_within_limits(skeleton, machine,
                               [int(n) for n in parse_range(nodes_text, "count")], ppn,
                               algorithm, budget_format)
    layouts = [layout.placed(layout.processes_per_node, placement)
               for layout in layouts_for(machine.topology, nodes_text, shape_text,
                                         machine.get("system.nodes"))]
    skeleton_within_limits(skeleton, machine, [lay.endpoints for lay in layouts], ppn,
                           algorithm, budget_format, placement=placement,
                           draws=_production_draws(base, skeleton, layouts, sampling,
                                                   production))

    def runs_on(drawn, on=layouts):
        if algorithm == ALL:
            return compared_results(skeleton, drawn, on, ppn)
        return [(algorithm, skeleton_results(skeleton, drawn, on, algorithm, ppn))]

    runs = runs_on(machine)
    tables = [(label, *skeleton_rows(results, skeleton.scaling, label))
              for label, results in runs]
    if production:
        from icnperf.api.production_app import app_tables

        tables = app_tables(base, lambda drawn, on: runs_on(with_buffers(drawn, buffers), on),
                            lambda results, label: skeleton_rows(results, skeleton.scaling,
                                                                 label),
                            skeleton, layouts, sampling)
    elif sampling is not None:
        tables = _with_ranges(tables, base, buffers, runs_on, skeleton, sampling)
    if algorithm == ALL:
        set_comparison([totals for _, _, totals in tables])
    notes = skeleton_notes_of_runs(skeleton, runs, algorithm == ALL)
    if production:
        from icnperf.api.production_app import APP_NOTE, app_placement_note
        from icnperf.reports.text.production import values_line

        placed_note = app_placement_note(base, skeleton, layouts)
        notes += [values_line(machine.production, "each time"), APP_NOTE,
                  *([placed_note] if placed_note else [])]
    first = runs[0][1][0]
    document = {"inputs": {"app": app, "skeleton": skeleton.name, "machine": machine.name,
                           "nodes": nodes_recorded, "shape": shape_text,
                           "algorithm": algorithm, "placement": placement,
                           "buffers": buffers, "compute": given.get("compute") or "cpu",
                           "processes_per_node": first.ppn,
                           "parameters": first.parameters,
                           **({} if sampling is None else
                              {"uncertainty": sampling.as_dict(base)}),
                           **({"production": dict(machine.production)}
                              if production else {})},
                "notes": notes,
                "rows": [row for _, rows, _ in tables for row in rows],
                "totals": [row for _, _, totals in tables for row in totals]}
    return AppResult(document)


def _production_draws(machine, skeleton, layouts, sampling, production: bool) -> int:
    """The skeleton runs beyond the first that the budget counts: one per draw of the inputs
    (``--uncertainty``), or one per placement draw of a busy scheduler (``--production``
    where it places the job, api/production_app.app_tables)."""
    if sampling is not None:
        return sampling.samples
    if production:
        from icnperf.api.production_app import scheduled
        from icnperf.model.production import PLACEMENT_DRAWS

        return PLACEMENT_DRAWS if scheduled(machine, skeleton, layouts) else 0
    return 0


APP_RANGED = ("time_s", "share", "total_s", "gflops", "efficiency")
"""The predicted quantities of ``predict app`` that ``uncertainty`` ranges (per phase:
time and share; per node count: total, GFLOP/s, efficiency)."""


def _with_ranges(tables, base, buffers, runs_on, skeleton, sampling):
    """``tables`` with each phase row's and total row's ``<field>_low``/``_high`` over the
    draws of ``base`` (buffers applied to each draw)."""
    from icnperf.data.machine import with_buffers
    from icnperf.data.machine.sampling import row_ranges
    from icnperf.api.app_runs import skeleton_rows

    def rows_of(drawn):
        out = []
        for label, results in runs_on(with_buffers(drawn, buffers)):
            phases, totals = skeleton_rows(results, skeleton.scaling, label)
            out += phases + totals
        return out

    spans = iter(row_ranges(base, rows_of, APP_RANGED, sampling))
    ranged = []
    for label, phases, totals in tables:
        phases = [{**row, **_present(row, next(spans))} for row in phases]
        totals = [{**row, **_present(row, next(spans))} for row in totals]
        ranged.append((label, phases, totals))
    return ranged


def _present(row: dict, span: dict) -> dict:
    """The range fields of the quantities ``row`` has."""
    return {key: value for key, value in span.items()
            if key.rsplit("_", 1)[0] in row}


@quiet
def place(machine: Any, *, app: str = "npb-is", class_: Any = "C", procs: Any,
          set: Any = None) -> PlacementResult:
    """What ``icnperf place`` computes: the placements (nodes x processes per node) of a
    job of ``procs`` processes ranked by predicted time; ``app`` is npb-is, ``class_`` its
    problem class (S..D), ``machine`` one with bundled NPB IS measurements."""
    app = options.choice(app, ("npb-is",), "--app")
    procs = options.integer(procs, "--procs", low=1)
    machine, _ = values.machine(machine, set)
    return _placements(machine, str(class_), procs, None, None)


def _placements(machine, klass: str, procs: int | None, nodes_text: str | None,
                ppn: int | None) -> PlacementResult:
    from icnperf.data.measurements.tables import load_table
    from icnperf.model.apps import npb_is
    from icnperf.units import parse_range

    tables = npb_is.TABLES_FOR_MACHINE.get(machine.name)
    if not tables:
        raise InputError(f"no bundled NPB IS measurements to fit for {machine.name}; "
                         f"machines with data: {', '.join(npb_is.TABLES_FOR_MACHINE)}")
    if klass not in npb_is.CLASSES:
        raise InputError(f"unknown NPB class {klass!r}; choose one of"
                         f" {', '.join(npb_is.CLASSES)}")
    table = next((t for t in tables if t.endswith(f"class-{klass.lower()}")), tables[0])
    params = npb_is.fit(load_table(table), machine).params
    if procs is not None:
        ranked = npb_is.rank_placements(machine, klass, procs, params)
    else:
        if nodes_text is None or ppn is None:
            raise InputError("npb-is needs --nodes and --ppn (or use icnperf place --procs)")
        ranked = sorted(((int(n), ppn, float(npb_is.predict(machine, int(n), ppn, klass,
                                                            params).total_s))
                         for n in parse_range(nodes_text, "count")), key=lambda r: r[2])
    rows = [{"rank": i + 1, "nodes": n, "processes_per_node": p, "processes": n * p,
             "total_s": t} for i, (n, p, t) in enumerate(ranked)]
    note = (f"contention parameters fitted on {table} (all included rows); the held-out"
            " agreement of this model is reported by icnperf validate (npb-is checks)")
    return PlacementResult({"inputs": {"app": "npb-is", "machine": machine.name,
                                       "class": klass, "procs": procs},
                            "notes": [note], "placements": rows})
