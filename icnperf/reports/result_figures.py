"""The natural plot of each API result, as a Plotly figure (``Result.figure()``).

Each function draws what it is handed (a result's document or columns, SI units) and
computes nothing: point-to-point latency and bandwidth against size, a collective's time
against nodes (or size) per algorithm, an application's phase times per node count, NPB
IS placements, channel loads per traffic pattern, designs per family. Axes are logarithmic
when the data spans decades (:func:`icnperf.reports.figures.figure`).
"""

from __future__ import annotations

from icnperf.reports.figures import figure, label


def p2p_figure(machine_name: str, columns: dict):
    """Latency (left axis) and ping-pong bandwidth (right axis) against message size."""
    sizes = [float(v) for v in columns["bytes"]]
    latency = [float(v) for v in columns["latency_s"]]
    bandwidth = [float(v) for v in columns["bandwidth_Bps"]]
    fig = figure(f"point-to-point on {machine_name}", "message size (B)", "latency (s)",
                 x_values=sizes, y_values=latency)
    fig.add_scatter(x=sizes, y=latency, name="latency", mode="lines+markers")
    fig.add_scatter(x=sizes, y=bandwidth, name="ping-pong bandwidth", mode="lines+markers",
                    yaxis="y2")
    fig.update_layout(yaxis2={"title": {"text": "bandwidth (B/s)"}, "overlaying": "y",
                              "side": "right", "showgrid": False})
    return fig


def collective_figure(document: dict):
    """Time against node count per (algorithm, size); against size when there is one node
    count."""
    rows = document["rows"]
    inputs = document["inputs"]
    by_nodes = len({row["nodes"] for row in rows}) > 1
    x_key, x_title = ("nodes", "nodes") if by_nodes else ("bytes", "data per rank (B)")
    fig = figure(f"{inputs['operation']} on {inputs['machine']}", x_title, "time (s)",
                 x_values=[row[x_key] for row in rows], y_values=[row["time_s"] for row in rows])
    curves: dict[str, tuple[list, list]] = {}
    for row in rows:
        name = row["algorithm"] if not by_nodes else f"{row['algorithm']}, {row['bytes']:g} B"
        xs, ys = curves.setdefault(name, ([], []))
        xs.append(row[x_key])
        ys.append(row["time_s"])
    for name, (xs, ys) in curves.items():
        fig.add_scatter(x=xs, y=ys, name=label(name), mode="lines+markers")
    return fig


def app_figure(document: dict):
    """Each phase's time per node count, stacked (one group of bars per algorithm run)."""
    inputs = document["inputs"]
    fig = figure(f"{inputs['skeleton']} on {inputs['machine']}", "nodes", "time per run (s)",
                 x_type="category")
    runs = list(dict.fromkeys(row["algorithm"] for row in document["rows"]))
    for run in runs:
        phases = list(dict.fromkeys(row["phase"] for row in document["rows"]
                                    if row["algorithm"] == run))
        for phase in phases:
            own = [row for row in document["rows"]
                   if row["algorithm"] == run and row["phase"] == phase]
            name = phase if len(runs) == 1 else f"{phase} ({run})"
            fig.add_bar(x=[f"{row['nodes']:,}" for row in own],
                        y=[row["time_s"] for row in own], name=label(name),
                        offsetgroup=str(run), legendgroup=str(run))
    fig.update_layout(barmode="stack" if len(runs) == 1 else "relative")
    return fig


def placement_figure(document: dict):
    """Predicted total per placement (nodes x processes per node), fastest first."""
    rows = document["placements"]
    fig = figure(f"NPB IS class {document['inputs']['class']} on "
                 f"{document['inputs']['machine']}", "placement", "predicted total (s)",
                 x_type="category")
    fig.add_bar(x=[f"{r['nodes']} x {r['processes_per_node']}" for r in rows],
                y=[r["total_s"] for r in rows], name="total")
    return fig


def topology_figure(document: dict):
    """Channel load and throughput per traffic pattern."""
    patterns = list(document["channel_load"])
    fig = figure(document["spec"], "traffic pattern", "flits/cycle", x_type="category")
    fig.add_bar(x=patterns, y=[document["channel_load"][p] for p in patterns],
                name="channel load (flits/cycle)")
    fig.add_bar(x=patterns, y=[document["throughput"][p] for p in patterns],
                name="throughput (flits/endpoint/cycle)")
    return fig


def comparison_figure(document: dict):
    """Routers and links of each family's design."""
    rows = document["designs"]
    names = [f"{r['family']} {r['spec']}" for r in rows]
    fig = figure("designs per family", "design", "count", x_type="category",
                 y_values=[r["routers"] for r in rows] + [r["links"] for r in rows])
    fig.add_bar(x=names, y=[r["routers"] for r in rows], name="routers")
    fig.add_bar(x=names, y=[r["links"] for r in rows], name="links")
    return fig


def elasticity_figure(document: dict):
    """Each parameter's elasticity (dT/dx * x / T), largest first."""
    rows = document["elasticities"]
    fig = figure(f"{document['operation']} by {document['algorithm']} on "
                 f"{document['machine']}: elasticities", "parameter", "elasticity",
                 x_type="category")
    fig.add_bar(x=[label(row["key"]) for row in rows], y=[row["elasticity"] for row in rows],
                name="elasticity")
    return fig


def crossover_figure(document: dict):
    """The ratio slower / faster over the scan, with the factor sought as a line."""
    rows = document["rows"]
    inputs = document["inputs"]
    x_title = "nodes" if inputs["vary"] == "nodes" else "message size (B)"
    fig = figure(f"{inputs['faster']} against {inputs['slower']} on {document['machine']}",
                 x_title, "time ratio (slower / faster)",
                 x_values=[row["value"] for row in rows])
    fig.add_scatter(x=[row["value"] for row in rows], y=[row["ratio"] for row in rows],
                    name="ratio", mode="lines+markers")
    fig.add_hline(y=inputs["factor"], line_dash="dash", annotation_text="factor")
    return fig


def phase_share_figure(document: dict):
    """``explain app``: each phase's share of the time per run at its node count."""
    phases = document["phases"]
    fig = figure(f"{document['app']} at {document['nodes']:,} nodes: phase shares", "phase",
                 "share of the time per run", x_type="category")
    fig.add_bar(x=[label(p["name"]) for p in phases], y=[p["share"] for p in phases],
                name="share")
    return fig


def traffic_figure(document: dict):
    """Accepted against offered load (simulated), with the closed form's saturation bound
    and the saturation estimate of the simulated router as lines."""
    rows, model = document["rows"], document["model"]
    inputs = document["inputs"]
    fig = figure(f"{inputs['topology']}, {inputs['traffic']} traffic",
                 "offered load (flits/endpoint/cycle)", "accepted (flits/endpoint/cycle)",
                 x_log=False, y_log=False)
    fig.add_scatter(x=[row["rate"] for row in rows], y=[row["accepted"] for row in rows],
                    name="simulated", mode="lines+markers")
    fig.add_hline(y=model["saturation_bound"], line_dash="dash",
                  annotation_text="saturation bound")
    fig.add_hline(y=model["saturation_estimate"], line_dash="dot",
                  annotation_text="saturation estimate")
    return fig


def simulated_collective_figure(document: dict):
    """Simulated and predicted completion time per node count (one pair per size)."""
    rows = document["rows"]
    inputs = document["inputs"]
    fig = figure(f"{inputs['operation']} ({inputs['algorithm']}) on {inputs['machine']}",
                 "nodes", "completion time (s)", x_values=[row["nodes"] for row in rows],
                 y_values=[row["simulated_s"] for row in rows])
    for size in dict.fromkeys(row["bytes"] for row in rows):
        own = [row for row in rows if row["bytes"] == size]
        for key, name in (("simulated_s", "simulated"), ("predicted_s", "predicted")):
            fig.add_scatter(x=[row["nodes"] for row in own], y=[row[key] for row in own],
                            name=f"{name}, {size:g} B", mode="lines+markers")
    return fig


def calibration_figure(document: dict):
    """Measured against predicted per benchmark point (the fit), one series per kind."""
    points = document["points"]
    fig = figure(f"{document['inputs']['machine']} calibrated from {document['inputs']['data']}",
                 "message size (B)", "value", x_values=[p["bytes"] for p in points],
                 y_values=[p["measured"] for p in points])
    for kind in dict.fromkeys(p["kind"] for p in points):
        own = [p for p in points if p["kind"] == kind]
        fig.add_scatter(x=[p["bytes"] for p in own], y=[p["measured"] for p in own],
                        name=label(f"{kind} measured"), mode="markers")
        fig.add_scatter(x=[p["bytes"] for p in own], y=[p["predicted"] for p in own],
                        name=label(f"{kind} fitted model"), mode="lines")
    return fig


def app_calibration_figure(document: dict):
    """Measured and fitted run times against node count."""
    runs = document["runs"]
    fig = figure(f"{document['inputs']['app']} on {document['inputs']['machine']}", "nodes",
                 "time per run (s)", x_values=[r["nodes"] for r in runs],
                 y_values=[r["measured_s"] for r in runs])
    fig.add_scatter(x=[r["nodes"] for r in runs], y=[r["measured_s"] for r in runs],
                    name="measured", mode="markers")
    fig.add_scatter(x=[r["nodes"] for r in runs], y=[r["predicted_s"] for r in runs],
                    name="fitted model", mode="markers")
    return fig


def validation_figure(document: dict):
    """Predicted against measured per claim (log axes), one series per status."""
    checks = [c for c in document["checks"]
              if isinstance(c.get("measured"), (int, float))
              and isinstance(c.get("predicted"), (int, float))]
    values = [c["measured"] for c in checks] + [c["predicted"] for c in checks]
    fig = figure("published claims: predicted against measured", "measured", "predicted",
                 x_values=values, y_values=values)
    for status in dict.fromkeys(c["status"] for c in checks):
        own = [c for c in checks if c["status"] == status]
        fig.add_scatter(x=[c["measured"] for c in own], y=[c["predicted"] for c in own],
                        name=label(status), mode="markers",
                        text=[label(c["id"]) for c in own])
    return fig


def size_figure(document: dict):
    """Workload time against cost per design, one series per family."""
    rows = [r for r in document["designs"] if r.get("workload_s") is not None]
    fig = figure(f"designs for {document['inputs']['endpoints']:,} endpoints",
                 f"cost ({document['cost_unit']})", "workload time (s)",
                 x_values=[r["cost"] for r in rows], y_values=[r["workload_s"] for r in rows])
    for family in dict.fromkeys(r["family"] for r in rows):
        own = [r for r in rows if r["family"] == family]
        fig.add_scatter(x=[r["cost"] for r in own], y=[r["workload_s"] for r in own],
                        name=label(family), mode="markers",
                        text=[label(r["design"]) for r in own])
    return fig


def saturation_figure(document: dict):
    """Each factor's ceiling on the saturation throughput; the smallest is the estimate."""
    rows = document["factors"]
    inputs = document["inputs"]
    fig = figure(f"{inputs['topology']}, {inputs['traffic']} traffic: saturation factors",
                 "factor", "flits/endpoint/cycle", x_type="category", y_log=False)
    fig.add_bar(x=[label(row["factor"]) for row in rows], y=[row["value"] for row in rows],
                name="value")
    return fig
