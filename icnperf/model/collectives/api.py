"""The entry points: :func:`evaluate` (one algorithm's formula on a layout, numeric or
symbolic), :func:`collective_time` and :func:`compare` (on a machine, over message sizes)
and the :class:`CollectiveResult` they return."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model import ops
from icnperf.model.collectives import fluid, structured
from icnperf.model.collectives import hierarchy as node_hierarchy
from icnperf.model.collectives.hardware import (
    HARDWARE_NOTES,
    SWITCH_OPERATIONS,
    hw_allgather,
    hw_allreduce,
    hw_barrier,
    hw_broadcast,
    hw_reduce,
    switch_aggregation,
)
from icnperf.model.collectives.layout import Layout
from icnperf.model.collectives.notes import _HW_NOTES, _placement_note, assumptions
from icnperf.model.collectives.p2p_tree import (
    p2p_tree_allreduce,
    p2p_tree_barrier,
    p2p_tree_broadcast,
    p2p_tree_reduce,
)
from icnperf.model.collectives.parameters import (
    ELEMENT_SIZE,
    _bind,
    collective_hardware,
    collective_parameters,
)
from icnperf.model.collectives.registry import ALL_ALGORITHMS, TABLE, _check, operation_name
from icnperf.model.collectives.schedules import schedule, schedule_time


def machine_layout(machine, layout: Layout | None = None) -> Layout:
    """``layout`` (default: the machine's own job, ``Layout.machine_job`` of its topology
    and ``system.nodes``) with the machine's ring tie rule (``network.ring_ties``, absent:
    plus) and fat-tree routing (``network.tree_routing``, absent: random) unless the layout
    sets its own (``Layout.routed``, ``Layout.tree_routed``)."""
    if layout is None:
        layout = Layout.machine_job(machine.topology, machine.get("system.nodes"))
    if layout.ring_ties is None:
        layout = layout.routed(machine.get("network.ring_ties", "plus"))
    if layout.tree_routing is None and layout.tree is not None:
        layout = layout.tree_routed(machine.get("network.tree_routing", "random"))
    return layout


def _offered(algorithm: str, layout: Layout, operation: str) -> bool:
    """Whether ``algorithm`` is evaluated on ``layout`` (its ranks within
    ``fluid.rank_limit``), or is pairwise on a layout that counts its steps in structure
    (structured.counts_steps_in_structure), where P - 1 steps cost O(P) and need no limit."""
    return fluid.offered(algorithm, layout.ranks, operation) or (
        algorithm == "pairwise" and structured.counts_steps_in_structure(layout))


def _left_out(machine, operation: str, layout: Layout, mode: str) -> dict[str, str]:
    """The algorithms of ``operation`` that :func:`compare` leaves out on this placed layout
    and hierarchy, each with the reason (one place for compare's rule)."""
    shared = layout.processes_per_node != 1 and mode == "flat"
    evaluated = layout.placed(1, layout.placement, layout.seed) if mode == "node" else layout
    hardware = collective_hardware(machine)
    reasons = {}
    for a in ALL_ALGORITHMS:
        if (a, operation) not in TABLE:
            continue
        limit = fluid.rank_limit(a, operation)
        if a in ("hw-tree", "p2p-tree") and shared:
            reasons[a] = "modelled with one process per node (use --hierarchy node)"
        elif a == "hw-tree" and hardware is None:
            reasons[a] = ("the machine has no hardware collectives "
                          "(network.collective_trees, network.collective_hardware)")
        elif a == "hw-tree" and hardware == "switch-aggregation":
            if layout.tree is None:
                reasons[a] = f"switch aggregation needs a fat tree, not {layout.text}"
            elif operation not in SWITCH_OPERATIONS:
                reasons[a] = (f"switch aggregation combines {', '.join(SWITCH_OPERATIONS)}, "
                              f"not {operation}")
        elif a in ("hw-tree", "p2p-tree") and not layout.is_torus:
            reasons[a] = f"its tree is modelled on tori, not {layout.text}"
        if a in reasons:
            continue
        if not _offered(a, evaluated, operation):
            reasons[a] = f"beyond its {limit:,}-rank limit" + (
                " (its steps are mapped message by message here; they are counted in "
                "structure on a whole torus, crossbar, gdragonfly or dfplus, on part of a "
                "gdragonfly (P not a power of two) and on a fat tree with random up "
                "ports, nodes placed linearly)" if a == "pairwise"
                else "")
        elif a in ("linear", "reduce-bcast") and shared:
            reasons[a] = "timed as flows, which take one process per node (use --hierarchy node)"
        elif a in ("linear", "reduce-bcast") and \
                machine.get("network.switching") == "store-and-forward":
            reasons[a] = "timed as flows, which do not take store-and-forward switching"
    return reasons


def left_out(machine, operation: str, layout: Layout | None = None, *,
             processes_per_node: int = 1, placement: str = "linear", seed: int = 0,
             hierarchy: str | None = None) -> dict[str, str]:
    """Every algorithm of ``operation`` that :func:`compare` (with the same arguments and no
    ``algorithms``) leaves out, with why: no hardware collectives, a tree off a torus, an
    MPI library's algorithm past its rank limit (``fluid.rank_limit``, e.g. "beyond its
    4,096-rank limit"), a flow-timed one under ppn > 1 flat or store-and-forward switching.
    What ``--algorithm all`` names under its table."""
    operation = operation_name(operation)
    layout = machine_layout(machine, layout).placed(processes_per_node, placement, seed)
    return _left_out(machine, operation, layout, _hierarchy(hierarchy, layout))


def evaluate(operation: str, algorithm: str, m, layout: Layout, params: dict, *,
             source_hops: int = 0):
    """The time (s) of one (algorithm, operation) on a layout: m and every value of
    ``params`` (from :func:`collective_parameters` or :func:`symbolic_collective_parameters`)
    may be numbers, NumPy arrays or SymPy symbols. Raises InputError for an undefined pair,
    a tree algorithm off a torus, or hardware collectives the machine lacks."""
    algorithm, operation = _check(algorithm, operation)
    if algorithm == "hw-tree" and params.get("collective_hardware") == "switch-aggregation":
        if operation not in SWITCH_OPERATIONS:
            raise InputError(f"switch aggregation (network.collective_hardware) combines "
                             f"{', '.join(SWITCH_OPERATIONS)}, not {operation}")
        size = 0 * m if operation == "barrier" else m
        return switch_aggregation(size, layout.span_hops, **_bind(switch_aggregation, params))
    if algorithm in ("hw-tree", "p2p-tree"):
        depth = layout.depth
        if algorithm == "hw-tree":
            if "collective_trees" not in params:
                raise InputError("the machine has no hardware collectives "
                                 "(network.collective_trees is not set)")
            if operation == "broadcast":
                return hw_broadcast(m, depth, source_hops, **_bind(hw_broadcast, params))
            if operation == "reduce":
                return hw_reduce(m, depth, **_bind(hw_reduce, params))
            if operation == "allreduce":
                return hw_allreduce(m, depth, **_bind(hw_allreduce, params))
            if operation == "allgather":
                return hw_allgather(m, depth, layout.diameter, layout.endpoints,
                                    **_bind(hw_allgather, params))
            return hw_barrier(depth, **_bind(hw_barrier, params))
        ties = layout.tree_ties
        if operation == "broadcast":
            return p2p_tree_broadcast(m, depth, ties, source_hops,
                                      **_bind(p2p_tree_broadcast, params))
        if operation == "reduce":
            return p2p_tree_reduce(m, depth, ties, **_bind(p2p_tree_reduce, params))
        if operation == "allreduce":
            return p2p_tree_allreduce(m, depth, ties, **_bind(p2p_tree_allreduce, params))
        return p2p_tree_barrier(depth, ties, **_bind(p2p_tree_barrier, params))
    if not _offered(algorithm, layout, operation):
        raise InputError(f"{algorithm} {operation} is evaluated on at most "
                         f"{fluid.rank_limit(algorithm, operation)} ranks, not {layout.ranks}")
    if fluid.uses_flows(algorithm, operation, m, params, layout):
        def step_time(name, op, size):
            return float(schedule_time(size, schedule(name, op, layout),
                                       **_bind(schedule_time, params)))
        return fluid.algorithm_time(algorithm, operation, m, layout, params, step_time)
    if algorithm in ("linear", "reduce-bcast") and not fluid.uses_flows(
            algorithm, operation, m, params, layout):
        raise InputError(f"{algorithm} is timed as flows: it needs numeric parameters, "
                         "cut-through switching and one process per node")
    steps = schedule(algorithm, operation, layout)
    size = 0 * m if operation == "barrier" else m
    return schedule_time(size, steps, **_bind(schedule_time, params))


# --- results ----------------------------------------------------------------------------


class CollectiveResult(NamedTuple):
    """What :func:`collective_time` returns: times (s) with the shape of ``bytes``, the
    layout used and every assumption behind the number."""

    operation: str
    algorithm: str
    layout: str
    endpoints: int
    bytes: np.ndarray
    time: np.ndarray
    assumptions: tuple[str, ...]
    hierarchy: str = "flat"
    node_time: np.ndarray | None = None
    network_time: np.ndarray | None = None
    """With ``hierarchy`` node: the node-local phases' time (s, before and after together)
    and the inter-node collective's (s), summing to ``time``; None when flat."""


def _sizes(sizes, operation: str) -> np.ndarray:
    if operation == "barrier" and sizes is None:
        return np.zeros(1)
    try:
        m = np.asarray(sizes, dtype=float)
    except (TypeError, ValueError):
        raise InputError("message sizes must be numbers") from None
    if m.size == 0 or not np.all(np.isfinite(m)):
        raise InputError("message sizes must be finite numbers")
    if operation != "barrier" and m.min() <= 0:
        raise InputError(f"message sizes must be > 0 bytes, not {m.min():g}")
    return m


def _hierarchy(hierarchy: str | None, layout: Layout) -> str:
    """The hierarchy a call runs: ``flat`` or ``node`` as given; None is flat (the model's
    default, what every caller before hierarchies got; the CLI defaults to node with
    ppn > 1). InputError on another name."""
    if hierarchy is None:
        return "flat"
    if hierarchy not in hierarchy_names():
        raise InputError(f"unknown hierarchy {hierarchy!r}; choose one of "
                         f"{', '.join(hierarchy_names())}")
    return hierarchy


def hierarchy_names() -> tuple[str, ...]:
    """The hierarchy names (collectives.hierarchy.HIERARCHIES)."""
    return node_hierarchy.HIERARCHIES


def _node_parameters(machine, params: dict) -> dict:
    """``params`` plus the machine's node.shared_memory_latency / _bandwidth when set (the
    node-local phases' message cost, hierarchy.node_message_time)."""
    params = dict(params)
    for name in ("shared_memory_latency", "shared_memory_bandwidth"):
        value = machine.get(f"node.{name}")
        if value is not None:
            params[name] = float(value)
    return params


def collective_time(machine, operation: str, algorithm: str, sizes=None, *,
                    layout: Layout | None = None, api: str = "mpi", source_hops: int = 0,
                    combine_time: float = 0.0, processes_per_node: int = 1,
                    placement: str = "linear", seed: int = 0,
                    hierarchy: str | None = None,
                    element_size: float = ELEMENT_SIZE) -> CollectiveResult:
    """Time of a collective on a machine for message sizes ``sizes`` (bytes, > 0; ignored
    for a barrier).

    ``layout`` defaults to the machine's topology (``Layout.from_topology``: a torus, a
    fat tree / Clos or a dragonfly / megafly); pass
    ``Layout.torus(balanced_torus_shape(P, dims))`` to resize it. ``api`` picks the
    software overhead of the point-to-point messages and of the hardware collective call
    (``mpi``, ``shmem`` or ``none``). ``source_hops`` moves the source of a tree broadcast
    that many hops from the root. ``processes_per_node`` ranks share each node (ranks
    r..r+ppn-1 on one node) and ``placement`` puts the nodes on the endpoints (``linear``,
    or ``random``: a permutation seeded by ``seed``); both override the layout's own.
    ``hierarchy``: ``flat`` (default) runs ``algorithm`` over every rank (the textbook
    algorithms only when ppn > 1: the trees take one process per node); ``node`` runs the
    node-local phases through shared memory and ``algorithm`` among one leader per node
    (collectives.hierarchy; any algorithm, the trees included), the same as flat with one
    process per node. ``element_size``: bytes of one element (default 8, a double; whole
    elements split Rabenseifner's vector). Raises InputError for bad names, undefined
    pairs, sizes <= 0 and machines lacking a needed key.
    """
    algorithm, operation = _check(algorithm, operation)
    m = _sizes(sizes, operation)
    layout = machine_layout(machine, layout).placed(processes_per_node, placement, seed)
    mode = _hierarchy(hierarchy, layout)
    if layout.ranks < 2:
        raise InputError("a collective needs at least 2 ranks; with one node give --ppn 2 "
                         "or more")
    if not (isinstance(source_hops, (int, np.integer)) and 0 <= source_hops):
        raise InputError(f"source_hops must be a whole number >= 0, not {source_hops!r}")
    if source_hops and (algorithm not in ("hw-tree", "p2p-tree") or operation != "broadcast"):
        raise InputError("source_hops applies to tree broadcasts only")
    if (algorithm in ("hw-tree", "p2p-tree") and layout.processes_per_node != 1
            and mode == "flat"):
        raise InputError(f"{algorithm} is modelled with one process per node, not "
                         f"{layout.processes_per_node}; use --hierarchy node (node-local "
                         "phases, the tree among the nodes) or a point-to-point algorithm "
                         "(binomial, recursive-doubling, ring, rabenseifner, bruck)")
    if layout.is_torus and source_hops > layout.diameter:
        raise InputError(f"source_hops {source_hops} exceeds the diameter "
                         f"{layout.diameter} of {layout.text}")
    params = collective_parameters(machine, api, combine_time=combine_time,
                                   element_size=element_size)
    if mode == "node":
        return _hierarchical(machine, operation, algorithm, m, layout, params, api,
                             source_hops)
    with ops.quiet():
        time = evaluate(operation, algorithm, m, layout, params, source_hops=source_hops)
    time = np.array(np.broadcast_to(time, m.shape), dtype=float)
    return CollectiveResult(operation, algorithm, layout.text, layout.endpoints, m, time,
                            _notes(operation, algorithm, layout, params, api, source_hops))


def _notes(operation, algorithm, layout, params, api, source_hops) -> tuple[str, ...]:
    """notes.assumptions, with the hardware tree's Angara lines replaced by those of the
    machine's own collective hardware (hardware.HARDWARE_NOTES)."""
    notes = assumptions(operation, algorithm, layout, params, api, source_hops)
    hardware = params.get("collective_hardware")
    if algorithm != "hw-tree" or hardware in (None, "angara-tree"):
        return notes
    own = [n for n in notes if n not in _HW_NOTES]
    if hardware == "switch-aggregation":
        summary = f"{algorithm} {operation}: "
        own = [summary + "aggregation in the switches: O + ceil(n/W) T_hw(b, H) + "
               "(n - ceil(n/W)) T_ser(b), n = max(1, ceil(m / P_agg)) fragments, b = "
               "min(m, P_agg)" if n.startswith(summary) else n for n in own]
        own = [n.replace("; the trees span every router, so placement does not change "
                         "their time", "") for n in own]
    return tuple(own) + HARDWARE_NOTES[hardware]


def _hierarchical(machine, operation, algorithm, m, layout, params, api, source_hops):
    """collective_time with hierarchy node: node-local phases + ``algorithm`` among the
    nodes' leaders (one process per node on the same nodes) + node-local phase."""
    q, nodes = layout.processes_per_node, layout.endpoints
    leaders = layout.placed(1, layout.placement, layout.seed)
    node = _bind(node_hierarchy.node_message_time, _node_parameters(machine, params))
    size = np.zeros_like(m) if operation == "barrier" else m
    with ops.quiet():
        before, inter_m, after = node_hierarchy.phases(
            operation, size, q, nodes, combine_time=params.get("combine_time", 0), **node)
        if nodes > 1:
            network = evaluate(operation, algorithm, inter_m, leaders, params,
                               source_hops=source_hops)
        else:
            network = 0 * m
    local = np.array(np.broadcast_to(before + after, m.shape), dtype=float)
    network = np.array(np.broadcast_to(network, m.shape), dtype=float)
    notes = node_hierarchy.notes(operation, algorithm, q, nodes,
                                 _node_parameters(machine, params))
    if nodes > 1:
        placement = _placement_note(layout, algorithm)
        notes += tuple(placement if note.startswith("placement:") else note
                       for note in _notes(operation, algorithm, leaders, params, api,
                                          source_hops))
    return CollectiveResult(operation, algorithm, layout.text, nodes, m, local + network,
                            notes, "node", local, network)


def compare(machine, operation: str, sizes=None, *, layout: Layout | None = None,
            api: str = "mpi", algorithms=None, combine_time: float = 0.0,
            processes_per_node: int = 1, placement: str = "linear", seed: int = 0,
            hierarchy: str | None = None,
            element_size: float = ELEMENT_SIZE) -> dict[str, CollectiveResult]:
    """:func:`collective_time` of every algorithm that defines ``operation`` (or those
    named), by algorithm name; ``hw-tree`` is left out when the machine has no hardware
    collectives, the tree algorithms when the layout is not a torus or
    ``processes_per_node`` > 1 with ``hierarchy`` flat, and the MPI-library algorithms above
    their rank limits (fluid.rank_limit, on the nodes with hierarchy node; linear and
    reduce-bcast also with ppn > 1 flat or store-and-forward switching, which their flow
    timing does not take)."""
    operation = operation_name(operation)
    layout = machine_layout(machine, layout).placed(processes_per_node, placement, seed)
    mode = _hierarchy(hierarchy, layout)
    if algorithms is None:
        left_out = _left_out(machine, operation, layout, mode)
        algorithms = [a for a in ALL_ALGORITHMS if (a, operation) in TABLE
                      and a not in left_out]
    return {a: collective_time(machine, operation, a, sizes, layout=layout, api=api,
                               combine_time=combine_time,
                               processes_per_node=layout.processes_per_node,
                               placement=layout.placement, seed=layout.seed,
                               hierarchy=mode, element_size=element_size)
            for a in algorithms}
