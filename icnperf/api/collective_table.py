"""The rows of ``predict collective`` (:func:`collective_rows`): one per layout, size and
algorithm, timed by model/collectives, with the hierarchy the MPI libraries run by default
(:func:`hierarchy_for`), the algorithm ``--algorithm auto`` picks (:func:`auto_choices`) and
the algorithms ``--algorithm all`` leaves out (:func:`absent_notes`)."""

from __future__ import annotations

from icnperf.errors import InputError


NODE_AWARE_OPERATIONS = ("broadcast", "reduce", "allreduce", "barrier")
"""The operations MPICH's SMP-aware collectives run hierarchically by default; its and Open
MPI's default all-gathers and all-to-alls run over every rank (collectives.hierarchy)."""


def hierarchy_for(hierarchy: str | None, processes_per_node: int,
                  operation: str = "allreduce") -> str:
    """The hierarchy of ``predict collective``: as given, else ``node`` with more than one
    process per node for the operations MPI libraries run hierarchically by default
    (:data:`NODE_AWARE_OPERATIONS`), ``flat`` otherwise and with one process per node (the
    two are then the same)."""
    if hierarchy is not None:
        return hierarchy
    return "node" if processes_per_node > 1 and operation in NODE_AWARE_OPERATIONS \
        else "flat"


def auto_choices(machine, operation: str, layout, sizes, processes_per_node: int,
                 element_size: float) -> tuple[list[tuple[str, str]], str]:
    """What ``--algorithm auto`` runs on ``layout`` per size: [(algorithm, reason)] from the
    machine's MPI library rules (collectives.library_rules) for ``layout.endpoints`` x
    ``processes_per_node`` ranks (pass 1 for the node leaders of a hierarchical collective)
    and the rule set's note; a one-line InputError when the machine names no library or one
    without rules."""
    from icnperf.model.collectives import machine_choice

    ranks = layout.endpoints * processes_per_node
    picks = [machine_choice(machine, operation, float(m), ranks, element_size) for m in sizes]
    return [(algorithm, reason) for algorithm, reason, _ in picks], picks[0][2]


def _auto_rows(machine, operation, layout, sizes, api, processes_per_node, placement,
               mode, element_size, results, best, tree):
    """``--algorithm auto``'s rows: per size (bytes), the MPI library's pick (reused from
    ``results`` where that algorithm was already timed, seconds) labelled 'auto: NAME' with
    the rule that chose it; under node leaders the pick is among the leaders, whose
    all-to-all carries their node's blocks. Returns (rows, each pick's assumptions)."""
    from icnperf.model.collectives import collective_time

    leaders = mode == "node" and processes_per_node > 1
    # the leaders' all-to-all carries every block of their node's ranks (hierarchy.py)
    scale = processes_per_node if leaders and operation == "alltoall" else 1
    choices, why = auto_choices(machine, operation, layout, [m * scale for m in sizes],
                                1 if leaders else processes_per_node, element_size)
    rows, assumptions = [], {}
    for i, (chosen, reason) in enumerate(choices):
        result = results.get(chosen)
        if result is None:
            try:
                result = collective_time(machine, operation, chosen, sizes, layout=layout,
                                         api=api, processes_per_node=processes_per_node,
                                         placement=placement, hierarchy=mode,
                                         element_size=element_size)
            except InputError as error:
                raise InputError(f"auto picks {chosen} ({reason}); {error}") from None
        assumptions.setdefault(chosen, result.assumptions)
        if leaders and layout.endpoints == 1:
            name, reason = "auto: node-local only", "one node: shared memory, no leaders' step"
        else:
            name = f"auto: {chosen}"
            reason += " (among the node leaders)" if leaders else ""
        rows.append({**_row(result, i, layout, name, best, tree), "rule": reason,
                     "rule_set": why})
    return rows, assumptions


def _row(result, i: int, layout, name: str, best, tree) -> dict:
    """One table row: size i of ``result`` on ``layout`` under the algorithm name shown."""
    return {"nodes": result.endpoints, "shape": layout.text,
            "bytes": float(result.bytes[i]), "algorithm": name,
            "time_s": float(result.time[i]),
            "best_p2p_s": None if best is None else float(best[i]),
            "ratio_to_best_p2p": None if best is None else float(best[i] / result.time[i]),
            "ratio_to_p2p_tree": None if tree is None else float(tree[i] / result.time[i]),
            "hierarchy": result.hierarchy,
            "node_local_s": None if result.node_time is None
            else float(result.node_time[i]),
            "inter_node_s": None if result.network_time is None
            else float(result.network_time[i])}


def collective_rows(machine, operation: str, algorithm: str, layouts, sizes, api: str,
                    processes_per_node: int = 1, placement: str = "linear",
                    hierarchy: str | None = None, element_size: float = 8.0):
    """One row per (layout, size, algorithm): time, and the hardware tree's speedup over the
    best point-to-point algorithm of the same layout and size. ``processes_per_node``,
    ``placement`` and ``hierarchy`` (:func:`hierarchy_for`) go to collectives.compare (with
    ppn > 1 the trees need hierarchy node). With hierarchy node a row also gives the
    node-local and the inter-node time. ``algorithm`` ``auto``: one row per (layout, size),
    the algorithm the machine's MPI library picks (:func:`auto_choices`; among the node
    leaders with hierarchy node) with its rule; ``element_size`` (bytes) counts the elements
    its rules and Rabenseifner's split take."""
    import numpy as np

    from icnperf.model.collectives import ALGORITHMS as TEXTBOOK
    from icnperf.model.collectives import ALL_ALGORITHMS as ALGORITHMS, compare, left_out

    if algorithm not in ("all", "auto") and algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; choose all, auto or one of"
                         f" {', '.join(ALGORITHMS)}")
    if algorithm == "auto":
        # the one-line error for a machine without a library comes before any timing
        auto_choices(machine, operation, layouts[0], sizes[:1], processes_per_node,
                     element_size)
    chosen = None if algorithm in ("all", "auto") else [algorithm]
    mode = hierarchy_for(hierarchy, processes_per_node, operation)
    if algorithm in ("hw-tree", "p2p-tree") and processes_per_node != 1 and mode == "flat":
        raise InputError(f"{algorithm} is modelled with one process per node; use"
                         " --hierarchy node, drop --ppn or choose a point-to-point algorithm")
    rows, assumptions = [], {}
    for layout in layouts:
        results = compare(machine, operation, sizes, layout=layout, api=api,
                          processes_per_node=processes_per_node, placement=placement,
                          hierarchy=mode, element_size=element_size)
        if chosen is not None and algorithm not in results:
            why = left_out(machine, operation, layout, processes_per_node=processes_per_node,
                           placement=placement, hierarchy=mode).get(algorithm)
            raise InputError(f"algorithm {algorithm} "
                             + ("does not define" if why is None else "is left out of")
                             + f" {operation} on {layout.text}"
                             + ("" if why is None else f": {why}")
                             + f" (available: {', '.join(results)})")
        # the best textbook algorithm (the MPI libraries' own are listed, not compared)
        p2p = [r.time for a, r in results.items() if a != "hw-tree" and a in TEXTBOOK]
        best = None if not p2p else np.minimum.reduce(p2p)
        tree = results["p2p-tree"].time if "p2p-tree" in results else None
        if algorithm == "auto":
            more, notes = _auto_rows(machine, operation, layout, sizes, api,
                                     processes_per_node, placement, mode, element_size,
                                     results, best, tree)
            rows += more
            for name, lines in notes.items():
                assumptions.setdefault(name, lines)
            continue
        for name in chosen or [a for a in ALGORITHMS if a in results]:
            result = results[name]
            assumptions.setdefault(name, result.assumptions)
            rows += [_row(result, i, layout, name, best, tree)
                     for i in range(len(result.bytes))]
    return rows, assumptions


def absent_notes(machine, operation: str, layouts, processes_per_node: int, placement: str,
                 hierarchy: str) -> list[str]:
    """``--algorithm all``: one line per algorithm of the operation left out of the table,
    with why (collectives.left_out), naming the node counts when it is absent on some
    layouts only."""
    from icnperf.model.collectives import left_out

    by_reason: dict[tuple[str, str], list[int]] = {}
    for layout in layouts:
        for name, why in left_out(machine, operation, layout,
                                  processes_per_node=processes_per_node, placement=placement,
                                  hierarchy=hierarchy).items():
            by_reason.setdefault((name, why), []).append(layout.endpoints)
    every = len(layouts)
    return [f"{name}: {why}" + ("" if len(nodes) == every else
                                f" (at {', '.join(f'{n:,}' for n in nodes)} nodes)")
            for (name, why), nodes in by_reason.items()]


COLLECTIVE_RANGED = ("time_s", "best_p2p_s", "ratio_to_best_p2p", "ratio_to_p2p_tree",
                     "node_local_s", "inter_node_s")
"""The predicted quantities of ``predict collective`` that ``--uncertainty`` ranges."""
