"""The report's section for an application skeleton (``icnperf report --app FILE``): its
phases' times against the node count, stacked, with the parallel efficiency, and the table
``predict app`` prints, drawn from the rows icnperf.api.machine_sections.skeleton_results
computes."""

from __future__ import annotations

import plotly.graph_objects as go

from icnperf.reports.document import Section, Table, span_text
from icnperf.reports.figures import COLOURS, error_bars, figure, label


def app_section(run: dict) -> Section:
    """One section: stacked phase shares per node count with the efficiency on a second
    axis, each phase's time and the total against the node count, and the table (``run``:
    the skeleton's name, origin, description, scaling, phases, phase rows, total rows and
    notes on the machine ``run["machine"]``)."""
    skeleton, name, names = run["skeleton"], run["machine"], run["phases"]
    phase_rows, total_rows = run["phase_rows"], run["total_rows"]
    x = [f"{t['nodes']:,}" for t in total_rows]
    stacked = figure(f"{skeleton} on {name}: where the time goes, and the parallel "
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
        "title": {"text": f"parallel efficiency ({run['scaling']} scaling)"},
        "overlaying": "y", "side": "right", "range": [0, 1.05], "showgrid": False})
    times = figure(f"{skeleton} on {name}: time per run vs node count", "nodes",
                   "time per run (s)", x_log=True,
                   y_values=[row["time_s"] for row in phase_rows if row["time_s"] > 0])
    for i, phase in enumerate(names):
        own = [row for row in phase_rows if row["phase"] == phase and row["time_s"] > 0]
        times.add_trace(go.Scatter(x=[row["nodes"] for row in own],
                                   y=[row["time_s"] for row in own], name=label(phase),
                                   mode="lines+markers",
                                   line={"color": COLOURS[i % len(COLOURS)]}))
    ranged = all("total_s_low" in t for t in total_rows)
    extra = {} if not ranged else {"error_y": error_bars(
        [t["total_s"] for t in total_rows],
        [(t["total_s_low"], t["total_s_high"]) for t in total_rows])}
    times.add_trace(go.Scatter(x=[t["nodes"] for t in total_rows],
                               y=[t["total_s"] for t in total_rows], name="total",
                               mode="lines+markers", line={"color": "#000000"}, **extra))
    by_nodes = {}
    for row in phase_rows:
        by_nodes.setdefault(row["nodes"], {})[row["phase"]] = row["time_s"]
    table = Table(["nodes", "layout", *(f"{p} (s)" for p in names), "total (s)",
                   *(["total 5-95 % (s)"] if ranged else []), "GFLOP/s", "efficiency"],
                  [[t["nodes"], t["layout"], *(by_nodes[t["nodes"]][p] for p in names),
                    t["total_s"],
                    *([span_text(t["total_s_low"], t["total_s_high"])] if ranged else []),
                    t["gflops"], t["efficiency"]] for t in total_rows],
                  caption=f"{skeleton} ({run['origin']}): time per run of each phase; "
                          "efficiency relative to the first node count")
    what = run["description"] or "no description"
    intro = (f"The application skeleton {skeleton} ({what}) on the report's node "
             "counts, with its default parameters: each phase's share of the run time, "
             "stacked, and the parallel efficiency (docs/skeleton-format.md).")
    return Section(f"Application skeleton: {skeleton}", intro=intro,
                   figures=[stacked, times], tables=[table], notes=run["notes"])
