"""``icnperf report``: one machine (and machines to compare) as a self-contained page,
drawn from the results icnperf.api.machine_sections computes.

Sections: machine summary (values, units, sources), topology metrics, point-to-point
latency / bandwidth / message rate vs size, collectives vs node count (hardware tree vs
each point-to-point algorithm, crossovers marked), application scaling (compute /
point-to-point / collective time per iteration), the closed-form validation checks and the
formulas used (SymPy -> MathML). A machine that lacks the parameters a section needs gets
a note saying so instead of curves. With ``--uncertainty`` the curves get error bars and
the tables 5-95 % cells (each quantity's ``<field>_low``/``<field>_high``, or (low, high)
arrays, as handed), and an uncertainty section states the draws and shows each input's
share of the range as a tornado chart. With ``--production`` the curves are the busy
machine's and a section says which production mechanisms were applied, with their sources.
Nothing here runs a model: every value is handed in.
"""

from __future__ import annotations

import plotly.graph_objects as go

from icnperf.reports.document import Section, Table, render_document, span_text
from icnperf.reports.figures import COLOURS, DASHES, error_bars, figure, label


# --- sections -----------------------------------------------------------------------------


def summary_section(summaries: list[dict]) -> Section:
    """Every machine's parameters with units and sources, and its notes."""
    tables, notes = [], []
    for machine in summaries:
        name = machine["name"]
        tables.append(Table(["section", "key", "value (with unit)", "source"], machine["rows"],
                            caption=f"{name}: {machine['description']} (topology"
                                    f" {machine['topology']})"))
        notes += [f"{name}: {n}" for n in machine["notes"]]
    intro = "Parameters in SI units as the models read them; each value cites its source."
    return Section("Machine summary", intro=intro, tables=tables, notes=notes)


def topology_section(docs: list[dict], names: list[str], patterns) -> Section:
    """Structural metrics and channel loads of each machine's topology (``docs``: the
    topology documents; ``patterns``: the traffic patterns, in order)."""
    notes = []
    keys = (("spec", "topology"), ("routers", "routers"), ("endpoints", "endpoints"),
            ("radix", "router radix (ports)"), ("links", "links"),
            ("diameter", "diameter (hops)"), ("average_distance", "average distance (hops)"),
            ("bisection_links", "bisection (links)"))
    metrics = Table(["metric", *names], [[text, *[d[k] for d in docs]] for k, text in keys],
                    caption="Structure (hops between routers)")
    loads = Table(
        ["traffic pattern", *[f"{n}: channel load (flits/cycle)" for n in names],
         *[f"{n}: throughput (flits/endpoint/cycle)" for n in names],
         *[f"{n}: saturation estimate (flits/endpoint/cycle)" for n in names]],
        [[p, *[d["channel_load"][p] for d in docs], *[d["throughput"][p] for d in docs],
          *[d["saturation_estimate"][p] for d in docs]] for p in patterns],
        caption="Channel load per unidirectional channel when every endpoint injects one"
                " flit per cycle, the saturation throughput it implies, and the saturation"
                " estimate of the machine's routers (docs/saturation.md)")
    fig = figure("Saturation throughput by traffic pattern", "traffic pattern",
                 "throughput (flits/endpoint/cycle)", y_log=False, x_type="category")
    for i, (doc, name) in enumerate(zip(docs, names)):
        fig.add_trace(go.Bar(x=list(patterns), y=[doc["throughput"][p] for p in patterns],
                             name=label(name), marker={"color": COLOURS[i % len(COLOURS)]}))
    fig.update_layout(barmode="group")
    for doc, name in zip(docs, names):
        notes += [f"{name}: {n}" for n in doc["notes"]] if len(names) > 1 else doc["notes"]
    return Section("Topology", figures=[fig], tables=[metrics, loads], notes=notes)


def p2p_section(p2p: dict) -> Section:
    """Latency, bandwidth and message rate vs message size (zero load, average hops):
    ``p2p`` as icnperf.api.machine_sections.p2p_results gives it."""
    tables, absent, api = p2p["columns"], p2p["absent"], p2p["api"]
    network = (("the busy machine (--production: the background's uniform traffic queued"
                " on every hop, the latency the median over OS noise)") if
               p2p.get("production") else "empty network")
    intro = ("One message between nodes the topology's average distance apart,"
             f" {network}, {api.upper()} software overhead.")
    if not tables:
        return Section("Point-to-point", intro=intro + " No machine has the parameters.",
                       notes=absent)
    sizes = p2p["sizes"]
    latency = figure("One-way latency vs message size", "message size (bytes)",
                     "latency (µs)", x_log=True, y_log=True)
    bandwidth = figure("Bandwidth vs message size", "message size (bytes)",
                       "bandwidth (GB/s)", x_log=True, y_log=True)
    rate = figure("Message rate vs message size (one process streaming)",
                  "message size (bytes)", "message rate (million messages/s)",
                  x_log=True, y_log=True)
    spans = p2p.get("spans")
    for i, (name, c) in enumerate(tables.items()):
        colour = COLOURS[i % len(COLOURS)]
        ranged = _ranged(spans[name] if spans else None, c)
        latency.add_trace(_line(sizes, c["latency_s"] * 1e6, f"{name}: total", colour,
                                error_y=ranged("latency_s", 1e6)))
        latency.add_trace(_line(sizes, c["hardware_latency_s"] * 1e6,
                                f"{name}: hardware path only", colour, "dot"))
        bandwidth.add_trace(_line(sizes, c["bandwidth_Bps"] / 1e9, f"{name}: ping-pong",
                                  colour, error_y=ranged("bandwidth_Bps", 1e-9)))
        bandwidth.add_trace(_line(sizes, c["streaming_bandwidth_Bps"] / 1e9,
                                  f"{name}: streaming", colour, "dash",
                                  error_y=ranged("streaming_bandwidth_Bps", 1e-9)))
        rate.add_trace(_line(sizes, c["message_rate_per_s"] / 1e6, name, colour,
                             error_y=ranged("message_rate_per_s", 1e-6)))
    picked = [sizes.index(s) for s in p2p["table_sizes"]]
    rows = [[name, int(sizes[i]), c["hops"][i], c["latency_s"][i] * 1e6,
             c["bandwidth_Bps"][i] / 1e9, c["streaming_bandwidth_Bps"][i] / 1e9,
             c["message_rate_per_s"][i] / 1e6]
            for name, c in tables.items() for i in picked]
    columns = ["machine", "size (bytes)", "hops", "latency (µs)", "ping-pong bw (GB/s)",
               "streaming bw (GB/s)", "message rate (M/s)"]
    if spans:
        rows = [row[:4] + [_span(spans[row[0]]["latency_s"], i, 1e6)] + row[4:5]
                + [_span(spans[row[0]]["bandwidth_Bps"], i, 1e-9)] + row[5:]
                for row, i in zip(rows, picked * len(tables))]
        columns = (columns[:4] + ["latency 5-95 % (µs)"] + columns[4:5]
                   + ["ping-pong bw 5-95 % (GB/s)"] + columns[5:])
    table = Table(columns, rows)
    return Section("Point-to-point", intro=intro, figures=[latency, bandwidth, rate],
                   tables=[table], notes=absent + p2p["assumptions"])


def _line(x, y, name, colour, dash="solid", mode="lines", error_y=None):
    extra = {} if error_y is None else {"error_y": error_y}
    return go.Scatter(x=list(x), y=[float(v) for v in y], name=label(name), mode=mode,
                      line={"color": colour, "dash": dash}, **extra)


def _ranged(spans: dict | None, columns: dict):
    """``ranged(name, scale)``: the error bars of column ``name`` drawn at ``scale`` from
    its (low, high) arrays in ``spans``; None without spans."""
    def ranged(name: str, scale: float):
        if spans is None:
            return None
        low, high = spans[name]
        return error_bars(columns[name], list(zip(low, high)), scale)
    return ranged


def _span(ends, i: int, scale: float) -> str:
    """Element ``i`` of (low, high) arrays as one "low–high" cell at ``scale``."""
    low, high = ends
    return span_text(float(low[i]) * scale, float(high[i]) * scale)


def collectives_section(collectives: dict) -> Section:
    """Each operation's time vs node count per algorithm, hardware-tree crossovers marked:
    ``collectives`` as icnperf.api.machine_sections.collective_results gives it."""
    size = int(collectives["bytes"])
    algorithms = collectives["algorithms"]
    figures, notes, table_rows = [], [], []
    for entry in collectives["operations"]:
        operation = entry["operation"]
        fig = figure(f"{operation}: time vs node count ({size} B per rank)",
                     "nodes", "time (µs)", x_log=True, y_log=True)
        for drawn in entry["machines"]:
            name, curves = drawn["name"], drawn["curves"]
            spans = drawn.get("spans")
            for algorithm, points in curves.items():
                prefix = f"{name}: " if collectives["compared"] else ""
                extra = {} if spans is None else {"error_y": error_bars(
                    [t for _, t in points], spans[algorithm], 1e6)}
                fig.add_trace(go.Scatter(
                    x=[n for n, _ in points], y=[t * 1e6 for _, t in points],
                    mode="lines+markers", name=label(prefix + algorithm),
                    line={"color": COLOURS[algorithms.index(algorithm) % len(COLOURS)],
                          "dash": DASHES[drawn["index"] % len(DASHES)],
                          "width": 3 if algorithm == "hw-tree" else 2},
                    marker={"size": 5}, **extra))
            marks = drawn["crossovers"]
            if marks:
                fig.add_trace(go.Scatter(
                    x=[x for x, _, _ in marks], y=[y * 1e6 for _, y, _ in marks],
                    mode="markers", name=label(f"{name}: crossovers"),
                    marker={"symbol": "x", "size": 12, "color": "black"},
                    text=[label(t) for _, _, t in marks],
                    hovertemplate="%{text}<br>~%{x:.0f} nodes, %{y:.3g} µs<extra></extra>"))
                notes += [f"{name}, {operation}: {t} at about {x:,.0f} nodes"
                          for x, _, t in marks]
            if drawn["hw_tree_fastest"]:
                notes.append(f"{name}, {operation}: the hardware tree is faster than every"
                             " point-to-point algorithm at every node count shown")
            own = [[name, operation, n, a, t * 1e6, ratio] for a, n, t, ratio in drawn["own"]]
            if spans is not None:
                own = [row[:5] + [span_text(low * 1e6, high * 1e6)] + row[5:]
                       for row, (low, high) in zip(own, drawn["own_spans"])]
            table_rows += own
        if entry["machines"]:
            figures.append(fig)
    intro = (f"Time of each collective with {size} bytes per rank, one"
             " process per node, on balanced tori of growing size (the machine's own"
             " dimension count; other topologies: their own size only). The hardware"
             " collective tree (hw-tree) exists only on tori with hardware collectives;"
             " crosses mark where two curves meet (interpolated between node counts).")
    if collectives.get("production"):
        intro += (" On the busy machine (--production): each time is the median over OS"
                  " noise and background traffic, charged per step of the algorithm's"
                  " schedule, so algorithms without one are left out.")
    ranged = any("spans" in d for e in collectives["operations"] for d in e["machines"])
    tables = [Table(["machine", "operation", "nodes", "algorithm", "time (µs)",
                     *(["time 5-95 % (µs)"] if ranged else []),
                     "best p2p time / this time"], table_rows,
                    caption="At the machine's own size")] if table_rows else []
    return Section("Collectives vs node count", intro=intro, figures=figures,
                   tables=tables, notes=collectives["absent"] + notes)


def apps_section(apps: dict) -> Section:
    """Application time per iteration split into compute / point-to-point / collective:
    ``apps`` as icnperf.api.machine_sections.app_results gives it."""
    figures, tables = [], []
    prefix = apps["compared"]
    for entry in apps["apps"]:
        app, rows_all = entry["app"], entry["rows"]
        ranged = all("total_s_low" in r for _, r in rows_all)
        x = [[(f"{n} · " if prefix else "") + f"{r['nodes']:,} nodes" for n, r in rows_all],
             ["hw" if r["algorithm"] == "hw-tree" else "p2p" for _, r in rows_all]]
        stacked = figure(f"{app}: where each iteration's time goes (hw = hardware tree,"
                         f" p2p = {entry['p2p_algorithm']})", "nodes / collectives",
                         "share of iteration time (%)", y_log=False, x_type="multicategory")
        stacked.update_layout(margin={"b": 110})
        for i, (key, part) in enumerate((("compute_s", "compute"), ("p2p_s", "point-to-point"),
                                         ("collective_s", "collective"))):
            stacked.add_trace(go.Bar(
                x=x, y=[r[key] for _, r in rows_all], name=part,
                marker={"color": COLOURS[i]},
                customdata=[r[key] * 1e6 for _, r in rows_all],
                hovertemplate=f"{part}: %{{customdata:.4g}} µs<extra></extra>"))
        stacked.update_layout(barmode="stack", barnorm="percent")
        totals = figure(f"{app}: time per iteration vs node count", "nodes",
                        "time per iteration (µs)", x_log=True,
                        y_values=[r["total_s"] for _, r in rows_all])
        series = dict.fromkeys((n, r["algorithm"]) for n, r in rows_all)
        for i, (name, algorithm) in enumerate(series):
            own = [r for n, r in rows_all if n == name and r["algorithm"] == algorithm]
            extra = {} if not ranged else {"error_y": error_bars(
                [r["total_s"] for r in own],
                [(r["total_s_low"], r["total_s_high"]) for r in own], 1e6)}
            totals.add_trace(go.Scatter(
                x=[r["nodes"] for r in own], y=[r["total_s"] * 1e6 for r in own],
                mode="lines+markers",
                name=label(f"{name}: {algorithm}" if prefix else algorithm),
                line={"color": COLOURS[i % len(COLOURS)]}, **extra))
        figures += [stacked, totals]
        tables.append(Table(
            ["machine", "nodes", "collectives", "compute (µs)", "p2p (µs)",
             "collective (µs)", "total (µs)",
             *(["total 5-95 % (µs)"] if ranged else []),
             "GFLOP/s", "efficiency", "p2p / hw-tree"],
            [[n, r["nodes"], r["algorithm"], r["compute_s"] * 1e6, r["p2p_s"] * 1e6,
              r["collective_s"] * 1e6, r["total_s"] * 1e6,
              *([span_text(r["total_s_low"] * 1e6, r["total_s_high"] * 1e6)]
                if ranged else []),
              r["gflops"], r["efficiency"], r["hw_gain"]] for n, r in rows_all],
            caption=f"{app} (default problem; efficiency relative to the first node count;"
                    f" p2p / hw-tree compares {entry['p2p_algorithm']} with the hardware"
                    " tree)"))
    intro = ("Time per iteration of each application with its default problem, split into"
             " computation, point-to-point exchange and collectives, on the same node counts"
             " as the collectives (every other one on large tori, always the machine's own"
             " size), with the hardware tree and with the point-to-point algorithm the"
             " source paper compares it with.")
    notes = apps["absent"] + ["HPCG is not swept here (its model is too slow for a node"
                              " sweep in a report); see icnperf predict app hpcg"]
    return Section("Application scaling", intro=intro, figures=figures, tables=tables,
                   notes=notes)


def validation_section(validation: dict) -> Section:
    """The registry's fast closed-form checks (``validation``: their results, tolerance
    intervals, status counts and the number of registered claims)."""
    from icnperf.reports.validation_page import results_table, scatter_figure

    results = validation["results"]
    fig = scatter_figure(results, validation["intervals"],
                         "Published vs predicted (closed-form network checks)")
    intro = (f"{len(results)} published claims about topologies, point-to-point messages"
             " and collectives checked against the closed-form models: "
             + ", ".join(f"{n} {s}" for s, n in validation["counts"].items()) + f". The"
             f" other {validation['registered'] - len(results)} registered claims"
             " (application-level checks and simulator cross-checks), each paper's redrawn"
             " figures and the full error tables are on the validation page (icnperf"
             " validate -o validation.html).")
    notes = [f"{r['id']}: {r['status'].replace('-', ' ')}: {r['reason']}" for r in results
             if r["status"] in ("known-discrepancy", "open")]
    return Section("Validation against published measurements", intro=intro,
                   figures=[fig] if fig else [], tables=[results_table(results)],
                   notes=notes)


def uncertainty_section(uncertainty: dict, tornadoes: dict, name: str,
                        production: bool = False) -> Section:
    """How the ranges were drawn (``uncertainty``: samples, seed, quantiles; ``production``:
    they are the --uncertainty --production ranges, the charts the empty machine's) and, per
    representative collective of ``tornadoes`` (``charts``, and ``absent``: why one has
    none), each input's share of its range as a tornado chart: a bar of ± the relative
    half-width of the time the input gives alone, largest on top, labelled with its share
    of the range."""
    low, high = (f"{q * 100:g}" for q in uncertainty["quantiles"])
    intro = (f"Error bars and the {low}-{high} % cells: the {low}th and {high}th"
             f" percentiles over {uncertainty['samples']} draws of each machine's inputs"
             f" within their stated uncertainty (seed {uncertainty['seed']};"
             " docs/machine-format.md, 'Uncertainty'), the same draws and closed forms as"
             f" icnperf predict p2p|collective|app --uncertainty --samples"
             f" {uncertainty['samples']} --seed {uncertainty['seed']}"
             + (" --production (each draw also drawing its OS noise)" if production else "")
             + f". The charts rank the inputs of {name}'s representative collectives by"
             " their share of the"
             + (" empty machine's" if production else "")
             + " prediction's range, to first order: |elasticity| x the input's relative"
             " spread, over the sum (icnperf explain collective --uncertainty).")
    figures, tables, notes = [], [], []
    for chart in tornadoes["charts"]:
        title = (f"allreduce, {chart['algorithm']}, {int(chart['bytes'])} B on"
                 f" {chart['layout']}: each input's share of the range")
        inputs = chart["inputs"][::-1]                       # largest at the top
        fig = figure(title, "time change the input gives alone (± % of the time)", "",
                     y_log=False, x_type="linear")
        reach = 1.3 * max((r["range_contribution"] * 100 for r in inputs), default=1.0)
        fig.update_xaxes(range=[-reach, reach])
        fig.update_yaxes(type="category", automargin=True)
        fig.add_trace(go.Bar(
            y=[label(r["key"]) for r in inputs],
            x=[2 * r["range_contribution"] * 100 for r in inputs],
            base=[-r["range_contribution"] * 100 for r in inputs], orientation="h",
            name="share of the range", marker={"color": COLOURS[0]},
            customdata=[r["range_share"] * 100 for r in inputs],
            text=[f"{r['range_share'] * 100:.1f} %" for r in inputs], textposition="outside",
            hovertemplate="%{y}: ±%{base:.3g} %, %{customdata:.1f} % of the range"
                          "<extra></extra>"))
        figures.append(fig)
        tables.append(Table(
            ["input", "symbol", "spread", "alone (± % of the time)", "share of the range"],
            [[r["key"], r["symbol"], r["spread"], r["range_contribution"] * 100,
              f"{r['range_share'] * 100:.1f} %"] for r in chart["inputs"]],
            caption=f"{title} (T = {chart['time_s'] * 1e6:.4g} µs)"))
        if chart["rest"] > 0:
            notes.append(f"allreduce, {chart['algorithm']}: the other inputs share"
                         f" {chart['rest'] * 100:.1f} % of the range")
    return Section("Uncertainty: what matters most", intro=intro, figures=figures,
                   tables=tables, notes=tornadoes["absent"] + notes)


def production_section(production: dict, uncertainty: dict | None) -> Section:
    """Which production mechanisms (placement, background traffic, OS noise) were applied
    on each machine, with their values and sources (``production``: ``mechanisms`` rows,
    ``empty``: the parts that stay the empty machine's); ``uncertainty`` (None without
    --uncertainty) says what the error bars are."""
    bars = ("Without --uncertainty the curves show the points only." if uncertainty is None
            else f"Error bars and 5-95 % cells are the --uncertainty --production ranges:"
                 f" {uncertainty['samples']} draws of each machine's inputs (the"
                 " [production] values among them, within their own spreads), each drawing"
                 f" its OS noise too (seed {uncertainty['seed']}).")
    intro = ("The predictions below are on the busy production machine (--production), as"
             " icnperf predict p2p|collective|app --production makes them: each point is"
             " the median of the production distribution. " + bars)
    return Section("Production machine", intro=intro,
                   tables=[Table(["machine", "mechanism", "applied", "values", "source"],
                                 production["mechanisms"],
                                 caption="The production mechanisms ([production],"
                                         " docs/machine-format.md)")],
                   notes=[f"the empty machine's: {part}" for part in production["empty"]])


def formulas_section(formulas: dict) -> Section:
    """The formulas behind the curves as MathML (SymPy's presentation printer) of the
    expressions handed in ``formulas``."""
    from sympy.printing.mathml import mathml

    name, size = formulas["name"], int(formulas["bytes"])
    math = [_equation("T_p2p(m, h)", mathml(formulas["latency"], printer="presentation"))]
    notes = ["T_p2p: one-way zero-load latency (model/network zero-load latency): software"
             " overhead, path, serialization, store-and-forward term when s = 1"]
    for explained in formulas["explained"]:
        algorithm = explained["algorithm"]
        math.append(_equation(f"T_allreduce,{algorithm}",
                              mathml(explained["expression"], printer="presentation")))
        notes.append(f"T_allreduce,{algorithm}: {name}'s own layout {explained['layout']},"
                     f" {size} B, structure substituted; value"
                     f" {explained['time_s'] * 1e6:.4g} µs; largest elasticities: "
                     + ", ".join(f"{symbol} {elasticity:.2f}"
                                 for symbol, elasticity in explained["elasticities"]))
    symbol_table = Table(["symbol", "meaning or machine key"], formulas["legend"])
    intro = ("The closed forms the curves evaluate, printed by SymPy from the same Python"
             " functions (model/ops.py runs them on numbers or symbols).")
    return Section(f"Formulas ({name})", intro=intro, math=math, tables=[symbol_table],
                   notes=formulas["absent"] + notes)


def _equation(left: str, right_mathml: str) -> str:
    """``left = <right>`` as presentation MathML; ``left`` like "T_x,y(m)" gets a subscript."""
    from html import escape

    base, _, rest = left.partition("_")
    argument = ""
    if "(" in rest:
        rest, argument = rest.split("(", 1)
        argument = "(" + argument
    head = (f"<msub><mi>{escape(base)}</mi><mtext>{escape(rest)}</mtext></msub>" if rest
            else f"<mi>{escape(base)}</mi>")
    if argument:
        head += f"<mtext>{escape(argument)}</mtext>"
    return f"<mrow>{head}<mo>=</mo>{right_mathml}</mrow>"


# --- the page -----------------------------------------------------------------------------


def report_html(report: dict) -> str:
    """The whole report page of ``report`` (icnperf.api.machine_sections.machine_report's
    results: every section's, the title and subtitle); each application skeleton gets a
    section of its own (reports/app_report.py)."""
    from icnperf.reports.app_report import app_section

    names = report["names"]
    sections = [summary_section(report["summary"])]
    if "production" in report:
        sections.append(production_section(report["production"], report.get("uncertainty")))
    sections += [topology_section(report["topology"], names, report["patterns"]),
                p2p_section(report["p2p"]), collectives_section(report["collectives"]),
                apps_section(report["apps"])]
    sections += [app_section(skeleton) for skeleton in report["skeletons"]]
    if "uncertainty" in report:
        sections.append(uncertainty_section(report["uncertainty"], report["tornadoes"],
                                            names[0], "production" in report))
    if report["validation"] is not None:
        sections.append(validation_section(report["validation"]))
    sections.append(formulas_section(report["formulas"]))
    return render_document(report["title"], sections, subtitle=report["subtitle"])
