"""``icnperf size``: a procurement sizing study as a table, CSV, JSON or an HTML page.

Reads the cost model and workload TOMLs (bundled defaults under data/costs and
data/workloads), loads the machine whose network/node/software parameters every design
shares, runs model.sizing.study (its full-model evaluations through icnperf.runner when a
scheduler is named) and shapes the rows (size_rows.py; the HTML page is size_html.py).
The default table fits 100 columns: flags and
assumptions are numbered notes under it; ``wide`` gives every column with the notes inline.
"""

from __future__ import annotations

import os
import textwrap

from icnperf.errors import InputError
from icnperf.model.sizing.designs import SIZING_FAMILIES
from icnperf.model.sizing.space import DEFAULT_SLACK
from icnperf.reports.render import Column, aligned_table, csv_text, json_text, number
from icnperf.reports.text.size_rows import (WIDTH, assumption_lines, design_rows,
                                            grouped_notes, money_text, row_flags,
                                            screen_line, seconds_text, summary_lines,
                                            term_rows)

DEFAULT_MACHINE = "angara-3d"
"""The machine whose parameters a study uses unless --machine names another: the Angara
router and Xeon E5-2660 nodes of Mukosey 2015, the only bundled preset with every parameter
the default workload needs (link and router timing, hardware collectives, SpMV and stencil
node rates)."""

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
               slack: float = DEFAULT_SLACK, shortlist: str | int = "safe",
               scheduler: str = "inline", workers: int | None = None,
               progress: bool | None = None, app_files: tuple = ()):
    """Run a study from the command's option values; returns (study, cost model, workload,
    machine). ``app_files``: skeleton files named on the command line that the workload
    may read outside its folder (data.sizing_inputs.load_workload); ``slack``: largest
    endpoint count screened, a multiple of ``endpoints``; ``shortlist``: safe, all or N
    (model.sizing.screen.search); ``scheduler``, ``workers``, ``progress``: where the
    full-model evaluations run (icnperf.runner)."""
    from icnperf.data.machine import load_machine
    from icnperf.data.sizing_inputs import load_cost_model, load_workload
    from icnperf.model.sizing.screen import parse_shortlist
    from icnperf.model.sizing.study import run_study
    from icnperf.runner import parse_scheduler

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
                      slack, shortlist, mapper=mapper, batch=batch, chunk=2 if parallel else 8)
    return study, cost_model, workload, machine


def _wrapped(number_: int, text: str) -> str:
    head = f"[{number_}] "
    return textwrap.fill(text, WIDTH, initial_indent=head,
                         subsequent_indent=" " * len(head), break_on_hyphens=False)


def _narrow_text(study, cost_model, workload, machine) -> str:
    """The default layout: every line within WIDTH columns, notes numbered under tables."""
    flags: list[str] = []
    rows = design_rows(study)
    for row, r in zip(rows, study.results):
        refs = []
        for flag in row_flags(r):
            if flag not in flags:
                flags.append(flag)
            refs.append(flags.index(flag))
        row["refs"] = " ".join("abcdefgh"[k] for k in sorted(refs))
    columns = (Column("rank_time", "rank"), Column("pareto", "*", lambda v: "*" if v else ""),
               Column("design", "design"), Column("endpoints", "endpoints", number()),
               Column("routers", "routers", number()), Column("radix", "radix", number()),
               Column("cost", "cost", money_text), Column("workload_s", "workload", seconds_text),
               Column("proxy_s", "proxy", seconds_text), Column("refs", "notes"))
    header = textwrap.fill(
        f"Sizing study: {study.endpoints:,} endpoints, routers of at most {study.radix_max}"
        f" ports; cost in {cost_model.unit}; evaluated designs ranked by workload time"
        " (* = Pareto front; proxy: the screen's lower bound; --wide for every column)", WIDTH)
    flag_notes = "\n".join(f"({'abcdefgh'[i]}) {f}" for i, f in enumerate(flags))
    summary = "\n".join(textwrap.fill(line, WIDTH) for line in summary_lines(study))
    shown = [r for r in study.results if r.pareto or r.design.canonical]
    term_columns = [Column("design", "design")] + [
        Column(f"t{i + 1}", f"t{i + 1}", seconds_text) for i in range(len(workload.terms))]
    terms = [{"design": r.design.spec, **{f"t{i + 1}": t.weighted_s
                                          for i, t in enumerate(r.terms)}} for r in shown]
    legend = "\n".join(textwrap.fill(f"t{i + 1} = {t.name}", WIDTH, subsequent_indent="  ")
                       for i, t in enumerate(workload.terms))
    notes = assumption_lines(study, cost_model, workload, machine) + grouped_notes(study)
    numbered = "\n".join(_wrapped(i + 1, line) for i, line in enumerate(notes))
    return (f"{header}\n\n{aligned_table(rows, columns)}\n"
            + (f"\n{flag_notes}\n" if flags else "") + f"\n{summary}\n\n"
            + textwrap.fill("Workload terms of the Pareto-front and NUDT-rule designs (weight x"
                            " time per run; --wide: every design):", WIDTH)
            + f"\n{aligned_table(terms, term_columns)}\n{legend}\n\n"
            f"Assumptions and notes:\n{numbered}\n")


def _wide_text(study, cost_model, workload, machine) -> str:
    """The full layout: every column, flags inline, notes unwrapped."""
    rows = design_rows(study)
    columns = (
        Column("rank_time", "rank"), Column("rank_cost_time", "rank c*t"),
        Column("pareto", "front", lambda v: "*" if v else ""), Column("design", "design"),
        Column("endpoints", "endpoints", number()), Column("routers", "routers", number()),
        Column("radix", "radix", number()),
        Column("electrical_links", "elec. links", number()),
        Column("optical_links", "opt. links", number()), Column("cost", "cost", money_text),
        Column("workload_s", "workload", seconds_text), Column("proxy_s", "proxy", seconds_text),
        Column("evaluated_because", "evaluated because"), Column("notes", "notes"))
    header = (f"Sizing study: {study.endpoints:,} endpoints, routers of at most"
              f" {study.radix_max} ports; cost in {cost_model.unit}; ranked by workload time"
              " (rank c*t: by cost x time; * = Pareto front; proxy: the screen's lower bound)")
    terms = [{"design": r.design.spec, **{t.name: t.weighted_s for t in r.terms}}
             for r in study.results]
    term_columns = [Column("design", "design")] + [
        Column(t.name, t.name, seconds_text) for t in workload.terms]
    notes = "\n".join(f"  - {line}" for line in
                      assumption_lines(study, cost_model, workload, machine)
                      + grouped_notes(study))
    summary = "\n".join(summary_lines(study))
    return (f"{header}\n\n{aligned_table(rows, columns)}\n\n{summary}\n\n"
            f"workload terms (weight x time per run):\n{aligned_table(terms, term_columns)}\n\n"
            f"assumptions:\n{notes}\n")


def study_document(study, cost_model, workload, machine, inputs: dict) -> dict:
    """The study's JSON layout: inputs, assumptions, designs, terms, front, screen and
    proxy."""
    from icnperf.model.sizing.study import scalability_summary

    return {
        "inputs": inputs, "cost_unit": cost_model.unit,
        "assumptions": assumption_lines(study, cost_model, workload, machine),
        "designs": design_rows(study), "terms": term_rows(study),
        "pareto_front": [r.design.spec for r in study.front],
        "scalability": scalability_summary(study),
        "screened": {"total": study.screened_total, "per_family": study.screened,
                     "evaluated": study.evaluated_total,
                     "evaluated_per_family": study.evaluated,
                     "dropped": study.screened_total - study.evaluated_total,
                     "mode": study.mode, "why_dropped": screen_line(study)},
        "proxy_tightness": {family: {"min": low, "median": mid, "max": high}
                            for family, (low, mid, high) in study.tightness().items()},
        "tapers": study.taper_savings(),
        "missing_families": list(study.missing)}


def study_render(document: dict, study, cost_model, workload, machine, fmt: str,
                 wide: bool = False) -> str:
    """The study rendered: its document as JSON, the designs as CSV, or the tables (the
    ``study`` and its inputs, which the API hands over beside the document)."""
    if fmt == "json":
        return json_text(document)
    if fmt == "csv":
        rows = design_rows(study)
        return csv_text(rows, list(rows[0]))
    if wide:
        return _wide_text(study, cost_model, workload, machine)
    return _narrow_text(study, cost_model, workload, machine)
