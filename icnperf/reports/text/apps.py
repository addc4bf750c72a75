"""``icnperf predict app`` and ``icnperf place``: application models per node count.

``predict app`` runs a skeleton (a bundled name or a file) on every node count and prints
each phase's time per run and its share of the total, fitted to 100 columns by
:class:`icnperf.reports.page.Page` (``--wide``: the full layout). ``--algorithm all`` runs
it twice, every collective phase on the hardware tree and then on its point-to-point
algorithm, and sets the totals side by side with their ratio p2p / hw-tree (the quantity of
the Angara papers' Figs. 9 and 10). NPB IS ranks placements with its Python model
(:func:`placement_text`). :func:`app_rows` gives the machine report the Python models'
rows with both algorithms.
"""

from __future__ import annotations

from icnperf.data.files import printable
from icnperf.errors import InputError
from icnperf.reports.page import Page
from icnperf.reports.render import Column, column_cells, csv_text, json_text, number, \
    table_width

P2P_ALGORITHM = {"spmv": "recursive-doubling", "heat": "p2p-tree", "hpcg": "recursive-doubling"}
"""The point-to-point collective each paper compares the hardware tree with (Mukosey 2015 §3.2:
recursive doubling for SpMV's all-gather; §3.1, §3.3: the tree walked point to point for the
heat all-reduce; Agarkov 2015: MPI all-reduce, taken as recursive doubling, for HPCG)."""
NPB_IS_OPTIONS = {"klass", "processes_per_node"}
"""The flags NPB IS's Python model takes (--class, --ppn)."""


def _time(value: float) -> str:
    from icnperf.units import format_quantity

    return format_quantity(value, "time", 3)


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

ALL = "all"
"""``--algorithm all``: the hardware tree and each phase's point-to-point algorithm."""


def _flag(key: str) -> str:
    return "--" + key.replace("_", "-").replace("klass", "class").replace(
        "nonzeros-per-row", "nnz-per-row")


def parse_params(items) -> dict:
    """``--param k=v`` items as {name: number}: v a bare SI number (2048, 0.5, 1e6; no
    fractions such as 1/3), at most the largest float; InputError for anything else."""
    from icnperf.model.apps.skeleton import read_number

    out = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(f"--param {item!r}: expected NAME=VALUE (e.g. n=2048)")
        out[name] = read_number(text.strip(), f"--param {item!r}: the value")
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
    compute = used.pop("compute", "cpu")
    buffers = used.pop("buffers", "host")
    aliases = LEGACY_ALIASES.get(app, {})
    stray = sorted(k for k in used if k not in aliases)
    if variant is not None and app != "hpcg":
        stray.insert(0, "variant")
    if stray:
        names = ", ".join(_flag(k) for k in stray)
        hint = "use --param NAME=VALUE" if app not in LEGACY_ALIASES else \
            f"{app} takes {', '.join(_flag(k) for k in aliases) or 'none'}"
        raise InputError(f"{names} does not apply to {printable(app)} ({hint})")
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
    skeleton = skeleton.with_parameters(values)
    if compute == "gpu":
        from icnperf.model.apps.gpu import on_gpus

        skeleton = on_gpus(skeleton, buffers)
    return skeleton, ppn


def skeleton_results(skeleton, machine, layouts, algorithm: str | None, ppn: int | None,
                     point_to_point: bool = False):
    """:func:`icnperf.model.apps.timing.run` on every layout."""
    from icnperf.model.apps import timing

    return [timing.run(skeleton, machine, layout, ppn=ppn, algorithm=algorithm,
                       point_to_point=point_to_point) for layout in layouts]


def point_to_point_label(skeleton) -> str:
    """The name of the point-to-point side of ``--algorithm all``: the algorithm every
    collective phase runs there when they agree on one, else ``point-to-point``."""
    named = {p.collective.point_to_point for p in skeleton.phases if p.collective}
    return named.pop() if len(named) == 1 and "best" not in named else "point-to-point"


def compared_results(skeleton, machine, layouts, ppn: int | None):
    """``--algorithm all``: [(label, results)] with every collective phase on the hardware
    tree, then on its point-to-point algorithm. InputError when the skeleton has no
    collective phase or the hardware tree does not apply (naming --algorithm all)."""
    from icnperf.model.apps.skeleton import HARDWARE_ALGORITHM

    if not any(p.collective is not None for p in skeleton.phases):
        raise InputError(f"--algorithm all compares collective algorithms; {skeleton.name} "
                         "has no collective phase")
    # the point-to-point run first: an error there (a missing node rate, say) is not the
    # hardware tree's, and is reported as it is
    p2p = skeleton_results(skeleton, machine, layouts, None, ppn, point_to_point=True)
    try:
        hardware = skeleton_results(skeleton, machine, layouts, HARDWARE_ALGORITHM, ppn)
    except InputError as error:
        raise InputError(f"--algorithm all runs every collective phase on "
                         f"{HARDWARE_ALGORITHM}: {error}") from None
    return [(HARDWARE_ALGORITHM, hardware), (point_to_point_label(skeleton), p2p)]


def skeleton_rows(results, scaling: str, algorithm: str | None = None
                  ) -> tuple[list[dict], list[dict]]:
    """(phase rows, total rows): one row per (node count, phase) with its time and share of
    the total (0 to 1), one per node count with the total, GFLOP/s and parallel efficiency
    relative to the first node count (strong: T1 n1 / (T n); weak: T1 / T); each row names
    the collective ``algorithm`` the run was given (None: each phase's own)."""
    phases, totals = [], []
    first = results[0]
    for r in results:
        for p in r.phases:
            phases.append({"nodes": r.nodes, "layout": r.layout, "algorithm": algorithm,
                           "phase": p.name, "time_s": p.time_s,
                           "share": p.time_s / r.total_s if r.total_s > 0 else 0.0})
        scale = 1 if scaling == "weak" else first.nodes / r.nodes
        efficiency = first.total_s / r.total_s * scale if r.total_s > 0 else None
        totals.append({"nodes": r.nodes, "layout": r.layout, "algorithm": algorithm,
                       "ranks": r.ranks, "total_s": r.total_s, "gflops": r.gflops,
                       "efficiency": efficiency, "hw_gain": None})
    return phases, totals


def _share(value) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _phase_columns(phase_rows, total_rows, names, with_layout: bool):
    """A column per phase (its time and share): (rows, columns)."""
    by_nodes = {}
    for row in phase_rows:
        by_nodes.setdefault(row["nodes"], {})[row["phase"]] = row
    rows = []
    for total in total_rows:
        row = {"nodes": total["nodes"], "layout": total["layout"],
               "total_s": total["total_s"], "gflops": total["gflops"],
               "efficiency": total["efficiency"], "total_range": _range(total, "total_s")}
        for i, name in enumerate(names):
            cell = by_nodes[total["nodes"]][name]
            row[f"p{i}"] = f"{_time(cell['time_s'])} {_share(cell['share'])}"
        rows.append(row)
    columns = [Column("nodes", "nodes", number(), keep=True)]
    if with_layout:
        columns.append(Column("layout", "layout", keep=True))
    columns += [Column(f"p{i}", name) for i, name in enumerate(names)]
    columns += [Column("total_s", "total", _time)]
    if "total_s_low" in total_rows[0]:
        columns.append(Column("total_range", "5-95 %", with_previous=True))
    columns += [Column("gflops", "GFLOP/s", number(4)),
                Column("efficiency", "efficiency", number(3))]
    return rows, columns


def _range(row: dict, key: str) -> str:
    """"low–high" of ``key`` (times) when the row has its range, else ""."""
    if f"{key}_low" not in row:
        return ""
    from icnperf.reports.text.ranges import cell_text

    return cell_text(row, key, _time)


def _phase_rows(phase_rows, total_rows):
    """A row per phase and one total row per node count: (rows, columns)."""
    rows = []
    for total in total_rows:
        first = True
        for row in phase_rows:
            if row["nodes"] != total["nodes"]:
                continue
            rows.append({**row, "nodes": row["nodes"] if first else None,
                         "layout": row["layout"] if first else "",
                         "shown": _share(row["share"]), "range": _range(row, "time_s")})
            first = False
        rows.append({"phase": "total", "time_s": total["total_s"], "shown": "",
                     "gflops": total["gflops"], "efficiency": total["efficiency"],
                     "layout": "", "range": _range(total, "total_s")})
    ranged = "total_s_low" in total_rows[0]
    columns = (Column("nodes", "nodes", lambda v: "" if v is None else f"{v:,}"),
               Column("layout", "layout"), Column("phase", "phase", overflow="wrap"),
               Column("time_s", "time", _time),
               *((Column("range", "5-95 %", with_previous=True),) if ranged else ()),
               Column("shown", "share"),
               Column("gflops", "GFLOP/s", lambda v: "" if v is None else number(4)(v)),
               Column("efficiency", "efficiency",
                      lambda v: "" if v is None else number(3)(v)))
    return rows, columns


def phase_table(page, phase_rows, total_rows, names) -> None:
    """The table on ``page``: a column per phase (its time and share) when that fits the
    page (with the layout if it fits too; always at full width), else one row per phase."""
    if page.width is not None:
        for with_layout in (True, False):
            rows, columns = _phase_columns(phase_rows, total_rows, names, with_layout)
            if table_width(column_cells(rows, columns)) <= page.width:
                page.table(rows, columns)
                return
        page.table(*_phase_rows(phase_rows, total_rows))
        return
    page.table(*_phase_columns(phase_rows, total_rows, names, True))


def _comparison_rows(runs) -> list[dict]:
    """Per node count the total with each algorithm and p2p / hw-tree; sets ``hw_gain`` on
    the total rows of both runs."""
    (_, hw_totals), (_, p2p_totals) = runs
    rows = []
    for hw, p2p in zip(hw_totals, p2p_totals):
        gain = p2p["total_s"] / hw["total_s"] if hw["total_s"] > 0 else None
        hw["hw_gain"] = p2p["hw_gain"] = gain
        rows.append({"nodes": hw["nodes"], "layout": hw["layout"], "hw": hw["total_s"],
                     "p2p": p2p["total_s"], "hw_gain": gain})
    return rows


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
    return [*_skeleton_text(skeleton), *_run_notes(results), _efficiency_rule(skeleton)]


def _skeleton_text(skeleton) -> list[str]:
    return [f"{skeleton.name}: {skeleton.description}" if skeleton.description
            else skeleton.name, *skeleton.notes]


def _efficiency_rule(skeleton) -> str:
    rule = ("weak scaling: T1 / T" if skeleton.scaling == "weak"
            else "strong scaling: T1 n1 / (T n)")
    return (f"efficiency relative to the first node count ({rule}); share = phase time / "
            "total; each phase waits for its slowest rank")


def _run_notes(results) -> list[str]:
    notes = list(results[0].notes)
    shown = [results[0]] if len(results) == 1 else [results[0], results[-1]]
    for r in shown:
        for p in r.phases:
            for term in p.terms:
                notes.append(f"{p.name} at {r.nodes:,} nodes: {_term_note(term)}")
            if p.node_type is not None and p.compute_s > 0:
                notes.append(f"{p.name} at {r.nodes:,} nodes: compute paced by node type "
                             f"{p.node_type}, the slowest")
    return notes


def app_text(app: str, machine_name: str, overrides: tuple[str, ...], nodes: str | None,
             shape: str | None, algorithm: str | None, given: dict, fmt: str,
             params: tuple[str, ...] = (), wide: bool = False,
             placement: str = "linear", buffers: str = "host", sampling=None) -> str:
    """The rendered ``predict app`` output: a skeleton (bundled name or file) per node
    count, or NPB IS's placements (its Python model); ``algorithm`` ``all`` sets the
    hardware tree and the point-to-point algorithms side by side; ``wide`` the full
    layout; ``placement`` puts the nodes on the endpoints (collectives.Layout.placed:
    linear, spread over leaf switches or groups, random). ``sampling``: each phase's and
    total's 5-95 % range over draws of the inputs (:data:`APP_RANGED`)."""
    from icnperf.data.limits import skeleton_within_limits
    from icnperf.data.machine import load_machine, with_buffers
    from icnperf.reports.text.predict import layouts_for

    base = load_machine(machine_name).with_overrides(list(overrides))
    machine = with_buffers(base, buffers)
    if app == "npb-is":
        if sampling is not None:
            raise InputError("--uncertainty takes skeletons; npb-is ranks placements with"
                             " its Python model")
        used = {k: v for k, v in given.items() if v is not None}
        stray = sorted(set(used) - NPB_IS_OPTIONS)
        if stray or params or algorithm is not None or placement != "linear":
            names = ", ".join([_flag(s) for s in stray] + (["--param"] if params else [])
                              + (["--algorithm"] if algorithm is not None else [])
                              + (["--placement"] if placement != "linear" else []))
            raise InputError(f"{names} does not apply to npb-is (its Python model takes "
                             "--class and --ppn)")
        return placement_text(machine, used.get("klass", "C"), None, fmt, nodes=nodes,
                              ppn=used.get("processes_per_node"), wide=wide)
    if given.get("klass") is not None:
        raise InputError(f"--class does not apply to {printable(app)} (npb-is only)")
    skeleton, ppn = resolve_skeleton(app, {**{k: v for k, v in given.items() if k != "klass"},
                                           "buffers": buffers}, params, machine)
    if nodes is not None and shape is None:  # the node counts alone, before any layout
        from icnperf.units import parse_range

        skeleton_within_limits(skeleton, machine, [int(n) for n in parse_range(nodes, "count")],
                               ppn, algorithm, fmt)
    layouts = [layout.placed(layout.processes_per_node, placement)
               for layout in layouts_for(machine.topology, nodes, shape,
                                         machine.get("system.nodes"))]
    skeleton_within_limits(skeleton, machine, [lay.endpoints for lay in layouts], ppn,
                           algorithm, fmt, placement=placement,
                           draws=0 if sampling is None else sampling.samples)

    def runs_on(drawn):
        if algorithm == ALL:
            return compared_results(skeleton, drawn, layouts, ppn)
        return [(algorithm, skeleton_results(skeleton, drawn, layouts, algorithm, ppn))]

    runs = runs_on(machine)
    tables = [(label, *skeleton_rows(results, skeleton.scaling, label))
              for label, results in runs]
    if sampling is not None:
        tables = _with_ranges(tables, base, buffers, runs_on, skeleton, sampling)
    comparison = _comparison_rows([(label, totals) for label, _, totals in tables]) \
        if algorithm == ALL else []
    notes = list(dict.fromkeys([*_skeleton_text(skeleton),
                                *(n for _, results in runs for n in _run_notes(results)),
                                _efficiency_rule(skeleton)]))
    if algorithm == ALL:
        notes.append(f"p2p / hw-tree: the total with every collective phase on its "
                     f"point-to-point algorithm ({runs[1][0]}) over the total on the "
                     "hardware tree, as in the Angara papers' Figs. 9 and 10")
    phase_rows = [row for _, rows, _ in tables for row in rows]
    total_rows = [row for _, _, totals in tables for row in totals]
    first = runs[0][1][0]
    if fmt == "json":
        return json_text({"inputs": {"app": app, "skeleton": skeleton.name,
                                     "machine": machine.name, "nodes": nodes, "shape": shape,
                                     "algorithm": algorithm, "placement": placement,
                                     "buffers": buffers,
                                     "compute": given.get("compute") or "cpu",
                                     "processes_per_node": first.ppn,
                                     "parameters": first.parameters,
                                     **({} if sampling is None else
                                        {"uncertainty": sampling.as_dict(base)})},
                          "notes": notes, "rows": phase_rows, "totals": total_rows})
    if fmt == "csv":
        rows = []
        for _, own, totals in tables:
            for total in totals:
                rows += [row for row in own if row["nodes"] == total["nodes"]]
                rows.append({**total, "phase": "total", "time_s": total["total_s"],
                             "share": 1.0})
        return csv_text(rows, ["nodes", "layout", "algorithm", "phase", "time_s", "share",
                               "gflops", "efficiency", "hw_gain"])
    placed = ("" if placement == "linear" else f", {placement} placement") + (
        ", GPU buffers" if buffers == "gpu" else "")
    return _app_page(skeleton, f"{machine.name}{placed}", first.ppn, runs, tables,
                     comparison, notes, wide, sampling)


APP_RANGED = ("time_s", "share", "total_s", "gflops", "efficiency")
"""The predicted quantities of ``predict app`` that ``--uncertainty`` ranges (per phase:
time and share; per node count: total, GFLOP/s, efficiency)."""


def _with_ranges(tables, base, buffers, runs_on, skeleton, sampling):
    """``tables`` with each phase row's and total row's ``<field>_low``/``_high`` over the
    draws of ``base`` (buffers applied to each draw)."""
    from icnperf.data.machine import with_buffers
    from icnperf.data.machine.sampling import row_ranges

    def rows_of(drawn):
        out = []
        for label, results in runs_on(with_buffers(drawn, buffers)):
            phases, totals = skeleton_rows(results, skeleton.scaling, label)
            out += phases + totals
        return out

    spans = iter(row_ranges(base, rows_of, APP_RANGED, sampling))
    ranged = []
    for label, phases, totals in tables:
        phases = [{**row, **_present(row, next(spans))} for row in phases]
        totals = [{**row, **_present(row, next(spans))} for row in totals]
        ranged.append((label, phases, totals))
    return ranged


def _present(row: dict, span: dict) -> dict:
    """The range fields of the quantities ``row`` has."""
    return {key: value for key, value in span.items()
            if key.rsplit("_", 1)[0] in row}


def _app_page(skeleton, machine_name, ppn, runs, tables, comparison, notes, wide,
              sampling=None) -> str:
    page = Page(wide)
    what = "time per run of each phase and its share of the total"
    if comparison:
        what += (", with every collective phase on the hardware tree, then on its "
                 "point-to-point algorithm")
    page.line(f"{skeleton.name} on {machine_name}, {ppn} process(es) per node; {what}",
              hang="  ")
    names = [p.name for p in runs[0][1][0].phases]
    for label, phase_rows, total_rows in tables:
        page.blank()
        if comparison:
            side = ("every collective phase on the hardware tree (hw-tree)"
                    if label == runs[0][0] else
                    f"every collective phase on its point-to-point algorithm ({label})")
            page.line(f"{side}:")
        phase_table(page, phase_rows, total_rows, names)
    if comparison:
        page.blank()
        page.line("total time per run:")
        page.table(comparison, (
            Column("nodes", "nodes", number(), keep=True), Column("layout", "layout"),
            Column("hw", runs[0][0], _time), Column("p2p", runs[1][0], _time),
            Column("hw_gain", "p2p / hw-tree", number(3))))
    if sampling is not None:
        from icnperf.reports.text.ranges import sampling_line

        page.blank()
        page.line(sampling_line(sampling))
    page.blank()
    page.notes("notes", notes)
    return page.text()


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
    page = Page(wide)
    page.line(f"NPB IS class {klass} on {machine.name}, fastest first")
    page.blank()
    page.table(rows, columns)
    page.blank()
    page.notes("notes", [note])
    return page.text()
