"""The entry points: :func:`evaluate` (one algorithm's formula on a layout, numeric or
symbolic), :func:`collective_time` and :func:`compare` (on a machine, over message sizes)
and the :class:`CollectiveResult` they return."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model import ops
from icnperf.model.collectives import fluid
from icnperf.model.collectives.hardware import (
    hw_allgather,
    hw_allreduce,
    hw_barrier,
    hw_broadcast,
    hw_reduce,
)
from icnperf.model.collectives.layout import Layout
from icnperf.model.collectives.notes import assumptions
from icnperf.model.collectives.p2p_tree import (
    p2p_tree_allreduce,
    p2p_tree_barrier,
    p2p_tree_broadcast,
    p2p_tree_reduce,
)
from icnperf.model.collectives.parameters import ELEMENT_SIZE, _bind, collective_parameters
from icnperf.model.collectives.registry import ALL_ALGORITHMS, TABLE, _check, operation_name
from icnperf.model.collectives.schedules import schedule, schedule_time


def machine_layout(machine, layout: Layout | None = None) -> Layout:
    """``layout`` (default: the machine's topology, ``Layout.from_topology``) with the
    machine's ring tie rule (``network.ring_ties``, absent: plus) and fat-tree routing
    (``network.tree_routing``, absent: random) unless the layout sets its own
    (``Layout.routed``, ``Layout.tree_routed``)."""
    if layout is None:
        layout = Layout.from_topology(machine.topology)
    if layout.ring_ties is None:
        layout = layout.routed(machine.get("network.ring_ties", "plus"))
    if layout.tree_routing is None and layout.tree is not None:
        layout = layout.tree_routed(machine.get("network.tree_routing", "random"))
    return layout


def evaluate(operation: str, algorithm: str, m, layout: Layout, params: dict, *,
             source_hops: int = 0):
    """The time (s) of one (algorithm, operation) on a layout: m and every value of
    ``params`` (from :func:`collective_parameters` or :func:`symbolic_collective_parameters`)
    may be numbers, NumPy arrays or SymPy symbols. Raises InputError for an undefined pair,
    a tree algorithm off a torus, or hardware collectives the machine lacks."""
    algorithm, operation = _check(algorithm, operation)
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
    if fluid.uses_flows(algorithm, operation, m, params, layout):
        def step_time(name, op, size):
            return float(schedule_time(size, schedule(name, op, layout),
                                       **_bind(schedule_time, params)))
        return fluid.algorithm_time(algorithm, operation, m, layout, params, step_time)
    if not fluid.offered(algorithm, layout.ranks, operation):
        raise InputError(f"{algorithm} {operation} is evaluated on at most "
                         f"{fluid.rank_limit(algorithm, operation)} ranks, not {layout.ranks}")
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


def collective_time(machine, operation: str, algorithm: str, sizes=None, *,
                    layout: Layout | None = None, api: str = "mpi", source_hops: int = 0,
                    combine_time: float = 0.0, processes_per_node: int = 1,
                    placement: str = "linear", seed: int = 0,
                    element_size: float = ELEMENT_SIZE) -> CollectiveResult:
    """Time of a collective on a machine for message sizes ``sizes`` (bytes, > 0; ignored
    for a barrier).

    ``layout`` defaults to the machine's topology (``Layout.from_topology``: a torus, a
    fat tree / Clos or a dragonfly / megafly); pass
    ``Layout.torus(balanced_torus_shape(P, dims))`` to resize it. ``api`` picks the
    software overhead of the point-to-point messages and of the hardware collective call
    (``mpi``, ``shmem`` or ``none``). ``source_hops`` moves the source of a tree broadcast
    that many hops from the root. ``processes_per_node`` ranks share each node (ranks
    r..r+ppn-1 on one node; the textbook algorithms only, the trees take one process per
    node) and ``placement`` puts the nodes on the endpoints (``linear``, or ``random``: a
    permutation seeded by ``seed``); both override the layout's own. ``element_size``: bytes
    of one element (default 8, a double). Raises InputError for
    bad names, undefined pairs, sizes <= 0 and machines lacking a needed key.
    """
    algorithm, operation = _check(algorithm, operation)
    m = _sizes(sizes, operation)
    layout = machine_layout(machine, layout).placed(processes_per_node, placement, seed)
    if not (isinstance(source_hops, (int, np.integer)) and 0 <= source_hops):
        raise InputError(f"source_hops must be a whole number >= 0, not {source_hops!r}")
    if source_hops and (algorithm not in ("hw-tree", "p2p-tree") or operation != "broadcast"):
        raise InputError("source_hops applies to tree broadcasts only")
    if algorithm in ("hw-tree", "p2p-tree") and layout.processes_per_node != 1:
        raise InputError(f"{algorithm} is modelled with one process per node, not "
                         f"{layout.processes_per_node}; use a point-to-point algorithm "
                         "(binomial, recursive-doubling, ring, rabenseifner, bruck)")
    if layout.is_torus and source_hops > layout.diameter:
        raise InputError(f"source_hops {source_hops} exceeds the diameter "
                         f"{layout.diameter} of {layout.text}")
    params = collective_parameters(machine, api, combine_time=combine_time,
                                   element_size=element_size)
    with ops.quiet():
        time = evaluate(operation, algorithm, m, layout, params, source_hops=source_hops)
    time = np.array(np.broadcast_to(time, m.shape), dtype=float)
    return CollectiveResult(operation, algorithm, layout.text, layout.endpoints, m, time,
                            assumptions(operation, algorithm, layout, params, api,
                                        source_hops))


def compare(machine, operation: str, sizes=None, *, layout: Layout | None = None,
            api: str = "mpi", algorithms=None, combine_time: float = 0.0,
            processes_per_node: int = 1, placement: str = "linear", seed: int = 0,
            element_size: float = ELEMENT_SIZE) -> dict[str, CollectiveResult]:
    """:func:`collective_time` of every algorithm that defines ``operation`` (or those
    named), by algorithm name; ``hw-tree`` is left out when the machine has no hardware
    collectives, the tree algorithms when the layout is not a torus or
    ``processes_per_node`` > 1, and the MPI-library algorithms above their rank limits
    (fluid.rank_limit; linear and reduce-bcast also with ppn > 1 or store-and-forward
    switching, which their flow timing does not take)."""
    operation = operation_name(operation)
    layout = machine_layout(machine, layout).placed(processes_per_node, placement, seed)
    if algorithms is None:
        trees_fit = layout.is_torus and layout.processes_per_node == 1
        algorithms = [a for a in ALL_ALGORITHMS if (a, operation) in TABLE
                      and not (a == "hw-tree" and not machine.get("network.collective_trees"))
                      and not (a in ("hw-tree", "p2p-tree") and not trees_fit)
                      and fluid.offered(a, layout.ranks, operation)
                      and not (a in ("linear", "reduce-bcast")
                               and (layout.processes_per_node != 1
                                    or machine.get("network.switching") == "store-and-forward"))]
    return {a: collective_time(machine, operation, a, sizes, layout=layout, api=api,
                               combine_time=combine_time,
                               processes_per_node=layout.processes_per_node,
                               placement=layout.placement, seed=layout.seed,
                               element_size=element_size)
            for a in algorithms}
