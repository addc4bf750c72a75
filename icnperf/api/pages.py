"""``icnperf.validate`` and ``icnperf.report``: the published claims checked against the
model (``icnperf validate``), and a machine's self-contained HTML report (``icnperf
report``). Both return text or results; writing a file is the caller's."""

from __future__ import annotations

import fnmatch
from typing import Any

from icnperf.api import options, values
from icnperf.api.guard import quiet
from icnperf.api.results import Result
from icnperf.errors import InputError


class ValidationResult(Result):
    """``validate``: one row per claim (``rows``: measured, predicted, error, tolerance,
    status), the counts per kind, and whether any check failed (``failed``; the command
    line then exits with status 1). ``html()`` is the page ``validate -o x.html`` writes."""

    command = "validate"
    rows_key = "checks"

    @property
    def failed(self) -> bool:
        return any(r["status"] == "fail" for r in self._document["checks"])

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.validate import validation_render
        from icnperf.validation.registry import summary_line

        return validation_render(self._document, fmt, wide,
                                 summary_line(self._document["checks"]))

    def html(self) -> str:
        """The validation page (plots per paper, error tables) as HTML text."""
        from icnperf.api.validation_pages import validation_page as page_of
        from icnperf.reports.validation_page import validation_page

        return validation_page(page_of(self._document["checks"],
                                       simulation_run=self._document["simulation"]),
                               self._document.get("production"))

    def figure(self):
        from icnperf.reports.result_figures import validation_figure

        return validation_figure(self._document)


def _matches(claim_id: str, pattern: str) -> bool:
    """``only``: a glob (when the pattern has * ? or [) or else a substring of the id."""
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(claim_id, pattern)
    return pattern in claim_id


def select_claims(simulation: bool = False, only: str | None = None) -> list:
    """The claims to check (the simulator's cross-checks only with ``simulation``). An
    ``only`` pattern that matches no claim is an InputError (naming the simulator's claims
    it would match with ``simulation``)."""
    from icnperf.validation.registry import RUNS, all_claims

    runs = tuple(r for r in RUNS if simulation or r != "simulation")
    claims = all_claims(runs=runs)
    if only is None:
        return claims
    chosen = [c for c in claims if _matches(c.id, only)]
    if not chosen:
        hidden = [c for c in all_claims(runs=("simulation",)) if _matches(c.id, only)]
        hint = (f"; {len(hidden)} simulator cross-check(s) match: add --simulation"
                if hidden and not simulation else "")
        raise InputError(f"--only {only!r}: no claim id matches{hint}")
    return chosen


@quiet
def validate(only: str | None = None, simulation: bool = False,
             progress: bool | None = False, ranges: bool = True,
             production: bool = True) -> ValidationResult:
    """What ``icnperf validate`` checks: every published claim (``only``: a glob or a
    substring of the claim ids) against the model, the flit simulator's cross-checks too
    with ``simulation``; ``progress`` shows a bar on standard error while they run. The
    document's ``ranges``: each real-machine claim checked against its prediction's 5-95 %
    range over 200 seeded draws of its preset's inputs, and their coverage; ``ranges=False``
    leaves them out (the command line does for CSV and the HTML page, which do not show
    them: the draws are most of validate's time). The document's ``production``: each
    real-machine claim on a preset with ``[production]`` values checked against its
    ``--uncertainty --production`` range and its ``--production`` point, and their coverage
    (icnperf.validation.production; claims on other presets counted as left out, with
    their presets); ``production=False`` leaves it out."""
    from icnperf.runner import run_map
    from icnperf.validation.ranges import VALIDATE_SAMPLING, coverage, range_results
    from icnperf.validation.registry import evaluate, kind_counts

    simulation = options.flag(simulation, "--simulation")
    production = options.flag(production, "production")
    claims = select_claims(simulation, only)
    results = run_map(lambda claim: evaluate(claim).as_dict(), claims, "inline",
                      progress=progress, label="validate")
    document = {"checks": results, "counts": kind_counts(results), "simulation": simulation}
    if options.flag(ranges, "ranges"):
        checks = range_results(claims)
        document["ranges"] = {"sampling": VALIDATE_SAMPLING.as_record(), "checks": checks,
                              "coverage": coverage(checks)}
    if production:
        from icnperf.validation.production import (POINT_TOLERANCE, production_coverage,
                                                   production_results)

        busy = production_results(claims)
        document["production"] = {"sampling": VALIDATE_SAMPLING.as_record(),
                                  "point_tolerance": POINT_TOLERANCE,
                                  "checks": busy["checks"],
                                  "unmodelled": busy["unmodelled"],
                                  "coverage": production_coverage(busy)}
    return ValidationResult(document)


@quiet
def report(machine: Any, *, compare: Any = (), set: Any = None, validation: bool = True,
           app: Any = (), uncertainty: bool = False, samples: Any = None,
           seed: Any = None, production: bool = False) -> str:
    """What ``icnperf report`` builds: the self-contained HTML page of ``machine`` (a
    preset name or a machine TOML path), beside the machines of ``compare``, with one
    section per application skeleton of ``app``, as text (write it where you like).
    ``set``: overrides of ``machine``; ``validation``: include the validation section.
    ``uncertainty``: the curves get error bars and the tables 5-95 % cells over ``samples``
    (default 200) draws seeded with ``seed`` (default 0) of each machine's inputs within
    their stated uncertainty (the ranges predict p2p, collective and app give for the same
    draws), and a section ranks the inputs of the representative all-reduces by their
    share of the range (tornado charts); the work budget counts the draws. ``production``:
    the predictions on the busy machine, as predict p2p|collective|app --production makes
    them (points the medians; with ``uncertainty`` the error bars and cells the
    --uncertainty --production ranges), and a section saying which production mechanisms
    were applied, with their sources; every machine of the report must carry
    ``[production]`` values (InputError, one line, otherwise)."""
    from icnperf.data.limits import skeleton_within_limits, within_limits
    from icnperf.data.skeleton import load_skeleton
    from icnperf.model.budget import report_estimate
    from icnperf.api.machine_sections import load_machines, machine_report, node_layouts
    from icnperf.reports.machine_report import report_html

    validation = options.flag(validation, "--no-validation")
    sampling = options.sampling(uncertainty, samples, seed)
    production = options.flag(production, "--production")
    compare = (compare,) if isinstance(compare, str) else tuple(compare)
    apps = (app,) if isinstance(app, str) else tuple(app)
    overrides = values.items(set, "--set")
    if not isinstance(machine, str):
        raise InputError("report: give the machine as a preset name or a machine TOML path")
    machines, names = load_machines(machine, compare, overrides)
    if production:
        from icnperf.api.report_production import require_production

        require_production(machines, names)
    skeletons = [load_skeleton(name) for name in apps]
    draws = 0 if sampling is None else sampling.samples
    within_limits(report_estimate([[layout.ranks for layout in node_layouts(m)]
                                   for m in machines], names, draws))
    for skeleton in skeletons:
        skeleton_within_limits(skeleton, machines[0],
                               [layout.endpoints for layout in node_layouts(machines[0])],
                               command="report --app",
                               narrow="report a smaller machine (--set topology=...)",
                               draws=draws)
    return report_html(machine_report(machine, compare, overrides, validation=validation,
                                      skeletons=skeletons, sampling=sampling,
                                      production=production))
