"""The LogGP view of the machine, and machine values from measured LogGP parameters.

:func:`loggp` maps the point-to-point model at h hops onto LogGP's L, o, g and G;
:func:`from_loggp` inverts the mapping for cut-through switching; :func:`loggp_time` is
LogGP's own one-way time; :func:`exchange_step` is LogGP's time of one step of a collective
in which every rank sends and receives one message, against :func:`half_ping_pong`. Units:
seconds (L, o, g), seconds per byte (G), bytes/s for the machine's bandwidths.

Sources: LogP: Culler et al., "LogP: Towards a Realistic Model of Parallel Computation",
PPoPP 1993; LogGP: Alexandrov, Ionescu, Schauser, Scheiman, "LogGP: Incorporating Long
Messages into the LogP Model", SPAA 1995; LogGOPS: Hoefler, Schneider, Lumsdaine,
"LogGOPSim - Simulating Large-Scale Applications in the LogGOPS Model", LSAP 2010. The
mapping and the step are derived below.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from icnperf.model import ops
from icnperf.model.network.zero_load import hardware_latency, serialization_time


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


def half_ping_pong(k, *, L, o_send, o_recv, G):
    """Half a ping-pong's round trip of k-byte messages (k >= 1), what osu_latency
    reports (s): o_send + L + (k - 1)·G + o_recv. With o_send = o_recv = o this is
    :func:`loggp_time`; the model's software.mpi_overhead is the sum o_send + o_recv."""
    return o_send + L + (k - 1) * G + o_recv


def exchange_step(k, *, L, o_send, o_recv, g, G, combine_time=0, step_overhead=0):
    """LogGP's time of one step of a synchronous collective in which every rank sends one
    k-byte message and receives one (k >= 1), as in recursive doubling (partner r XOR 2^t)
    and the ring (send to r + 1, receive from r - 1), in steady state (s):

        T_step = max(o_send + L + (k - 1)·G + o_recv + γ·k + O_step,  g + (k - 1)·G)

    Derived here in LogGP (Alexandrov et al. 1995), with the processor busy for o on each
    send and each receive (LogP, Culler et al. 1993) and the sends and receives of one
    core in series, as LogGOPSim simulates them (Hoefler, Schneider, Lumsdaine 2010). All
    ranks start a step together at t = 0. A rank's core sends (busy until o_send); its
    partner's message, sent at the same instant, has its last byte at the rank at
    o_send + L + (k - 1)·G, after the core is free, so the receive costs o_recv from there;
    then the rank combines the k bytes (γ = ``combine_time``, seconds per byte) and pays
    the library's own per-step work O_step = ``step_overhead`` before its next send. The
    next send must also wait the gap since the previous one, g + (k - 1)·G (its network
    interface injects one message per g). The rank's own o_send lies on the critical path
    once, as the partner's would in a ping-pong: the series o_send, o_recv on one core
    costs nothing beyond half a ping-pong (:func:`half_ping_pong`). So

        T_step - T_pingpong/2 = γ·k + O_step + max(0, g - (o_send + L + o_recv + γ·k + O_step))

    (the last term is 0 whenever the gap is shorter than a message's flight, as in
    :func:`loggp`'s mapping, g = max(o, T_ser(1))). A step in which a rank sends n
    messages (a linear broadcast's root) or receives n (a linear reduce's root) pays
    (n - 1)·max(o, g) more on that core: not this step's case.
    """
    flight = o_send + L + (k - 1) * G + o_recv + combine_time * k + step_overhead
    return ops.maximum(flight, g + (k - 1) * G)


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

