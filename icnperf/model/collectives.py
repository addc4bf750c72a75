"""Collective operations: the hardware collective tree against point-to-point algorithms.

Closed-form times of broadcast, reduce, all-reduce, all-gather, all-to-all and barrier on P
endpoints, for

* ``hw-tree``: the Angara router's collective subnetwork (seeds/000 §1-2): a spanning tree
  laid on the torus from a root in dimension order X, Y, Z, W, over two extra virtual
  channels (VCUp to the root, VCDown to the leaves); routers replicate broadcast packets and
  combine reduce packets, so injection and ejection are paid once;
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
  messages share its adapter); ``placement="random"`` puts the nodes on a seeded random
  permutation of the endpoints (:meth:`Layout.rank_endpoints`).
* **Software overhead** O (``software.<api>_overhead``, send + receive) is paid once per
  message on the critical path; the hardware tree is one call, so it pays O once.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Callable, NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model import network, ops
from icnperf.model.topology import torus

__all__ = [
    "ALGORITHMS",
    "CREDIT_PACKETS",
    "OPERATIONS",
    "PLACEMENTS",
    "REDUCE_WINDOW",
    "TABLE",
    "CollectiveResult",
    "Entry",
    "Layout",
    "Step",
    "collective_parameters",
    "collective_time",
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
    "operation_name",
    "p2p_tree_allreduce",
    "p2p_tree_barrier",
    "p2p_tree_broadcast",
    "p2p_tree_reduce",
    "schedule",
    "schedule_time",
    "send_gap",
    "symbolic_collective_parameters",
]

OPERATIONS = ("broadcast", "reduce", "allreduce", "allgather", "alltoall", "barrier")
"""Collective operations, in the order tables list them."""

ALGORITHMS = ("hw-tree", "p2p-tree", "binomial", "recursive-doubling", "ring",
              "rabenseifner", "bruck")
"""Algorithms, in the order tables list them; ``hw-tree`` is the hardware one."""

_ALIASES = {
    "bcast": "broadcast",
    "all-reduce": "allreduce",
    "all_reduce": "allreduce",
    "all-gather": "allgather",
    "all_gather": "allgather",
    "all-to-all": "alltoall",
    "all_to_all": "alltoall",
}

REDUCE_WINDOW = 16
"""Reduce packets one tree may have in flight: 16 ReduceIds per TreeId (seeds/000 §1,
§2.4 'up to 16 operations per tree'), taken as a child's initial credit."""

CREDIT_PACKETS = 8
"""Reduce packets one credit admits: a parent sends its children a credit each time it has
sent 8 result packets up the tree ('the parent may accept 8 more packets', seeds/000 §2.4)."""

_NETWORK_KEYS = ("flit_size", "packet_max_flits", "packet_header_flits", "injection_latency",
                 "ejection_latency", "router_latency", "link_latency", "link_bandwidth",
                 "host_bandwidth")
_PACKET_KEYS = ("flit_size", "packet_max_flits", "packet_header_flits")
_SERIAL_KEYS = _PACKET_KEYS + ("link_bandwidth", "host_bandwidth")


def _pick(values: dict, keys) -> dict:
    return {key: values[key] for key in keys}


# --- the hardware collective tree -------------------------------------------------------


def credit_delay(m, *, flit_size, packet_max_flits, packet_header_flits, router_latency,
                 link_latency, link_bandwidth, host_bandwidth, reduce_window=REDUCE_WINDOW,
                 credit_packets=CREDIT_PACKETS):
    """Extra time the reduce credit rules add to a pipelined multi-packet reduce (s):

        ΔT_credit(m) = (n(m) - 1) · max(0, (d_hop + d_credit) / (W - C + 1) - τ)

    n(m) = packets of the message (network.packets); W = ``reduce_window`` (16 reduce
    packets in flight per tree), C = ``credit_packets`` (one credit per 8 packets), both
    seeds/000 §1, §2.4. τ = max((P - H)·f / B_host, P·f / B_link) is the interval between
    full packets that the slowest channel allows anyway (the pipelining of
    :func:`network.hardware_latency`); d_hop = t_r + t_l + P·f / B_link is one tree hop of a
    full packet under store-and-forward and d_credit = t_r + t_l + H·f / B_link the hop of a
    credit (taken as one header-only packet) back to the child.

    Derivation (ours; the paper gives the rules, not their timing): a child starts with W
    credits. The parent forwards packet j as soon as it arrives and sends credit q after
    forwarding packet q·C; credit q admits packets W + (q-1)·C + 1 ... W + q·C. In steady
    state with interval τ' between packets, packet p = W + (q-1)·C + 1 may leave when credit
    q has come back: p·τ' ≥ q·C·τ' + d_hop + d_credit, tightest at that p:
    (W - C + 1)·τ' ≥ d_hop + d_credit. So τ' = max(τ, (d_hop + d_credit)/(W - C + 1)),
    every one of the n - 1 packets after the first paying τ' - τ more. 0 for one packet and
    whenever the credit loop is shorter than W - C + 1 packet times (Angara: 205 ns < 9 ×
    30 ns). Combining in the Reducer is taken to add no time (the paper gives no figure).
    """
    n = network.packets(m, flit_size=flit_size, packet_max_flits=packet_max_flits,
                        packet_header_flits=packet_header_flits)
    packet = packet_max_flits * flit_size / link_bandwidth
    tau = ops.maximum((packet_max_flits - packet_header_flits) * flit_size / host_bandwidth,
                      packet)
    loop = (2 * (router_latency + link_latency) + packet
            + packet_header_flits * flit_size / link_bandwidth)
    window = reduce_window - credit_packets + 1
    return (n - 1) * ops.maximum(0, loop / window - tau)


def hw_broadcast(m, depth, source_hops=0, *, flit_size, packet_max_flits, packet_header_flits,
                 injection_latency, ejection_latency, router_latency, link_latency,
                 link_bandwidth, host_bandwidth, software_overhead=0,
                 collective_store_and_forward=1):
    """Broadcast of m bytes on the hardware collective tree (s):

        T = O + T_hw(m, h_s + D; s_c)

    D = depth of the dimension-order tree (torus.spanning_tree_depth, = the diameter
    Σ floor(k_i/2)); h_s = hops from the source to the tree's root (0 when the root is the
    source; seeds/000 §1, Fig. 2: a broadcast injected elsewhere first travels to the root);
    T_hw = network.hardware_latency with s_c = ``collective_store_and_forward`` (1: the
    collective virtual channels first wait for the whole packet, seeds/000 §2.1). So: the
    root's software call O (send + receive overhead, once: the routers do the rest), one
    injection t_inj, h_s + D hops each paying router t_r, link t_l and - store-and-forward -
    the packet's serialization on the link, one ejection t_ej at the deepest leaf, the
    message's serialization once, and the pipelining of several packets through the
    store-and-forward stages exactly as network.store_and_forward_delay derives it.

    Assumptions: a router replicates a packet to all its children (and its own host) at once
    on distinct output channels, so replication adds no time; the request from a non-root
    source climbs VCUp (also store-and-forward) and the root forwards it down without an
    ejection; every leaf ejects in parallel; broadcast packets need no credits (seeds/000
    §2.4 gives credits to reduce packets only).
    """
    return software_overhead + network.hardware_latency(
        m, source_hops + depth, flit_size=flit_size, packet_max_flits=packet_max_flits,
        packet_header_flits=packet_header_flits, injection_latency=injection_latency,
        ejection_latency=ejection_latency, router_latency=router_latency,
        link_latency=link_latency, link_bandwidth=link_bandwidth,
        host_bandwidth=host_bandwidth, store_and_forward=collective_store_and_forward)


def hw_reduce(m, depth, *, flit_size, packet_max_flits, packet_header_flits,
              injection_latency, ejection_latency, router_latency, link_latency,
              link_bandwidth, host_bandwidth, software_overhead=0,
              collective_store_and_forward=1, reduce_window=REDUCE_WINDOW,
              credit_packets=CREDIT_PACKETS):
    """Reduce of m bytes to the tree's root on the hardware collective tree (s):

        T = O + T_hw(m, D; s_c) + ΔT_credit(m)

    Every rank injects its m bytes at once; a router waits for its host's packet and all
    its children's, combines them and sends one packet up (seeds/000 §1, §2.3). The last
    contribution is the deepest leaf's, D hops from the root, so the critical path is one
    injection, D store-and-forward hops and the root's ejection: the same path as
    :func:`hw_broadcast` read upwards. ΔT_credit (:func:`credit_delay`) charges the credit
    rules of a multi-packet reduce. The result is ejected at the root (the reduce's target
    is taken to be the root; seeds/000 §1 sends it on point-to-point otherwise).
    Combining in the Reducer adds no time (not given in the paper).
    """
    net = _pick(locals(), _NETWORK_KEYS)
    credit = credit_delay(m, **_pick(net, _SERIAL_KEYS), router_latency=router_latency,
                          link_latency=link_latency, reduce_window=reduce_window,
                          credit_packets=credit_packets)
    return software_overhead + network.hardware_latency(
        m, depth, **net, store_and_forward=collective_store_and_forward) + credit


def hw_allreduce(m, depth, *, flit_size, packet_max_flits, packet_header_flits,
                 injection_latency, ejection_latency, router_latency, link_latency,
                 link_bandwidth, host_bandwidth, software_overhead=0,
                 collective_store_and_forward=1, reduce_window=REDUCE_WINDOW,
                 credit_packets=CREDIT_PACKETS):
    """All-reduce of m bytes on the hardware collective tree: reduce to the root, then
    broadcast from it (seeds/000 §1) (s):

        T = O + T_hw(m, 2D; s_c) + ΔT_credit(m)

    The deepest leaf's contribution climbs D hops to the root, where the result is handed
    to the Broadcaster without an ejection (seeds/000 §1: 'completes by a hardware send,
    without ejection'; §2.3), and descends D hops to the deepest leaf: one store-and-forward
    path of 2D hops with one injection and one ejection; packets pipeline through it (the
    root starts broadcasting packet j once packet j is reduced). ΔT_credit as in
    :func:`hw_reduce`; combining adds no time.
    """
    net = _pick(locals(), _NETWORK_KEYS)
    credit = credit_delay(m, **_pick(net, _SERIAL_KEYS), router_latency=router_latency,
                          link_latency=link_latency, reduce_window=reduce_window,
                          credit_packets=credit_packets)
    return software_overhead + network.hardware_latency(
        m, 2 * depth, **net, store_and_forward=collective_store_and_forward) + credit


def hw_barrier(depth, *, flit_size, packet_max_flits, packet_header_flits,
               injection_latency, ejection_latency, router_latency, link_latency,
               link_bandwidth, host_bandwidth, software_overhead=0,
               collective_store_and_forward=1):
    """Barrier on the hardware tree: an all-reduce of an empty (header-only) packet (s):

        T = O + T_hw(0, 2D; s_c)

    seeds/000 §1 says completion is detected with 'synchronisation mechanisms based on the
    collective operations'; an all-reduce of no data is the one such mechanism its
    operations give (our reading).
    """
    net = _pick(locals(), _NETWORK_KEYS)
    return software_overhead + network.hardware_latency(
        0, 2 * depth, **net, store_and_forward=collective_store_and_forward)


def hw_allgather(m, depth, diameter, endpoints, *, flit_size, packet_max_flits,
                 packet_header_flits, injection_latency, ejection_latency, router_latency,
                 link_latency, link_bandwidth, host_bandwidth, software_overhead=0,
                 collective_store_and_forward=1, collective_trees=16):
    """All-gather of an m-byte vector (m / P from each rank) with hardware broadcasts (s):

        T = O + T_hw(b, H + D; s_c) - T_ser(b)
              + max((P - 1) · T_ser(b),  ceil(P / N_t) · W(b) / B_link),   b = m / P

    seeds/000 §3.2: every rank broadcasts its part, using all N_t = ``collective_trees``
    (16) trees with roots spread evenly. Model (ours): rank r uses tree r mod N_t, so a
    source may be up to the diameter H from its tree's root (charged: the last broadcast
    climbs H hops, then descends D); the bandwidth term is the busiest of two resources:
    every rank's ejection channel, which must take in the P - 1 other parts one after
    another (T_ser(b) each, network.serialization_time), and the root router of one tree,
    which sends all ceil(P / N_t) broadcasts of its tree down the same output channel
    (W(b) wire bytes each). Links shared by several trees are not charged separately: a
    channel lies on the + side of about half the roots, so it carries about P / 2 broadcasts,
    fewer than the P - 1 every rank ejects. Broadcasts need no credits.
    """
    b = m / endpoints
    net = _pick(locals(), _NETWORK_KEYS)
    serial = network.serialization_time(b, **_pick(net, _SERIAL_KEYS))
    wire = network.wire_bytes(b, **_pick(net, _PACKET_KEYS))
    bandwidth = ops.maximum((endpoints - 1) * serial,
                            ops.ceil(endpoints / collective_trees) * wire / link_bandwidth)
    return (software_overhead
            + network.hardware_latency(b, diameter + depth, **net,
                                       store_and_forward=collective_store_and_forward)
            - serial + bandwidth)


# --- point-to-point over the same tree --------------------------------------------------


def send_gap(m, *, flit_size, packet_max_flits, packet_header_flits, link_bandwidth,
             host_bandwidth, software_overhead=0):
    """Time a sender is busy per message when it sends several in a row (s):

        g(m) = max(O / 2, T_ser(m))

    network.streaming_interval with one process per node: the sender's half of the software
    overhead or the message's serialization on its slowest channel, whichever paces the
    stream (LogGP's gap; the injection latency t_inj is a pipeline delay, not occupancy).
    """
    serial = network.serialization_time(m, flit_size=flit_size,
                                         packet_max_flits=packet_max_flits,
                                         packet_header_flits=packet_header_flits,
                                         link_bandwidth=link_bandwidth,
                                         host_bandwidth=host_bandwidth)
    return network.streaming_interval(serial, overhead_per_side=software_overhead / 2)


def p2p_tree_broadcast(m, depth, ties, source_hops=0, *, flit_size, packet_max_flits,
                       packet_header_flits, injection_latency, ejection_latency,
                       router_latency, link_latency, link_bandwidth, host_bandwidth,
                       software_overhead=0, store_and_forward=0):
    """Broadcast of m bytes by point-to-point messages over the hardware tree's edges (s):

        T = [T(m, h_s) if h_s > 0] + D · T(m, 1) + t · g(m)

    T(m, h) = network.latency (software overhead O, injection, h + 1 routers, h links,
    ejection, serialization; ordinary channels cut through unless ``store_and_forward``);
    D = tree depth, t = torus.spanning_tree_ties (dimensions of odd radix >= 3), g =
    :func:`send_gap`; h_s = hops from a non-root source, which first sends the message to
    the root point-to-point (as the hardware does, seeds/000 Fig. 2).

    Per level (the seed's 'injection/ejection at every level'): a tree edge joins
    neighbouring routers (1 hop); a rank receives the whole message (ejection and receive
    overhead), then sends it to each child (send overhead and injection): one T(m, 1) per
    level, no segmentation, so a multi-packet message is not pipelined across levels.
    Order of sends: a rank sends to its children one after another, each send occupying it
    for g(m), deepest subtree first (the order that minimises the finishing time of a fixed
    tree). Critical path, derived here: along the deepest root-to-leaf path every rank
    sends first to the next rank of that path, so it pays D · T with no waiting, except
    where two children have equally deep subtrees - the + and - halves of a ring of odd
    radix - and one of them must wait one gap. Every other path is at least one level
    shorter for at most one more gap per sibling passed, which never pays off because
    g <= T (T contains g's terms). Checked against the explicit tree, with the optimal
    order, in tests/model/test_collectives.py.
    """
    net = _pick(locals(), _NETWORK_KEYS)
    step = network.latency(m, 1, **net, software_overhead=software_overhead,
                           store_and_forward=store_and_forward)
    gap = send_gap(m, **_pick(net, _SERIAL_KEYS), software_overhead=software_overhead)
    first = network.latency(m, source_hops, **net, software_overhead=software_overhead,
                            store_and_forward=store_and_forward)
    return ops.where(source_hops > 0, first, 0) + depth * step + ties * gap


def p2p_tree_reduce(m, depth, ties, *, flit_size, packet_max_flits, packet_header_flits,
                    injection_latency, ejection_latency, router_latency, link_latency,
                    link_bandwidth, host_bandwidth, software_overhead=0, store_and_forward=0,
                    combine_time=0):
    """Reduce of m bytes to the root by point-to-point messages up the same tree (s):

        T = D · (T(m, 1) + γ·m) + t · g(m)

    The broadcast schedule of :func:`p2p_tree_broadcast` run backwards (LogP's duality of
    broadcast and reduction trees): a rank takes in its children's messages one per gap g,
    deepest subtree last, combines each (γ = ``combine_time``, seconds per byte; one
    combination of m bytes per level lies on the critical path) and sends the result to its
    parent. Target: the root.
    """
    net = _pick(locals(), _NETWORK_KEYS)
    step = network.latency(m, 1, **net, software_overhead=software_overhead,
                           store_and_forward=store_and_forward)
    gap = send_gap(m, **_pick(net, _SERIAL_KEYS), software_overhead=software_overhead)
    return depth * (step + combine_time * m) + ties * gap


def p2p_tree_allreduce(m, depth, ties, *, flit_size, packet_max_flits, packet_header_flits,
                       injection_latency, ejection_latency, router_latency, link_latency,
                       link_bandwidth, host_bandwidth, software_overhead=0,
                       store_and_forward=0, combine_time=0):
    """All-reduce over the tree by point-to-point messages: :func:`p2p_tree_reduce` to the
    root, then :func:`p2p_tree_broadcast` from it, the same structure as the hardware's
    (seeds/000 §1) (s):

        T = D · (2 T(m, 1) + γ·m) + 2 t · g(m)
    """
    kw = _pick(locals(), _NETWORK_KEYS)
    kw.update(software_overhead=software_overhead, store_and_forward=store_and_forward)
    return (p2p_tree_reduce(m, depth, ties, **kw, combine_time=combine_time)
            + p2p_tree_broadcast(m, depth, ties, **kw))


def p2p_tree_barrier(depth, ties, *, flit_size, packet_max_flits, packet_header_flits,
                     injection_latency, ejection_latency, router_latency, link_latency,
                     link_bandwidth, host_bandwidth, software_overhead=0,
                     store_and_forward=0):
    """Barrier over the tree by point-to-point messages: :func:`p2p_tree_allreduce` of
    empty messages (one header-only packet each) (s)."""
    kw = _pick(locals(), _NETWORK_KEYS)
    return p2p_tree_allreduce(0, depth, ties, **kw, software_overhead=software_overhead,
                              store_and_forward=store_and_forward)


# --- layouts: where ranks are and what each step's messages cost --------------------------


PLACEMENTS = ("linear", "random")
"""Rank placements: ``linear`` puts node i on endpoint i; ``random`` on endpoint
perm[i] for a permutation of the endpoints seeded by ``seed`` (NumPy's default_rng)."""

_NETWORK_FAMILIES = ("fattree", "clos", "dragonfly", "megafly")
"""Non-torus families whose minimal routes the textbook algorithms are mapped onto."""


MAX_RANKS = 2**21
"""Most ranks a layout holds: the schedules map every rank's messages onto the network,
so memory and time grow with the rank count (2^21 ranks take a few seconds)."""


@dataclass(frozen=True)
class Layout:
    """Where the ranks sit: a torus (radices), a full crossbar (every pair 1 hop apart, no
    two messages share a channel) or a fat tree / Clos / dragonfly / megafly (``network``:
    the family name and its parameters), with ``processes_per_node`` ranks r..r+ppn-1 on
    one node and the nodes on the endpoints by ``placement`` (linear: node i on endpoint i,
    dimension 0 fastest on a torus; random: a permutation seeded by ``seed``).
    ``endpoints`` counts nodes (every endpoint holds one node); :attr:`ranks` the ranks."""

    endpoints: int
    radices: tuple[int, ...] | None = None
    network: tuple | None = None
    processes_per_node: int = 1
    placement: str = "linear"
    seed: int = 0

    def __post_init__(self):
        if self.endpoints * self.processes_per_node > MAX_RANKS:
            raise InputError(f"{self.endpoints * self.processes_per_node:,} ranks is more than"
                             f" the {MAX_RANKS:,} the step-by-step algorithms map (they place"
                             " every rank); use fewer nodes")

    @classmethod
    def torus(cls, radices) -> Layout:
        """A torus of the given radices (each an integer >= 2)."""
        radices = tuple(radices)
        if not radices or not all(isinstance(k, (int, np.integer)) and not isinstance(k, bool)
                                  and k >= 2 for k in radices):
            raise InputError(f"torus radices must be integers >= 2, not {radices!r}")
        radices = tuple(int(k) for k in radices)
        return cls(math.prod(radices), radices)

    @classmethod
    def crossbar(cls, endpoints: int) -> Layout:
        """P endpoints on a full crossbar: every distance 1, no contention."""
        if not (isinstance(endpoints, (int, np.integer)) and not isinstance(endpoints, bool)
                and endpoints >= 2):
            raise InputError(f"a crossbar needs an integer number of endpoints >= 2, "
                             f"not {endpoints!r}")
        return cls(int(endpoints), None)

    @classmethod
    def from_topology(cls, text: str) -> Layout:
        """The layout of a topology spec (``torus:16x16x32``, ``hypercube:3``,
        ``fattree:k=4,n=2``, ``clos:radix=8,levels=2``, ``dragonfly:p=2,a=4,h=2``,
        ``megafly:k=4``); other families raise InputError (their collective mapping is not
        modelled)."""
        from icnperf.model.topology.spec import parse_spec

        spec = parse_spec(text)
        name = spec.family.name
        if name == "torus":
            return cls.torus(spec.params["radices"])
        if name == "hypercube":
            return cls.torus((2,) * spec.params["n"])
        if name in _NETWORK_FAMILIES:
            values = tuple(int(spec.params[key]) for key in spec.family.parameters)
            return cls(int(spec.family.endpoints(spec.params)), None, (name, *values))
        raise InputError(f"collectives are modelled on tori (torus, hypercube), fat trees "
                         f"(fattree, clos) and dragonflies (dragonfly, megafly) only, not "
                         f"{spec.text}")

    def placed(self, processes_per_node: int = 1, placement: str = "linear",
               seed: int = 0) -> Layout:
        """This layout with ``processes_per_node`` ranks per node and the nodes placed by
        ``placement`` (linear or random, seeded by ``seed``); InputError on bad values."""
        if not (isinstance(processes_per_node, (int, np.integer))
                and not isinstance(processes_per_node, bool) and processes_per_node >= 1):
            raise InputError(f"processes_per_node must be a whole number >= 1, "
                             f"not {processes_per_node!r}")
        if placement not in PLACEMENTS:
            raise InputError(f"unknown placement {placement!r}; choose one of "
                             f"{', '.join(PLACEMENTS)}")
        if not (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)
                and seed >= 0):
            raise InputError(f"seed must be a whole number >= 0, not {seed!r}")
        return replace(self, processes_per_node=int(processes_per_node),
                       placement=placement, seed=int(seed) if placement == "random" else 0)

    @property
    def is_torus(self) -> bool:
        return self.radices is not None

    @property
    def family(self) -> str:
        """``torus``, ``crossbar`` or the network family (fattree, clos, dragonfly,
        megafly)."""
        if self.radices is not None:
            return "torus"
        return "crossbar" if self.network is None else self.network[0]

    @property
    def ranks(self) -> int:
        """Ranks P = nodes x processes per node."""
        return self.endpoints * self.processes_per_node

    @property
    def is_default_placement(self) -> bool:
        """One process per node, linear placement (the tree algorithms' setting)."""
        return self.processes_per_node == 1 and self.placement == "linear"

    @property
    def text(self) -> str:
        """``torus:16x16x32``, ``crossbar:P`` or the network's spec (``fattree:k=4,n=2``)."""
        if self.radices is not None:
            return "torus:" + "x".join(str(k) for k in self.radices)
        if self.network is None:
            return f"crossbar:{self.endpoints}"
        name, *values = self.network
        keys = {"fattree": ("k", "n"), "clos": ("radix", "levels"),
                "dragonfly": ("p", "a", "h"), "megafly": ("k",)}[name]
        return f"{name}:" + ",".join(f"{key}={v}" for key, v in zip(keys, values))

    def _require_torus(self, what: str) -> tuple[int, ...]:
        if self.radices is None:
            raise InputError(f"{what} is defined on a torus, not on {self.text}")
        return self.radices

    @property
    def depth(self) -> int:
        """Depth of the dimension-order spanning tree (torus.spanning_tree_depth)."""
        return torus.spanning_tree_depth(self._require_torus("the collective tree"))

    @property
    def ties(self) -> int:
        """Equal-depth sibling pairs on the tree's critical path (torus.spanning_tree_ties)."""
        return torus.spanning_tree_ties(self._require_torus("the collective tree"))

    @property
    def diameter(self) -> int:
        """Largest distance between two endpoints, hops (minimal routing)."""
        if self.radices is not None:
            return self.depth
        family = self.family
        if family == "crossbar":
            return 1
        if family in ("fattree", "clos"):
            return 2 * (self.network[2] - 1)
        if family == "megafly":
            return 3
        return 3 if self.network[2] >= 2 else 1

    def rank_endpoints(self) -> np.ndarray:
        """The endpoint of every rank: rank r is on node r // ppn, node i on endpoint i
        (linear) or perm[i] (random, ``np.random.default_rng(seed).permutation``)."""
        node = np.arange(self.ranks, dtype=np.int64) // self.processes_per_node
        if self.placement == "random":
            perm = np.random.default_rng(self.seed).permutation(self.endpoints)
            return perm.astype(np.int64)[node]
        return node

    def traffic(self, sources, destinations) -> tuple[int, int]:
        """(largest hops, largest channel load) of messages sent at once between distinct
        endpoints: torus.dor_traffic on a torus; (1, 1) on a crossbar; on a fat tree the
        NCA hops and the pigeonhole load bound (fattree.nca_hops, nca_message_load); on a
        dragonfly / megafly the MIN-route hops and exact channel load
        (dragonfly.dragonfly_route_hops / _load, megafly_route_hops / _load). (0, 0) with
        no messages."""
        if self.radices is not None:
            return torus.dor_traffic(self.radices, sources, destinations)
        if len(sources) == 0:
            return (0, 0)
        if self.network is None:
            return (1, 1)
        from icnperf.model.topology import dragonfly, fattree

        name, *values = self.network
        if name in ("fattree", "clos"):
            k, n = (values[0] // 2 if name == "clos" else values[0]), values[1]
            hops = fattree.nca_hops(k, n, sources, destinations)
            load = fattree.nca_message_load(k, n, sources, destinations)
        elif name == "dragonfly":
            hops = dragonfly.dragonfly_route_hops(*values, sources, destinations)
            load = dragonfly.dragonfly_route_load(*values, sources, destinations)
        else:
            hops = dragonfly.megafly_route_hops(*values, sources, destinations)
            load = dragonfly.megafly_route_load(*values, sources, destinations)
        return int(hops.max()), int(load)

    def rank_traffic(self, sources, destinations) -> tuple[int, int, int, bool]:
        """(hops, load, host, intra) of messages sent at once between ranks: ``hops`` and
        ``load`` as :meth:`traffic` for the messages between different nodes, the load
        raised to ``host`` = the most of them leaving or entering one node (its adapter
        and endpoint channel carry them all; 0 when every message stays on its node);
        ``intra`` whether some message joins two ranks of one node."""
        sources = np.asarray(sources, dtype=np.int64)
        destinations = np.asarray(destinations, dtype=np.int64)
        if len(sources) == 0:
            return (0, 0, 0, False)
        if self.is_default_placement:
            hops, load = self.traffic(sources, destinations)
            return hops, max(load, 1), 1, False
        ends = self.rank_endpoints()
        src, dst = ends[sources], ends[destinations]
        inter = src != dst
        intra = bool((~inter).any())
        if not inter.any():
            return (0, 0, 0, intra)
        src, dst = src[inter], dst[inter]
        host = max(int(np.bincount(src).max()), int(np.bincount(dst).max()))
        hops, load = self.traffic(src, dst)
        return hops, max(load, host), host, intra


class Step(NamedTuple):
    """``count`` identical communication steps: every rank taking part sends one message of
    ``fraction`` · m bytes (the largest of the step), the farthest pair of nodes ``hops``
    apart, at most ``load`` messages on one channel; ``combine`` says the receiver reduces
    the data it receives. ``host`` is the most inter-node messages through one node's
    adapter (1 with one process per node; 0 when no message leaves its node) and ``intra``
    says some message joins two ranks of one node (an intra-node copy)."""

    count: int
    fraction: Fraction
    hops: int
    load: int
    combine: bool
    host: int = 1
    intra: bool = False


def _pow2_floor(p: int) -> int:
    return 1 << (p.bit_length() - 1)


def _log2_ceil(p: int) -> int:
    return (p - 1).bit_length()


class _Rounds:
    """Collects the rounds of a schedule as (fraction, combine, sources, destinations)."""

    def __init__(self):
        self.rounds: list[tuple[int, Fraction, bool, np.ndarray, np.ndarray]] = []

    def add(self, fraction, combine, sources, destinations, count=1):
        """``count`` rounds in which ``sources[i]`` sends fraction * m to
        ``destinations[i]``; a round without messages is dropped."""
        sources = np.asarray(sources, dtype=np.int64)
        destinations = np.asarray(destinations, dtype=np.int64)
        if len(sources) and count > 0:
            self.rounds.append((count, Fraction(fraction), bool(combine), sources,
                                destinations))


def _fold(p: int):
    """MPICH's reduction of a non-power-of-two P to p' = 2^floor(lg P) ranks (Thakur et al.
    §4.4): with r = P - p', ranks 0, 2, ..., 2r - 2 send their data to the next (odd) rank
    and sit out; the survivors are the odd ranks below 2r and every rank from 2r on. Returns
    (p', pre-step sources, pre-step destinations, map survivor number -> rank)."""
    p2 = _pow2_floor(p)
    r = p - p2
    even = np.arange(0, 2 * r, 2, dtype=np.int64)
    new = np.arange(p2, dtype=np.int64)
    actual = np.where(new < r, 2 * new + 1, new + r)
    return p2, even, even + 1, actual


def _binomial_bcast(rounds: _Rounds, p: int, fraction=1):
    for t in reversed(range(_log2_ceil(p))):
        mask = 1 << t
        src = np.arange(0, p, 2 * mask, dtype=np.int64)
        dst = src + mask
        keep = dst < p
        rounds.add(fraction, False, src[keep], dst[keep])


def _binomial_reduce(rounds: _Rounds, p: int):
    for t in range(_log2_ceil(p)):
        mask = 1 << t
        src = np.arange(mask, p, 2 * mask, dtype=np.int64)
        rounds.add(1, True, src, src - mask)


def _binomial_scatter(rounds: _Rounds, p: int):
    # MPICH scatter for the long-message broadcast: the sender passes the blocks of the
    # receiver's subtree, min(mask, P - dst) blocks of m/P; the step is charged its largest.
    for t in reversed(range(_log2_ceil(p))):
        mask = 1 << t
        src = np.arange(0, p, 2 * mask, dtype=np.int64)
        dst = src + mask
        keep = dst < p
        if keep.any():
            blocks = int(np.minimum(mask, p - dst[keep]).max())
            rounds.add(Fraction(blocks, p), False, src[keep], dst[keep])


def _ring(rounds: _Rounds, p: int, steps: int, combine: bool):
    src = np.arange(p, dtype=np.int64)
    rounds.add(Fraction(1, p), combine, src, (src + 1) % p, count=steps)


def _bruck_allgather(rounds: _Rounds, p: int):
    src = np.arange(p, dtype=np.int64)
    for t in range(_log2_ceil(p)):
        d = 1 << t
        rounds.add(Fraction(min(d, p - d), p), False, src, (src - d) % p)


def _exchange(rounds, actual, p2, mask, fraction, combine):
    new = np.arange(p2, dtype=np.int64)
    rounds.add(fraction, combine, actual[new], actual[new ^ mask])


def _recursive_doubling_allreduce(rounds: _Rounds, p: int, fraction=1):
    p2, pre_src, pre_dst, actual = _fold(p)
    rounds.add(fraction, True, pre_src, pre_dst)
    for t in range(p2.bit_length() - 1):
        _exchange(rounds, actual, p2, 1 << t, fraction, True)
    rounds.add(fraction, False, pre_dst, pre_src)


def _rabenseifner(rounds: _Rounds, p: int, to_root: bool):
    p2, pre_src, pre_dst, actual = _fold(p)
    rounds.add(1, True, pre_src, pre_dst)
    steps = p2.bit_length() - 1
    # reduce-scatter by recursive halving: partner distance 1, 2, 4, ..., halves of m
    for t in range(steps):
        _exchange(rounds, actual, p2, 1 << t, Fraction(1, 2 << t), True)
    if to_root:
        # binomial gather of the p' blocks to survivor 0
        for t in range(steps):
            mask = 1 << t
            new = np.arange(mask, p2, 2 * mask, dtype=np.int64)
            rounds.add(Fraction(mask, p2), False, actual[new], actual[new - mask])
    else:
        # all-gather by recursive doubling: the same pairs in reverse order
        for t in reversed(range(steps)):
            _exchange(rounds, actual, p2, 1 << t, Fraction(1, 2 << t), False)
        rounds.add(1, False, pre_dst, pre_src)


def _rounds(algorithm: str, operation: str, p: int) -> _Rounds:
    rounds = _Rounds()
    power = p & (p - 1) == 0
    if algorithm == "binomial":
        if operation in ("reduce", "allreduce"):
            _binomial_reduce(rounds, p)
        if operation in ("broadcast", "allreduce"):
            _binomial_bcast(rounds, p)
    elif algorithm == "recursive-doubling":
        if operation == "allgather":
            if power:
                src = np.arange(p, dtype=np.int64)
                for t in range(p.bit_length() - 1):
                    rounds.add(Fraction(1 << t, p), False, src, src ^ (1 << t))
            else:
                _bruck_allgather(rounds, p)
        elif operation == "allreduce":
            _recursive_doubling_allreduce(rounds, p)
        elif operation == "barrier":
            _recursive_doubling_allreduce(rounds, p, fraction=0)
    elif algorithm == "ring":
        if operation == "allgather":
            _ring(rounds, p, p - 1, False)
        elif operation == "allreduce":
            _ring(rounds, p, p - 1, True)
            _ring(rounds, p, p - 1, False)
        elif operation == "broadcast":
            _binomial_scatter(rounds, p)
            _ring(rounds, p, p - 1, False)
    elif algorithm == "rabenseifner":
        _rabenseifner(rounds, p, to_root=operation == "reduce")
    elif algorithm == "bruck":
        src = np.arange(p, dtype=np.int64)
        if operation == "allgather":
            _bruck_allgather(rounds, p)
        elif operation == "alltoall":
            blocks = np.arange(p)
            for t in range(_log2_ceil(p)):
                sent = int(np.count_nonzero(blocks & (1 << t)))
                rounds.add(Fraction(sent, p), False, src, (src + (1 << t)) % p)
        elif operation == "barrier":
            for t in range(_log2_ceil(p)):
                rounds.add(0, False, src, (src + (1 << t)) % p)
    return rounds


_TRAFFIC: dict[tuple, tuple[int, int, int, bool]] = {}
"""layout.rank_traffic of message patterns already mapped (algorithms share many
patterns)."""


def _traffic(layout: Layout, src: np.ndarray, dst: np.ndarray) -> tuple[int, int, int, bool]:
    digest = hashlib.blake2b(src.tobytes() + b"|" + dst.tobytes(), digest_size=20).digest()
    key = (layout, digest)
    if key not in _TRAFFIC:
        if len(_TRAFFIC) >= 8192:
            _TRAFFIC.clear()
        _TRAFFIC[key] = layout.rank_traffic(src, dst)
    return _TRAFFIC[key]


@lru_cache(maxsize=512)
def schedule(algorithm: str, operation: str, layout: Layout) -> tuple[Step, ...]:
    """The steps of a point-to-point algorithm on a layout, identical steps merged.

    Each round's messages (MPICH's algorithms as Thakur et al. describe them over the
    ``layout.ranks`` ranks, rank r on endpoint ``layout.rank_endpoints()[r]``) are mapped
    with ``layout.rank_traffic``: the step is charged the largest hop count of its
    inter-node messages, the largest number of them on one channel (both maxima, so an
    upper bound when different messages attain them), the most of them through one node's
    adapter, and whether any message stays within a node. Rounds are listed in
    :data:`TABLE`'s notes; numeric only (the topology is fixed), cached.
    """
    key = (algorithm, operation)
    if key not in TABLE or TABLE[key].steps is None:
        raise InputError(f"{algorithm} has no step schedule for {operation}")
    merged: dict[tuple, int] = {}
    for count, fraction, combine, src, dst in _rounds(algorithm, operation,
                                                      layout.ranks).rounds:
        hops, load, host, intra = _traffic(layout, src, dst)
        step = (fraction, hops, load, combine, host, intra)
        merged[step] = merged.get(step, 0) + count
    return tuple(Step(count, fraction, hops, load, combine, host, intra)
                 for (fraction, hops, load, combine, host, intra), count in merged.items())


def _times(m, fraction: Fraction):
    if fraction == 0:
        return 0 * m
    if fraction == 1:
        return m
    return m * fraction.numerator / fraction.denominator


def intra_node_time(m, *, host_bandwidth, software_overhead=0):
    """Time of one m-byte message between two ranks of one node (s):

        T_intra(m) = O + m / B_host

    0 router hops: the message is a copy through the node's memory, charged the software
    overhead O (send + receive, as an inter-node message) and m bytes at the host interface
    bandwidth B_host (a stand-in for the copy bandwidth, which machine files do not give);
    no injection, router or ejection latency.
    """
    return software_overhead + m / host_bandwidth


def schedule_time(m, steps, *, flit_size, packet_max_flits, packet_header_flits,
                  injection_latency, ejection_latency, router_latency, link_latency,
                  link_bandwidth, host_bandwidth, software_overhead=0, store_and_forward=0,
                  combine_time=0):
    """Time of a step schedule (s):

        T = Σ_steps count · [ max(T(f·m, h; B_link / c, B_host / a), T_intra(f·m))
                              + γ · f·m  (if the step combines) ]

    T = network.latency (software overhead, injection, h + 1 routers, h links, ejection,
    serialization); f = the step's fraction of m, h its hops, c its channel load: the c
    messages sharing a channel each get B_link / c of it (so the shared link serializes all
    c); a = the step's ``host``, the most inter-node messages through one node's adapter
    (1 with one process per node: the host interface is then not shared; the term is left
    out when a = 0, no message leaving its node); T_intra = :func:`intra_node_time`, only
    in steps with a message between two ranks of one node. γ = ``combine_time`` seconds per
    byte. Steps are synchronous: a step starts when the previous one has ended everywhere
    (Thakur et al.'s model). On a full crossbar (h = 1, c = 1) with a linear T(n) = α + nβ
    this is exactly Thakur et al.'s α-β-γ form of the algorithm, α = T(0, 1) and β its
    per-byte slope (tests/model/test_collectives.py).
    """
    net = {"flit_size": flit_size, "packet_max_flits": packet_max_flits,
           "packet_header_flits": packet_header_flits,
           "injection_latency": injection_latency, "ejection_latency": ejection_latency,
           "router_latency": router_latency, "link_latency": link_latency}
    total = 0
    for step in steps:
        size = _times(m, step.fraction)
        time = None
        if step.host:
            host = host_bandwidth if step.host == 1 else host_bandwidth / step.host
            time = network.latency(size, step.hops, **net, host_bandwidth=host,
                                   link_bandwidth=link_bandwidth / max(step.load, 1),
                                   software_overhead=software_overhead,
                                   store_and_forward=store_and_forward)
        if step.intra:
            copy = intra_node_time(size, host_bandwidth=host_bandwidth,
                                   software_overhead=software_overhead)
            time = copy if time is None else ops.maximum(time, copy)
        if time is None:
            continue
        if step.combine:
            time = time + combine_time * size
        total = total + step.count * time
    return total


# --- the table of algorithms and operations ---------------------------------------------


class Entry(NamedTuple):
    """One defined (algorithm, operation) pair: how its time is computed and what it
    assumes. ``steps`` is the schedule description of a point-to-point algorithm (None for
    the tree formulas)."""

    algorithm: str
    operation: str
    summary: str
    notes: tuple[str, ...]
    steps: str | None = None


_POW2_FOLD = ("non-power-of-two P: MPICH's fallback (Thakur et al. §4.4): with p' = "
              "2^floor(lg P) and r = P - p', ranks 0, 2, ..., 2r-2 first send their m bytes "
              "to the next rank, which combines them; the p' survivors run the algorithm; "
              "then the r ranks get the result back (2 extra steps)")

TABLE: dict[tuple[str, str], Entry] = {
    ("hw-tree", "broadcast"): Entry(
        "hw-tree", "broadcast", "hardware tree broadcast: O + T_hw(m, h_s + D) store-and-forward",
        ("source: the tree's root unless source_hops > 0 (a non-root source first climbs to "
         "the root, seeds/000 Fig. 2)",)),
    ("hw-tree", "reduce"): Entry(
        "hw-tree", "reduce", "hardware tree reduce to the root: O + T_hw(m, D) + credit delay",
        ("target: the tree's root",)),
    ("hw-tree", "allreduce"): Entry(
        "hw-tree", "allreduce", "hardware reduce then broadcast: O + T_hw(m, 2D) + credit delay",
        ()),
    ("hw-tree", "allgather"): Entry(
        "hw-tree", "allgather",
        "every rank broadcasts m/P on one of N_t trees: O + T_hw(m/P, H + D) - T_ser(m/P) + "
        "max((P-1) T_ser(m/P), ceil(P/N_t) W(m/P)/B_link)",
        ("trees: network.collective_trees (16) with roots spread evenly; rank r uses tree "
         "r mod N_t and may be up to the diameter H from its root",)),
    ("hw-tree", "barrier"): Entry(
        "hw-tree", "barrier", "hardware all-reduce of an empty packet: O + T_hw(0, 2D)", ()),
    ("p2p-tree", "broadcast"): Entry(
        "p2p-tree", "broadcast", "point-to-point down the tree: D T(m,1) + t g(m)",
        ("source: the tree's root unless source_hops > 0 (then one p2p message to the root "
         "first)",)),
    ("p2p-tree", "reduce"): Entry(
        "p2p-tree", "reduce", "point-to-point up the tree: D (T(m,1) + γm) + t g(m)",
        ("target: the tree's root",)),
    ("p2p-tree", "allreduce"): Entry(
        "p2p-tree", "allreduce", "p2p reduce then p2p broadcast over the tree: "
        "D (2 T(m,1) + γm) + 2 t g(m)", ()),
    ("p2p-tree", "barrier"): Entry(
        "p2p-tree", "barrier", "p2p all-reduce of empty messages over the tree", ()),
    ("binomial", "broadcast"): Entry(
        "binomial", "broadcast", "binomial tree from rank 0: ceil(lg P) steps of m "
        "(Thakur: ceil(lg p)(α + nβ))", (),
        "round t = ceil(lg P)-1 .. 0: ranks r = 0 mod 2^(t+1) send m to r + 2^t"),
    ("binomial", "reduce"): Entry(
        "binomial", "reduce", "binomial tree to rank 0: ceil(lg P) steps of m, combined "
        "(Thakur: ceil(lg p)(α + nβ + nγ))", (),
        "round t = 0 .. ceil(lg P)-1: ranks r = 2^t mod 2^(t+1) send m to r - 2^t"),
    ("binomial", "allreduce"): Entry(
        "binomial", "allreduce", "binomial reduce to rank 0 then binomial broadcast "
        "(Thakur: 2 ceil(lg p)(α + nβ) + ceil(lg p) nγ)", (),
        "binomial reduce rounds, then binomial broadcast rounds"),
    ("recursive-doubling", "allgather"): Entry(
        "recursive-doubling", "allgather", "lg P exchanges of 2^k m/P "
        "(Thakur: lg p α + (p-1)/p nβ)",
        ("non-power-of-two P: MPICH's fallback for short all-gathers, Bruck's algorithm "
         "(Thakur et al. §4.1), ceil(lg P) steps",),
        "step k: rank r exchanges its 2^k blocks with r XOR 2^k"),
    ("recursive-doubling", "allreduce"): Entry(
        "recursive-doubling", "allreduce", "lg P exchanges of m, combined "
        "(Thakur: lg p (α + nβ + nγ))", (_POW2_FOLD,),
        "step k: rank r exchanges m with r XOR 2^k and combines"),
    ("recursive-doubling", "barrier"): Entry(
        "recursive-doubling", "barrier", "recursive-doubling all-reduce of empty messages "
        "(lg P α)", (_POW2_FOLD,),
        "step k: rank r exchanges an empty message with r XOR 2^k"),
    ("ring", "allgather"): Entry(
        "ring", "allgather", "P - 1 steps of m/P to the next rank "
        "(Thakur: (p-1)α + (p-1)/p nβ)", (),
        "P - 1 steps: rank r sends one block of m/P to r + 1 mod P"),
    ("ring", "allreduce"): Entry(
        "ring", "allreduce", "ring reduce-scatter then ring all-gather: 2(P-1) steps of m/P "
        "(2(p-1)α + 2(p-1)/p nβ + (p-1)/p nγ)", (),
        "P - 1 combining steps then P - 1 plain steps: rank r sends m/P to r + 1 mod P"),
    ("ring", "broadcast"): Entry(
        "ring", "broadcast", "binomial scatter then ring all-gather (MPICH's long-message "
        "broadcast; Thakur: (lg p + p - 1)α + 2(p-1)/p nβ)", (),
        "binomial scatter of m/P blocks from rank 0, then the ring all-gather"),
    ("rabenseifner", "allreduce"): Entry(
        "rabenseifner", "allreduce", "recursive-halving reduce-scatter then recursive-doubling "
        "all-gather (Thakur: 2 lg p α + 2(p-1)/p nβ + (p-1)/p nγ)", (_POW2_FOLD,),
        "reduce-scatter: step k exchanges m/2^(k+1) with r XOR 2^k, combining; all-gather: "
        "the same pairs and sizes in reverse order"),
    ("rabenseifner", "reduce"): Entry(
        "rabenseifner", "reduce", "recursive-halving reduce-scatter then binomial gather "
        "(Thakur: 2 lg p α + 2(p-1)/p nβ + (p-1)/p nγ)",
        ("non-power-of-two P: the pre-step of MPICH's fallback (ranks 0, 2, ..., 2r-2 send "
         "to the next rank); the root is the first survivor (rank 1 when P is not a power "
         "of two, else rank 0)",),
        "reduce-scatter as in the all-reduce, then binomial gather of 2^k m/P to the root"),
    ("bruck", "allgather"): Entry(
        "bruck", "allgather", "ceil(lg P) steps of min(2^k, P-2^k) m/P "
        "(Thakur: ceil(lg p)α + (p-1)/p nβ)", (),
        "step k: rank r sends to r - 2^k mod P"),
    ("bruck", "alltoall"): Entry(
        "bruck", "alltoall", "ceil(lg P) steps, each sending the blocks whose index has bit k "
        "(Thakur: lg p α + (n/2) lg p β)",
        ("local rotations of the blocks are not charged",),
        "step k: rank r sends the blocks j with bit k set (m/P each) to r + 2^k mod P"),
    ("bruck", "barrier"): Entry(
        "bruck", "barrier", "dissemination barrier: ceil(lg P) steps of empty messages "
        "(MPICH's barrier; ceil(lg p) α)", (),
        "step k: rank r sends an empty message to r + 2^k mod P"),
}
"""Every defined (algorithm, operation) pair. Pairs not listed are not defined: e.g. the
hardware has no all-to-all (seeds/000: broadcast and reduce only)."""


def defined(algorithm: str, operation: str) -> bool:
    """True when the pair has a formula (see :data:`TABLE`)."""
    return (algorithm, operation_name(operation)) in TABLE


def operation_name(text: str) -> str:
    """The canonical operation name (``all-reduce`` -> ``allreduce``); InputError if
    unknown."""
    name = str(text).strip().lower()
    name = _ALIASES.get(name, name)
    if name not in OPERATIONS:
        raise InputError(f"unknown collective operation {text!r}; choose one of "
                         f"{', '.join(OPERATIONS)}")
    return name


def _check(algorithm: str, operation: str) -> tuple[str, str]:
    operation = operation_name(operation)
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; choose one of "
                         f"{', '.join(ALGORITHMS)}")
    if (algorithm, operation) not in TABLE:
        have = [a for a in ALGORITHMS if (a, operation) in TABLE]
        raise InputError(f"{algorithm} does not define {operation}; algorithms for "
                         f"{operation}: {', '.join(have)}")
    return algorithm, operation


# --- parameters -------------------------------------------------------------------------


def collective_parameters(machine, api: str = "mpi", *, combine_time: float = 0.0) -> dict:
    """network.machine_parameters plus the collective ones: ``combine_time`` (γ, seconds per
    byte reduced at a host; not in the machine files, default 0), and when the machine has
    hardware collectives (``network.collective_trees``) ``collective_trees`` and
    ``collective_store_and_forward`` (1 unless ``network.collective_switching`` says
    cut-through)."""
    params = network.machine_parameters(machine, api)
    if not (math.isfinite(combine_time) and combine_time >= 0):
        raise InputError(f"combine_time must be finite and >= 0, not {combine_time!r}")
    params["combine_time"] = combine_time
    trees = machine.get("network.collective_trees")
    if trees:
        params["collective_trees"] = trees
        mode = machine.get("network.collective_switching", "store-and-forward")
        params["collective_store_and_forward"] = 1 if mode == "store-and-forward" else 0
    return params


def symbolic_collective_parameters() -> dict:
    """network.symbolic_parameters plus γ (combine_time), s_c (collective
    store-and-forward, 0 or 1) and N_t (collective trees); imports SymPy."""
    params = network.symbolic_parameters()
    params["combine_time"] = ops.symbols("gamma")
    params["collective_store_and_forward"] = ops.symbols("s_c", integer=True)
    params["collective_trees"] = ops.symbols("N_t", positive=True, integer=True)
    return params


def _bind(function: Callable, params: dict) -> dict:
    return network.bind(function, params)


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
        ties = layout.ties
        if operation == "broadcast":
            return p2p_tree_broadcast(m, depth, ties, source_hops,
                                      **_bind(p2p_tree_broadcast, params))
        if operation == "reduce":
            return p2p_tree_reduce(m, depth, ties, **_bind(p2p_tree_reduce, params))
        if operation == "allreduce":
            return p2p_tree_allreduce(m, depth, ties, **_bind(p2p_tree_allreduce, params))
        return p2p_tree_barrier(depth, ties, **_bind(p2p_tree_barrier, params))
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
                    placement: str = "linear", seed: int = 0) -> CollectiveResult:
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
    permutation seeded by ``seed``); both override the layout's own. Raises InputError for
    bad names, undefined pairs, sizes <= 0 and machines lacking a needed key.
    """
    algorithm, operation = _check(algorithm, operation)
    m = _sizes(sizes, operation)
    if layout is None:
        layout = Layout.from_topology(machine.topology)
    layout = layout.placed(processes_per_node, placement, seed)
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
    params = collective_parameters(machine, api, combine_time=combine_time)
    with ops.quiet():
        time = evaluate(operation, algorithm, m, layout, params, source_hops=source_hops)
    time = np.array(np.broadcast_to(time, m.shape), dtype=float)
    return CollectiveResult(operation, algorithm, layout.text, layout.endpoints, m, time,
                            assumptions(operation, algorithm, layout, params, api,
                                        source_hops))


def compare(machine, operation: str, sizes=None, *, layout: Layout | None = None,
            api: str = "mpi", algorithms=None, combine_time: float = 0.0,
            processes_per_node: int = 1, placement: str = "linear", seed: int = 0
            ) -> dict[str, CollectiveResult]:
    """:func:`collective_time` of every algorithm that defines ``operation`` (or those
    named), by algorithm name; ``hw-tree`` is left out when the machine has no hardware
    collectives and the tree algorithms when the layout is not a torus or
    ``processes_per_node`` > 1."""
    operation = operation_name(operation)
    if layout is None:
        layout = Layout.from_topology(machine.topology)
    layout = layout.placed(processes_per_node, placement, seed)
    if algorithms is None:
        trees_fit = layout.is_torus and layout.processes_per_node == 1
        algorithms = [a for a in ALGORITHMS if (a, operation) in TABLE
                      and not (a == "hw-tree" and not machine.get("network.collective_trees"))
                      and not (a in ("hw-tree", "p2p-tree") and not trees_fit)]
    return {a: collective_time(machine, operation, a, sizes, layout=layout, api=api,
                               combine_time=combine_time,
                               processes_per_node=layout.processes_per_node,
                               placement=layout.placement, seed=layout.seed)
            for a in algorithms}


# --- assumptions ------------------------------------------------------------------------


_COMMON = (
    "m: the operation's data per rank in bytes (all-gather: the whole gathered vector, m/P "
    "from each rank; all-to-all: everything one rank sends, m/P to each rank; barrier: no "
    "data, header-only packets), as Thakur et al.'s n",
    "time: from the first call until the last rank has the result; empty network, all "
    "ranks start together",
)

_LINEAR_PLACEMENT = ("placement: one process per node, rank r on endpoint r, dimension 0 "
                     "varying fastest (linear)")


def _placement_note(layout: Layout, algorithm: str) -> str:
    """The placement assumption: the historical torus/crossbar wording for one process per
    node placed linearly, else processes per node, placement and seed spelled out."""
    ppn = layout.processes_per_node
    if layout.is_default_placement and layout.network is None:
        return _LINEAR_PLACEMENT
    numbering = {"torus": "dimension 0 varying fastest",
                 "crossbar": "endpoints 0..P-1",
                 "fattree": "endpoints numbered leaf by leaf, k per leaf",
                 "clos": "endpoints numbered leaf by leaf, radix/2 per leaf",
                 "dragonfly": "endpoints numbered router by router, groups in order",
                 "megafly": "endpoints numbered leaf by leaf, groups in order"}[layout.family]
    where = ("node i on endpoint i (linear)" if layout.placement == "linear" else
             f"node i on endpoint perm[i], perm = numpy.random.default_rng({layout.seed})"
             f".permutation({layout.endpoints}) (random, seed {layout.seed})")
    ranks = ("one process per node, rank r on node r" if ppn == 1 else
             f"processes_per_node = {ppn}: ranks r..r+{ppn - 1} (r a multiple of {ppn}) on "
             f"node r // {ppn}, {layout.ranks} ranks on {layout.endpoints} nodes")
    note = f"placement: {ranks}; {where}; {numbering}"
    if algorithm in ("hw-tree", "p2p-tree"):
        note += "; the trees span every router, so placement does not change their time"
    return note

_HW_NOTES = (
    "hardware tree: dimension-order (X, Y, Z, W) spanning tree from the root (seeds/000 "
    "§1); depth D = sum floor(k_i/2) = the torus diameter, the same from every root "
    "(torus.spanning_tree_depth)",
    "hardware tree: injection and ejection once, software overhead once (one call); routers "
    "replicate broadcast packets to all children at once and combine reduce packets at no "
    "extra time (seeds/000 gives no Reducer latency)",
    "hardware tree: collective virtual channels are store-and-forward (wait for the whole "
    "packet in every router, seeds/000 §2.1); several packets pipeline through the tree",
    "hardware tree: reduce credits (16 packets in flight per tree, one credit per 8 "
    "packets, seeds/000 §1, §2.4) slow a multi-packet reduce only when the credit loop "
    "exceeds 9 packet times (model/collectives.credit_delay)",
    "hardware tree: all-reduce = reduce to the root, then broadcast from it without an "
    "ejection at the root (seeds/000 §1): one store-and-forward path of 2D hops",
)

_P2P_TREE_NOTES = (
    "point-to-point tree: the hardware tree's edges (neighbouring routers, 1 hop); each "
    "level receives the whole message (ejection, software overhead) and re-sends it "
    "(software overhead, injection): one network.latency(m, 1 hop) per level, no "
    "segmentation",
    "point-to-point tree: a rank sends to its children one after another, deepest subtree "
    "first, each send occupying it for g = max(O/2, T_ser(m)); critical path D T(m, 1) + "
    "t g, t = dimensions of odd radix >= 3 (equally deep halves of a ring)",
    "point-to-point tree: a reduce is the broadcast schedule run backwards (one "
    "combination of m bytes per level)",
)

_STEP_NOTES = (
    "steps are synchronous (Thakur et al.'s model); each step is charged network.latency "
    "of its largest message at its largest hop count",
    "contention: the c messages of a step that share the busiest channel each get "
    "B_link / c (the link serializes them all); the host interface is not shared",
)

_SHARED_HOST_NOTES = (
    "steps are synchronous (Thakur et al.'s model); each step is charged network.latency "
    "of its largest inter-node message at its largest hop count",
    "contention: the c messages of a step that share the busiest channel each get "
    "B_link / c (the link serializes them all); the a inter-node messages leaving or "
    "entering one node in a step share its adapter: B_host / a each, and its endpoint "
    "channel (c >= a)",
    "intra-node messages (two ranks of one node): 0 hops, a copy through host memory "
    "charged O + m / B_host (software overhead and the host interface bandwidth as the "
    "copy bandwidth; no injection, router or ejection); a step takes the longer of its "
    "inter- and intra-node messages",
)


def _topology_note(layout: Layout) -> str:
    """How a non-torus layout maps a step's messages: hops and channel load."""
    family = layout.family
    if family == "crossbar":
        return f"topology: {layout.text}, every pair 1 hop apart, no shared channels"
    if family in ("fattree", "clos"):
        return (f"topology: {layout.text}, nearest-common-ancestor routing: 2(h-1) "
                "router-router hops between endpoints whose lowest common pod is at level h "
                "(0 on one leaf; fattree.nca_hops); channel load of a step: the c messages "
                "leaving (entering) a level-l pod share its k^l up (down) channels, charged "
                "ceil(c / k^l) maximised over pods and levels (fattree.nca_message_load): "
                "up-ports spread evenly, the least any up-port choice allows; random "
                "up-ports may collide more (not charged)")
    if family == "dragonfly":
        return (f"topology: {layout.text}, minimal routing (Kim et al. 2008): 0 hops on one "
                "router, 1 within a group, 1 + [s != x] + [d != y] across groups (x, y the "
                "routers holding the group pair's one global link; "
                "dragonfly.dragonfly_route_hops); channel load of a step: the most messages "
                "on one channel, counted exactly over the unique MIN routes (a global "
                "channel carries every message between its two groups; "
                "dragonfly.dragonfly_route_load)")
    return (f"topology: {layout.text}, minimal routing: 0 hops on one leaf, 2 within a "
            "group (leaf, spine, leaf), 3 across groups (dragonfly.megafly_route_hops); "
            "channel load of a step: the most messages on one channel, a global channel "
            "carrying every message between its two groups and a leaf-spine channel the "
            "leaf's messages to the groups its spine reaches plus 1/k of those within the "
            "group, rounded up (dragonfly.megafly_route_load)")


def assumptions(operation: str, algorithm: str, layout: Layout, params: dict, api: str,
                source_hops: int = 0) -> tuple[str, ...]:
    """The assumption strings of one result (what :class:`CollectiveResult` carries)."""
    notes = list(_COMMON)
    notes.append(_placement_note(layout, algorithm))
    entry = TABLE[(algorithm, operation)]
    notes.append(f"{algorithm} {operation}: {entry.summary}")
    if entry.steps:
        notes.append(f"{algorithm} {operation} rounds: {entry.steps}")
    notes.extend(entry.notes)
    if layout.is_torus:
        notes.append(f"topology: {layout.text}, dimension-order routing, minimal direction "
                     "in each ring, + at a tie")
    else:
        notes.append(_topology_note(layout))
    if algorithm == "hw-tree":
        notes.extend(_HW_NOTES)
        if operation == "broadcast":
            notes.append("hardware tree: broadcast source "
                         + (f"{source_hops} hops from the root (climbs to it first)"
                            if source_hops else "at the root"))
    elif algorithm == "p2p-tree":
        notes.extend(_P2P_TREE_NOTES)
        if operation == "broadcast":
            notes.append("point-to-point tree: broadcast source "
                         + (f"{source_hops} hops from the root (one message to it first)"
                            if source_hops else "at the root"))
    else:
        notes.extend(_STEP_NOTES if layout.processes_per_node == 1 else _SHARED_HOST_NOTES)
    if api == "none":
        notes.append("software: none (hardware path only)")
    else:
        notes.append(f"software: {api.upper()} overhead software.{api}_overhead per "
                     "point-to-point message (send + receive)"
                     + ("; the hardware collective call pays it once"
                        if algorithm == "hw-tree" else ""))
    notes.append("point-to-point switching: "
                 + ("store-and-forward" if params.get("store_and_forward") else "cut-through")
                 + "; eager protocol at every size")
    if operation in ("reduce", "allreduce") and algorithm != "hw-tree":
        gamma = params.get("combine_time", 0)
        notes.append("combining: " + (f"{gamma:g} s per byte at the receiving host"
                                      if gamma else "not charged (combine_time = 0)"))
    return tuple(notes)
