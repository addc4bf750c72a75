"""Packetization and zero-load latency of one m-byte message over h router-router hops.

Packet counts, flits and bytes on the wire (:func:`packets`, :func:`flits`,
:func:`wire_bytes`), and the latency of a message in an empty network: the head latency of
the path, the serialization at the slowest channel, the extra time of store-and-forward
switching, and their sum with the software overhead (:func:`latency`). Units: bytes, flits,
packets, seconds; bandwidths in bytes/s. Conventions (hops, packets, channels, switching):
:mod:`icnperf.model.network`.

Sources: zero-load latency as head latency plus serialization, T0 = H·t_r + L/b, and the two
switching disciplines follow Dally & Towles, *Principles and Practices of Interconnection
Networks* (2004), the chapters on performance and buffered flow control; the Angara packet
format is Mukosey 2015 §2-§3. The store-and-forward closed form is derived below and checked
against a flow-shop recurrence in tests/model/test_network.py.
"""

from __future__ import annotations

from icnperf.model import ops


# --- packetization ----------------------------------------------------------------------


def packet_payload(*, flit_size, packet_max_flits, packet_header_flits):
    """Payload bytes of a full packet: (P - H) · f.

    P = packet_max_flits (header included), H = packet_header_flits, f = flit_size.
    Angara: (16 - 1) · 16 B = 240 B (Mukosey 2015 §2-§3: 16-byte flits, 16-flit packets; one
    header flit assumed by the presets).
    """
    return (packet_max_flits - packet_header_flits) * flit_size


def payload_flits(m, *, flit_size):
    """Flits that carry payload: ceil(m / f)."""
    return ops.ceil(m / flit_size)


def packets(m, *, flit_size, packet_max_flits, packet_header_flits):
    """Packets of an m-byte message: n(m) = max(1, ceil(m / ((P - H) · f))).

    A 0-byte message still sends one (header-only) packet.
    """
    payload = packet_payload(flit_size=flit_size, packet_max_flits=packet_max_flits,
                             packet_header_flits=packet_header_flits)
    return ops.maximum(1, ops.ceil(m / payload))


def flits(m, *, flit_size, packet_max_flits, packet_header_flits):
    """Flits on the wire: F(m) = ceil(m / f) + H · n(m).

    Payload fills whole flits and every full packet carries (P - H) payload flits, so the
    payload flits total ceil(m / f) whatever the split; each packet adds H header flits.
    Angara, m = 16 B: 1 + 1 = 2 flits; m = 256 B: 16 + 2 · 1 = 18 flits (2 packets).
    """
    n = packets(m, flit_size=flit_size, packet_max_flits=packet_max_flits,
                packet_header_flits=packet_header_flits)
    return payload_flits(m, flit_size=flit_size) + packet_header_flits * n


def wire_bytes(m, *, flit_size, packet_max_flits, packet_header_flits):
    """Bytes on a router-router link: W(m) = F(m) · f."""
    return flit_size * flits(m, flit_size=flit_size, packet_max_flits=packet_max_flits,
                             packet_header_flits=packet_header_flits)


def largest_packet_flits(m, *, flit_size, packet_max_flits, packet_header_flits):
    """Flits of the message's largest (first) packet: min(P, H + ceil(m / f))."""
    payload = payload_flits(m, flit_size=flit_size)
    return ops.minimum(packet_max_flits, packet_header_flits + payload)


# --- zero-load latency ------------------------------------------------------------------


def path_latency(hops, *, injection_latency, ejection_latency, router_latency, link_latency):
    """Head latency of the path (no serialization, no software):

        T_path(h) = t_inj + (h + 1) · t_router + h · t_link + t_ej

    h router-router hops pass h + 1 routers and h links; the host <-> router links are part
    of t_inj and t_ej (Angara: "injection (ejection) latency of a packet through PCIe",
    Mukosey 2015 §3 Table). This is the head term H·t_r of Dally & Towles' zero-load latency,
    with the endpoint latencies added.
    """
    return (injection_latency + (hops + 1) * router_latency + hops * link_latency
            + ejection_latency)


def serialization_time(m, *, flit_size, packet_max_flits, packet_header_flits,
                       link_bandwidth, host_bandwidth):
    """Time the message occupies the slowest channel of its path:

        T_ser(m) = max(ceil(m / f) · f / B_host,  F(m) · f / B_link)

    The host interface carries the payload flits, a router-router link the payload plus
    header flits (see the module conventions). Under cut-through the packets stream through
    the path back to back, so the whole message is paid once, at the bottleneck: the L/b
    term of Dally & Towles' zero-load latency T0 = H·t_r + L/b.
    """
    host = payload_flits(m, flit_size=flit_size) * flit_size / host_bandwidth
    link = wire_bytes(m, flit_size=flit_size, packet_max_flits=packet_max_flits,
                      packet_header_flits=packet_header_flits) / link_bandwidth
    return ops.maximum(host, link)


def store_and_forward_delay(m, hops, *, flit_size, packet_max_flits, packet_header_flits,
                            link_bandwidth, host_bandwidth):
    """Extra time store-and-forward adds to the cut-through latency:

        ΔT_SAF(m, h) = max(d_1 / B_host, w_1 / B_link) + h · w_1 / B_link

    with w_1 = min(P, H + ceil(m/f)) · f the message's largest (first) packet and
    d_1 = w_1 - H·f its payload. Derivation: the path is h + 2 channels, the injection
    channel (host -> router 0), h router-router links and the ejection channel (router h ->
    host), and each of the h + 1 routers receives a whole packet before sending it on. A
    packet j holds an endpoint channel for e_j = max(d_j / B_host, w_j / B_link) (the host
    interface and the wire both limit it) and a link for b_j = w_j / B_link. The packets
    move like jobs through an (h + 2)-stage flow shop; its makespan is set by the path
    "first packet across every stage, then the remaining packets through the bottleneck":
    e_1 + h·b_1 + e_1 + Σ_{j≥2} e_j. Cut-through pays Σ_j e_j ≈ T_ser(m) once, so
    store-and-forward adds e_1 + h·b_1: the first packet is serialized h + 1 more times.
    This is the flow shop's exact makespan for a single packet and whenever every packet has
    the same bottleneck channel; otherwise (only the last, shorter packet can differ) the
    closed form is never above the makespan and less than one packet time below it
    (tests/model/test_network.py checks both against the flow-shop recurrence). For one packet
    with equal rates this is the textbook store-and-forward latency (h + 2) · L/b
    (Dally & Towles, buffered flow control).
    """
    largest = largest_packet_flits(m, flit_size=flit_size, packet_max_flits=packet_max_flits,
                                   packet_header_flits=packet_header_flits)
    host = (largest - packet_header_flits) * flit_size / host_bandwidth
    link = largest * flit_size / link_bandwidth
    return ops.maximum(host, link) + hops * link


def hardware_latency(m, hops, *, flit_size, packet_max_flits, packet_header_flits,
                     injection_latency, ejection_latency, router_latency, link_latency,
                     link_bandwidth, host_bandwidth, store_and_forward=0):
    """Zero-load hardware latency of one m-byte message over h hops (no software):

        T_hw(m, h) = T_path(h) + T_ser(m) + s · ΔT_SAF(m, h)

    s = store_and_forward (0 cut-through, 1 store-and-forward); see :func:`path_latency`,
    :func:`serialization_time`, :func:`store_and_forward_delay`.
    """
    packet = {"flit_size": flit_size, "packet_max_flits": packet_max_flits,
              "packet_header_flits": packet_header_flits,
              "link_bandwidth": link_bandwidth, "host_bandwidth": host_bandwidth}
    head = path_latency(hops, injection_latency=injection_latency,
                        ejection_latency=ejection_latency, router_latency=router_latency,
                        link_latency=link_latency)
    return (head + serialization_time(m, **packet)
            + store_and_forward * store_and_forward_delay(m, hops, **packet))


def latency(m, hops, *, flit_size, packet_max_flits, packet_header_flits,
            injection_latency, ejection_latency, router_latency, link_latency,
            link_bandwidth, host_bandwidth, software_overhead=0, store_and_forward=0):
    """One-way zero-load latency of an m-byte message over h hops (half a ping-pong):

        T(m, h) = O + t_inj + (h + 1) · t_router + h · t_link + t_ej + T_ser(m)
                  [+ ΔT_SAF(m, h)  under store-and-forward]

    O = software_overhead (send + receive). Eager protocol, empty network.
    """
    return software_overhead + hardware_latency(
        m, hops, flit_size=flit_size, packet_max_flits=packet_max_flits,
        packet_header_flits=packet_header_flits, injection_latency=injection_latency,
        ejection_latency=ejection_latency, router_latency=router_latency,
        link_latency=link_latency, link_bandwidth=link_bandwidth,
        host_bandwidth=host_bandwidth, store_and_forward=store_and_forward)

