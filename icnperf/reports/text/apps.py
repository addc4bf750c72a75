"""``icnperf predict app`` and ``icnperf place``: application models per node count."""

from __future__ import annotations

from icnperf.errors import InputError
from icnperf.reports.render import Column, aligned_table, csv_text, json_text, number

APPS = ("spmv", "heat", "hpcg", "npb-is")
P2P_ALGORITHM = {"spmv": "recursive-doubling", "heat": "p2p-tree", "hpcg": "recursive-doubling"}
"""The point-to-point collective each paper compares the hardware tree with (seeds/000 §3.2:
recursive doubling for SpMV's all-gather; §3.1, §3.3: the tree walked point to point for the
heat all-reduce; seeds/003: MPI all-reduce, taken as recursive doubling, for HPCG)."""
PROBLEM_OPTIONS = {
    "spmv": {"rows", "nonzeros_per_row", "iterations"},
    "heat": {"cells", "steps"},
    "hpcg": {"local", "processes_per_node", "variant", "iterations"},
    "npb-is": {"klass", "processes_per_node"},
}


def _time(value: float) -> str:
    from icnperf.units import format_quantity

    return format_quantity(value, "time", 3)


APP_COLUMNS = (
    Column("nodes", "nodes", number()),
    Column("layout", "layout"),
    Column("algorithm", "collectives"),
    Column("compute_s", "compute/iter", _time),
    Column("p2p_s", "p2p/iter", _time),
    Column("collective_s", "collective/iter", _time),
    Column("total_s", "total", _time),
    Column("gflops", "GFLOP/s", number(4)),
    Column("efficiency", "efficiency", number(3)),
    Column("hw_gain", "p2p / hw-tree", number(3)),
)


def _problem(app: str, given: dict) -> dict:
    used = {k: v for k, v in given.items() if v is not None}
    stray = sorted(set(used) - PROBLEM_OPTIONS[app])
    if stray:
        names = ", ".join("--" + s.replace("_", "-").replace("klass", "class") for s in stray)
        raise InputError(f"{names} does not apply to {app}")
    if "local" in used:
        from icnperf.model.topology.spec import parse_spec

        used["local"] = parse_spec(f"mesh:{used['local']}").params["radices"]
        if len(used["local"]) != 3:
            raise InputError("--local takes three sizes, e.g. 16x16x16")
    return used


def _run(app: str, machine, layout, algorithm: str, problem: dict):
    from icnperf.model.apps import heat, hpcg, spmv

    if app == "spmv":
        return spmv.predict(machine, layout, algorithm=algorithm, **problem)
    if app == "heat":
        return heat.predict(machine, layout, algorithm=algorithm, **problem)
    return hpcg.predict(machine, layout, algorithm=algorithm, **problem)


def app_rows(app: str, machine, layouts, algorithm: str, problem: dict) -> list[dict]:
    """One row per (node count, collective algorithm) with parallel efficiency relative to
    the first node count (strong scaling: T1 n1 / (T n); HPCG scales weakly: T1 / T) and the
    point-to-point/hardware-tree time ratio."""
    if app == "hpcg" and algorithm == "hw-tree":
        raise InputError("hpcg's dot products are MPI all-reduces; choose a point-to-point"
                         " algorithm or all")
    algorithms = ([a for a in ("hw-tree", P2P_ALGORITHM[app]) if app != "hpcg" or a != "hw-tree"]
                  if algorithm == "all" else [algorithm])
    rows = []
    for layout in layouts:
        results = {a: _run(app, machine, layout, a, problem) for a in algorithms}
        hw = results.get("hw-tree")
        p2p = results.get(P2P_ALGORITHM[app])
        for name, r in results.items():
            rows.append({"nodes": r.nodes, "layout": r.layout, "algorithm": name,
                         "compute_s": r.compute_s, "p2p_s": r.p2p_s,
                         "collective_s": r.collective_s, "total_s": r.total_s,
                         "gflops": r.gflops, "hw_gain": (p2p.total_s / hw.total_s)
                         if hw and p2p else None, "notes": r.notes})
    for name in algorithms:
        own = [row for row in rows if row["algorithm"] == name]
        base = own[0]
        for row in own:
            scale = 1 if app == "hpcg" else base["nodes"] / row["nodes"]
            row["efficiency"] = base["total_s"] / row["total_s"] * scale
    return rows


def app_text(app: str, machine_name: str, overrides: tuple[str, ...], nodes: str | None,
             shape: str | None, algorithm: str, given: dict, fmt: str) -> str:
    """The rendered ``predict app`` table."""
    from icnperf.reports.text.predict import layouts_for
    from icnperf.data.machine import load_machine

    if app not in APPS:
        raise InputError(f"unknown application {app!r}; choose one of {', '.join(APPS)}")
    machine = load_machine(machine_name).with_overrides(list(overrides))
    problem = _problem(app, given)
    if app == "npb-is":
        return placement_text(machine, problem.get("klass", "C"), None, fmt,
                              nodes=nodes, ppn=problem.get("processes_per_node"))
    rows = app_rows(app, machine, layouts_for(machine.topology, nodes, shape), algorithm,
                    problem)
    first = rows[0]["nodes"]
    notes = list(dict.fromkeys(n for row in rows if row["nodes"] == first
                               for n in row["notes"]))
    for row in rows:
        del row["notes"]
    if fmt == "json":
        return json_text({"inputs": {"app": app, "machine": machine.name, "nodes": nodes,
                                     "shape": shape, "algorithm": algorithm, **problem},
                          "notes": notes, "rows": rows})
    if fmt == "csv":
        return csv_text(rows, [c.key for c in APP_COLUMNS])
    lines = "\n".join(f"  - {n}" for n in notes)
    lines += f"\n  (assumptions as stated for {first} nodes; other node counts differ only in"
    lines += " sizes and shapes)"
    return (f"{app} on {machine.name}; efficiency relative to the first node count;"
            f" p2p / hw-tree = total time with {P2P_ALGORITHM.get(app)} over the hardware"
            f" tree's\n\n{aligned_table(rows, APP_COLUMNS)}\n\nassumptions:\n{lines}\n")


def placement_text(machine, klass: str, procs: int | None, fmt: str, *,
                   nodes: str | None = None, ppn: int | None = None, wide: bool = False) -> str:
    """NPB IS placements ranked by predicted time, parameters fitted on the machine's
    bundled tables (all included rows of the class's table); ``wide``: notes unwrapped."""
    from icnperf.data.measurements.tables import load_table
    from icnperf.model.apps import npb_is
    from icnperf.units import parse_range

    tables = npb_is.TABLES_FOR_MACHINE.get(machine.name)
    if not tables:
        raise InputError(f"no bundled NPB IS measurements to fit for {machine.name}; "
                         f"machines with data: {', '.join(npb_is.TABLES_FOR_MACHINE)}")
    if klass not in npb_is.CLASSES:
        raise InputError(f"unknown NPB class {klass!r}; choose one of"
                         f" {', '.join(npb_is.CLASSES)}")
    table = next((t for t in tables if t.endswith(f"class-{klass.lower()}")), tables[0])
    params = npb_is.fit(load_table(table), machine).params
    if procs is not None:
        ranked = npb_is.rank_placements(machine, klass, procs, params)
    else:
        if nodes is None or ppn is None:
            raise InputError("npb-is needs --nodes and --ppn (or use icnperf place --procs)")
        ranked = sorted(((int(n), ppn, float(npb_is.predict(machine, int(n), ppn, klass,
                                                            params).total_s))
                         for n in parse_range(nodes, "count")), key=lambda r: r[2])
    rows = [{"rank": i + 1, "nodes": n, "processes_per_node": p, "processes": n * p,
             "total_s": t} for i, (n, p, t) in enumerate(ranked)]
    note = (f"contention parameters fitted on {table} (all included rows); the held-out"
            " agreement of this model is reported by icnperf validate (npb-is checks)")
    if fmt == "json":
        return json_text({"inputs": {"app": "npb-is", "machine": machine.name,
                                     "class": klass, "procs": procs},
                          "notes": [note], "placements": rows})
    if fmt == "csv":
        return csv_text(rows, list(rows[0]) if rows else ["rank"])
    columns = (Column("rank", "rank"), Column("nodes", "nodes"),
               Column("processes_per_node", "per node"), Column("processes", "processes"),
               Column("total_s", "predicted total", _time))
    from icnperf.reports.page import Page

    page = Page(wide)
    page.line(f"NPB IS class {klass} on {machine.name}, fastest first")
    page.blank()
    page.table(rows, columns)
    page.blank()
    page.notes("notes", [note])
    return page.text()
