"""Closed forms of collectives combined in the network hardware (the ``hw-tree``
algorithm), by ``network.collective_hardware`` (:data:`HARDWARE`):

* ``angara-tree``: the Angara router's hardware collective tree (Mukosey 2015 §1-2):
  broadcast, reduce, all-reduce, barrier and all-gather on the store-and-forward collective
  virtual channels, with the reduce credit rules (REDUCE_WINDOW, CREDIT_PACKETS,
  :func:`credit_delay`);
* ``torus-router``: collective logic in the torus routers (IBM Blue Gene/Q's class routes):
  the same tree formulas without Angara's credit rules (``collective_credits`` = 0);
* ``switch-aggregation``: reduction in the switches of a fat tree (InfiniBand SHARP):
  :func:`switch_aggregation` for all-reduce, reduce and barrier."""

from __future__ import annotations

from icnperf.model import network, ops
from icnperf.model.collectives.parameters import (
    _NETWORK_KEYS,
    _PACKET_KEYS,
    _SERIAL_KEYS,
    _pick,
)

HARDWARE = ("angara-tree", "torus-router", "switch-aggregation")
"""The kinds of collective hardware (``network.collective_hardware``)."""

SWITCH_OPERATIONS = ("allreduce", "reduce", "barrier")
"""What switch aggregation combines (SHARP on Switch-IB 2: barrier, reduce, all-reduce)."""

HARDWARE_NOTES = {
    "torus-router": (
        "hardware tree (network.collective_hardware = torus-router): collective logic in "
        "the torus routers (Blue Gene/Q class routes: a spanning tree of the partition, "
        "each node sending toward a root in the middle of every dimension, "
        "MUSPI_BuildNodeClassroute; routers combine integer and floating-point sums on "
        "the way up and replicate on the way down); depth D = sum floor(k_i/2)",
        "hardware tree: injection and ejection once, software overhead once (one call); "
        "combining and replication add no time beyond the router latency",
        "hardware tree: collective packets cross each router as network.collective_switching "
        "says; no reduce credits (Angara's credit rules do not apply); several packets "
        "pipeline through the tree",
        "hardware tree: all-reduce = reduce to the root, then broadcast from it: one path "
        "of 2D hops",
    ),
    "switch-aggregation": (
        "switch aggregation (network.collective_hardware = switch-aggregation, InfiniBand "
        "SHARP): the fat tree's switches combine the nodes' contributions level by level up "
        "to the lowest switch above every node of the job and send the result back down; "
        "one path of H = 2 (l - 1) router-router hops (0 on one leaf switch), one "
        "injection, H + 1 switches, one ejection, software overhead once",
        "switch aggregation: all-reduce, reduce and barrier only; one operation carries at "
        "most network.aggregation_payload bytes, a larger reduction is pipelined in "
        "fragments, network.aggregation_window of them in flight, each wave one "
        "fragment's path time (model/collectives.switch_aggregation)",
        "switch aggregation: the nodes' placement sets the level of the top switch",
    ),
}
"""The assumption lines of the hw-tree result for each kind of collective hardware other
than angara-tree (whose lines are notes._HW_NOTES)."""

REDUCE_WINDOW = 16
"""Reduce packets one tree may have in flight: 16 ReduceIds per TreeId (Mukosey 2015 §1,
§2.4 'up to 16 operations per tree'), taken as a child's initial credit."""

CREDIT_PACKETS = 8
"""Reduce packets one credit admits: a parent sends its children a credit each time it has
sent 8 result packets up the tree ('the parent may accept 8 more packets', Mukosey 2015 §2.4)."""


# --- the hardware collective tree -------------------------------------------------------


def credit_delay(m, *, flit_size, packet_max_flits, packet_header_flits, router_latency,
                 link_latency, link_bandwidth, host_bandwidth, reduce_window=REDUCE_WINDOW,
                 credit_packets=CREDIT_PACKETS):
    """Extra time the reduce credit rules add to a pipelined multi-packet reduce (s):

        ΔT_credit(m) = (n(m) - 1) · max(0, (d_hop + d_credit) / (W - C + 1) - τ)

    n(m) = packets of the message (network.packets); W = ``reduce_window`` (16 reduce
    packets in flight per tree), C = ``credit_packets`` (one credit per 8 packets), both
    Mukosey 2015 §1, §2.4. τ = max((P - H)·f / B_host, P·f / B_link) is the interval between
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
    source; Mukosey 2015 §1, Fig. 2: a broadcast injected elsewhere first travels to the root);
    T_hw = network.hardware_latency with s_c = ``collective_store_and_forward`` (1: the
    collective virtual channels first wait for the whole packet, Mukosey 2015 §2.1). So: the
    root's software call O (send + receive overhead, once: the routers do the rest), one
    injection t_inj, h_s + D hops each paying router t_r, link t_l and - store-and-forward -
    the packet's serialization on the link, one ejection t_ej at the deepest leaf, the
    message's serialization once, and the pipelining of several packets through the
    store-and-forward stages exactly as network.store_and_forward_delay derives it.

    Assumptions: a router replicates a packet to all its children (and its own host) at once
    on distinct output channels, so replication adds no time; the request from a non-root
    source climbs VCUp (also store-and-forward) and the root forwards it down without an
    ejection; every leaf ejects in parallel; broadcast packets need no credits (Mukosey 2015
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
              credit_packets=CREDIT_PACKETS, collective_credits=1):
    """Reduce of m bytes to the tree's root on the hardware collective tree (s):

        T = O + T_hw(m, D; s_c) + ΔT_credit(m)

    Every rank injects its m bytes at once; a router waits for its host's packet and all
    its children's, combines them and sends one packet up (Mukosey 2015 §1, §2.3). The last
    contribution is the deepest leaf's, D hops from the root, so the critical path is one
    injection, D store-and-forward hops and the root's ejection: the same path as
    :func:`hw_broadcast` read upwards. ΔT_credit (:func:`credit_delay`) charges the credit
    rules of a multi-packet reduce (times ``collective_credits``: 1 on Angara, 0 for
    collective hardware without those rules). The result is ejected at the root (the
    reduce's target is taken to be the root; Mukosey 2015 §1 sends it on point-to-point
    otherwise). Combining in the Reducer adds no time (not given in the paper).
    """
    net = _pick(locals(), _NETWORK_KEYS)
    credit = credit_delay(m, **_pick(net, _SERIAL_KEYS), router_latency=router_latency,
                          link_latency=link_latency, reduce_window=reduce_window,
                          credit_packets=credit_packets)
    return software_overhead + network.hardware_latency(
        m, depth, **net, store_and_forward=collective_store_and_forward) + (
        collective_credits * credit)


def hw_allreduce(m, depth, *, flit_size, packet_max_flits, packet_header_flits,
                 injection_latency, ejection_latency, router_latency, link_latency,
                 link_bandwidth, host_bandwidth, software_overhead=0,
                 collective_store_and_forward=1, reduce_window=REDUCE_WINDOW,
                 credit_packets=CREDIT_PACKETS, collective_credits=1):
    """All-reduce of m bytes on the hardware collective tree: reduce to the root, then
    broadcast from it (Mukosey 2015 §1) (s):

        T = O + T_hw(m, 2D; s_c) + ΔT_credit(m)

    The deepest leaf's contribution climbs D hops to the root, where the result is handed
    to the Broadcaster without an ejection (Mukosey 2015 §1: 'completes by a hardware send,
    without ejection'; §2.3), and descends D hops to the deepest leaf: one store-and-forward
    path of 2D hops with one injection and one ejection; packets pipeline through it (the
    root starts broadcasting packet j once packet j is reduced). ΔT_credit as in
    :func:`hw_reduce` (times ``collective_credits``); combining adds no time.
    """
    net = _pick(locals(), _NETWORK_KEYS)
    credit = credit_delay(m, **_pick(net, _SERIAL_KEYS), router_latency=router_latency,
                          link_latency=link_latency, reduce_window=reduce_window,
                          credit_packets=credit_packets)
    return software_overhead + network.hardware_latency(
        m, 2 * depth, **net, store_and_forward=collective_store_and_forward) + (
        collective_credits * credit)


def hw_barrier(depth, *, flit_size, packet_max_flits, packet_header_flits,
               injection_latency, ejection_latency, router_latency, link_latency,
               link_bandwidth, host_bandwidth, software_overhead=0,
               collective_store_and_forward=1):
    """Barrier on the hardware tree: an all-reduce of an empty (header-only) packet (s):

        T = O + T_hw(0, 2D; s_c)

    Mukosey 2015 §1 says completion is detected with 'synchronisation mechanisms based on the
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

    Mukosey 2015 §3.2: every rank broadcasts its part, using all N_t = ``collective_trees``
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


# --- aggregation in fat-tree switches ----------------------------------------------------


def switch_aggregation(m, hops, *, flit_size, packet_max_flits, packet_header_flits,
                       injection_latency, ejection_latency, router_latency, link_latency,
                       link_bandwidth, host_bandwidth, aggregation_payload,
                       aggregation_window=1, software_overhead=0,
                       collective_store_and_forward=1):
    """All-reduce (or reduce, or - with m = 0 - barrier) of m bytes aggregated in the switches
    of a fat tree (InfiniBand SHARP; Graham et al., "Scalable Hierarchical Aggregation
    Protocol (SHArP): a hardware architecture for efficient data reduction", COMHPC 2016)
    (s):

        T = O + ceil(n / W) · T_hw(b, H; s_c) + (n - ceil(n / W)) · T_ser(b)
        n = max(1, ceil(m / P_agg)),   b = min(m, P_agg)

    The aggregation tree is laid on the fat tree's levels: every node's leaf switch
    combines its hosts' contributions and sends one up, each level's switches combine their
    children's, the top switch of the job (the lowest pod holding every node) has the
    result and sends it back down the same tree. The critical path is one path from the
    farthest host up to that switch and down to the farthest host: H router-router hops,
    H = 2 (l - 1) for a top switch at level l (:attr:`Layout.span_hops`; 0 when every node
    hangs off one leaf switch), with one injection, H + 1 switches, H links and one
    ejection: network.hardware_latency T_hw, each aggregation node store-and-forward when
    s_c = 1 (it combines whole packets). O, the software overhead, is paid once (one call).

    One aggregation operation carries at most P_agg = ``aggregation_payload`` bytes (SHARP:
    the payload of one outstanding transaction, 256 B on Switch-IB 2, NVIDIA SHARP v2.6.1
    documentation, SHARP_COLL_JOB_QUOTA_PAYLOAD_PER_OST: 'Collective request larger than
    this size will be pipelined'); a larger reduction is n fragments of P_agg, W =
    ``aggregation_window`` of them in flight (outstanding transactions; a fragment frees its
    slot when its result is back), so ceil(n / W) waves each take one fragment's T_hw and
    the fragments of a wave leave one serialization T_ser(b) apart (network.
    serialization_time). Model (ours). Combining in a switch adds no time beyond its
    router latency; the result's distribution by multicast (Bloch et al. 2017) is not
    modelled separately (the down path is the same tree).
    """
    net = _pick(locals(), _NETWORK_KEYS)
    fragments = ops.maximum(1, ops.ceil(m / aggregation_payload))
    size = ops.minimum(m, aggregation_payload)
    waves = ops.ceil(fragments / aggregation_window)
    one = network.hardware_latency(size, hops, **net,
                                   store_and_forward=collective_store_and_forward)
    serial = network.serialization_time(size, **_pick(net, _SERIAL_KEYS))
    return software_overhead + waves * one + (fragments - waves) * serial
