"""``icnperf size -o FILE.html``: the sizing study as one self-contained HTML page (its
sections, the cost-time scatter with the Pareto front and the stacked cost and time bars),
from the plain view the API hands over (api/study_rows.py: study_view)."""

from __future__ import annotations


def _scatter_figure(view: dict):
    import plotly.graph_objects as go

    from icnperf.reports.figures import figure, label

    rows = view["rows"]
    fig = figure("Cost vs workload time (Pareto front: dashed, circled)",
                 f"cost ({view['unit']})", "workload time (s)",
                 x_values=[row["cost"] for row in rows],
                 y_values=[row["workload_s"] for row in rows])
    by_family: dict[str, list] = {}
    for row in rows:
        by_family.setdefault(row["family"], []).append(row)
    for family, members in by_family.items():
        fig.add_trace(go.Scatter(
            x=[row["cost"] for row in members], y=[row["workload_s"] for row in members],
            mode="markers", name=label(family), text=[label(row["design"]) for row in members],
            hovertemplate="%{text}<br>cost %{x:,.0f}<br>workload %{y:.4g} s<extra></extra>"))
    front = view["front"]
    fig.add_trace(go.Scatter(
        x=[point["cost"] for point in front], y=[point["workload_s"] for point in front],
        mode="lines+markers", name="Pareto front", line={"dash": "dash", "color": "black"},
        marker={"symbol": "circle-open", "size": 14, "color": "black"}, hoverinfo="skip"))
    return fig


def _stacked_figure(view: dict, title: str, y_title: str, parts: list[tuple[str, list]]):
    import plotly.graph_objects as go

    from icnperf.reports.figures import figure, label

    fig = figure(title, "design", y_title, x_type="category", y_log=False)
    specs = [label(row["design"]) for row in view["rows"]]
    for name, values in parts:
        fig.add_trace(go.Bar(name=label(name), x=specs, y=values))
    fig.update_layout(barmode="stack")
    return fig


def study_sections(view: dict) -> list:
    """The HTML study's sections (reports.document.Section): summary and ranked designs,
    cost breakdown, workload terms, assumptions and notes."""
    from icnperf.reports.document import Section, Table

    unit = view["unit"]
    rows = view["rows"]
    part_names = view["cost_part_names"]
    ranked = Table(
        columns=["rank (time)", "rank (cost x time)", "Pareto front", "design", "rule",
                 "endpoints", "routers", "radix", "electrical links", "optical links",
                 f"cost ({unit})", "workload time (s)", "proxy time (s)",
                 "evaluated because", "notes"],
        rows=[[row["rank_time"], row["rank_cost_time"], "yes" if row["pareto"] else "",
               row["design"], row["rule"], row["endpoints"], row["routers"], row["radix"],
               row["electrical_links"], row["optical_links"], round(row["cost"]),
               row["workload_s"], row["proxy_s"], row["evaluated_because"],
               "; ".join(flags)] for row, flags in zip(rows, view["flags"])],
        caption="Designs the full model evaluated, fastest workload first")
    breakdown = Table(
        columns=["design", *[f"{p} ({unit})" for p in part_names], f"total ({unit})"],
        rows=[[row["design"], *[round(value) for value in parts], round(row["cost"])]
              for row, parts in zip(rows, view["cost_parts"])],
        caption="Cost by part")
    terms = Table(
        columns=["design", "term", "weight", "time per run (s)", "weight x time (s)",
                 "algorithm", "job layout"],
        rows=[[row["design"], row["term"], row["weight"], row["time_s"], row["weighted_s"],
               row["algorithm"], row["layout"]] for row in view["terms"]],
        caption="Workload terms per design")
    prices = Table(columns=["price", f"value ({unit})", "source"], rows=view["prices"],
                   caption="Cost model")
    cost_figure = _stacked_figure(view, "Cost breakdown per design", f"cost ({unit})",
                                  [(p, [parts[i] for parts in view["cost_parts"]])
                                   for i, p in enumerate(part_names)])
    terms_figure = _stacked_figure(view, "Workload time per design, by term",
                                   "weight x time per run (s)",
                                   [(name, [seconds[i] for seconds in view["term_seconds"]])
                                    for i, name in enumerate(view["term_names"])])
    return [
        Section(title="Ranked designs", intro="\n\n".join(view["summary"]),
                figures=[_scatter_figure(view)], tables=[ranked]),
        Section(title="Cost", intro=f"{view['cost_description']}",
                figures=[cost_figure], tables=[breakdown, prices]),
        Section(title="Workload",
                intro=f"{view['workload_description']}\n\n{view['workload_rationale']}",
                figures=[terms_figure], tables=[terms]),
        Section(title="Assumptions and notes", notes=view["assumptions"] + view["notes"]),
    ]


def study_page(view: dict) -> str:
    """The study as one self-contained HTML page (reports.document.render_document)."""
    from icnperf.reports.document import render_document

    return render_document(
        f"Sizing study: {view['endpoints']:,} endpoints", study_sections(view),
        subtitle=f"machine parameters {view['machine']}; routers of at most"
                 f" {view['radix_max']} ports; costs in {view['unit']}")
