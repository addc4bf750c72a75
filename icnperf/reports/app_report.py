"""The report's section for an application skeleton (``icnperf report --app FILE``): its
phases' times against the node count, stacked, with the parallel efficiency, and the table
``predict app`` prints (rows from reports/text/apps.py)."""

from __future__ import annotations

import plotly.graph_objects as go

from icnperf.reports.document import Section, Table
from icnperf.reports.figures import COLOURS, figure, label


def app_section(skeleton, machine, name: str, layouts) -> Section:
    """One section: stacked phase shares per node count with the efficiency on a second
    axis, each phase's time and the total against the node count, and the table."""
    from icnperf.reports.text.apps import skeleton_notes, skeleton_results, skeleton_rows

    results = skeleton_results(skeleton, machine, layouts, None, None)
    phase_rows, total_rows = skeleton_rows(results, skeleton.scaling)
    names = [p.name for p in results[0].phases]
    x = [f"{r.nodes:,}" for r in results]
    stacked = figure(f"{skeleton.name} on {name}: where the time goes, and the parallel "
                     "efficiency", "nodes", "share of the run time (%)", y_log=False,
                     x_type="category")
    for i, phase in enumerate(names):
        own = [row for row in phase_rows if row["phase"] == phase]
        stacked.add_trace(go.Bar(
            x=x, y=[row["share"] * 100 for row in own], name=label(phase),
            marker={"color": COLOURS[i % len(COLOURS)]},
            customdata=[row["time_s"] * 1e3 for row in own],
            hovertemplate=label(phase) + ": %{customdata:.4g} ms (%{y:.1f} %)<extra></extra>"))
    stacked.add_trace(go.Scatter(
        x=x, y=[t["efficiency"] for t in total_rows], name="parallel efficiency",
        mode="lines+markers", yaxis="y2", line={"color": "#000000", "dash": "dot"}))
    stacked.update_layout(barmode="stack", yaxis2={
        "title": {"text": f"parallel efficiency ({skeleton.scaling} scaling)"},
        "overlaying": "y", "side": "right", "range": [0, 1.05], "showgrid": False})
    times = figure(f"{skeleton.name} on {name}: time per run vs node count", "nodes",
                   "time per run (s)", x_log=True,
                   y_values=[row["time_s"] for row in phase_rows if row["time_s"] > 0])
    for i, phase in enumerate(names):
        own = [row for row in phase_rows if row["phase"] == phase and row["time_s"] > 0]
        times.add_trace(go.Scatter(x=[row["nodes"] for row in own],
                                   y=[row["time_s"] for row in own], name=label(phase),
                                   mode="lines+markers",
                                   line={"color": COLOURS[i % len(COLOURS)]}))
    times.add_trace(go.Scatter(x=[t["nodes"] for t in total_rows],
                               y=[t["total_s"] for t in total_rows], name="total",
                               mode="lines+markers", line={"color": "#000000"}))
    by_nodes = {}
    for row in phase_rows:
        by_nodes.setdefault(row["nodes"], {})[row["phase"]] = row["time_s"]
    table = Table(["nodes", "layout", *(f"{p} (s)" for p in names), "total (s)", "GFLOP/s",
                   "efficiency"],
                  [[t["nodes"], t["layout"], *(by_nodes[t["nodes"]][p] for p in names),
                    t["total_s"], t["gflops"], t["efficiency"]] for t in total_rows],
                  caption=f"{skeleton.name} ({skeleton.origin}): time per run of each phase; "
                          "efficiency relative to the first node count")
    what = skeleton.description or "no description"
    intro = (f"The application skeleton {skeleton.name} ({what}) on the report's node "
             "counts, with its default parameters: each phase's share of the run time, "
             "stacked, and the parallel efficiency (docs/skeleton-format.md).")
    return Section(f"Application skeleton: {skeleton.name}", intro=intro,
                   figures=[stacked, times], tables=[table],
                   notes=skeleton_notes(skeleton, results))
