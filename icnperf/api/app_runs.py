"""The rows and notes of ``predict app`` from the model's runs: a bundled skeleton's runs
on every layout (:func:`skeleton_results`), their phase and total rows
(:func:`skeleton_rows`), ``--algorithm all``'s ratio (:func:`set_comparison`) and the
notes (:func:`skeleton_notes_of_runs`); and the rows of the Python models of the Angara
papers' apps (:func:`app_rows`: spmv, heat, hpcg)."""

from __future__ import annotations

from icnperf.errors import InputError

P2P_ALGORITHM = {"spmv": "recursive-doubling", "heat": "p2p-tree", "hpcg": "recursive-doubling"}
"""The point-to-point collective each paper compares the hardware tree with (Mukosey 2015 §3.2:
recursive doubling for SpMV's all-gather; §3.1, §3.3: the tree walked point to point for the
heat all-reduce; Agarkov 2015: MPI all-reduce, taken as recursive doubling, for HPCG)."""


def _run(app: str, machine, layout, algorithm: str, problem: dict):
    """The Python model of ``app`` (model.apps: spmv, heat, hpcg) on one layout."""
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


def skeleton_results(skeleton, machine, layouts, algorithm: str | None, ppn: int | None,
                     point_to_point: bool = False):
    """:func:`icnperf.model.apps.timing.run` on every layout."""
    from icnperf.model.apps import timing

    return [timing.run(skeleton, machine, layout, ppn=ppn, algorithm=algorithm,
                       point_to_point=point_to_point) for layout in layouts]


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


def set_comparison(totals) -> None:
    """``--algorithm all``: set ``hw_gain`` (p2p / hw-tree, None when the hardware total is
    0) on the total rows of both runs, ``totals`` = [hardware totals, p2p totals]."""
    hw_totals, p2p_totals = totals
    for hw, p2p in zip(hw_totals, p2p_totals):
        gain = p2p["total_s"] / hw["total_s"] if hw["total_s"] > 0 else None
        hw["hw_gain"] = p2p["hw_gain"] = gain


def _term_note(term) -> str:
    """One communication term of a phase (model.apps.timing) in words."""
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


def skeleton_notes_of_runs(skeleton, runs, compared: bool) -> list[str]:
    """The notes of ``predict app``: the skeleton's, each run's communication (once), the
    efficiency rule and, ``compared`` (--algorithm all), what p2p / hw-tree means."""
    notes = list(dict.fromkeys([*_skeleton_text(skeleton),
                                *(n for _, results in runs for n in _run_notes(results)),
                                _efficiency_rule(skeleton)]))
    if compared:
        notes.append(f"p2p / hw-tree: the total with every collective phase on its "
                     f"point-to-point algorithm ({runs[1][0]}) over the total on the "
                     "hardware tree, as in the Angara papers' Figs. 9 and 10")
    return notes
