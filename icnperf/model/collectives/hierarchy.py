"""Hierarchical (node-aware) collectives for several processes per node: a node-local
phase through shared memory, one inter-node collective among the nodes' leaders, and a
node-local phase back out.

With q processes on each of N nodes (ranks r..r+q-1 on one node, its lowest rank the node's
leader), an operation runs as

==========  ===========================  =========================  =====================
operation   node-local, before           among the N leaders        node-local, after
==========  ===========================  =========================  =====================
reduce      binomial reduce of m         reduce of m                -
allreduce   binomial reduce of m         allreduce of m             binomial bcast of m
broadcast   -                            broadcast of m             binomial bcast of m
barrier     binomial fan-in, empty       barrier                    binomial fan-out, empty
allgather   binomial gather of m/P each  allgather of m (m/N each)  binomial bcast of m
alltoall    binomial gather of m each    alltoall of q·m            binomial scatter of m
==========  ===========================  =========================  =====================

m as everywhere in this package (model/collectives/__init__.py): the data per rank, the whole
gathered vector of an all-gather, everything one rank sends in an all-to-all. The
inter-node phase is any algorithm of the package on the nodes with one process per node
(``algorithm`` names it, so a rule choosing it by message size takes ranks = N); the
hardware tree among nodes is the node-local reduce, the hardware tree over the nodes, the
node-local broadcast.

This is the shape of MPICH's SMP-aware collectives (``MPIR_Allreduce_intra_smp``,
``MPIR_Reduce_intra_smp``, ``MPIR_Bcast_intra_smp``, ``MPIR_Barrier_intra_smp``: an
intra-node communicator, one node root per node on an inter-node communicator; on by
default, ``MPIR_CVAR_ENABLE_SMP_COLLECTIVES``) and of Open MPI's ``han`` component. The
all-gather follows the same leader scheme (gather to the leader, leaders' all-gather of
q·m/P blocks, node-local broadcast); the all-to-all is the leader-based (two-level)
aggregation of node-aware all-to-all schemes: every rank's m bytes go to its leader, the
leaders exchange q·m/N bytes per node pair, the leader scatters m to each rank; the
reordering of blocks at the leader is not charged. MPICH's and Open MPI's default
all-to-alls are not hierarchical: ``hierarchy="flat"`` models those.

**Node-local phases: binomial trees over the q ranks** of a node, ceil(lg q) rounds, each
round one shared-memory message on the critical path (MPICH runs the node-local reduce and
broadcast of its SMP collectives with its ordinary algorithms on the node communicator:
binomial for short messages). A flat tree would serialize q - 1 messages at the leader; the
binomial tree is the one MPICH's defaults use and costs ceil(lg q) latencies. One message
of b bytes inside a node costs

    T_node(b) = L_shm + b / B_shm       (node.shared_memory_latency, node.shared_memory_bandwidth)

(network.shared_memory_time, the MPI software inside L_shm). When a machine lacks a key the
package's older intra-node copy stands in for it: L = O (software.<api>_overhead, send +
receive) and B = B_host (network.host_bandwidth), as collectives.intra_node_time; the
result's assumptions say which. The messages of one round run on different cores at once;
their sharing of the node's memory bandwidth is not charged.

Round sizes (R = ceil(lg q) rounds, k = 0 .. R-1):

* reduce: every round m bytes, plus combining γ·m at the receiver: R·(T_node(m) + γ·m);
* broadcast: R·T_node(m); barrier: 2R·T_node(0) (fan-in, then fan-out, empty messages);
* gather / scatter of blocks of b bytes: round k moves min(2^k, q - 2^k) blocks (the
  largest subtree handed over in that round, as the binomial scatter of
  schedules._binomial_scatter): Σ_k T_node(min(2^k, q - 2^k)·b).

Units: seconds, bytes. Every formula is written with plain arithmetic on m, so m and the
machine parameters may be NumPy arrays or SymPy symbols; q and N are whole numbers.
"""

from __future__ import annotations

HIERARCHIES = ("flat", "node")
"""How ranks that share a node take part: ``flat`` runs the algorithm over all P = N·q
ranks (intra-node messages are copies inside the algorithm's steps); ``node`` runs the
node-local phases, then the algorithm among the N node leaders, then the node-local phase
back (module docstring)."""


def rounds(processes: int) -> int:
    """Rounds of a binomial tree over q processes: ceil(lg q) (0 for q = 1)."""
    return (int(processes) - 1).bit_length()


def node_message_time(b, *, host_bandwidth, software_overhead=0, shared_memory_latency=None,
                      shared_memory_bandwidth=None):
    """One b-byte message between two processes of one node (s):

        T_node(b) = L_shm + b / B_shm

    L_shm = ``shared_memory_latency``, B_shm = ``shared_memory_bandwidth`` (the machine's
    node.shared_memory_latency / _bandwidth, network.shared_memory_time); where the machine
    lacks one, the software overhead O stands in for L_shm and the host bandwidth B_host for
    B_shm (collectives.intra_node_time, the package's intra-node copy)."""
    latency = software_overhead if shared_memory_latency is None else shared_memory_latency
    bandwidth = host_bandwidth if shared_memory_bandwidth is None else shared_memory_bandwidth
    return latency + b / bandwidth


def _blocks(processes: int) -> list[int]:
    """Blocks handed over in each round of a binomial gather (scatter) over q processes:
    min(2^k, q - 2^k), k = 0 .. ceil(lg q) - 1."""
    q = int(processes)
    return [min(1 << k, q - (1 << k)) for k in range(rounds(q))]


def local_reduce_time(m, processes: int, *, combine_time=0, **node):
    """Binomial reduce of m bytes over q processes of a node to its leader (s):
    ceil(lg q)·(T_node(m) + γ·m)."""
    return rounds(processes) * (node_message_time(m, **node) + combine_time * m)


def local_broadcast_time(m, processes: int, **node):
    """Binomial broadcast of m bytes from the leader to the q processes of a node (s):
    ceil(lg q)·T_node(m)."""
    return rounds(processes) * node_message_time(m, **node)


def local_gather_time(block, processes: int, **node):
    """Binomial gather (or, run backwards, scatter) of one ``block`` of bytes per process
    between the leader and the q processes of a node (s): Σ_k T_node(min(2^k, q - 2^k)·b)."""
    total = 0 * block
    for count in _blocks(processes):
        total = total + node_message_time(count * block, **node)
    return total


def local_barrier_time(processes: int, **node):
    """Node-local fan-in and fan-out of empty messages over q processes (s):
    2·ceil(lg q)·T_node(0)."""
    return 2 * rounds(processes) * node_message_time(0, **node)


LOCAL_PHASES = {"reduce": 1, "allreduce": 2, "broadcast": 1, "barrier": 2, "allgather": 2,
                "alltoall": 2}
"""How many node-local binomial phases (before and after the leaders' step) each operation
runs (the module's table), each of ceil(lg q) rounds."""


def local_rounds(operation: str, processes: int) -> int:
    """The node-local rounds of a hierarchical ``operation`` with q = ``processes`` per node,
    before and after the leaders' step together: ceil(lg q) per node-local phase of the
    module's table (:data:`LOCAL_PHASES`: the reduce's fan-in; the all-reduce's reduce and
    broadcast; the broadcast's fan-out; the barrier's fan-in and fan-out; the all-gather's
    gather and broadcast; the all-to-all's gather and scatter)."""
    if operation not in LOCAL_PHASES:
        raise ValueError(f"no hierarchical form of {operation!r}")
    return LOCAL_PHASES[operation] * rounds(processes)


def phases(operation: str, m, processes: int, nodes: int, *, combine_time=0, **node):
    """(before, inter-node size, after) of a hierarchical ``operation`` of m bytes with q =
    ``processes`` per node on N = ``nodes`` nodes: the node-local times before and after the
    leaders' collective (s) and the m that collective takes (bytes; the module's table).
    ``node`` holds :func:`node_message_time`'s keywords."""
    q = int(processes)
    zero = 0 * m
    if operation == "reduce":
        return local_reduce_time(m, q, combine_time=combine_time, **node), m, zero
    if operation == "allreduce":
        return (local_reduce_time(m, q, combine_time=combine_time, **node), m,
                local_broadcast_time(m, q, **node))
    if operation == "broadcast":
        return zero, m, local_broadcast_time(m, q, **node)
    if operation == "barrier":
        half = rounds(q) * node_message_time(0, **node)
        return zero + half, zero, zero + half
    if operation == "allgather":
        return (local_gather_time(m / (q * nodes), q, **node), m,
                local_broadcast_time(m, q, **node))
    if operation == "alltoall":
        return local_gather_time(m, q, **node), q * m, local_gather_time(m, q, **node)
    raise ValueError(f"no hierarchical form of {operation!r}")


def notes(operation: str, algorithm: str, processes: int, nodes: int, params: dict) -> tuple:
    """The assumption strings of a hierarchical result (its inter-node phase's own notes
    follow them)."""
    q = int(processes)
    shm = ("node.shared_memory_latency" if "shared_memory_latency" in params else
           "the software overhead O (no node.shared_memory_latency)")
    bw = ("node.shared_memory_bandwidth" if "shared_memory_bandwidth" in params else
          "the host bandwidth B_host (no node.shared_memory_bandwidth)")
    inside = {"reduce": "binomial reduce to the leader",
              "allreduce": "binomial reduce to the leader, then binomial broadcast from it",
              "broadcast": "binomial broadcast from the leader",
              "barrier": "binomial fan-in to the leader, then fan-out (empty messages)",
              "allgather": "binomial gather of the ranks' m/P blocks to the leader, then "
                           "binomial broadcast of m",
              "alltoall": "binomial gather of every rank's m bytes to the leader, then "
                          "binomial scatter of m to each rank (blocks reordered at the "
                          "leader, not charged)"}[operation]
    between = {"alltoall": f"{algorithm} alltoall of q·m bytes among the {nodes} leaders",
               "allgather": f"{algorithm} allgather of m (m/N per leader) among the "
                            f"{nodes} leaders"}.get(
        operation, f"{algorithm} {operation} among the {nodes} leaders")
    out = [f"hierarchy: node (--hierarchy node): {q} processes per node, the lowest rank of "
           f"each node its leader; node-local {inside} over ceil(lg {q}) = {rounds(q)} "
           f"rounds; {between if nodes > 1 else 'one node: no network message'}",
           f"hierarchy: a node-local message of b bytes costs L + b / B through shared "
           f"memory, L = {shm}, B = {bw}; the messages of a round run at once and their "
           "sharing of the node's memory bandwidth is not charged",
           "hierarchy: MPICH's SMP-aware collectives (node-local binomial, one root per "
           "node, MPIR_CVAR_ENABLE_SMP_COLLECTIVES) and Open MPI's han; one leader per node "
           "sends all of its node's inter-node traffic through one NIC"]
    if operation == "alltoall":
        out.append("hierarchy: the leader-based all-to-all is a node-aware scheme; MPICH's "
                   "and Open MPI's default all-to-alls run flat (--hierarchy flat)")
    return tuple(out)
