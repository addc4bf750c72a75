"""``icnperf predict app`` and ``icnperf place``: application models per node count."""

from __future__ import annotations

from icnperf.errors import InputError
from icnperf.reports.render import (Column, aligned_table, csv_text, json_text, number,
                                    require_finite)

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


MAX_LOCAL_CELLS = 10**12
"""Largest HPCG local domain, in grid points per process."""


def _local_domain(text: str) -> tuple[int, int, int]:
    """``--local NXxNYxNZ``: three whole numbers >= 2 (grid points per process along x, y,
    z), at most :data:`MAX_LOCAL_CELLS` in all; InputError naming --local otherwise."""
    import re

    parts = re.split(r"[x×X]", str(text).strip())
    if len(parts) != 3 or not all(p.strip().isdigit() for p in parts):
        raise InputError(f"--local {text!r}: give three whole numbers, e.g. 16x16x16")
    sizes = tuple(int(p) for p in parts)
    if min(sizes) < 2:
        raise InputError(f"--local {text!r}: each size must be at least 2 grid points")
    if sizes[0] * sizes[1] * sizes[2] > MAX_LOCAL_CELLS:
        raise InputError(f"--local {text!r}: more than {MAX_LOCAL_CELLS:.0e} grid points per"
                         " process")
    return sizes


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


# --- skeletons: predict app FILE.toml|NAME ---------------------------------------------

LEGACY_ALIASES = {
    "spmv": {"rows": "rows", "nonzeros_per_row": "nonzeros_per_row",
             "iterations": "iterations"},
    "heat": {"cells": "cells", "steps": "steps"},
    "hpcg": {"local": ("nx", "ny", "nz"), "iterations": "iterations"},
}
"""Today's per-app flags as aliases of --param for the bundled skeletons (flag -> parameter);
hpcg's --variant optimized picks the machine's optimized HPCG (hpcg-vendor, or
hpcg-optimized on the Angara presets), --ppn is any skeleton's processes per node."""

TABLE_WIDTH = 100


def _flag(key: str) -> str:
    return "--" + key.replace("_", "-").replace("klass", "class").replace(
        "nonzeros-per-row", "nnz-per-row")


def parse_params(items) -> dict:
    """``--param k=v`` items as {name: number}; InputError for a malformed item."""
    from fractions import Fraction

    out = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(f"--param {item!r}: expected NAME=VALUE (e.g. n=2048)")
        try:
            out[name] = Fraction(text.strip())
        except (ValueError, ZeroDivisionError):
            raise InputError(f"--param {item!r}: {text.strip()!r} is not a number "
                             "(bare SI numbers: 2048, 1e6, 0.5)") from None
    return out


def resolve_skeleton(app: str, given: dict, params=(), machine=None):
    """The skeleton of APP (a bundled name or a file) with the legacy flags of ``given``
    and the ``--param`` items applied: (skeleton, processes per node or None). hpcg's
    ``--variant optimized`` is the machine's own optimized HPCG (``software.hpcg_optimized``:
    hpcg-vendor by default, hpcg-optimized for angara-shmem)."""
    from icnperf.data.skeleton import load_skeleton

    used = {k: v for k, v in given.items() if v is not None}
    ppn = used.pop("processes_per_node", None)
    variant = used.pop("variant", None)
    aliases = LEGACY_ALIASES.get(app, {})
    stray = sorted(k for k in used if k not in aliases)
    if variant is not None and app != "hpcg":
        stray.insert(0, "variant")
    if stray:
        names = ", ".join(_flag(k) for k in stray)
        hint = "use --param NAME=VALUE" if app not in LEGACY_ALIASES else \
            f"{app} takes {', '.join(_flag(k) for k in aliases) or 'none'}"
        raise InputError(f"{names} does not apply to {app} ({hint})")
    name = app
    if app == "hpcg" and variant == "optimized":
        from icnperf.model.apps.hpcg import optimized_kind

        kind = "vendor" if machine is None else optimized_kind(machine)
        name = "hpcg-optimized" if kind == "angara-shmem" else "hpcg-vendor"
    skeleton = load_skeleton(name)
    values = {}
    for flag, target in aliases.items():
        if flag not in used:
            continue
        if flag == "local":
            values.update(zip(target, _local_domain(used["local"])))
        else:
            values[target] = used[flag]
    values.update(parse_params(params))
    return skeleton.with_parameters(values), ppn


def skeleton_results(skeleton, machine, layouts, algorithm: str | None, ppn: int | None):
    """:func:`icnperf.model.apps.timing.run` on every layout."""
    from icnperf.model.apps import timing

    return [timing.run(skeleton, machine, layout, ppn=ppn, algorithm=algorithm)
            for layout in layouts]


def skeleton_rows(results, scaling: str) -> tuple[list[dict], list[dict]]:
    """(phase rows, total rows): one row per (node count, phase) with its time and share of
    the total (0 to 1), one per node count with the total, GFLOP/s and parallel efficiency
    relative to the first node count (strong: T1 n1 / (T n); weak: T1 / T)."""
    phases, totals = [], []
    first = results[0]
    for r in results:
        for p in r.phases:
            phases.append({"nodes": r.nodes, "layout": r.layout, "phase": p.name,
                           "time_s": p.time_s,
                           "share": p.time_s / r.total_s if r.total_s > 0 else 0.0})
        scale = 1 if scaling == "weak" else first.nodes / r.nodes
        efficiency = first.total_s / r.total_s * scale if r.total_s > 0 else None
        totals.append({"nodes": r.nodes, "layout": r.layout, "ranks": r.ranks,
                       "total_s": r.total_s, "gflops": r.gflops, "efficiency": efficiency})
    return phases, totals


def _share(value) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _wide_table(phase_rows, total_rows, names, with_layout: bool) -> str:
    by_nodes = {}
    for row in phase_rows:
        by_nodes.setdefault(row["nodes"], {})[row["phase"]] = row
    rows = []
    for total in total_rows:
        row = {"nodes": total["nodes"], "layout": total["layout"],
               "total_s": total["total_s"], "gflops": total["gflops"],
               "efficiency": total["efficiency"]}
        for i, name in enumerate(names):
            cell = by_nodes[total["nodes"]][name]
            row[f"p{i}"] = f"{_time(cell['time_s'])} {_share(cell['share'])}"
        rows.append(row)
    columns = [Column("nodes", "nodes", number())]
    if with_layout:
        columns.append(Column("layout", "layout"))
    columns += [Column(f"p{i}", name) for i, name in enumerate(names)]
    columns += [Column("total_s", "total", _time), Column("gflops", "GFLOP/s", number(4)),
                Column("efficiency", "efficiency", number(3))]
    return aligned_table(rows, columns)


def _long_table(phase_rows, total_rows) -> str:
    rows = []
    for total in total_rows:
        first = True
        for row in phase_rows:
            if row["nodes"] != total["nodes"]:
                continue
            rows.append({**row, "nodes": row["nodes"] if first else None,
                         "layout": row["layout"] if first else "",
                         "shown": _share(row["share"])})
            first = False
        rows.append({"phase": "total", "time_s": total["total_s"], "shown": "",
                     "gflops": total["gflops"], "efficiency": total["efficiency"],
                     "layout": ""})
    columns = (Column("nodes", "nodes", lambda v: "" if v is None else f"{v:,}"),
               Column("layout", "layout"), Column("phase", "phase"),
               Column("time_s", "time", _time), Column("shown", "share"),
               Column("gflops", "GFLOP/s", lambda v: "" if v is None else number(4)(v)),
               Column("efficiency", "efficiency",
                      lambda v: "" if v is None else number(3)(v)))
    return aligned_table(rows, columns)


def phase_table(phase_rows, total_rows, names) -> str:
    """The table: a column per phase (its time and share) when that fits in
    :data:`TABLE_WIDTH` columns (with the layout if it fits too), else one row per phase."""
    for with_layout in (True, False):
        text = _wide_table(phase_rows, total_rows, names, with_layout)
        if max(len(line) for line in text.splitlines()) <= TABLE_WIDTH:
            return text
    return _long_table(phase_rows, total_rows)


def numbered_notes(notes, width: int = TABLE_WIDTH) -> str:
    """Notes as a numbered list wrapped to ``width`` columns."""
    import textwrap

    lines = []
    for i, note in enumerate(notes, 1):
        lines.append(textwrap.fill(note, width, initial_indent=f"  {i}. ",
                                   subsequent_indent=" " * (len(str(i)) + 4)))
    return "\n".join(lines)


def _term_note(term) -> str:
    from icnperf.units import format_quantity

    if term.hops is None:
        return term.detail
    if term.messages == 0:
        return term.detail
    size = format_quantity(term.bytes, "size", 4)
    where = f"{term.hops} hop(s), channel load {term.load}"
    if term.host and term.host > 1:
        where += f", {term.host} messages through one adapter"
    if term.intra:
        where += ", some within a node"
    return (f"{term.detail}: {term.messages} message(s) of {size} per rank at once, "
            f"{where}")


def skeleton_notes(skeleton, results) -> list[str]:
    """The skeleton's own notes, then each phase's communication at the first and last node
    count, and the efficiency rule."""
    notes = [f"{skeleton.name}: {skeleton.description}" if skeleton.description
             else skeleton.name, *skeleton.notes]
    shown = [results[0]] if len(results) == 1 else [results[0], results[-1]]
    for r in shown:
        for p in r.phases:
            for term in p.terms:
                notes.append(f"{p.name} at {r.nodes:,} nodes: {_term_note(term)}")
            if p.node_type is not None and p.compute_s > 0:
                notes.append(f"{p.name} at {r.nodes:,} nodes: compute paced by node type "
                             f"{p.node_type}, the slowest")
    rule = ("weak scaling: T1 / T" if skeleton.scaling == "weak"
            else "strong scaling: T1 n1 / (T n)")
    notes.append(f"efficiency relative to the first node count ({rule}); share = phase time "
                 "/ total; each phase waits for its slowest rank")
    return notes


def app_text(app: str, machine_name: str, overrides: tuple[str, ...], nodes: str | None,
             shape: str | None, algorithm: str | None, given: dict, fmt: str,
             params: tuple[str, ...] = ()) -> str:
    """The rendered ``predict app`` output: a skeleton (bundled name or file) per node
    count, or NPB IS's placements (its Python model)."""
    from icnperf.data.limits import skeleton_within_limits
    from icnperf.data.machine import load_machine
    from icnperf.reports.text.predict import layouts_for

    machine = load_machine(machine_name).with_overrides(list(overrides))
    if app == "npb-is":
        used = {k: v for k, v in given.items() if v is not None}
        stray = sorted(set(used) - PROBLEM_OPTIONS["npb-is"])
        if stray or params or algorithm is not None:
            names = ", ".join([_flag(s) for s in stray] + (["--param"] if params else [])
                              + (["--algorithm"] if algorithm is not None else []))
            raise InputError(f"{names} does not apply to npb-is (its Python model takes "
                             "--class and --ppn)")
        return placement_text(machine, used.get("klass", "C"), None, fmt, nodes=nodes,
                              ppn=used.get("processes_per_node"))
    if given.get("klass") is not None:
        raise InputError(f"--class does not apply to {app} (npb-is only)")
    skeleton, ppn = resolve_skeleton(app, {k: v for k, v in given.items() if k != "klass"},
                                     params, machine)
    layouts = layouts_for(machine.topology, nodes, shape)
    skeleton_within_limits(skeleton, machine, [lay.endpoints for lay in layouts], ppn,
                           algorithm, fmt)
    results = skeleton_results(skeleton, machine, layouts, algorithm, ppn)
    phase_rows, total_rows = skeleton_rows(results, skeleton.scaling)
    notes = skeleton_notes(skeleton, results)
    if fmt == "json":
        return json_text({"inputs": {"app": app, "skeleton": skeleton.name,
                                     "machine": machine.name, "nodes": nodes, "shape": shape,
                                     "algorithm": algorithm,
                                     "processes_per_node": results[0].ppn,
                                     "parameters": results[0].parameters},
                          "notes": notes, "rows": phase_rows, "totals": total_rows})
    if fmt == "csv":
        rows = list(phase_rows)
        for total in total_rows:
            rows.append({**total, "phase": "total", "time_s": total["total_s"], "share": 1.0})
        rows.sort(key=lambda row: row["nodes"])
        return csv_text(rows, ["nodes", "layout", "phase", "time_s", "share", "gflops",
                               "efficiency"])
    names = [p.name for p in results[0].phases]
    from icnperf.reports.page import wrap

    title = "\n".join(wrap(f"{skeleton.name} on {machine.name}, {results[0].ppn} process(es)"
                           " per node; time per run of each phase and its share of the total",
                           TABLE_WIDTH))
    return (f"{title}\n\n{phase_table(phase_rows, total_rows, names)}\n\nnotes:\n"
            f"{numbered_notes(notes)}\n")


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
