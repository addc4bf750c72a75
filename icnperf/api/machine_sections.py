"""The machine report's results (``icnperf.report``): each section's rows computed here,
as plain dicts, lists and NumPy columns, for icnperf.reports.machine_report to draw.

The machines are loaded with their labels, the node counts to sweep chosen, and the model
run: topology metrics, point-to-point columns over message sizes, every collective
algorithm against the node count with the crossovers between their curves, the two
applications' time split, each application skeleton's phases, the fast validation claims
and the formulas (SymPy expressions with their elasticities). With a ``sampling``
(``--uncertainty``) the curves carry their 5-95 % ranges and the report its tornado charts
(icnperf.api.report_ranges).
"""

from __future__ import annotations

import numpy as np

from icnperf.errors import IcnperfError

P2P_SIZES = 2.0 ** np.arange(0, 23)
"""Message sizes of the point-to-point curves: 1 B ... 4 MiB, doubling."""
P2P_TABLE_SIZES = (8.0, 1024.0, 65536.0, 1048576.0)
"""The sizes the point-to-point table shows."""
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
FORMULA_ALGORITHMS = ("hw-tree", "p2p-tree")
"""The all-reduce algorithms whose formulas the report prints."""


def _short(error: IcnperfError) -> str:
    return str(error).rstrip(".")


# --- machines and node counts -------------------------------------------------------------


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


def fewer(layouts: list) -> list:
    """Every other layout of a long sweep, always keeping the machine's own (the last)."""
    if len(layouts) <= 6:
        return layouts
    picked = layouts[::2]
    return picked if picked[-1] is layouts[-1] else picked + [layouts[-1]]


# --- sections -----------------------------------------------------------------------------


def summaries(machines, names) -> list[dict]:
    """Each machine's parameter rows (section, key, value with unit, source) and notes."""
    return [{"name": name, "description": machine.description,
             "topology": machine.topology,
             "rows": [[section, key, shown, source]
                      for section, key, _, shown, source in machine.rows()],
             "notes": list(machine.notes)} for machine, name in zip(machines, names)]


def topology_documents(machines) -> list[dict]:
    """Each machine's topology document (``icnperf topology``'s: metrics, channel loads,
    throughput and saturation estimate of its routers per traffic pattern, notes)."""
    from icnperf.api.topology_metrics import topology_document

    return [topology_document(machine.topology, machine=machine) for machine in machines]


def p2p_results(machines, names, sampling=None, production: bool = False) -> dict:
    """The point-to-point columns of each machine that has the parameters (``columns``:
    name -> p2p_table's columns over :data:`P2P_SIZES`), why the others have none
    (``absent``) and the model's assumptions; with ``sampling``, ``spans``: name ->
    quantity -> (low, high) arrays (report_ranges.p2p_spans). ``production``: the busy
    machine's columns and ranges (report_production.p2p_columns)."""
    from icnperf.api.report_production import p2p_columns
    from icnperf.api.report_ranges import p2p_spans
    from icnperf.model.network import p2p_table

    columns, absent, assumptions, spans = {}, [], [], {}
    for machine, name in zip(machines, names):
        try:
            result = p2p_table(machine, P2P_SIZES, None, API)
        except IcnperfError as error:
            absent.append(f"{name}: no point-to-point predictions: {_short(error)}")
            continue
        columns[name] = result.columns
        assumptions = assumptions or list(result.assumptions)
        if production:
            columns[name], spans[name] = p2p_columns(machine, P2P_SIZES, API, sampling)
        elif sampling is not None:
            spans[name] = p2p_spans(machine, P2P_SIZES, API, sampling)
    return {"sizes": [float(s) for s in P2P_SIZES], "table_sizes": list(P2P_TABLE_SIZES),
            "api": API, "columns": columns, "absent": absent, "assumptions": assumptions,
            "spans": spans if sampling is not None else None, "production": production}


def crossovers(curves: dict) -> list[tuple[float, float, str]]:
    """Where two algorithms' curves meet (the hardware tree and each point-to-point
    algorithm, and the point-to-point algorithms among themselves): (nodes, time s,
    description), interpolated in log space between node counts."""
    from icnperf.reports.figures import crossings

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


def collective_results(machines, names, sampling=None, production: bool = False) -> dict:
    """Per operation and machine, each algorithm's (nodes, time s) curve over the machine's
    node counts at :data:`COLLECTIVE_BYTES` per rank, the crossovers, whether the hardware
    tree is fastest everywhere, and at the machine's own size each algorithm's time with
    the best point-to-point time over it (``own``: (algorithm, nodes, time s, ratio)).
    With ``sampling``, ``spans``: per algorithm the (low, high) time of each point, and
    ``own_spans`` the same for ``own`` (report_ranges.collective_spans). ``production``:
    the busy machine's times (the medians) and ranges, the algorithms without a step
    schedule left out and said in ``absent`` (report_production.collective_rows)."""
    from icnperf.api.report_production import collective_rows as busy_rows
    from icnperf.api.report_ranges import collective_spans
    from icnperf.model.collectives import ALGORITHMS
    from icnperf.api.collective_table import collective_rows

    operations, absent = [], []
    for operation in COLLECTIVE_OPERATIONS:
        drawn = []
        for index, (machine, name) in enumerate(zip(machines, names)):
            layouts = node_layouts(machine)
            try:
                rows, _ = collective_rows(machine, operation, "all", layouts,
                                          np.array([COLLECTIVE_BYTES]), API)
            except IcnperfError as error:
                absent.append(f"{name}: no {operation} predictions: {_short(error)}")
                continue
            if production:
                rows, left = busy_rows(machine, rows, operation, layouts, API, sampling)
                absent += [f"{name}, {operation}: {a} left out under --production: no step"
                           " schedule to charge the queueing and OS noise to" for a in left]
                if not rows:
                    continue
            curves = {a: [(r["nodes"], r["time_s"]) for r in rows if r["algorithm"] == a]
                      for a in ALGORITHMS}
            curves = {a: c for a, c in curves.items() if c}
            own = max(n for n, _ in next(iter(curves.values())))
            best = min(t for a, c in curves.items() if a != "hw-tree" for n, t in c
                       if n == own)
            entry = {"name": name, "index": index, "curves": curves,
                     "crossovers": crossovers(curves),
                     "hw_tree_fastest": "hw-tree" in curves and _always_fastest(curves),
                     "own": [(a, n, t, best / t) for a, c in curves.items()
                             for n, t in c if n == own]}
            if sampling is not None:
                ranged = rows if production else [
                    {**row, **span} for row, span in zip(rows, collective_spans(
                        machine, operation, layouts, COLLECTIVE_BYTES, API, sampling))]
                entry["spans"] = {a: [(r["time_s_low"], r["time_s_high"]) for r in ranged
                                      if r["algorithm"] == a] for a in curves}
                entry["own_spans"] = [(r["time_s_low"], r["time_s_high"]) for a in curves
                                      for r in ranged
                                      if r["algorithm"] == a and r["nodes"] == own]
            drawn.append(entry)
        operations.append({"operation": operation, "machines": drawn})
    return {"bytes": COLLECTIVE_BYTES, "algorithms": list(ALGORITHMS),
            "operations": operations, "absent": absent, "compared": len(names) > 1,
            "production": production}


def app_results(machines, names, sampling=None, production: bool = False) -> dict:
    """Per application of :data:`APPS`, its rows (app_rows: time split, GFLOP/s,
    efficiency, p2p / hw-tree) per machine over every other node count, and why a machine
    has none or computes at a derived rate (``absent``). With ``sampling`` each row has
    ``total_s_low`` and ``total_s_high`` (report_ranges.app_spans). ``production``: the
    rows stay the empty machine's (the papers' own models; --production charges
    skeletons), said first in ``absent``."""
    from icnperf.api.report_ranges import app_spans
    from icnperf.api.app_runs import P2P_ALGORITHM, app_rows

    apps = []
    absent = [f"{', '.join(APPS)}: the empty machine's (the source papers' own models, which"
              " --production does not charge; give --app spmv or --app heat for their"
              " skeletons on the busy machine)"] if production else []
    for app in APPS:
        rows_all = []
        for machine, name in zip(machines, names):
            layouts = fewer(node_layouts(machine))
            try:
                rows = app_rows(app, machine, layouts, "all", {})
            except IcnperfError as error:
                absent.append(f"{name}: no {app} predictions: {_short(error)}")
                continue
            if sampling is not None:
                rows = [{**row, **span}
                        for row, span in zip(rows, app_spans(app, machine, layouts, sampling))]
            rate_key = RATE_KEYS[app]
            if machine.get(rate_key) is None:
                absent.append(f"{name}: {app} computes at the node's roofline rate, derived: "
                              f"the machine has no measured {rate_key}")
            rows_all += [(name, r) for r in rows]
        if rows_all:
            apps.append({"app": app, "p2p_algorithm": P2P_ALGORITHM[app], "rows": rows_all})
    return {"apps": apps, "absent": absent, "compared": len(names) > 1}


def skeleton_results(skeleton, machine, name: str, layouts, sampling=None,
                     production: bool = False) -> dict:
    """An application skeleton on the machine's node counts: its phase rows and total rows
    (app_runs.skeleton_rows), phase names and notes; with ``sampling`` the rows
    carry predict app's ranges (report_ranges.skeleton_spans); ``production``: predict app
    --production's rows (report_production.skeleton_tables) and its notes."""
    from icnperf.api.report_ranges import skeleton_spans
    from icnperf.api.app_runs import skeleton_notes, skeleton_results as runs_of
    from icnperf.api.app_runs import skeleton_rows

    results = runs_of(skeleton, machine, layouts, None, None)
    phase_rows, total_rows = skeleton_rows(results, skeleton.scaling)
    notes = skeleton_notes(skeleton, results)
    if production:
        from icnperf.api.production_app import APP_NOTE
        from icnperf.api.report_production import skeleton_tables
        from icnperf.reports.text.production import values_line

        phase_rows, total_rows = skeleton_tables(skeleton, machine, layouts, sampling)
        notes += [values_line(machine.production, "each time", sampling is not None),
                  APP_NOTE]
    elif sampling is not None:
        phase_rows, total_rows = skeleton_spans(skeleton, machine, layouts, phase_rows,
                                                total_rows, sampling)
    return {"skeleton": skeleton.name, "origin": skeleton.origin,
            "description": skeleton.description, "scaling": skeleton.scaling,
            "machine": name, "phases": [p.name for p in results[0].phases],
            "phase_rows": phase_rows, "total_rows": total_rows, "notes": notes}


def validation_results() -> dict:
    """The registry's fast closed-form checks evaluated (no simulator cross-checks, no
    application-level claims), with their status counts, tolerance intervals and how many
    claims are registered in all."""
    from icnperf.api.validation_pages import tolerance_intervals
    from icnperf.validation.registry import all_claims, evaluate, status_counts

    claims = all_claims()
    chosen = all_claims(runs=("closed-form",))
    results = [evaluate(c).as_dict() for c in chosen]
    return {"results": results, "intervals": tolerance_intervals(results),
            "counts": status_counts(results), "registered": len(claims)}


def formulas(machine, name: str) -> dict:
    """The closed forms behind the curves as SymPy expressions: the one-way latency on
    symbols, and the all-reduce of :data:`FORMULA_ALGORITHMS` on the machine's own layout
    (structure substituted) with its value and largest elasticities; the symbols' legend."""
    import sympy as sp

    from icnperf.model import network
    from icnperf.model.collectives import symbolic_collective_parameters
    from icnperf.model.explain import explain, parameter_key

    symbols = network.symbolic_parameters()
    m, h = sp.symbols("m h", positive=True)
    latency = network.latency(m, h, **network.bind(network.latency, symbols))
    legend = [["m", "message size (bytes)"], ["h", "router-to-router hops"]]
    legend += [[str(symbol), parameter_key(key, API)]
               for key, symbol in symbolic_collective_parameters().items()]
    explained, absent = [], []
    for algorithm in FORMULA_ALGORITHMS:
        try:
            result = explain(machine, "allreduce", algorithm, COLLECTIVE_BYTES, api=API)
        except IcnperfError as error:
            absent.append(f"{name}: no allreduce {algorithm} formula: {_short(error)}")
            continue
        explained.append({"algorithm": algorithm, "expression": result.expression,
                          "layout": result.layout, "time_s": result.time,
                          "elasticities": [(str(e.symbol), e.elasticity)
                                           for e in result.elasticities[:3]]})
    return {"name": name, "bytes": COLLECTIVE_BYTES, "latency": latency, "legend": legend,
            "explained": explained, "absent": absent}


def tornadoes(machine, name: str, explained: list[dict]) -> dict:
    """Each input's share of the range of the report's representative collectives: the
    all-reduces whose formulas the report prints (``explained``), or, where it prints none
    (no torus: the trees are defined on tori), the all-reduce the MPI library would choose
    (``auto``), at :data:`COLLECTIVE_BYTES` on the machine's own job
    (report_ranges.tornado). ``charts``: one per collective; ``absent``: why a collective
    has none."""
    from icnperf.api.report_ranges import tornado

    charts, absent = [], []
    for algorithm in [e["algorithm"] for e in explained] or ["auto"]:
        try:
            charts.append(tornado(machine, "allreduce", algorithm, COLLECTIVE_BYTES, API))
        except IcnperfError as error:
            absent.append(f"{name}: no allreduce {algorithm} shares: {_short(error)}")
    return {"charts": charts, "absent": absent}


def production_results(machines, names) -> dict:
    """What ``--production`` applied on each machine: ``mechanisms`` (per machine and
    mechanism, applied or not, the values and their sources; report_production.mechanisms)
    and ``empty`` (the parts of the report that stay the empty machine's)."""
    from icnperf.api.report_production import mechanisms

    return {"mechanisms": [row for machine, name in zip(machines, names)
                           for row in mechanisms(machine, name)],
            "empty": ["the spmv and heat sweeps (application scaling)",
                      "the formulas (and the tornado charts of --uncertainty)",
                      "the validation section (published measurements against the empty"
                      " machine's predictions; icnperf validate prints the production"
                      " coverage)"]}


def machine_report(machine_name: str, compare: tuple[str, ...] = (),
                   overrides: tuple[str, ...] = (), *, validation: bool = True,
                   skeletons=(), sampling=None, production: bool = False) -> dict:
    """Every section's results of the report of ``machine_name`` beside ``compare``
    (``overrides``: --set items of the main machine; ``skeletons``: loaded application
    skeletons, a section each on the main machine), for
    icnperf.reports.machine_report.report_html. ``sampling``
    (data.machine.sampling.Sampling, ``--uncertainty``): the curves' 5-95 % ranges over
    its draws of every machine's inputs, and ``tornadoes``; ``uncertainty`` records it
    (samples, seed, quantiles). ``production``: the busy machines' predictions
    (icnperf.api.report_production; every machine must carry ``[production]`` values,
    which icnperf.report checks first) and ``production`` says what was applied."""
    machines, names = load_machines(machine_name, compare, overrides)
    title = f"icnperf report: {' vs '.join(names)}"
    subtitle = "; ".join(f"{n}: {m.topology}" for m, n in zip(machines, names))
    if overrides:
        subtitle += "; --set " + " ".join(overrides)
    if sampling is not None:
        subtitle += (f"; --uncertainty: {sampling.samples} draws of the inputs, seed"
                     f" {sampling.seed}")
    if production:
        subtitle += "; --production: the busy machine's OS noise and background traffic"
    from icnperf.model.topology.base import PATTERNS

    report = {"title": title, "subtitle": subtitle, "names": names,
              "patterns": list(PATTERNS), "summary": summaries(machines, names),
              "topology": topology_documents(machines),
              "p2p": p2p_results(machines, names, sampling, production),
              "collectives": collective_results(machines, names, sampling, production),
              "apps": app_results(machines, names, sampling, production),
              "skeletons": [skeleton_results(s, machines[0], names[0],
                                             node_layouts(machines[0]), sampling,
                                             production)
                            for s in skeletons],
              "validation": validation_results() if validation else None,
              "formulas": formulas(machines[0], names[0])}
    if production:
        report["production"] = production_results(machines, names)
    if sampling is not None:
        report["uncertainty"] = sampling.as_record()
        report["tornadoes"] = tornadoes(machines[0], names[0],
                                        report["formulas"]["explained"])
    return report
