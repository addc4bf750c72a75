"""Contention: background load in the network (M/D/1 queues) and processes sharing a node's
adapter.

The busiest channel's utilisation ρ = λ·γ_max/η, the saturation load, the M/D/1 waiting
time and the queueing delay of a path under background load, with the router efficiency η
of input-queued virtual-channel routers: the saturation estimate's share of the bound
(model/network/saturation.py; the single calibrated η = 0.67 it replaced is retired); and the bandwidth and extra latency when p processes of a
node send through one adapter. Units: loads in flits/cycle as fractions of one channel's
bandwidth, utilisation dimensionless, times in seconds, bandwidths in bytes/s.

Sources: M/D/1 waiting time: the Pollaczek-Khinchine formula with deterministic service
(e.g. Kleinrock, *Queueing Systems*, vol. 1, 1975) and Kleinrock's independence
approximation for a path of queues; γ_max from ``model/topology`` (its base.py
conventions); NIC sharing: the contention described in Peryshkova (Peryshkova).
"""

from __future__ import annotations

from icnperf.model import ops
from icnperf.model.network.zero_load import packets, wire_bytes


# --- contention -------------------------------------------------------------------------


def channel_utilisation(offered_load, channel_load, router_efficiency=1):
    """Utilisation of the busiest router-router channel: ρ = λ · γ_max / η.

    λ = offered load per endpoint as a fraction of one channel's bandwidth (flits per
    channel cycle), γ_max the topology's channel load for the traffic pattern (flits per
    cycle on the busiest channel when every endpoint injects 1 flit per cycle; see
    ``model/topology/base.py``), η the router efficiency (1: ideal routers; the saturation
    estimate over the bound, model/network/saturation.py). Saturation at ρ = 1.
    """
    return offered_load * channel_load / router_efficiency


FIXED_PERMUTATIONS = ("tornado", "bit-complement", "transpose", "permutation")
"""Patterns in which every endpoint sends to one fixed destination."""


def saturation_load(channel_load, router_efficiency=1):
    """Offered load at which the path saturates: λ_sat = η · min(1, 1 / γ_max).

    The busiest router channel saturates at 1/γ_max, the endpoint's own channel at 1; the
    same ideal throughput Θ as ``Metrics.throughput`` when η = ``router_efficiency`` = 1
    (ideal routers); input-queued VC routers reach the fraction η of it (the saturation
    estimate over the bound, model/network/saturation.py).
    """
    with ops.quiet():
        return router_efficiency * ops.minimum(1, 1 / ops.array(channel_load))


def md1_waiting_time(rho, service_time):
    """Mean wait in an M/D/1 queue: W = ρ · s / (2 (1 - ρ)) for ρ < 1, ∞ for ρ ≥ 1.

    Pollaczek-Khinchine mean waiting time with deterministic service time s (packets of
    fixed size on a channel of fixed bandwidth) and Poisson arrivals. 0 at ρ = 0.
    """
    rho = ops.array(rho)
    with ops.quiet():
        wait = rho * service_time / (2 * (1 - rho))
        return ops.where(rho < 1, wait, ops.infinity(rho, service_time))


def packet_service_time(m, *, flit_size, packet_max_flits, packet_header_flits,
                        link_bandwidth):
    """Mean time a packet of an m-byte message holds a link: s = (W(m) / n(m)) / B_link."""
    packet = {"flit_size": flit_size, "packet_max_flits": packet_max_flits,
              "packet_header_flits": packet_header_flits}
    return wire_bytes(m, **packet) / packets(m, **packet) / link_bandwidth


def background_service_time(*, flit_size, packet_max_flits, link_bandwidth):
    """Time one packet of the background load holds a link: s_bg = P · f / B_link.

    The background load is carried in full packets (P = packet_max_flits flits of f =
    flit_size bytes, header included): bulk traffic, the kind that loads channels to a
    fraction of their bandwidth. It does not depend on the message whose latency is
    predicted: the wait a packet meets in a queue is the work already queued ahead of it
    (Pollaczek-Khinchine: the residual service of the packet in service plus the packets
    waiting), which belongs to the background, not to the arriving message. So at a fixed
    path and load the queueing delay is the same for every message size, and the latency
    (zero-load latency, non-decreasing in m, plus it) never falls as the message grows.
    With a fixed utilisation, full packets give the longest wait of any packet size (W
    grows with s), so this is an upper estimate for background traffic of smaller packets.
    """
    return packet_max_flits * flit_size / link_bandwidth


def queueing_delay(offered_load, channel_load, hops, service_time, endpoint_channels=2,
                   router_efficiency=1):
    """Queueing delay added to the zero-load latency under background load:

        W(λ) = h · W_MD1(λ · γ_max / η, s) + e · W_MD1(λ / η, s)

    Model: every channel on the path is an independent M/D/1 queue (Kleinrock's
    independence approximation); the h router-router channels are each charged at the
    busiest channel's utilisation ρ = λ·γ_max/η (an upper bound for patterns whose load is
    uneven), and the e = 2 endpoint channels (injection, ejection) at ρ = λ/η, η the router
    efficiency (1: ideal routers), so W diverges at :func:`saturation_load`. Assumptions:
    Poisson packet arrivals, fixed packet service time s, infinite buffers, no flow-control
    back-pressure, a single queue per channel (virtual channels not separated). 0 at zero
    load; ∞ once either the busiest router channel or the endpoint channel saturates
    (λ ≥ η · min(1, 1/γ_max)).
    """
    network = md1_waiting_time(
        channel_utilisation(offered_load, channel_load, router_efficiency), service_time)
    endpoint = md1_waiting_time(offered_load / router_efficiency, service_time)
    with ops.quiet():
        routers = ops.where(hops > 0, hops * network, 0)
        return routers + endpoint_channels * endpoint


# --- endpoint sharing -------------------------------------------------------------------


def shared_bandwidth(bandwidth, processes):
    """Bandwidth per process when p processes of a node send at once through one adapter and
    its uplink: B / p (Peryshkova: processes sharing a node's adapter contend for it)."""
    return bandwidth / processes


def sharing_delay(serialization, processes):
    """Extra latency of the last of p messages injected at once by the p processes of a
    node: (p - 1) · T_ser(m) (the adapter serializes them one after another). The mean over
    the p messages is half of it."""
    return (processes - 1) * serialization

