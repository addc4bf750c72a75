"""``icnperf size -o FILE.html``: the sizing study as one self-contained HTML page (its
sections, the cost-time scatter with the Pareto front and the stacked cost and time bars)."""

from __future__ import annotations

from icnperf.model.sizing.space import DEFAULT_SLACK
from icnperf.reports.text.size import load_study
from icnperf.reports.text.size_rows import (assumption_lines, row_flags, grouped_notes,
                                            summary_lines, term_rows)

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
               r.proxy_s, REASONS[r.reason], "; ".join(row_flags(r))] for r in study.results],
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
                notes=assumption_lines(study, cost_model, workload, machine)
                + grouped_notes(study)),
    ]


def study_html(endpoints: int, families: str | None, torus_dims: str | None, radix_max: int,
               cost_path: str | None, workload_path: str | None, machine_name: str | None,
               slack: float = DEFAULT_SLACK, shortlist: str | int = "safe", *,
               scheduler: str = "inline", workers: int | None = None,
               progress: bool | None = None, app_files: tuple = ()) -> str:
    """The study as one self-contained HTML page (reports.document.render_document)."""
    from icnperf.reports.document import render_document

    study, cost_model, workload, machine = load_study(
        endpoints, families, torus_dims, radix_max, cost_path, workload_path, machine_name,
        slack, shortlist, scheduler, workers, progress, app_files)
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
                     progress: bool | None = None, app_files: tuple = ()) -> None:
    """Write the HTML study to ``path`` atomically (data.files.write_atomically, html=True).
    An existing file without ``force`` is refused before the study runs; the page is built
    whole before anything is written, so a failure leaves no file."""
    from icnperf.data.files import write_atomically
    from icnperf.reports.text.report import check_target

    check_target(path, force)
    html = study_html(endpoints, families, torus_dims, radix_max, cost_path, workload_path,
                      machine_name, slack, shortlist, scheduler=scheduler, workers=workers,
                      progress=progress, app_files=app_files)
    write_atomically(path, html, force=force, html=True)
