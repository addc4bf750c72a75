"""Point-to-point closed forms: one message of m bytes between two endpoints h hops apart.

Every formula here is written once with :mod:`icnperf.model.ops`, so it evaluates on numbers
and NumPy arrays (broadcasting over sweeps) and on SymPy symbols (``icnperf explain``,
crossovers). Parameters are plain numbers in SI units, keyword-only, named like the machine
keys they come from (``network.link_latency`` -> ``link_latency``);
:func:`machine_parameters` reads them from a machine and :func:`p2p_table` evaluates a whole
table. Nothing here prints or formats numbers.

Conventions (each repeated in :func:`p2p_table`'s assumptions):

* **Hops** h are router-to-router channels, as in the topology models
  (``model/topology/base.py``): a path of h hops passes **h + 1 routers** and **h
  router-router links**. The endpoint's own links (host <-> router, e.g. PCIe) are inside
  ``injection_latency`` and ``ejection_latency``; two endpoints on the same router are 0 hops
  apart.
* **Packets**: a packet is at most ``packet_max_flits`` flits of ``flit_size`` bytes, of which
  ``packet_header_flits`` carry the header; payload is rounded up to whole flits; a 0-byte
  message is one header-only packet.
* **Channels and bandwidth**: router-router links carry flits, header flits included, at
  ``link_bandwidth``; the host interface carries the payload flits (the adapter adds the
  headers) at ``host_bandwidth``. The message is serialized at the slower of the two
  (the channel that takes longer for this message). PCIe protocol overhead is not charged.
* **Software**: ``software_overhead`` is the time the messaging library adds per message,
  send and receive together (``software.mpi_overhead`` / ``software.shmem_overhead``); the
  LogP view splits it evenly, o = overhead / 2 on each side.
* **Switching**: ``store_and_forward`` is 0 for cut-through (the head leaves a router before
  the tail arrives; serialization paid once) and 1 for store-and-forward (each router holds a
  whole packet before forwarding it).

Sources: zero-load latency as head latency plus serialization, and the two switching
disciplines, follow Dally & Towles, *Principles and Practices of Interconnection Networks*
(2004), the chapters on performance (zero-load latency) and buffered flow control; LogP:
Culler et al., "LogP: Towards a Realistic Model of Parallel Computation", PPoPP 1993; LogGP:
Alexandrov, Ionescu, Schauser, Scheiman, "LogGP: Incorporating Long Messages into the LogP
Model", SPAA 1995; the message-rate bound V/L: seeds/001 (Klimov, Orlov, Shvorin), section
"Message rate"; NIC sharing: the contention described in seeds/004 (Peryshkova); M/D/1
waiting time: the Pollaczek-Khinchine formula with deterministic service (e.g. Kleinrock,
*Queueing Systems*, vol. 1, 1975) and Kleinrock's independence approximation for a path of
queues. Everything else is derived in the docstrings below.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model import ops

__all__ = [
    "APIS",
    "COLUMNS",
    "PARAMETERS",
    "LogGP",
    "P2PTable",
    "bind",
    "channel_utilisation",
    "flits",
    "from_loggp",
    "hardware_latency",
    "largest_packet_flits",
    "latency",
    "loggp",
    "loggp_time",
    "machine_parameters",
    "md1_waiting_time",
    "message_rate",
    "p2p_table",
    "packet_payload",
    "packet_service_time",
    "packets",
    "path_latency",
    "payload_flits",
    "pingpong_bandwidth",
    "queueing_delay",
    "rate_bound",
    "FIXED_PERMUTATIONS",
    "ROUTER_EFFICIENCY",
    "router_efficiency",
    "saturation_load",
    "serialization_time",
    "shared_bandwidth",
    "sharing_delay",
    "store_and_forward_delay",
    "streaming_bandwidth",
    "streaming_interval",
    "symbolic_parameters",
    "wire_bytes",
]

APIS = ("mpi", "shmem", "none")
"""Messaging interfaces: MPI and SHMEM charge their software overhead; ``none`` is the bare
hardware path."""

PARAMETERS: dict[str, str] = {
    "flit_size": "network.flit_size",
    "packet_max_flits": "network.packet_max_flits",
    "packet_header_flits": "network.packet_header_flits",
    "injection_latency": "network.injection_latency",
    "ejection_latency": "network.ejection_latency",
    "router_latency": "network.router_latency",
    "link_latency": "network.link_latency",
    "link_bandwidth": "network.link_bandwidth",
    "host_bandwidth": "network.host_bandwidth",
}
"""Formula parameter name -> the machine key it is read from. Two more parameters come from
elsewhere: ``software_overhead`` (``software.<api>_overhead``, 0 for api ``none``) and
``store_and_forward`` (``network.switching``)."""

_OVERHEAD_KEYS = {"mpi": "software.mpi_overhead", "shmem": "software.shmem_overhead"}


# --- packetization ----------------------------------------------------------------------


def packet_payload(*, flit_size, packet_max_flits, packet_header_flits):
    """Payload bytes of a full packet: (P - H) · f.

    P = packet_max_flits (header included), H = packet_header_flits, f = flit_size.
    Angara: (16 - 1) · 16 B = 240 B (seeds/000 §2-§3: 16-byte flits, 16-flit packets; one
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
    seeds/000 §3 Table). This is the head term H·t_r of Dally & Towles' zero-load latency,
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


# --- LogGP ------------------------------------------------------------------------------


class LogGP(NamedTuple):
    """LogGP parameters (seconds; G in seconds per byte)."""

    L: Any
    o: Any
    g: Any
    G: Any


def loggp(hops, *, flit_size, packet_max_flits, packet_header_flits,
          injection_latency, ejection_latency, router_latency, link_latency,
          link_bandwidth, host_bandwidth, software_overhead=0, store_and_forward=0) -> LogGP:
    """The LogGP view (Alexandrov et al. 1995) of the machine at h hops.

    Mapping, chosen so that LogGP's time for a k-byte message, 2o + L + (k - 1)G, equals
    this model's :func:`latency` at k = 1 and grows at the model's asymptotic rate:

    * o = O / 2: the software overhead split evenly between sender and receiver;
    * L = T_hw(1 byte, h): the hardware latency of the smallest message (injection, routers,
      links, ejection and the serialization of one payload flit plus its header);
    * G = max(1 / B_host, P / ((P - H) · B_link)): the asymptotic seconds per payload byte
      (a full packet carries (P - H) · f payload bytes in P · f wire bytes);
    * g = max(o, T_ser(1 byte)): the smallest interval between consecutive messages, either
      side's software overhead or the wire time of the smallest message (this model has no
      separate per-message cost of the adapter).
    """
    packet = {"flit_size": flit_size, "packet_max_flits": packet_max_flits,
              "packet_header_flits": packet_header_flits}
    o = software_overhead / 2
    L = hardware_latency(1, hops, **packet, injection_latency=injection_latency,
                         ejection_latency=ejection_latency, router_latency=router_latency,
                         link_latency=link_latency, link_bandwidth=link_bandwidth,
                         host_bandwidth=host_bandwidth, store_and_forward=store_and_forward)
    G = ops.maximum(1 / host_bandwidth,
                    packet_max_flits / ((packet_max_flits - packet_header_flits)
                                        * link_bandwidth))
    g = ops.maximum(o, serialization_time(1, **packet, link_bandwidth=link_bandwidth,
                                          host_bandwidth=host_bandwidth))
    return LogGP(L, o, g, G)


def loggp_time(m, *, L, o, G):
    """LogGP's one-way time of an m-byte message (m >= 1): 2o + L + (m - 1) · G."""
    return 2 * o + L + (m - 1) * G


def from_loggp(L, o, g, G, hops, *, router_latency, link_latency, flit_size,
               packet_max_flits, packet_header_flits, bottleneck="link") -> dict:
    """Machine parameter values that reproduce measured LogGP parameters at h hops.

    The inverse of :func:`loggp` for cut-through switching. LogGP has fewer numbers than the
    machine, so the router and link latencies and the packet format are given, and
    ``bottleneck`` says which channel G measures:

    * ``software_overhead`` = 2o (store it as ``software.mpi_overhead`` or
      ``software.shmem_overhead``);
    * ``"link"``: ``link_bandwidth`` = P / ((P - H) · G) (the host interface is taken to be
      no slower); ``"host"``: ``host_bandwidth`` = 1 / G (the links no slower);
    * ``injection_latency`` = ``ejection_latency`` = (L - (h + 1)·t_router - h·t_link -
      T_ser(1)) / 2, splitting the endpoint latency evenly, where T_ser(1) is the
      smallest message's time on the bottleneck channel ((H + 1) · f / B_link or f / B_host);
    * ``gap_excess`` = g - max(o, T_ser(1)): the part of the measured gap the machine's
      parameters do not explain (a per-message adapter cost the model lacks when positive).

    A negative injection latency means the given router/link latencies already exceed the
    measured L.
    """
    if bottleneck == "link":
        bandwidth = packet_max_flits / ((packet_max_flits - packet_header_flits) * G)
        smallest = (packet_header_flits + 1) * flit_size / bandwidth
        key = "link_bandwidth"
    elif bottleneck == "host":
        bandwidth = 1 / G
        smallest = flit_size / bandwidth
        key = "host_bandwidth"
    else:
        raise ValueError(f"bottleneck must be 'link' or 'host', not {bottleneck!r}")
    endpoint = (L - (hops + 1) * router_latency - hops * link_latency - smallest) / 2
    return {
        "software_overhead": 2 * o,
        key: bandwidth,
        "injection_latency": endpoint,
        "ejection_latency": endpoint,
        "gap_excess": g - ops.maximum(o, smallest),
    }


# --- bandwidth and message rate ---------------------------------------------------------


def pingpong_bandwidth(m, latency_s):
    """Ping-pong bandwidth: m / T(m), T the one-way latency (half the round trip)."""
    with ops.quiet():
        return m / ops.array(latency_s)


def streaming_interval(serialization, *, overhead_per_side, processes=1):
    """Time per message when one sender streams messages back to back (the MsgRate test of
    seeds/001): Δ = max(o, p · T_ser(m)).

    Each process pays its own software overhead o per message (sender and receiver overlap
    across messages, so the larger side, o, paces the stream), while the p processes of a
    node share one adapter and its link, which serializes all their messages
    (p = 1: one process per node). This is LogGP's max(g, (m - 1)G) with the model's exact
    per-message wire time in place of the linear (m - 1)G.
    """
    return ops.maximum(overhead_per_side, processes * serialization)


def streaming_bandwidth(m, interval):
    """Streaming bandwidth of one process: m / Δ(m) (seeds/001: L / time per message)."""
    with ops.quiet():
        return m / ops.array(interval)


def message_rate(interval):
    """Messages per second of one process: 1 / Δ(m) (seeds/001's message rate)."""
    with ops.quiet():
        return 1 / ops.array(interval)


def rate_bound(m, link_bandwidth):
    """The message-rate ceiling V / L of seeds/001 ("Message rate"): an L-byte message
    cannot be sent faster than L / V on a link of peak bandwidth V. Here L = m, V =
    link_bandwidth. The model's rate respects it: Δ ≥ F(m)·f / B_link ≥ m / V. Infinite at
    m = 0."""
    with ops.quiet():
        return link_bandwidth / ops.array(m)


# --- contention -------------------------------------------------------------------------


def channel_utilisation(offered_load, channel_load, router_efficiency=1):
    """Utilisation of the busiest router-router channel: ρ = λ · γ_max / η.

    λ = offered load per endpoint as a fraction of one channel's bandwidth (flits per
    channel cycle), γ_max the topology's channel load for the traffic pattern (flits per
    cycle on the busiest channel when every endpoint injects 1 flit per cycle; see
    ``model/topology/base.py``), η the router efficiency (1: ideal routers; see
    :data:`ROUTER_EFFICIENCY`). Saturation at ρ = 1.
    """
    return offered_load * channel_load / router_efficiency


ROUTER_EFFICIENCY = 0.67
"""Fraction of the channel-load bound an input-queued virtual-channel router reaches under
uniform traffic: η = Θ_sim / min(1, 1/γ_max). Calibrated on the flit simulator
(validation/flitsim) only, for uniform traffic on an 8x8 torus (bound 0.8 flits/endpoint/
cycle) with 2 VCs x 8 flits per port, 1-flit packets, a one-iteration separable allocator
with oldest-first priority: offered 1.0 flit/endpoint/cycle, accepted 0.534 (seed 1,
10,000 / 5,000 / 5,000 cycles), 0.534 / 0.8 = 0.67. Head-of-line blocking in the input
queues, two VCs split into dateline classes and one allocation iteration per cycle keep
such routers near half to three quarters of the bound under random destinations; the
4x4x4 and 8x8x8 tori are held out (validation/claims/flitsim.py). Fixed permutations
(tornado, bit-complement) reach the bound itself in the simulator (η = 1): the allocators
see no conflicts beyond the channel load, so η applies to random traffic only
(:func:`router_efficiency`)."""

FIXED_PERMUTATIONS = ("tornado", "bit-complement", "transpose", "permutation")
"""Patterns in which every endpoint sends to one fixed destination."""


def router_efficiency(pattern: str) -> float:
    """η for a traffic pattern: 1 for a fixed permutation, :data:`ROUTER_EFFICIENCY` for
    random destinations (uniform, hotspot mixes, random halves)."""
    return 1.0 if pattern in FIXED_PERMUTATIONS else ROUTER_EFFICIENCY


def saturation_load(channel_load, router_efficiency=1):
    """Offered load at which the path saturates: λ_sat = η · min(1, 1 / γ_max).

    The busiest router channel saturates at 1/γ_max, the endpoint's own channel at 1; the
    same ideal throughput Θ as ``Metrics.throughput`` when η = ``router_efficiency`` = 1
    (ideal routers); input-queued VC routers reach the fraction η of it
    (:func:`router_efficiency`).
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
    """Mean time a packet of the message holds a link: s = (W(m) / n(m)) / B_link."""
    packet = {"flit_size": flit_size, "packet_max_flits": packet_max_flits,
              "packet_header_flits": packet_header_flits}
    return wire_bytes(m, **packet) / packets(m, **packet) / link_bandwidth


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
    its uplink: B / p (seeds/004: processes sharing a node's adapter contend for it)."""
    return bandwidth / processes


def sharing_delay(serialization, processes):
    """Extra latency of the last of p messages injected at once by the p processes of a
    node: (p - 1) · T_ser(m) (the adapter serializes them one after another). The mean over
    the p messages is half of it."""
    return (processes - 1) * serialization


# --- machine -> numbers, symbols --------------------------------------------------------


def _require_all(machine, paths) -> list:
    """machine.require(path) for every path; one InputError naming every missing key (the
    key's own message, with its ``--set`` hint, when only one is missing)."""
    values, errors = [], {}
    for path in paths:
        try:
            values.append(machine.require(path))
        except InputError as error:
            errors[path] = error
            values.append(None)
    if len(errors) == 1:
        raise next(iter(errors.values()))
    if errors:
        raise InputError(f"machine {machine.name} lacks {len(errors)} parameters this model"
                         f" needs: {', '.join(errors)} (add them to its file or pass"
                         " --set SECTION.KEY=VALUE)")
    return values


def machine_parameters(machine, api: str = "mpi", switching: str | None = None) -> dict:
    """The formula parameters of :data:`PARAMETERS` read from a machine, plus
    ``software_overhead`` (by api) and ``store_and_forward`` (0/1, from ``switching`` or
    ``network.switching``).

    ``machine`` is anything with ``require(path)`` (icnperf.data.machine.Machine). Missing keys
    raise one InputError naming each key and the ``--set`` that supplies it.
    """
    if api not in APIS:
        raise InputError(f"unknown api {api!r}; choose one of {', '.join(APIS)}")
    if switching is not None and switching not in ("cut-through", "store-and-forward"):
        raise InputError(
            f"unknown switching {switching!r}; choose cut-through or store-and-forward")
    paths = list(PARAMETERS.values())
    if api != "none":
        paths.append(_OVERHEAD_KEYS[api])
    if switching is None:
        paths.append("network.switching")
    values = dict(zip(paths, _require_all(machine, paths)))
    params = {name: values[path] for name, path in PARAMETERS.items()}
    if params["packet_max_flits"] <= params["packet_header_flits"]:
        raise InputError(
            f"machine {machine.name!r}: network.packet_max_flits "
            f"({params['packet_max_flits']}) must exceed network.packet_header_flits "
            f"({params['packet_header_flits']}) to leave room for payload"
        )
    params["software_overhead"] = 0.0 if api == "none" else values[_OVERHEAD_KEYS[api]]
    mode = switching if switching is not None else values["network.switching"]
    params["store_and_forward"] = 1 if mode == "store-and-forward" else 0
    return params


def symbolic_parameters() -> dict:
    """The same parameters as :func:`machine_parameters` as SymPy symbols (imports SymPy):
    f, P, H, t_inj, t_ej, t_r, t_l, B_link, B_host, O and s (store-and-forward, 0 or 1)."""
    names = {
        "flit_size": "f",
        "packet_max_flits": "P",
        "packet_header_flits": "H",
        "injection_latency": "t_inj",
        "ejection_latency": "t_ej",
        "router_latency": "t_r",
        "link_latency": "t_l",
        "link_bandwidth": "B_link",
        "host_bandwidth": "B_host",
        "software_overhead": "O",
        "store_and_forward": "s",
    }
    out = {}
    for name, symbol in names.items():
        extra = {}
        if name in ("flit_size", "packet_max_flits", "link_bandwidth", "host_bandwidth"):
            extra["positive"] = True
        if name in ("packet_max_flits", "packet_header_flits", "store_and_forward"):
            extra["integer"] = True
        out[name] = ops.symbols(symbol, **extra)
    return out


def bind(function: Callable, params: Mapping) -> dict:
    """The entries of ``params`` that ``function`` takes as keyword-only parameters, so that
    one parameter dict serves every formula: ``latency(m, h, **bind(latency, params))``."""
    accepted = [p.name for p in inspect.signature(function).parameters.values()
                if p.kind is inspect.Parameter.KEYWORD_ONLY]
    return {name: params[name] for name in accepted if name in params}


# --- the table --------------------------------------------------------------------------

COLUMNS = (
    "bytes",
    "hops",
    "packets",
    "flits",
    "wire_bytes",
    "software_overhead_s",
    "path_latency_s",
    "serialization_s",
    "hardware_latency_s",
    "sharing_delay_s",
    "utilisation",
    "queueing_delay_s",
    "latency_s",
    "bandwidth_Bps",
    "streaming_bandwidth_Bps",
    "message_rate_per_s",
    "rate_bound_per_s",
)
"""Columns of :func:`p2p_table`, in order."""


class P2PTable(NamedTuple):
    """What :func:`p2p_table` returns: NumPy columns (all one shape) and the assumptions."""

    columns: dict[str, np.ndarray]
    assumptions: tuple[str, ...]


def _checked(values, what: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be numbers") from None
    if array.size and not (np.all(np.isfinite(array)) and array.min() >= 0):
        raise InputError(f"{what} must be finite and non-negative")
    return array


def p2p_table(machine, sizes, hops=None, api: str = "mpi", *, switching: str | None = None,
              processes_per_node: int = 1, offered_load: float = 0.0,
              pattern: str = "uniform") -> P2PTable:
    """Point-to-point latency, bandwidth and message rate of ``sizes`` (bytes) at ``hops``.

    ``sizes`` and ``hops`` broadcast together. ``hops=None`` takes the average distance of the
    machine's topology (ranks placed uniformly at random). ``api`` is ``mpi``, ``shmem`` or
    ``none`` (hardware only). ``switching`` overrides ``network.switching``.
    ``processes_per_node`` > 1 makes that many processes of each node send at once through
    one adapter (seeds/004's contention). ``offered_load`` > 0 (fraction of a channel's
    bandwidth injected by every endpoint, with ``pattern``'s channel load) charges M/D/1
    queueing delay; otherwise contention is ignored.

    Columns (:data:`COLUMNS`; seconds, bytes, bytes/s): packetization (packets, flits,
    wire_bytes), the latency terms (software_overhead_s, path_latency_s, serialization_s,
    hardware_latency_s = path + serialization [+ store-and-forward], sharing_delay_s,
    queueing_delay_s) and their sum latency_s; bandwidth_Bps = bytes / latency_s
    (ping-pong); streaming_bandwidth_Bps and message_rate_per_s of one process streaming
    back to back; rate_bound_per_s = link_bandwidth / bytes (seeds/001's V/L); utilisation
    = offered_load · γ_max. Raises InputError for a machine lacking a key (naming the
    ``--set`` that supplies it) and for bad arguments.
    """
    params = machine_parameters(machine, api, switching)
    if not (isinstance(processes_per_node, (int, np.integer)) and processes_per_node >= 1):
        raise InputError(f"processes_per_node must be a whole number >= 1, "
                         f"not {processes_per_node!r}")
    load = float(_checked(offered_load, "offered_load"))
    m = _checked(sizes, "message sizes")
    spec = None
    if hops is None or load > 0:
        from icnperf.model.topology.spec import parse_spec

        spec = parse_spec(machine.topology)
        metrics = spec.evaluate()
    if hops is None:
        h = np.asarray(metrics.average_distance, dtype=float)
    else:
        h = _checked(hops, "hops")
    gamma = 0.0
    if load > 0:
        from icnperf.model.topology.base import PATTERNS

        if pattern not in PATTERNS:
            raise InputError(f"unknown traffic pattern {pattern!r}; choose one of "
                             f"{', '.join(PATTERNS)}")
        gamma = float(metrics.channel_load[pattern])
        if math.isnan(gamma):
            raise InputError(f"traffic pattern {pattern!r} is not defined for {spec.text}")
    m, h = np.broadcast_arrays(m, h)
    p = processes_per_node

    packet = bind(flits, params)
    with ops.quiet():
        n = packets(m, **packet)
        f = flits(m, **packet)
        w = wire_bytes(m, **packet)
        head = path_latency(h, **bind(path_latency, params))
        ser = serialization_time(m, **bind(serialization_time, params))
        hw = hardware_latency(m, h, **bind(hardware_latency, params))
        share = sharing_delay(ser, p)
        rho = channel_utilisation(load, gamma) * np.ones_like(m)
        service = packet_service_time(m, **bind(packet_service_time, params))
        queue = queueing_delay(load, gamma, h, service) * np.ones_like(m)
        overhead = params["software_overhead"] * np.ones_like(m)
        total = overhead + hw + share + queue
        interval = streaming_interval(ser, overhead_per_side=params["software_overhead"] / 2,
                                      processes=p)
        columns = {
            "bytes": m,
            "hops": h,
            "packets": n,
            "flits": f,
            "wire_bytes": w,
            "software_overhead_s": overhead,
            "path_latency_s": head,
            "serialization_s": ser,
            "hardware_latency_s": hw,
            "sharing_delay_s": share,
            "utilisation": rho,
            "queueing_delay_s": queue,
            "latency_s": total,
            "bandwidth_Bps": pingpong_bandwidth(m, total),
            "streaming_bandwidth_Bps": streaming_bandwidth(m, interval),
            "message_rate_per_s": message_rate(interval),
            "rate_bound_per_s": rate_bound(m, params["link_bandwidth"]),
        }
    columns = {name: np.array(np.broadcast_to(columns[name], m.shape), dtype=float)
               for name in COLUMNS}
    return P2PTable(columns, _assumptions(machine, params, api, hops is None, p, load,
                                          pattern))


def _assumptions(machine, params, api, average, processes, load, pattern) -> tuple[str, ...]:
    notes = []
    if average:
        notes.append(f"placement: hops = average distance of {machine.topology} over "
                     "ordered pairs of distinct endpoints (ranks placed uniformly at random)")
    else:
        notes.append("placement: the two ranks are on nodes the given number of "
                     "router-to-router hops apart")
    if processes == 1:
        notes.append("one communicating process per node; the adapter is not shared")
    else:
        notes.append(f"{processes} processes per node send at once through one adapter: "
                     "latency is the last one's ((p - 1) serializations wait), streaming "
                     "rate per process shares the adapter (p x serialization per message)")
    notes.append("latency = software overhead + injection + (hops + 1) x router + hops x link "
                 "+ ejection + serialization; host-router links are inside injection/ejection")
    if params["store_and_forward"]:
        notes.append("switching: store-and-forward: each of the hops + 1 routers holds a "
                     "whole packet (the first packet's serialization paid per router)")
    else:
        notes.append("switching: cut-through: serialization paid once, at the slowest channel")
    notes.append("packets: payload in whole flits, header flits added per packet, a 0-byte "
                 "message is one header-only packet; links carry header + payload flits at "
                 "link_bandwidth, the host interface payload flits at host_bandwidth")
    if api == "none":
        notes.append("software: none (hardware path only)")
    else:
        notes.append(f"software: {api.upper()} overhead {_OVERHEAD_KEYS[api]} per message "
                     "(send + receive), split evenly between the sides for streaming")
    notes.append("protocol: eager at every size (no rendezvous handshake)")
    if load > 0:
        notes.append(f"contention charged: {pattern} background load; each channel an "
                     "independent M/D/1 queue (Poisson arrivals, fixed packet time, infinite "
                     "buffers), router channels at the busiest channel's utilisation; "
                     "streaming and message rate ignore the background load")
    else:
        notes.append("contention ignored: empty network (zero load)")
    notes.append("message rate: one process streaming back to back, bounded by "
                 "link_bandwidth / bytes (V/L, seeds/001)")
    return tuple(notes)
