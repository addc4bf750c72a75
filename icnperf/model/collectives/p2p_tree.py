"""Closed forms of point-to-point messages over the hardware tree's edges: broadcast,
reduce, all-reduce and barrier level by level, with the sender's gap between consecutive
messages (:func:`send_gap`)."""

from __future__ import annotations

from icnperf.model import network, ops
from icnperf.model.collectives.parameters import _NETWORK_KEYS, _SERIAL_KEYS, _pick

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
                       software_overhead=0, store_and_forward=0, step_overhead=0):
    """Broadcast of m bytes by point-to-point messages over the hardware tree's edges (s):

        T = [T(m, h_s) + O_step if h_s > 0] + D · (T(m, 1) + O_step) + t · g(m)

    T(m, h) = network.latency (software overhead O, injection, h + 1 routers, h links,
    ejection, serialization; ordinary channels cut through unless ``store_and_forward``);
    D = tree depth, t = torus.spanning_tree_ties (dimensions of odd radix >= 3), g =
    :func:`send_gap`; h_s = hops from a non-root source, which first sends the message to
    the root point-to-point (as the hardware does, Mukosey 2015 Fig. 2); O_step =
    ``step_overhead``, the library's software time per step (a level here) beyond O
    (software.mpi_step_overhead, absent 0).

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
                           store_and_forward=store_and_forward) + step_overhead
    gap = send_gap(m, **_pick(net, _SERIAL_KEYS), software_overhead=software_overhead)
    first = network.latency(m, source_hops, **net, software_overhead=software_overhead,
                            store_and_forward=store_and_forward) + step_overhead
    return ops.where(source_hops > 0, first, 0) + depth * step + ties * gap


def p2p_tree_reduce(m, depth, ties, *, flit_size, packet_max_flits, packet_header_flits,
                    injection_latency, ejection_latency, router_latency, link_latency,
                    link_bandwidth, host_bandwidth, software_overhead=0, store_and_forward=0,
                    combine_time=0, step_overhead=0):
    """Reduce of m bytes to the root by point-to-point messages up the same tree (s):

        T = D · (T(m, 1) + γ·m + O_step) + t · g(m)

    The broadcast schedule of :func:`p2p_tree_broadcast` run backwards (LogP's duality of
    broadcast and reduction trees): a rank takes in its children's messages one per gap g,
    deepest subtree last, combines each (γ = ``combine_time``, seconds per byte; one
    combination of m bytes per level lies on the critical path) and sends the result to its
    parent. Target: the root. O_step as in :func:`p2p_tree_broadcast`.
    """
    net = _pick(locals(), _NETWORK_KEYS)
    step = network.latency(m, 1, **net, software_overhead=software_overhead,
                           store_and_forward=store_and_forward) + step_overhead
    gap = send_gap(m, **_pick(net, _SERIAL_KEYS), software_overhead=software_overhead)
    return depth * (step + combine_time * m) + ties * gap


def p2p_tree_allreduce(m, depth, ties, *, flit_size, packet_max_flits, packet_header_flits,
                       injection_latency, ejection_latency, router_latency, link_latency,
                       link_bandwidth, host_bandwidth, software_overhead=0,
                       store_and_forward=0, combine_time=0, step_overhead=0):
    """All-reduce over the tree by point-to-point messages: :func:`p2p_tree_reduce` to the
    root, then :func:`p2p_tree_broadcast` from it, the same structure as the hardware's
    (Mukosey 2015 §1) (s):

        T = D · (2 T(m, 1) + γ·m + 2 O_step) + 2 t · g(m)
    """
    kw = _pick(locals(), _NETWORK_KEYS)
    kw.update(software_overhead=software_overhead, store_and_forward=store_and_forward,
              step_overhead=step_overhead)
    return (p2p_tree_reduce(m, depth, ties, **kw, combine_time=combine_time)
            + p2p_tree_broadcast(m, depth, ties, **kw))


def p2p_tree_barrier(depth, ties, *, flit_size, packet_max_flits, packet_header_flits,
                     injection_latency, ejection_latency, router_latency, link_latency,
                     link_bandwidth, host_bandwidth, software_overhead=0,
                     store_and_forward=0, step_overhead=0):
    """Barrier over the tree by point-to-point messages: :func:`p2p_tree_allreduce` of
    empty messages (one header-only packet each) (s)."""
    kw = _pick(locals(), _NETWORK_KEYS)
    return p2p_tree_allreduce(0, depth, ties, **kw, software_overhead=software_overhead,
                              store_and_forward=store_and_forward,
                              step_overhead=step_overhead)
