"""``icnperf.size``: a procurement study for N endpoints (``icnperf size``): every feasible
design of each family, its bill of materials and workload time, and the cost-performance
Pareto front."""

from __future__ import annotations

import os
from typing import Any

from icnperf.api import options, values
from icnperf.api.options import MAX_RADIX
from icnperf.api.guard import quiet
from icnperf.api.results import Result
from icnperf.errors import InputError

DEFAULT_MACHINE = "angara-3d"
"""The machine whose parameters a study uses unless --machine names another: the Angara
router and Xeon E5-2660 nodes of Mukosey 2015, the only bundled preset with every parameter
the default workload needs (link and router timing, hardware collectives, SpMV and stencil
node rates)."""

CHUNK = 512
"""Designs per evaluation task in this process: the full model times a task's designs
together (model.sizing.batched), so larger tasks share more of the work; a parallel
scheduler gets tasks of 2 designs, spread over its workers."""


def _list(text: str | None, default: tuple, what: str, convert=str) -> tuple:
    if text is None:
        return default
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise InputError(f"{what}: give a comma-separated list")
    try:
        return tuple(convert(t) for t in items)
    except ValueError:
        raise InputError(f"{what}: {text!r} is not a comma-separated list of whole numbers")\
            from None


def _mapper(scheduler: str, workers: int | None, progress: bool | None):
    """How the full model's evaluations run: icnperf.runner.run_map on the scheduler, with
    its progress bar on standard error when a call has several tasks (--shortlist all)."""
    from icnperf.runner import run_map

    return lambda function, tasks: run_map(function, tasks, scheduler=scheduler,
                                           workers=workers, progress=progress,
                                           label="full model")


def load_study(endpoints: int, families: str | None = None, torus_dims: str | None = "3,6",
               radix_max: int = 128, cost_path: str | None = None,
               workload_path: str | None = None, machine_name: str | None = None,
               slack: float | None = None, shortlist: str | int = "safe",
               scheduler: str = "inline", workers: int | None = None,
               progress: bool | None = None, app_files: tuple = ()):
    """Run a study from the command's option values; returns (study, cost model, workload,
    machine). ``app_files``: skeleton files named on the command line that the workload
    may read outside its folder (data.sizing_inputs.load_workload); ``slack``: largest
    endpoint count screened, a multiple of ``endpoints`` [default:
    model.sizing.space.DEFAULT_SLACK]; ``shortlist``: safe, all or N
    (model.sizing.screen.search); ``scheduler``, ``workers``, ``progress``: where the
    full-model evaluations run (icnperf.runner)."""
    from icnperf.data.machine import load_machine
    from icnperf.data.sizing_inputs import load_cost_model, load_workload
    from icnperf.model.sizing.designs import SIZING_FAMILIES
    from icnperf.model.sizing.screen import parse_shortlist
    from icnperf.model.sizing.space import DEFAULT_SLACK
    from icnperf.model.sizing.study import run_study
    from icnperf.runner import parse_scheduler

    slack = DEFAULT_SLACK if slack is None else slack
    family_names = tuple(dict.fromkeys(_list(families, SIZING_FAMILIES, "--families",
                                             str.lower)))
    dims = tuple(dict.fromkeys(_list(torus_dims, (3, 6), "--torus-dims", int)))
    shortlist = parse_shortlist(shortlist)
    where = parse_scheduler(scheduler)
    cost_model = load_cost_model(cost_path)
    workload = load_workload(workload_path, app_files)
    machine = load_machine(machine_name or DEFAULT_MACHINE)
    mapper = _mapper(scheduler, workers, progress)
    parallel = where.kind != "inline"
    batch = 8 * (workers or os.cpu_count() or 2) if parallel else 1
    study = run_study(endpoints, family_names, dims, radix_max, cost_model, workload, machine,
                      slack, shortlist, mapper=mapper, batch=batch, chunk=2 if parallel else CHUNK)
    return study, cost_model, workload, machine


class SizeResult(Result):
    """``size``: one row per design evaluated (``rows``: cost, workload time, Pareto
    flags), the workload terms, the front, the screen's counts. ``study`` is the model's
    record; ``html()`` the page ``size -o study.html`` writes."""

    command = "size"
    rows_key = "designs"

    def __init__(self, document: dict, study, cost_model, workload, machine) -> None:
        # the JSON form (Result's, NumPy numbers as Python ones) is made on first use: a
        # table does not need it, and a study of 17,412 designs has 100,000 rows
        self._raw = document
        self._json = None
        self.study = study
        self._context = (study, cost_model, workload, machine)
        self._plain = None

    @property
    def _document(self) -> dict:
        if self._json is None:
            from icnperf.reports.render import json_document

            self._json = json_document(self._raw)
        return self._json

    def _view(self) -> dict:
        """What the tables and the page show (api.study_rows.study_view, with the
        document's rows: the same design_rows and term_rows), built on the first call that
        needs it (JSON does not)."""
        if self._plain is None:
            from icnperf.api.study_rows import study_view

            self._plain = study_view(*self._context, rows=self._raw["designs"],
                                     terms=self._raw["terms"])
        return self._plain

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.size import study_render

        return study_render(self._raw, None if fmt == "json" else self._view(), fmt,
                            wide)

    def html(self) -> str:
        """The study as one self-contained HTML page."""
        from icnperf.reports.text.size_html import study_page

        return study_page(self._view())

    def figure(self):
        from icnperf.reports.result_figures import size_figure

        return size_figure(self._document)


def check_budget(endpoints: int, families: str | None, torus_dims: str, radix_max: int,
                 slack: float, shortlist: str = "safe", fmt: str = "table",
                 scheduler: str = "inline", workers: int | None = None,
                 workload_path: str | None = None, app_files: tuple = ()) -> None:
    """A study's design space and full-model evaluations checked against the work limits
    (icnperf.data.limits): the space's estimated design count x its cost per design, and
    the full model's evaluations a shortlist of all or N asks for (with the workload's
    terms, ``workload_path`` or the bundled one)."""
    from icnperf.data.limits import within_limits
    from icnperf.model.sizing.design_budget import design_space_estimate
    from icnperf.model.sizing.designs import SIZING_FAMILIES
    from icnperf.model.sizing.screen import parse_shortlist
    from icnperf.model.topology.base import MAX_ENDPOINTS
    from icnperf.runner import parallel_workers

    if not 2 <= radix_max <= MAX_RADIX:
        raise InputError(f"--radix-max must be in 2..{MAX_RADIX}, got {radix_max:,}")
    if endpoints * slack > MAX_ENDPOINTS:
        raise InputError(f"--endpoints {endpoints:,} with --slack {slack:g} screens designs of"
                         f" up to {endpoints * slack:.3g} endpoints, more than the"
                         f" {MAX_ENDPOINTS:.0e} icnperf models; ask for at most"
                         f" {MAX_ENDPOINTS / slack:.3g} endpoints or a smaller --slack")
    chosen = [f.strip() for f in (families or ",".join(SIZING_FAMILIES)).split(",")]
    dims = [int(d) for d in torus_dims.split(",") if d.strip().isdigit()]
    from icnperf.data.sizing_inputs import load_workload
    from icnperf.model.sizing.design_budget import workload_terms

    chosen_shortlist = parse_shortlist(shortlist)
    within_limits(design_space_estimate(endpoints, chosen, dims, radix_max, slack,
                                        chosen_shortlist,
                                        parallel_workers(scheduler, workers, 1 << 20), fmt,
                                        workload_terms(load_workload(workload_path,
                                                                     app_files))))


@quiet
def size(*, endpoints: Any, families: Any = None, torus_dims: Any = "3,6",
         radix_max: Any = 128, cost: str | None = None, workload: str | None = None,
         machine: str | None = None, slack: Any = 1.5, shortlist: Any = "safe",
         scheduler: str = "inline", workers: Any = None, progress: bool | None = False,
         app_files: Any = (), budget_format: str = "json") -> SizeResult:
    """What ``icnperf size`` studies: designs of each family (``families``: text or a list)
    for ``endpoints`` endpoints within routers of ``radix_max`` ports and up to ``slack``
    times the endpoints, costed by ``cost`` (a cost-model TOML; default bundled) and timed
    on ``workload`` (a workload TOML; default bundled) with ``machine``'s parameters;
    ``shortlist`` (safe, all or N) says which designs the full model evaluates, on
    ``scheduler`` with ``workers``. ``app_files``: skeleton files (paths from here) the
    workload names outside its own folder, allowed for this run (``--app-file``)."""
    from icnperf.api.study_rows import study_document

    endpoints = options.count(endpoints, "--endpoints")
    radix_max = options.count(radix_max, "--radix-max")
    slack = options.real(slack, "--slack", low=1.0, high=100.0)
    workers = options.optional_count(workers, "--workers")
    families = values.sequence_of_text(families, "--families")
    torus_dims = values.sequence_of_text(torus_dims, "--torus-dims")
    shortlist = str(shortlist)
    app_files = (app_files,) if isinstance(app_files, str) else tuple(app_files)
    if not all(isinstance(path, str) for path in app_files):
        raise InputError(f"--app-file: give skeleton paths as text, not {app_files!r}")
    check_budget(endpoints, families, torus_dims, radix_max, slack, shortlist, budget_format,
                 scheduler, workers, workload, app_files)
    study, cost_model, workload_model, loaded = load_study(
        endpoints, families, torus_dims, radix_max, cost, workload, machine, slack,
        shortlist, scheduler, workers, progress, app_files)
    document = study_document(study, cost_model, workload_model, loaded, {
        "endpoints": endpoints, "families": list(study.families), "torus_dims": torus_dims,
        "radix_max": radix_max, "slack": slack, "shortlist": shortlist,
        "cost": cost or "default", "workload": workload or "default",
        "app_files": list(app_files), "machine": loaded.name})
    return SizeResult(document, study, cost_model, workload_model, loaded)
