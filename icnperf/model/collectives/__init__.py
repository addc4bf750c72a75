"""Collective operations: the hardware collective tree against point-to-point algorithms.

Closed-form times of broadcast, reduce, all-reduce, all-gather, all-to-all and barrier on P
endpoints, for

* ``hw-tree``: collectives combined in the network (``network.collective_hardware``): the
  Angara router's collective subnetwork (Mukosey 2015 §1-2): a spanning tree laid on the torus
  from a root in dimension order X, Y, Z, W, over two extra virtual channels (VCUp to the
  root, VCDown to the leaves); routers replicate broadcast packets and combine reduce
  packets, so injection and ejection are paid once; the same tree in Blue Gene/Q's torus
  routers without Angara's credit rules; or SHARP aggregation in a fat tree's switches
  (:func:`switch_aggregation`);
* ``p2p-tree``: point-to-point messages over the same tree (every level receives the whole
  message, then re-sends it to each child in turn);
* ``binomial``, ``recursive-doubling``, ``ring``, ``rabenseifner``, ``bruck``: the MPICH
  algorithms of Thakur, Rabenseifner & Gropp, "Optimization of Collective Communication
  Operations in MPICH", IJHPCA 19(1), 2005 (cited below as Thakur et al.), with every step's
  messages mapped onto the topology: a torus (dimension-order routing), a fat tree / Clos
  (nearest-common-ancestor routing) or a dragonfly / megafly (minimal routing); the two
  tree algorithms need a torus.

Every formula is written once with :mod:`icnperf.model.ops`, so it evaluates on numbers,
NumPy arrays (the message size m broadcasts) and SymPy symbols (every machine parameter and
m may be a symbol; the topology - radices, hop counts, loads - is numeric). Nothing here
prints. Times are seconds, sizes bytes. The point-to-point closed forms are reused from
:mod:`icnperf.model.network` (``latency``, ``hardware_latency``, ``serialization_time``,
``streaming_interval``, ``packets``), and tree depths, hop counts and channel loads come
from :mod:`icnperf.model.topology.torus` (``spanning_tree_depth``, ``spanning_tree_ties``,
``dor_traffic``).

Conventions (each repeated in the result's ``assumptions``):

* **m** is the operation's data in bytes at each rank: the message of a broadcast, the
  vector reduced by a reduce / all-reduce, the **whole** gathered vector of an all-gather
  (each rank contributes m / P), and everything one rank sends in an all-to-all (m / P to
  each rank, itself included), as in Thakur et al.'s n. A barrier carries no data (m is
  ignored; every message is one header-only packet).
* **Time** of a collective: from the first software call until the last rank has the
  result, empty network otherwise (no background traffic), all ranks starting together.
* **Ranks**: by default one process per node, rank r on endpoint r of the topology,
  endpoints numbered with dimension 0 fastest on a torus (linear placement;
  ``torus.endpoint_coordinates``). ``processes_per_node`` puts ranks r..r+ppn-1 on one node
  (their messages are intra-node copies, :func:`intra_node_time`, and a node's inter-node
  messages share its adapter), or with ``hierarchy="node"`` runs node-local phases through
  shared memory around the algorithm among one leader per node (``hierarchy``);
  ``placement="random"`` puts the nodes on a seeded random permutation of the endpoints
  (:meth:`Layout.rank_endpoints`).
* **Software overhead** O (``software.<api>_overhead``, send + receive) is paid once per
  message on the critical path; the hardware tree is one call, so it pays O once.

The package is split by job; everything is re-exported here, so callers import from
``icnperf.model.collectives`` as before:

* ``registry``: operation and algorithm names, aliases, :class:`Entry`, :data:`TABLE`,
  :func:`defined`, :func:`operation_name`;
* ``parameters``: :func:`collective_parameters`, :func:`symbolic_collective_parameters`
  and the keyword helpers;
* ``hardware``: the hardware collectives' formulas (:data:`HARDWARE`), :func:`credit_delay`
  and :func:`switch_aggregation`;
* ``p2p_tree``: the point-to-point tree formulas and :func:`send_gap`;
* ``layout``: :class:`Layout`, rank placement and the mapping of messages onto the network;
* ``hierarchy``: the node-local phases of hierarchical collectives (HIERARCHIES);
* ``schedules``: the textbook algorithms' rounds, :class:`Step`, :func:`schedule`,
  :func:`schedule_time`, :func:`intra_node_time`;
* ``library_rules``: ``--algorithm auto``, the MPI libraries' default choices
  (:data:`RULE_SETS`, :func:`choose`, :func:`rule_set_for`, :func:`machine_choice`);
* ``notes``: the assumption strings (:func:`assumptions`);
* ``api``: :func:`evaluate`, :func:`collective_time`, :func:`compare`,
  :class:`CollectiveResult`.
"""

from __future__ import annotations

from icnperf.model.collectives.api import (
    CollectiveResult,
    collective_time,
    compare,
    evaluate,
    left_out,
    machine_layout,
)
from icnperf.model.collectives.api import (
    _sizes as _sizes,
)
from icnperf.model.collectives.hardware import (
    CREDIT_PACKETS,
    HARDWARE,
    REDUCE_WINDOW,
    SWITCH_OPERATIONS,
    credit_delay,
    hw_allgather,
    hw_allreduce,
    hw_barrier,
    hw_broadcast,
    hw_reduce,
    switch_aggregation,
)
from icnperf.model.collectives.hierarchy import HIERARCHIES
from icnperf.model.collectives.layout import (
    _NETWORK_FAMILIES as _NETWORK_FAMILIES,
)
from icnperf.model.collectives.layout import (
    MAX_RANKS as MAX_RANKS,
)
from icnperf.model.collectives.layout import (
    PLACEMENTS,
    Layout,
)
from icnperf.model.collectives.library_rules import (
    RULE_SETS,
    choose,
    machine_choice,
    rule_set_for,
)
from icnperf.model.collectives.notes import (
    _COMMON as _COMMON,
)
from icnperf.model.collectives.notes import (
    _HW_NOTES as _HW_NOTES,
)
from icnperf.model.collectives.notes import (
    _LINEAR_PLACEMENT as _LINEAR_PLACEMENT,
)
from icnperf.model.collectives.notes import (
    _P2P_TREE_NOTES as _P2P_TREE_NOTES,
)
from icnperf.model.collectives.notes import (
    _SHARED_HOST_NOTES as _SHARED_HOST_NOTES,
)
from icnperf.model.collectives.notes import (
    _STEP_NOTES as _STEP_NOTES,
)
from icnperf.model.collectives.notes import (
    _placement_note as _placement_note,
)
from icnperf.model.collectives.notes import (
    _topology_note as _topology_note,
)
from icnperf.model.collectives.notes import (
    assumptions as assumptions,
)
from icnperf.model.collectives.p2p_tree import (
    p2p_tree_allreduce,
    p2p_tree_barrier,
    p2p_tree_broadcast,
    p2p_tree_reduce,
    send_gap,
)
from icnperf.model.collectives.parameters import (
    _NETWORK_KEYS as _NETWORK_KEYS,
)
from icnperf.model.collectives.parameters import (
    _PACKET_KEYS as _PACKET_KEYS,
)
from icnperf.model.collectives.parameters import (
    _SERIAL_KEYS as _SERIAL_KEYS,
)
from icnperf.model.collectives.parameters import (
    _bind as _bind,
)
from icnperf.model.collectives.parameters import (
    _pick as _pick,
)
from icnperf.model.collectives.parameters import (
    collective_hardware,
    collective_parameters,
    symbolic_collective_parameters,
)
from icnperf.model.collectives.registry import (
    _ALIASES as _ALIASES,
)
from icnperf.model.collectives.registry import (
    _POW2_FOLD as _POW2_FOLD,
)
from icnperf.model.collectives.registry import (
    ALGORITHMS,
    ALL_ALGORITHMS,
    LIBRARY_ALGORITHMS,
    OPERATIONS,
    TABLE,
    Entry,
    defined,
    operation_name,
)
from icnperf.model.collectives.registry import (
    _check as _check,
)
from icnperf.model.collectives.schedules import (
    _TRAFFIC as _TRAFFIC,
)
from icnperf.model.collectives.schedules import (
    Step,
    intra_node_time,
    schedule,
    schedule_time,
)
from icnperf.model.collectives.schedules import (
    _binomial_bcast as _binomial_bcast,
)
from icnperf.model.collectives.schedules import (
    _binomial_reduce as _binomial_reduce,
)
from icnperf.model.collectives.schedules import (
    _binomial_scatter as _binomial_scatter,
)
from icnperf.model.collectives.schedules import (
    _bruck_allgather as _bruck_allgather,
)
from icnperf.model.collectives.schedules import (
    _exchange as _exchange,
)
from icnperf.model.collectives.schedules import (
    _fold as _fold,
)
from icnperf.model.collectives.schedules import (
    _log2_ceil as _log2_ceil,
)
from icnperf.model.collectives.schedules import (
    _pow2_floor as _pow2_floor,
)
from icnperf.model.collectives.schedules import (
    _rabenseifner as _rabenseifner,
)
from icnperf.model.collectives.schedules import (
    _recursive_doubling_allreduce as _recursive_doubling_allreduce,
)
from icnperf.model.collectives.schedules import (
    _ring as _ring,
)
from icnperf.model.collectives.schedules import (
    _Rounds as _Rounds,
)
from icnperf.model.collectives.schedules import (
    _rounds as _rounds,
)
from icnperf.model.collectives.schedules import (
    _traffic as _traffic,
)

__all__ = [
    "ALGORITHMS",
    "ALL_ALGORITHMS",
    "LIBRARY_ALGORITHMS",
    "CREDIT_PACKETS",
    "HARDWARE",
    "HIERARCHIES",
    "SWITCH_OPERATIONS",
    "OPERATIONS",
    "PLACEMENTS",
    "REDUCE_WINDOW",
    "RULE_SETS",
    "TABLE",
    "CollectiveResult",
    "Entry",
    "Layout",
    "Step",
    "collective_hardware",
    "collective_parameters",
    "collective_time",
    "choose",
    "machine_choice",
    "compare",
    "credit_delay",
    "defined",
    "evaluate",
    "hw_allgather",
    "hw_allreduce",
    "hw_barrier",
    "hw_broadcast",
    "hw_reduce",
    "intra_node_time",
    "left_out",
    "machine_layout",
    "operation_name",
    "p2p_tree_allreduce",
    "p2p_tree_barrier",
    "p2p_tree_broadcast",
    "p2p_tree_reduce",
    "rule_set_for",
    "schedule",
    "schedule_time",
    "send_gap",
    "switch_aggregation",
    "symbolic_collective_parameters",
]
