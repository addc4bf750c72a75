"""``icnperf size``: a procurement sizing study as a table, CSV, JSON or an HTML page.

Reads the cost model and workload TOMLs (bundled defaults under data/costs and
data/workloads), loads the machine whose network/node/software parameters every design
shares, runs model.sizing.study (its full-model evaluations through icnperf.runner when a
scheduler is named) and shapes the rows. The default table fits 100 columns: flags and
assumptions are numbered notes under it; ``wide`` gives every column with the notes inline.
"""

from __future__ import annotations

import os
import textwrap

from icnperf.errors import InputError
from icnperf.model.sizing.designs import SIZING_FAMILIES
from icnperf.model.sizing.space import DEFAULT_SLACK
from icnperf.reports.render import Column, aligned_table, csv_text, json_text, number

DEFAULT_MACHINE = "angara-3d"
"""The machine whose parameters a study uses unless --machine names another: the Angara
router and Xeon E5-2660 nodes of seeds/000, the only bundled preset with every parameter
the default workload needs (link and router timing, hardware collectives, SpMV and stencil
node rates)."""

WIDTH = 100
"""Columns the default text fits in."""


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
               progress: bool | None = None):
    """Run a study from the command's option values; returns (study, cost model, workload,
    machine). ``slack``: largest endpoint count screened, a multiple of ``endpoints``;
    ``shortlist``: safe, all or N (model.sizing.screen.search); ``scheduler``, ``workers``,
    ``progress``: where the full-model evaluations run (icnperf.runner)."""
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
    workload = load_workload(workload_path)
    machine = load_machine(machine_name or DEFAULT_MACHINE)
    mapper = _mapper(scheduler, workers, progress)
    parallel = where.kind != "inline"
    batch = 8 * (workers or os.cpu_count() or 2) if parallel else 1
    study = run_study(endpoints, family_names, dims, radix_max, cost_model, workload, machine,
                      slack, shortlist, mapper=mapper, batch=batch, chunk=2 if parallel else 8)
    return study, cost_model, workload, machine


# --- rows -----------------------------------------------------------------------------------


def _flags(result) -> list[str]:
    """Short row notes: NUDT-rule design, stand-ins, missing hardware collectives."""
    flags = []
    if result.design.canonical:
        flags.append("NUDT rule")
    notes = [n for t in result.terms for n in t.notes]
    if any("crossbar" in n for n in notes):
        flags.append("crossbar estimate, links derated")
    if any(n.startswith("hw-tree not available") for n in notes):
        flags.append("no hw-tree")
    return flags


def design_rows(study) -> list[dict]:
    """One row per evaluated design (fastest workload first), raw values in SI units / the
    cost unit."""
    from icnperf.model.sizing.study import REASONS

    rows = []
    for r in study.results:
        d = r.design
        links = r.links
        row = {
            "rank_time": r.rank_time, "rank_cost_time": r.rank_cost_time,
            "pareto": r.pareto, "family": d.family, "design": d.spec,
            "endpoints": d.endpoints, "routers": d.routers, "radix": d.radix,
            "ports": d.ports, "electrical_links": links["electrical"],
            "optical_links": links["optical"], "endpoint_links": links["endpoint"],
            "diameter": d.diameter, "average_distance": d.average_distance,
            "uniform_throughput": d.uniform_throughput,
            "cost": r.cost, "workload_s": r.workload_s,
            "cost_x_time": r.cost * r.workload_s, "proxy_s": r.proxy_s,
            "evaluated_because": REASONS[r.reason],
            "rule": d.rule, "notes": "; ".join(_flags(r)),
        }
        for part, value in r.cost_parts.items():
            row[f"cost_{part.replace(' ', '_')}"] = value
        for t in r.terms:
            row[f"term:{t.name}"] = t.weighted_s
        rows.append(row)
    return rows


def term_rows(study) -> list[dict]:
    """One row per (design, term): seconds per run, weight, weighted seconds, algorithm."""
    return [{"design": r.design.spec, "term": t.name, "weight": t.weight,
             "time_s": t.time_s, "weighted_s": t.weighted_s, "algorithm": t.algorithm,
             "layout": t.layout, "notes": list(t.notes)}
            for r in study.results for t in r.terms]


def _designs_text(specs: list[str], study) -> str:
    """Designs named compactly: "every design", whole families, or the specs."""
    if len(specs) == len(study.results):
        return "every design"
    by_family: dict[str, list[str]] = {}
    for r in study.results:
        by_family.setdefault(r.design.family, []).append(r.design.spec)
    parts = []
    for family, members in by_family.items():
        chosen = [s for s in members if s in specs]
        if len(chosen) == len(members):
            parts.append(f"every {family}")
        elif len(chosen) > 6:
            parts.append(f"{len(chosen)} {family} designs")
        else:
            parts.extend(chosen)
    return ", ".join(parts)


def grouped_notes(study) -> list[str]:
    """Each distinct sizing note once, with the terms and designs it applies to."""
    seen: dict[str, tuple[list[str], list[str]]] = {}
    for r in study.results:
        for t in r.terms:
            for note in t.notes:
                terms, designs = seen.setdefault(note, ([], []))
                if t.name not in terms:
                    terms.append(t.name)
                if r.design.spec not in designs:
                    designs.append(r.design.spec)
    term_count = len(study.results[0].terms) if study.results else 0
    return [f"{note} [{'every term' if len(terms) == term_count else '; '.join(terms)};"
            f" {_designs_text(designs, study)}]"
            for note, (terms, designs) in seen.items()]


def _per_family(counts: dict) -> str:
    return ", ".join(f"{family} {count:,}" for family, count in counts.items())


def screen_line(study) -> str:
    """How many designs were screened and evaluated, and why the others could be dropped."""
    line = (f"Screened {study.screened_total:,} candidate designs ({_per_family(study.screened)};"
            f" endpoints {study.endpoints:,} to {study.slack:g}x, radix <= {study.radix_max}):"
            f" each costed exactly and bounded from below by the proxy.")
    dropped = study.screened_total - study.evaluated_total
    evaluated = (f" The full workload model evaluated {study.evaluated_total:,}"
                 f" ({_per_family(study.evaluated)})")
    if study.mode == "all":
        line += evaluated + ": every design (--shortlist all)."
    else:
        line += (evaluated + "; the other " f"{dropped:,} were dropped because an evaluated"
                 " design costs no more and its workload time is no more than their proxy,"
                 " a proven lower bound of their own time (model/sizing/proxy.py): none of"
                 " them can be on the Pareto front, so the front shown is that of every"
                 " screened design.")
        if study.mode not in ("safe", "all"):
            line += (f" --shortlist {study.mode} added designs in proxy order up to that"
                     " many.")
    return line + "".join(f" {note}." for note in study.narrowed)


def tightness_line(study) -> str:
    """The proxy's tightness per family over the evaluated designs."""
    parts = [f"{family} {low:.3f}-{high:.3f} (median {mid:.3f})"
             for family, (low, mid, high) in study.tightness().items()]
    return ("Proxy tightness, full model / proxy over the evaluated designs (1 = exact): "
            + "; ".join(parts))


def summary_lines(study) -> list[str]:
    """The screen, the Pareto front and the NUDT scalability conclusions, as sentences."""
    from icnperf.model.sizing.study import scalability_summary

    front = ", ".join(r.design.spec for r in study.front)
    lines = [screen_line(study), tightness_line(study),
             f"Pareto front in (cost, workload time), cheapest first: {front}"]
    if any("crossbar estimate, links derated" in _flags(r) for r in study.front):
        lines[2] += (" (slim fly times are crossbar estimates with links derated to its"
                     " uniform throughput: see the notes)")
    summary = scalability_summary(study)
    for label, words in (("canonical", "designs by the NUDT sizing rules (seeds/002)"),
                         ("all", "all evaluated designs")):
        if label in summary:
            s = summary[label]
            lines.append(f"Among {words}: fewest routers {s['fewest_routers']['family']}"
                         f" ({s['fewest_routers']['spec']}, {s['fewest_routers']['value']:,}),"
                         f" lowest radix {s['lowest_radix']['family']}"
                         f" ({s['lowest_radix']['spec']}, {s['lowest_radix']['value']})")
    if study.missing:
        lines.append(f"No design within radix {study.radix_max}: {', '.join(study.missing)}")
    return lines


def _seconds(value) -> str:
    from icnperf.units import format_quantity

    return format_quantity(value, "time", 3)


def _money(value) -> str:
    return f"{value:,.0f}"


def _assumption_lines(study, cost_model, workload, machine) -> list[str]:
    from icnperf.model.sizing.cost import LINK_KIND_RULES

    lines = [
        (f"machine: {machine.name} ({machine.description}); its network, node and software"
         " parameters are used with the topology replaced by each design"),
        f"cost model ({cost_model.unit}): {cost_model.description}",
        ("cost = routers x (base + radix x per port) + links by kind + endpoints x (cable +"
         " adapter); every router is built with exactly its design radix"),
    ]
    lines += [f"links, {family}: {LINK_KIND_RULES[family]}" for family in study.families
              if family in LINK_KIND_RULES]
    lines.append(f"workload: {workload.description}; time = sum of weight x time per run")
    lines.append(f"workload rationale: {workload.rationale}")
    lines.append(
        "proxy: a lower bound of each design's full-model time, term by term: the trees'"
        " closed forms exactly, point-to-point rounds at hop counts and channel loads no"
        " larger than the model's (counted from the messages between routers, groups and"
        " pods), compute exactly; hpcg's halos and all-reduces are not bounded and count 0"
        " (model/sizing/bound.py, views.py)")
    lines.append("ranks (time, cost x time) and the front marks are over the evaluated designs")
    return lines


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
        for flag in _flags(r):
            if flag not in flags:
                flags.append(flag)
            refs.append(flags.index(flag))
        row["refs"] = " ".join("abcdefgh"[k] for k in sorted(refs))
    columns = (Column("rank_time", "rank"), Column("pareto", "*", lambda v: "*" if v else ""),
               Column("design", "design"), Column("endpoints", "endpoints", number()),
               Column("routers", "routers", number()), Column("radix", "radix", number()),
               Column("cost", "cost", _money), Column("workload_s", "workload", _seconds),
               Column("proxy_s", "proxy", _seconds), Column("refs", "notes"))
    header = textwrap.fill(
        f"Sizing study: {study.endpoints:,} endpoints, routers of at most {study.radix_max}"
        f" ports; cost in {cost_model.unit}; evaluated designs ranked by workload time"
        " (* = Pareto front; proxy: the screen's lower bound; --wide for every column)", WIDTH)
    flag_notes = "\n".join(f"({'abcdefgh'[i]}) {f}" for i, f in enumerate(flags))
    summary = "\n".join(textwrap.fill(line, WIDTH) for line in summary_lines(study))
    shown = [r for r in study.results if r.pareto or r.design.canonical]
    term_columns = [Column("design", "design")] + [
        Column(f"t{i + 1}", f"t{i + 1}", _seconds) for i in range(len(workload.terms))]
    terms = [{"design": r.design.spec, **{f"t{i + 1}": t.weighted_s
                                          for i, t in enumerate(r.terms)}} for r in shown]
    legend = "\n".join(textwrap.fill(f"t{i + 1} = {t.name}", WIDTH, subsequent_indent="  ")
                       for i, t in enumerate(workload.terms))
    notes = _assumption_lines(study, cost_model, workload, machine) + grouped_notes(study)
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
        Column("optical_links", "opt. links", number()), Column("cost", "cost", _money),
        Column("workload_s", "workload", _seconds), Column("proxy_s", "proxy", _seconds),
        Column("evaluated_because", "evaluated because"), Column("notes", "notes"))
    header = (f"Sizing study: {study.endpoints:,} endpoints, routers of at most"
              f" {study.radix_max} ports; cost in {cost_model.unit}; ranked by workload time"
              " (rank c*t: by cost x time; * = Pareto front; proxy: the screen's lower bound)")
    terms = [{"design": r.design.spec, **{t.name: t.weighted_s for t in r.terms}}
             for r in study.results]
    term_columns = [Column("design", "design")] + [
        Column(t.name, t.name, _seconds) for t in workload.terms]
    notes = "\n".join(f"  - {line}" for line in
                      _assumption_lines(study, cost_model, workload, machine)
                      + grouped_notes(study))
    summary = "\n".join(summary_lines(study))
    return (f"{header}\n\n{aligned_table(rows, columns)}\n\n{summary}\n\n"
            f"workload terms (weight x time per run):\n{aligned_table(terms, term_columns)}\n\n"
            f"assumptions:\n{notes}\n")


def study_json(study, cost_model, workload, machine, inputs: dict) -> str:
    """The study as JSON: inputs, assumptions, designs, terms, front, screen and proxy."""
    from icnperf.model.sizing.study import scalability_summary

    return json_text({
        "inputs": inputs, "cost_unit": cost_model.unit,
        "assumptions": _assumption_lines(study, cost_model, workload, machine),
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
        "missing_families": list(study.missing)})


def study_text(endpoints: int, families: str | None, torus_dims: str | None,
               radix_max: int, cost_path: str | None, workload_path: str | None,
               machine_name: str | None, fmt: str, slack: float = DEFAULT_SLACK,
               shortlist: str | int = "safe", *, wide: bool = False,
               scheduler: str = "inline", workers: int | None = None,
               progress: bool | None = None) -> str:
    """The rendered study (table, CSV or JSON)."""
    study, cost_model, workload, machine = load_study(
        endpoints, families, torus_dims, radix_max, cost_path, workload_path, machine_name,
        slack, shortlist, scheduler, workers, progress)
    if fmt == "json":
        return study_json(study, cost_model, workload, machine, {
            "endpoints": endpoints, "families": list(study.families),
            "torus_dims": torus_dims, "radix_max": radix_max, "slack": slack,
            "shortlist": str(shortlist), "cost": cost_path or "default",
            "workload": workload_path or "default", "machine": machine.name})
    if fmt == "csv":
        rows = design_rows(study)
        return csv_text(rows, list(rows[0]))
    if wide:
        return _wide_text(study, cost_model, workload, machine)
    return _narrow_text(study, cost_model, workload, machine)


# --- HTML -----------------------------------------------------------------------------------


def _scatter_figure(study, unit: str):
    import plotly.graph_objects as go

    from icnperf.reports.figures import figure, label

    fig = figure("Cost vs workload time (Pareto front: dashed, circled)", f"cost ({unit})",
                 "workload time (s)", x_values=[r.cost for r in study.results],
                 y_values=[r.workload_s for r in study.results])
    by_family: dict[str, list] = {}
    for r in study.results:
        by_family.setdefault(r.design.family, []).append(r)
    for family, results in by_family.items():
        fig.add_trace(go.Scatter(
            x=[r.cost for r in results], y=[r.workload_s for r in results], mode="markers",
            name=label(family), text=[label(r.design.spec) for r in results],
            hovertemplate="%{text}<br>cost %{x:,.0f}<br>workload %{y:.4g} s<extra></extra>"))
    front = study.front
    fig.add_trace(go.Scatter(
        x=[r.cost for r in front], y=[r.workload_s for r in front], mode="lines+markers",
        name="Pareto front", line={"dash": "dash", "color": "black"},
        marker={"symbol": "circle-open", "size": 14, "color": "black"}, hoverinfo="skip"))
    return fig


def _stacked_figure(study, title: str, y_title: str, parts: list[tuple[str, list]]):
    import plotly.graph_objects as go

    from icnperf.reports.figures import figure, label

    fig = figure(title, "design", y_title, x_type="category", y_log=False)
    specs = [label(r.design.spec) for r in study.results]
    for name, values in parts:
        fig.add_trace(go.Bar(name=label(name), x=specs, y=values))
    fig.update_layout(barmode="stack")
    return fig


def study_sections(study, cost_model, workload, machine) -> list:
    """The HTML study's sections (reports.document.Section): summary and ranked designs,
    cost breakdown, workload terms, assumptions and notes."""
    from icnperf.model.sizing.cost import COST_PARTS
    from icnperf.model.sizing.study import REASONS
    from icnperf.reports.document import Section, Table

    unit = cost_model.unit
    ranked = Table(
        columns=["rank (time)", "rank (cost x time)", "Pareto front", "design", "rule",
                 "endpoints", "routers", "radix", "electrical links", "optical links",
                 f"cost ({unit})", "workload time (s)", "proxy time (s)",
                 "evaluated because", "notes"],
        rows=[[r.rank_time, r.rank_cost_time, "yes" if r.pareto else "", r.design.spec,
               r.design.rule, r.design.endpoints, r.design.routers, r.design.radix,
               r.links["electrical"], r.links["optical"], round(r.cost), r.workload_s,
               r.proxy_s, REASONS[r.reason], "; ".join(_flags(r))] for r in study.results],
        caption="Designs the full model evaluated, fastest workload first")
    breakdown = Table(
        columns=["design", *[f"{p} ({unit})" for p in COST_PARTS], f"total ({unit})"],
        rows=[[r.design.spec, *[round(r.cost_parts[p]) for p in COST_PARTS], round(r.cost)]
              for r in study.results],
        caption="Cost by part")
    terms = Table(
        columns=["design", "term", "weight", "time per run (s)", "weight x time (s)",
                 "algorithm", "job layout"],
        rows=[[row["design"], row["term"], row["weight"], row["time_s"], row["weighted_s"],
               row["algorithm"], row["layout"]] for row in term_rows(study)],
        caption="Workload terms per design")
    prices = Table(
        columns=["price", f"value ({unit})", "source"],
        rows=[[key, getattr(cost_model, key.replace(".", "_")), cost_model.sources.get(key, "")]
              for key in ("router.base", "router.per_port", "link.electrical",
                          "link.optical", "link.endpoint", "adapter.per_endpoint")],
        caption="Cost model")
    cost_figure = _stacked_figure(study, "Cost breakdown per design", f"cost ({unit})",
                                  [(p, [r.cost_parts[p] for r in study.results])
                                   for p in COST_PARTS])
    terms_figure = _stacked_figure(study, "Workload time per design, by term",
                                   "weight x time per run (s)",
                                   [(t.name, [r.terms[i].weighted_s for r in study.results])
                                    for i, t in enumerate(workload.terms)])
    return [
        Section(title="Ranked designs", intro="\n\n".join(summary_lines(study)),
                figures=[_scatter_figure(study, unit)], tables=[ranked]),
        Section(title="Cost", intro=f"{cost_model.description}",
                figures=[cost_figure], tables=[breakdown, prices]),
        Section(title="Workload", intro=f"{workload.description}\n\n{workload.rationale}",
                figures=[terms_figure], tables=[terms]),
        Section(title="Assumptions and notes",
                notes=_assumption_lines(study, cost_model, workload, machine)
                + grouped_notes(study)),
    ]


def study_html(endpoints: int, families: str | None, torus_dims: str | None, radix_max: int,
               cost_path: str | None, workload_path: str | None, machine_name: str | None,
               slack: float = DEFAULT_SLACK, shortlist: str | int = "safe", *,
               scheduler: str = "inline", workers: int | None = None,
               progress: bool | None = None) -> str:
    """The study as one self-contained HTML page (reports.document.render_document)."""
    from icnperf.reports.document import render_document

    study, cost_model, workload, machine = load_study(
        endpoints, families, torus_dims, radix_max, cost_path, workload_path, machine_name,
        slack, shortlist, scheduler, workers, progress)
    return render_document(
        f"Sizing study: {endpoints:,} endpoints",
        study_sections(study, cost_model, workload, machine),
        subtitle=f"machine parameters {machine.name}; routers of at most {radix_max} ports;"
                 f" costs in {cost_model.unit}")


def write_study_html(path: str, endpoints: int, families: str | None, torus_dims: str | None,
                     radix_max: int, cost_path: str | None, workload_path: str | None,
                     machine_name: str | None, slack: float = DEFAULT_SLACK,
                     shortlist: str | int = "safe", *, force: bool = False,
                     scheduler: str = "inline", workers: int | None = None,
                     progress: bool | None = None) -> None:
    """Write the HTML study to ``path`` atomically (data.files.write_atomically, html=True).
    An existing file without ``force`` is refused before the study runs; the page is built
    whole before anything is written, so a failure leaves no file."""
    from icnperf.data.files import write_atomically
    from icnperf.reports.text.report import check_target

    check_target(path, force)
    html = study_html(endpoints, families, torus_dims, radix_max, cost_path, workload_path,
                      machine_name, slack, shortlist, scheduler=scheduler, workers=workers,
                      progress=progress)
    write_atomically(path, html, force=force, html=True)
