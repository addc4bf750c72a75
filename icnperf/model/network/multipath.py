"""One message over several paths at once: adaptive dragonfly routing and NICs with several
router ports.

Under ``network.dragonfly_routing = adaptive`` (Aries, Slingshot: packet-by-packet
adaptive routing over minimal and Valiant paths) the packets of one message on a
``gdragonfly`` do not queue behind each other on one path: on an idle network they leave the
NIC over its ``network.nic_ports`` router ports and cross the network over as many
link-disjoint paths as the maximum flow between the two routers allows
(:func:`icnperf.model.topology.dragonfly.general_flow.path_links`). A message then streams
over

    k = min(nic_ports, maximum flow in links)

parallel channels of ``link_bandwidth`` each (the destination NIC has the same ports), and
the host interface (``host_bandwidth``, one per NIC) still carries all of it
(:func:`parallel_paths`). Packets are indivisible, so with n packets (the largest w_1 wire
bytes, the last w_n) over k channels the busiest channel carries ceil(n / k) packets, one of
them the short last packet only when it is the only channel that busy
(:func:`multipath_serialization`). The head of the message (path latency) stays the MIN
route's; k = 1 gives the single-path serialization of
:func:`icnperf.model.network.zero_load.serialization_time` exactly.

What counts as multipath: only ``adaptive`` on a ``gdragonfly``. ``minimal`` (the default)
and every other topology keep one path: fat trees route a pair's packets by one up-port rule
(``network.tree_routing`` random spreads *pairs*, dmodk fixes one port per destination),
tori route dimension order, and ``dragonfly:``/``megafly:`` keep MIN routing (their max-flow
is not computed). Units: bytes, seconds, bytes/s; k is a count.

Sources: UGAL / Valiant routing on the dragonfly, Kim, Dally, Scott and Abts, ISCA 2008,
§4.2; the max-flow min-cut theorem (Ford and Fulkerson, 1956); a message as a set of
packets on parallel identical channels (the makespan of unit jobs, list scheduling).
"""

from __future__ import annotations

import numpy as np

from icnperf.model.network.zero_load import (
    largest_packet_flits,
    packets,
    payload_flits,
    wire_bytes,
)

ROUTINGS = ("minimal", "adaptive")
"""Values of ``network.dragonfly_routing``."""


def dragonfly_routing(machine) -> str:
    """``network.dragonfly_routing`` of a machine (absent: minimal)."""
    return str(machine.get("network.dragonfly_routing", "minimal"))


def nic_ports(machine) -> int:
    """``network.nic_ports`` of a machine (absent: 1)."""
    return int(machine.get("network.nic_ports", 1))


def multipath_spec(machine):
    """The machine's parsed topology when its messages go over several paths (adaptive
    routing on a gdragonfly), else None (one path)."""
    if dragonfly_routing(machine) != "adaptive":
        return None
    from icnperf.model.topology.spec import parse_spec

    spec = parse_spec(machine.topology)
    return spec if spec.family.name == "gdragonfly" else None


def parallel_paths(machine, hops) -> np.ndarray | None:
    """k = min(nic_ports, maximum flow in links between routers ``hops`` apart) per hop
    count (array-like), or None when the machine sends a message over one path."""
    spec = multipath_spec(machine)
    if spec is None:
        return None
    from icnperf.model.topology.dragonfly.general_flow import path_links

    return np.minimum(float(nic_ports(machine)), path_links(spec.params, hops))


def multipath_serialization(m, paths, *, flit_size, packet_max_flits, packet_header_flits,
                            link_bandwidth, host_bandwidth):
    """Time an m-byte message occupies its slowest resource when its packets share k =
    ``paths`` parallel channels of ``link_bandwidth`` (NumPy arrays; k ≥ 1 whole):

        T_ser,k(m) = max(ceil(m / f) · f / B_host,  L_k / B_link)
        L_k = (c - 1) · w_1 + w_n   if r = 1,   c · w_1 otherwise,

    with n packets, c = ceil(n / k) packets on the busiest channel, r = n - (c - 1) · k
    channels that busy, w_1 the wire bytes of a full (largest) packet and w_n those of the
    last. The host interface carries the payload flits as in the single-path
    serialization_time; k = 1 gives L_1 = W(m), the whole message's wire bytes."""
    packet = {"flit_size": flit_size, "packet_max_flits": packet_max_flits,
              "packet_header_flits": packet_header_flits}
    k = np.asarray(paths, dtype=float)
    if np.any(~np.isfinite(k)) or np.any(k < 1):
        raise ValueError("paths must be finite and at least 1")
    n = packets(m, **packet)
    w1 = largest_packet_flits(m, **packet) * flit_size
    last = wire_bytes(m, **packet) - (n - 1) * w1
    busiest = np.ceil(n / k)
    channels = n - (busiest - 1) * k
    link = np.where(channels == 1, (busiest - 1) * w1 + last, busiest * w1) / link_bandwidth
    host = payload_flits(m, flit_size=flit_size) * flit_size / host_bandwidth
    return np.maximum(host, link)


def routing_note(machine) -> str | None:
    """One assumption line stating how a message's packets are routed, or None when the
    machine has no dragonfly routing to state."""
    routing = dragonfly_routing(machine)
    spec = multipath_spec(machine)
    if spec is None:
        if routing == "adaptive":
            return ("network.dragonfly_routing = adaptive applies to gdragonfly topologies "
                    "only; this topology sends a message over one path")
        return None
    from icnperf.model.topology.dragonfly.general_flow import pair_classes

    classes = [c for c in pair_classes(spec.params) if c.hops != (0,)]
    flows = ", ".join(f"{c.name} {c.links:g}{'' if c.exact else ' (estimate)'}"
                      for c in classes)
    ports = nic_ports(machine)
    return ("routing: adaptive (minimal and Valiant paths packet by packet): a message's "
            f"packets stream over min({ports} NIC port{'s' if ports != 1 else ''}, max-flow "
            "between the two routers) links at link_bandwidth, host interface still one; "
            f"max-flow in links: same router unbounded, {flows}; latency head stays the "
            "MIN route's (network.dragonfly_routing=minimal: one path)")


__all__ = ["ROUTINGS", "dragonfly_routing", "multipath_serialization", "multipath_spec",
           "nic_ports", "parallel_paths", "routing_note"]
