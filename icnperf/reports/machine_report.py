"""``icnperf report``: one machine (and machines to compare) as a self-contained page.

Sections: machine summary (values, units, sources), topology metrics, point-to-point
latency / bandwidth / message rate vs size, collectives vs node count (hardware tree vs
each point-to-point algorithm, crossovers marked), application scaling (compute /
point-to-point / collective time per iteration), the closed-form validation checks and the
formulas used (SymPy -> MathML). A machine that lacks the parameters a section needs gets
a note saying so instead of curves. Rows come from the commands' own row builders
(``commands.topology``, ``commands.predict``, ``commands.apps``).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from icnperf.errors import IcnperfError
from icnperf.reports.document import Section, Table, render_document
from icnperf.reports.figures import COLOURS, DASHES, crossings, figure, label

P2P_SIZES = 2.0 ** np.arange(0, 23)
"""Message sizes of the point-to-point curves: 1 B ... 4 MiB, doubling."""
P2P_TABLE_SIZES = (8.0, 1024.0, 65536.0, 1048576.0)
COLLECTIVE_OPERATIONS = ("broadcast", "allreduce")
COLLECTIVE_BYTES = 256.0
"""Data per rank of the collective curves: one full Angara packet (Mukosey 2015 Fig. 7)."""
APPS = ("spmv", "heat")
"""Applications swept with their default problems. HPCG is left out: its model walks every
rank's halo exchange, too slow for a node sweep in a report (icnperf predict app hpcg)."""
RATE_KEYS = {"spmv": "node.spmv_rate", "heat": "node.stencil_rate"}
"""The measured compute rate of each swept application (absent: derived, model/apps/
node_rates)."""
API = "mpi"


def _short(error: IcnperfError) -> str:
    return str(error).rstrip(".")


# --- node counts --------------------------------------------------------------------------


def node_layouts(machine):
    """The layouts to sweep: on a torus (or hypercube) balanced shapes of 2^d, 2^(d+1), ...
    nodes up to the machine's own size, ending with the machine's own shape; elsewhere the
    machine's own job only (system.nodes on a larger fat tree or dragonfly)."""
    from icnperf.model.collectives import Layout
    from icnperf.model.topology.spec import parse_spec
    from icnperf.model.topology.torus import balanced_torus_shape

    own = Layout.from_topology(machine.topology)
    spec = parse_spec(machine.topology)
    if spec.family.name not in ("torus", "hypercube"):
        return [Layout.machine_job(machine.topology, machine.get("system.nodes"))]
    dims = len(spec.params["radices"]) if "radices" in spec.params else spec.params["n"]
    layouts, nodes = [], 2 ** dims
    while nodes < own.endpoints:
        layouts.append(Layout.torus(balanced_torus_shape(nodes, dims)))
        nodes *= 2
    return layouts + [own]


# --- sections -----------------------------------------------------------------------------


def summary_section(machines, names) -> Section:
    """Every machine's parameters with units and sources, and its notes."""
    tables, notes = [], []
    for machine, name in zip(machines, names):
        rows = [[section, key, shown, source]
                for section, key, _, shown, source in machine.rows()]
        tables.append(Table(["section", "key", "value (with unit)", "source"], rows,
                            caption=f"{name}: {machine.description} (topology"
                                    f" {machine.topology})"))
        notes += [f"{name}: {n}" for n in machine.notes]
    intro = "Parameters in SI units as the models read them; each value cites its source."
    return Section("Machine summary", intro=intro, tables=tables, notes=notes)


def topology_section(machines, names) -> Section:
    """Structural metrics and channel loads of each machine's topology."""
    from icnperf.model.topology.base import PATTERNS
    from icnperf.model.topology.saturation import machine_router
    from icnperf.model.topology.spec import parse_spec
    from icnperf.model.topology.summary import topology_summary

    specs = [parse_spec(machine.topology) for machine in machines]
    docs = [topology_summary(spec, spec.evaluate(), machine_router(machine))
            for spec, machine in zip(specs, machines)]
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
          *[d["saturation_estimate"][p] for d in docs]] for p in PATTERNS],
        caption="Channel load per unidirectional channel when every endpoint injects one"
                " flit per cycle, the saturation throughput it implies, and the saturation"
                " estimate of the machine's routers (docs/saturation.md)")
    fig = figure("Saturation throughput by traffic pattern", "traffic pattern",
                 "throughput (flits/endpoint/cycle)", y_log=False, x_type="category")
    for i, (doc, name) in enumerate(zip(docs, names)):
        fig.add_trace(go.Bar(x=list(PATTERNS), y=[doc["throughput"][p] for p in PATTERNS],
                             name=label(name), marker={"color": COLOURS[i % len(COLOURS)]}))
    fig.update_layout(barmode="group")
    for doc, name in zip(docs, names):
        notes += [f"{name}: {n}" for n in doc["notes"]] if len(names) > 1 else doc["notes"]
    return Section("Topology", figures=[fig], tables=[metrics, loads], notes=notes)


def p2p_section(machines, names) -> Section:
    """Latency, bandwidth and message rate vs message size (zero load, average hops)."""
    from icnperf.model.network import p2p_table

    tables, absent, assumptions = {}, [], []
    for machine, name in zip(machines, names):
        try:
            result = p2p_table(machine, P2P_SIZES, None, API)
        except IcnperfError as error:
            absent.append(f"{name}: no point-to-point predictions: {_short(error)}")
            continue
        tables[name] = result.columns
        assumptions = assumptions or list(result.assumptions)
    intro = ("One message between nodes the topology's average distance apart, empty"
             f" network, {API.upper()} software overhead.")
    if not tables:
        return Section("Point-to-point", intro=intro + " No machine has the parameters.",
                       notes=absent)
    sizes = list(P2P_SIZES)
    latency = figure("One-way latency vs message size", "message size (bytes)",
                     "latency (µs)", x_log=True, y_log=True)
    bandwidth = figure("Bandwidth vs message size", "message size (bytes)",
                       "bandwidth (GB/s)", x_log=True, y_log=True)
    rate = figure("Message rate vs message size (one process streaming)",
                  "message size (bytes)", "message rate (million messages/s)",
                  x_log=True, y_log=True)
    for i, (name, c) in enumerate(tables.items()):
        colour = COLOURS[i % len(COLOURS)]
        latency.add_trace(_line(sizes, c["latency_s"] * 1e6, f"{name}: total", colour))
        latency.add_trace(_line(sizes, c["hardware_latency_s"] * 1e6,
                                f"{name}: hardware path only", colour, "dot"))
        bandwidth.add_trace(_line(sizes, c["bandwidth_Bps"] / 1e9, f"{name}: ping-pong",
                                  colour))
        bandwidth.add_trace(_line(sizes, c["streaming_bandwidth_Bps"] / 1e9,
                                  f"{name}: streaming", colour, "dash"))
        rate.add_trace(_line(sizes, c["message_rate_per_s"] / 1e6, name, colour))
    picked = [sizes.index(s) for s in P2P_TABLE_SIZES]
    rows = [[name, int(sizes[i]), c["hops"][i], c["latency_s"][i] * 1e6,
             c["bandwidth_Bps"][i] / 1e9, c["streaming_bandwidth_Bps"][i] / 1e9,
             c["message_rate_per_s"][i] / 1e6]
            for name, c in tables.items() for i in picked]
    table = Table(["machine", "size (bytes)", "hops", "latency (µs)", "ping-pong bw (GB/s)",
                   "streaming bw (GB/s)", "message rate (M/s)"], rows)
    return Section("Point-to-point", intro=intro, figures=[latency, bandwidth, rate],
                   tables=[table], notes=absent + assumptions)


def _line(x, y, name, colour, dash="solid", mode="lines"):
    return go.Scatter(x=list(x), y=[float(v) for v in y], name=label(name), mode=mode,
                      line={"color": colour, "dash": dash})


def collectives_section(machines, names) -> Section:
    """Each operation's time vs node count per algorithm, hardware-tree crossovers marked."""
    from icnperf.reports.text.predict import collective_rows
    from icnperf.model.collectives import ALGORITHMS

    figures, notes, absent, table_rows = [], [], [], []
    for operation in COLLECTIVE_OPERATIONS:
        fig = figure(f"{operation}: time vs node count ({int(COLLECTIVE_BYTES)} B per rank)",
                     "nodes", "time (µs)", x_log=True, y_log=True)
        drawn = False
        for m_index, (machine, name) in enumerate(zip(machines, names)):
            try:
                rows, _ = collective_rows(machine, operation, "all", node_layouts(machine),
                                          np.array([COLLECTIVE_BYTES]), API)
            except IcnperfError as error:
                absent.append(f"{name}: no {operation} predictions: {_short(error)}")
                continue
            curves = {a: [(r["nodes"], r["time_s"]) for r in rows if r["algorithm"] == a]
                      for a in ALGORITHMS}
            curves = {a: c for a, c in curves.items() if c}
            for a_index, (algorithm, points) in enumerate(curves.items()):
                prefix = f"{name}: " if len(names) > 1 else ""
                fig.add_trace(go.Scatter(
                    x=[n for n, _ in points], y=[t * 1e6 for _, t in points],
                    mode="lines+markers", name=label(prefix + algorithm),
                    line={"color": COLOURS[ALGORITHMS.index(algorithm) % len(COLOURS)],
                          "dash": DASHES[m_index % len(DASHES)],
                          "width": 3 if algorithm == "hw-tree" else 2},
                    marker={"size": 5}))
            marks = _crossovers(curves)
            if marks:
                fig.add_trace(go.Scatter(
                    x=[x for x, _, _ in marks], y=[y * 1e6 for _, y, _ in marks],
                    mode="markers", name=label(f"{name}: crossovers"),
                    marker={"symbol": "x", "size": 12, "color": "black"},
                    text=[label(t) for _, _, t in marks],
                    hovertemplate="%{text}<br>~%{x:.0f} nodes, %{y:.3g} µs<extra></extra>"))
                notes += [f"{name}, {operation}: {t} at about {x:,.0f} nodes"
                          for x, _, t in marks]
            if "hw-tree" in curves and _always_fastest(curves):
                notes.append(f"{name}, {operation}: the hardware tree is faster than every"
                             " point-to-point algorithm at every node count shown")
            own = max(n for n, _ in next(iter(curves.values())))
            best = min(t for a, c in curves.items() if a != "hw-tree" for n, t in c if n == own)
            table_rows += [[name, operation, own, a, t * 1e6, best / t]
                           for a, c in curves.items() for n, t in c if n == own]
            drawn = True
        if drawn:
            figures.append(fig)
    intro = (f"Time of each collective with {int(COLLECTIVE_BYTES)} bytes per rank, one"
             " process per node, on balanced tori of growing size (the machine's own"
             " dimension count; other topologies: their own size only). The hardware"
             " collective tree (hw-tree) exists only on tori with hardware collectives;"
             " crosses mark where two curves meet (interpolated between node counts).")
    tables = [Table(["machine", "operation", "nodes", "algorithm", "time (µs)",
                     "best p2p time / this time"], table_rows,
                    caption="At the machine's own size")] if table_rows else []
    return Section("Collectives vs node count", intro=intro, figures=figures,
                   tables=tables, notes=absent + notes)


def _crossovers(curves: dict) -> list[tuple[float, float, str]]:
    """Where two algorithms' curves meet (the hardware tree and each point-to-point
    algorithm, and the point-to-point algorithms among themselves): (nodes, time s,
    description)."""
    names = list(curves)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    marks = []
    for a, b in pairs:
        x = [n for n, _ in curves[a]]
        ta = [t for _, t in curves[a]]
        tb = [t for _, t in curves[b]]
        for nodes, time in crossings(x, ta, tb):
            after = [i for i, n in enumerate(x) if n > nodes]
            faster = a if after and ta[after[0]] < tb[after[0]] else b
            slower = b if faster == a else a
            marks.append((nodes, time, f"{faster} overtakes {slower}"))
    return marks


def _always_fastest(curves: dict) -> bool:
    hw = [t for _, t in curves["hw-tree"]]
    return all(h < t for a, c in curves.items() if a != "hw-tree"
               for h, (_, t) in zip(hw, c))


def apps_section(machines, names) -> Section:
    """Application time per iteration split into compute / point-to-point / collective."""
    from icnperf.reports.text.apps import P2P_ALGORITHM, app_rows

    figures, tables, absent = [], [], []
    for app in APPS:
        rows_all = []
        for machine, name in zip(machines, names):
            try:
                rows = app_rows(app, machine, _fewer(node_layouts(machine)), "all", {})
            except IcnperfError as error:
                absent.append(f"{name}: no {app} predictions: {_short(error)}")
                continue
            rate_key = RATE_KEYS[app]
            if machine.get(rate_key) is None:
                absent.append(f"{name}: {app} computes at the node's roofline rate, derived: "
                              f"the machine has no measured {rate_key}")
            rows_all += [(name, r) for r in rows]
        if not rows_all:
            continue
        prefix = len(names) > 1
        x = [[(f"{n} · " if prefix else "") + f"{r['nodes']:,} nodes" for n, r in rows_all],
             ["hw" if r["algorithm"] == "hw-tree" else "p2p" for _, r in rows_all]]
        stacked = figure(f"{app}: where each iteration's time goes (hw = hardware tree,"
                         f" p2p = {P2P_ALGORITHM[app]})", "nodes / collectives",
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
            totals.add_trace(go.Scatter(
                x=[r["nodes"] for r in own], y=[r["total_s"] * 1e6 for r in own],
                mode="lines+markers",
                name=label(f"{name}: {algorithm}" if prefix else algorithm),
                line={"color": COLOURS[i % len(COLOURS)]}))
        figures += [stacked, totals]
        tables.append(Table(
            ["machine", "nodes", "collectives", "compute (µs)", "p2p (µs)",
             "collective (µs)", "total (µs)", "GFLOP/s", "efficiency", "p2p / hw-tree"],
            [[n, r["nodes"], r["algorithm"], r["compute_s"] * 1e6, r["p2p_s"] * 1e6,
              r["collective_s"] * 1e6, r["total_s"] * 1e6, r["gflops"], r["efficiency"],
              r["hw_gain"]] for n, r in rows_all],
            caption=f"{app} (default problem; efficiency relative to the first node count;"
                    f" p2p / hw-tree compares {P2P_ALGORITHM[app]} with the hardware tree)"))
    intro = ("Time per iteration of each application with its default problem, split into"
             " computation, point-to-point exchange and collectives, on the same node counts"
             " as the collectives (every other one on large tori, always the machine's own"
             " size), with the hardware tree and with the point-to-point algorithm the"
             " source paper compares it with.")
    notes = absent + ["HPCG is not swept here (its model is too slow for a node sweep in a"
                      " report); see icnperf predict app hpcg"]
    return Section("Application scaling", intro=intro, figures=figures, tables=tables,
                   notes=notes)


def _fewer(layouts: list) -> list:
    """Every other layout of a long sweep, always keeping the machine's own (the last)."""
    if len(layouts) <= 6:
        return layouts
    picked = layouts[::2]
    return picked if picked[-1] is layouts[-1] else picked + [layouts[-1]]


def validation_section() -> Section:
    """The registry's fast closed-form checks: topology, point-to-point and collective
    claims (no simulator cross-checks, no application-level claims)."""
    from icnperf.reports.validation_page import results_table, scatter_figure
    from icnperf.validation.registry import all_claims, evaluate, status_counts

    claims = all_claims()
    chosen = all_claims(runs=("closed-form",))
    results = [evaluate(c).as_dict() for c in chosen]
    counts = status_counts(results)
    fig = scatter_figure(results, "Published vs predicted (closed-form network checks)")
    intro = (f"{len(results)} published claims about topologies, point-to-point messages"
             " and collectives checked against the closed-form models: "
             + ", ".join(f"{n} {s}" for s, n in counts.items()) + f". The other"
             f" {len(claims) - len(chosen)} registered claims (application-level checks and"
             " simulator cross-checks), each paper's redrawn figures and the full error"
             " tables are on the validation page (icnperf validate -o validation.html).")
    notes = [f"{r['id']}: {r['status'].replace('-', ' ')}: {r['reason']}" for r in results
             if r["status"] in ("known-discrepancy", "open")]
    return Section("Validation against published measurements", intro=intro,
                   figures=[fig] if fig else [], tables=[results_table(results)],
                   notes=notes)


def formulas_section(machine, name) -> Section:
    """The formulas behind the curves as MathML (SymPy's presentation printer)."""
    import sympy as sp
    from sympy.printing.mathml import mathml

    from icnperf.model import network
    from icnperf.model.collectives import symbolic_collective_parameters
    from icnperf.model.explain import explain, parameter_key

    symbols = network.symbolic_parameters()
    m, h = sp.symbols("m h", positive=True)
    latency = network.latency(m, h, **network.bind(network.latency, symbols))
    formulas = [_equation("T_p2p(m, h)", mathml(latency, printer="presentation"))]
    legend = [["m", "message size (bytes)"], ["h", "router-to-router hops"]]
    legend += [[str(symbol), parameter_key(key, API)]
               for key, symbol in symbolic_collective_parameters().items()]
    notes = ["T_p2p: one-way zero-load latency (model/network zero-load latency): software overhead,"
             " path, serialization, store-and-forward term when s = 1"]
    absent = []
    for algorithm in ("hw-tree", "p2p-tree"):
        try:
            explained = explain(machine, "allreduce", algorithm, COLLECTIVE_BYTES, api=API)
        except IcnperfError as error:
            absent.append(f"{name}: no allreduce {algorithm} formula: {_short(error)}")
            continue
        formulas.append(_equation(f"T_allreduce,{algorithm}",
                                  mathml(explained.expression, printer="presentation")))
        notes.append(f"T_allreduce,{algorithm}: {name}'s own layout {explained.layout},"
                     f" {int(COLLECTIVE_BYTES)} B, structure substituted; value"
                     f" {explained.time * 1e6:.4g} µs; largest elasticities: "
                     + ", ".join(f"{e.symbol} {e.elasticity:.2f}"
                                 for e in explained.elasticities[:3]))
    symbol_table = Table(["symbol", "meaning or machine key"], legend)
    intro = ("The closed forms the curves evaluate, printed by SymPy from the same Python"
             " functions (model/ops.py runs them on numbers or symbols).")
    return Section(f"Formulas ({name})", intro=intro, math=formulas, tables=[symbol_table],
                   notes=absent + notes)


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


def load_machines(machine_name: str, compare: tuple[str, ...], overrides: tuple[str, ...]):
    """The main machine (with --set overrides) and the machines to compare, with labels."""
    from icnperf.data.machine import load_machine

    main = load_machine(machine_name).with_overrides(list(overrides))
    machines = [main] + [load_machine(name) for name in compare]
    names = [main.name + (" (with --set)" if overrides else "")]
    names += [m.name for m in machines[1:]]
    seen = {}
    for i, name in enumerate(names):
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            names[i] = f"{name} #{seen[name]}"
    return machines, names


def report_html(machine_name: str, compare: tuple[str, ...] = (),
                overrides: tuple[str, ...] = (), *, validation: bool = True,
                skeletons=()) -> str:
    """The whole report page; ``skeletons`` (application skeletons) add a section each on
    the main machine (reports/app_report.py)."""
    from icnperf.reports.app_report import app_section

    machines, names = load_machines(machine_name, compare, overrides)
    sections = [summary_section(machines, names), topology_section(machines, names),
                p2p_section(machines, names), collectives_section(machines, names),
                apps_section(machines, names)]
    sections += [app_section(s, machines[0], names[0], node_layouts(machines[0]))
                 for s in skeletons]
    if validation:
        sections.append(validation_section())
    sections.append(formulas_section(machines[0], names[0]))
    title = f"icnperf report: {' vs '.join(names)}"
    subtitle = "; ".join(f"{n}: {m.topology}" for m, n in zip(machines, names))
    if overrides:
        subtitle += "; --set " + " ".join(overrides)
    return render_document(title, sections, subtitle=subtitle)
