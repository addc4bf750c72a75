"""The point-to-point table: every term of the model for a set of message sizes and hops.

:func:`p2p_table` reads the machine (:func:`machine_parameters`), evaluates packetization,
the zero-load latency terms, adapter sharing, queueing under background load, bandwidths and
message rate on NumPy arrays (sizes and hops broadcast together), and states the
assumptions it made. It is what ``icnperf predict p2p`` prints and what calibration fits.
Units: the columns of :data:`COLUMNS` (bytes, hops, seconds, bytes/s, messages/s,
utilisation). The formulas and their sources are in the sibling modules.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model import ops
from icnperf.model.network.bandwidth import (
    message_rate,
    pingpong_bandwidth,
    rate_bound,
    streaming_bandwidth,
    streaming_interval,
)
from icnperf.model.network.contention import (
    background_service_time,
    channel_utilisation,
    queueing_delay,
    saturation_load,
    sharing_delay,
)
from icnperf.model.network.multipath import (
    multipath_serialization,
    parallel_paths,
    routing_note,
)
from icnperf.model.network.gpu import WithValues, gpu_buffer_values, gpus_sharing_nic
from icnperf.model.network.node import (
    nics_per_node,
    processes_per_nic,
    shared_memory_parameters,
    shared_memory_time,
)
from icnperf.model.network.parameters import _OVERHEAD_KEYS, bind, machine_parameters
from icnperf.model.network.rendezvous import rendezvous_delay, rendezvous_threshold
from icnperf.model.network.zero_load import (
    flits,
    hardware_latency,
    packets,
    path_latency,
    serialization_time,
    store_and_forward_delay,
    wire_bytes,
)

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
    "rendezvous_s",
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


def pattern_saturation(machine, spec, metrics, pattern: str) -> tuple[float, float]:
    """(γ_max in flits/cycle/channel, saturation estimate in flits/endpoint/cycle) of
    ``pattern`` traffic on the machine's topology (``spec``, its evaluated ``metrics``;
    model/topology/saturation.py with the machine's router). InputError, one line, for an
    unknown pattern, a pattern the topology does not define, or no estimate."""
    from icnperf.model.topology.base import PATTERNS
    from icnperf.model.topology.saturation import machine_router, saturation_of

    if pattern not in PATTERNS:
        raise InputError(f"unknown traffic pattern {pattern!r}; choose one of "
                         f"{', '.join(PATTERNS)}")
    gamma = float(metrics.channel_load[pattern])
    if math.isnan(gamma):
        raise InputError(f"traffic pattern {pattern!r} is not defined for {spec.text}")
    saturation = float(saturation_of(spec.family.name, spec.params, metrics, pattern,
                                     machine_router(machine))["saturation_estimate"])
    if math.isnan(saturation):
        raise InputError(f"no saturation estimate for {spec.text}: network."
                         "virtual_channels leaves a VC class of its routing without a VC"
                         " (a torus needs 2, one per dateline class)")
    return gamma, saturation


def p2p_table(machine, sizes, hops=None, api: str = "mpi", *, switching: str | None = None,
              processes_per_node: int = 1, offered_load: float = 0.0,
              pattern: str = "uniform", same_node: bool = False, buffers: str = "host",
              from_gpu: int = 0, to_gpu: int | None = None) -> P2PTable:
    """Point-to-point latency, bandwidth and message rate of ``sizes`` (bytes) at ``hops``.

    ``sizes`` and ``hops`` broadcast together. ``hops=None`` takes the average distance of the
    machine's topology (ranks placed uniformly at random). ``api`` is ``mpi``, ``shmem`` or
    ``none`` (hardware only). ``switching`` overrides ``network.switching``.
    ``processes_per_node`` > 1 makes that many processes of each node send at once, spread
    round robin over the node's ``node.nics_per_node`` adapters (absent: 1), so ceil(p / k)
    share one adapter (Peryshkova's contention, per NIC). ``same_node`` puts the two ranks on
    one node: the message goes through shared memory (:func:`intra_node_table`).
    ``offered_load`` > 0 (fraction of a channel's
    bandwidth injected by every endpoint, with ``pattern``'s channel load) charges M/D/1
    queueing delay (InputError at or past the saturation estimate, where it is infinite;
    model.topology.saturation for the machine's routers, machine_router), the
    background carried in full packets (contention.background_service_time:
    the same delay for every size, so latency never falls as the message grows); otherwise
    contention is ignored. ``buffers="gpu"`` puts both buffers in GPU memory: the message
    runs at the values of :func:`icnperf.model.network.gpu.gpu_buffer_values` (the machine's
    GPU-buffer path from GPU ``from_gpu``, to GPU ``to_gpu`` inside a node), and the
    processes of a node drive GPU ``from_gpu`` and the next ones, each sending through its
    GPU's NIC (``node.gpu_nics``) instead of round robin.

    Columns (:data:`COLUMNS`; seconds, bytes, bytes/s): packetization (packets, flits,
    wire_bytes), the latency terms (software_overhead_s, path_latency_s, serialization_s,
    hardware_latency_s = path + serialization [+ store-and-forward], sharing_delay_s,
    rendezvous_s (model/network/rendezvous.py: above software.rendezvous_threshold, MPI
    only), queueing_delay_s) and their sum latency_s; bandwidth_Bps = bytes / latency_s
    (ping-pong); streaming_bandwidth_Bps and message_rate_per_s of one process streaming
    back to back; rate_bound_per_s = link_bandwidth / bytes (Klimov et al.'s V/L; k links' worth
    under multipath routing, below); utilisation
    = offered_load · γ_max / η, η = saturation estimate / bound (the queues saturate at the
    estimate). Under ``network.dragonfly_routing = adaptive`` on a gdragonfly
    the serialization (and so latency_s and both bandwidths) is that of the message's
    packets over min(``network.nic_ports``, max-flow between the routers) parallel links
    (:mod:`icnperf.model.network.multipath`); the path latency stays the MIN route's.
    Raises InputError for a machine lacking a key (naming the ``--set`` that supplies it)
    and for bad arguments.
    """
    if not (isinstance(processes_per_node, (int, np.integer)) and processes_per_node >= 1):
        raise InputError(f"processes_per_node must be a whole number >= 1, "
                         f"not {processes_per_node!r}")
    if buffers not in ("host", "gpu"):
        raise InputError(f"unknown buffers {buffers!r}; choose host or gpu")
    gpu_notes: tuple[str, ...] = ()
    if buffers == "gpu":
        if api != "mpi":
            raise InputError("GPU buffers are modelled for MPI only (software.gpu_mpi_overhead"
                             "); give api mpi")
        path = gpu_buffer_values(machine, same_node=same_node, from_gpu=from_gpu,
                                 to_gpu=to_gpu)
        machine, gpu_notes = WithValues(machine, path.values), path.notes
    if same_node:
        if hops is not None or offered_load:
            raise InputError("two ranks on one node use no network: give no hops and no "
                             "load with same_node")
        table = intra_node_table(machine, sizes)
        if buffers == "gpu":
            placement = ("placement: both GPUs in one scale-up domain (one node, or one "
                         "domain of nodes such as an NVL72 rack); no network",)
            table = P2PTable(table.columns, placement + gpu_notes + table.assumptions[2:])
        return table
    params = machine_parameters(machine, api, switching)
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
    gamma, efficiency = 0.0, 1.0
    if load > 0:
        gamma, saturation = pattern_saturation(machine, spec, metrics, pattern)
        bound = float(saturation_load(gamma))
        efficiency = saturation / bound
        if load >= saturation:
            raise InputError(f"offered load {load:g} is at or past the saturation estimate"
                             f" for {pattern} traffic on {spec.text} ({saturation:.4g}"
                             f" flits/endpoint/cycle, bound {bound:.4g}; docs/saturation.md),"
                             " where the queueing delay has no finite value; give a load"
                             f" below {saturation:.4g}")
    m, h = np.broadcast_arrays(m, h)
    nics = nics_per_node(machine)
    if buffers == "gpu":
        p = gpus_sharing_nic(machine, processes_per_node, from_gpu)
    else:
        p = int(processes_per_nic(processes_per_node, nics))

    packet = bind(flits, params)
    with ops.quiet():
        n = packets(m, **packet)
        f = flits(m, **packet)
        w = wire_bytes(m, **packet)
        head = path_latency(h, **bind(path_latency, params))
        paths = parallel_paths(machine, h)

        def hardware(size):
            """(serialization, hardware latency) of ``size``-byte messages over h hops."""
            if paths is None:
                return (serialization_time(size, **bind(serialization_time, params)),
                        hardware_latency(size, h, **bind(hardware_latency, params)))
            serial = multipath_serialization(size, paths,
                                             **bind(multipath_serialization, params))
            saf = store_and_forward_delay(size, h, **bind(store_and_forward_delay, params))
            return serial, head + serial + params["store_and_forward"] * saf

        ser, hw = hardware(m)
        share = sharing_delay(ser, p)
        limit = rendezvous_threshold(machine, api)
        handshake = (np.zeros_like(m) if limit is None
                     else rendezvous_delay(m, hardware(np.zeros_like(m))[1], limit))
        rho = channel_utilisation(load, gamma, efficiency) * np.ones_like(m)
        service = background_service_time(**bind(background_service_time, params))
        queue = queueing_delay(load, gamma, h, service,
                               router_efficiency=efficiency) * np.ones_like(m)
        overhead = params["software_overhead"] * np.ones_like(m)
        total = overhead + hw + share + queue + handshake
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
            "rendezvous_s": handshake,
            "utilisation": rho,
            "queueing_delay_s": queue,
            "latency_s": total,
            "bandwidth_Bps": pingpong_bandwidth(m, total),
            "streaming_bandwidth_Bps": streaming_bandwidth(m, interval),
            "message_rate_per_s": message_rate(interval),
            "rate_bound_per_s": rate_bound(m, params["link_bandwidth"]
                                           * (1 if paths is None else paths)),
        }
    columns = {name: np.array(np.broadcast_to(columns[name], m.shape), dtype=float)
               for name in COLUMNS}
    notes = _assumptions(machine, params, api, hops is None, processes_per_node, nics, load,
                         pattern)
    if buffers == "gpu":
        notes = gpu_notes + tuple(
            f"{processes_per_node} processes per node on GPU {from_gpu} and the next ones, each"
            f" sending through its GPU's NIC (node.gpu_nics): {p} share the sender's NIC"
            if note.startswith(f"{processes_per_node} processes per node send")
            else note.replace("overhead software.mpi_overhead", "overhead "
                              "software.gpu_mpi_overhead")
            for note in notes)
    return P2PTable(columns, notes)


def intra_node_table(machine, sizes) -> P2PTable:
    """The :data:`COLUMNS` of one message between two processes of the same node: shared
    memory at ``node.shared_memory_latency`` + m / ``node.shared_memory_bandwidth``
    (:func:`icnperf.model.network.node.shared_memory_time`). The published latency holds
    the MPI software, so it fills software_overhead_s; the copy fills serialization_s and
    hardware_latency_s; no packets, hops, sharing or queueing. Streaming: one message every
    max(L_shm / 2, m / B_shm) (the sender's half of the latency, as MPI's overhead is split
    for the network), and the rate bound is B_shm / m."""
    shm = shared_memory_parameters(machine)
    m = _checked(sizes, "message sizes")
    zero = np.zeros_like(m)
    with ops.quiet():
        copy = m / shm["shared_memory_bandwidth"]
        total = shared_memory_time(m, **shm)
        interval = np.maximum(shm["shared_memory_latency"] / 2, copy)
        columns = {
            "bytes": m, "hops": zero, "packets": zero, "flits": zero, "wire_bytes": zero,
            "software_overhead_s": shm["shared_memory_latency"] + zero,
            "path_latency_s": zero, "serialization_s": copy, "hardware_latency_s": copy,
            "sharing_delay_s": zero, "rendezvous_s": zero, "utilisation": zero,
            "queueing_delay_s": zero,
            "latency_s": total,
            "bandwidth_Bps": pingpong_bandwidth(m, total),
            "streaming_bandwidth_Bps": streaming_bandwidth(m, interval),
            "message_rate_per_s": message_rate(interval),
            "rate_bound_per_s": rate_bound(m, shm["shared_memory_bandwidth"]),
        }
    columns = {name: np.array(columns[name], dtype=float) for name in COLUMNS}
    notes = (
        "placement: both ranks on one node; the message goes through shared memory, not the "
        "network",
        "latency = node.shared_memory_latency (published intra-node MPI latency, software "
        "included) + bytes / node.shared_memory_bandwidth",
        "streaming: one message per max(latency / 2, bytes / bandwidth); rate bound "
        "shared_memory_bandwidth / bytes",
        "contention ignored: the node's other processes are idle",
    )
    return P2PTable(columns, notes)


def _assumptions(machine, params, api, average, processes, nics, load,
                 pattern) -> tuple[str, ...]:
    notes = []
    if average:
        notes.append(f"placement: hops = average distance of {machine.topology} over "
                     "ordered pairs of distinct endpoints (ranks placed uniformly at random)")
    else:
        notes.append("placement: the two ranks are on nodes the given number of "
                     "router-to-router hops apart")
    shared = -(-processes // nics)
    if processes == 1:
        notes.append("one communicating process per node; the adapter is not shared")
    elif nics == 1:
        notes.append(f"{processes} processes per node send at once through one adapter: "
                     "latency is the last one's ((p - 1) serializations wait), streaming "
                     "rate per process shares the adapter (p x serialization per message)")
    else:
        notes.append(f"{processes} processes per node send at once, spread round robin over "
                     f"the node's {nics} NICs: {shared} share the busiest NIC (latency is the "
                     f"last one's, {shared - 1} serializations wait; streaming rate per "
                     f"process: {shared} x serialization per message); node injection and "
                     f"message rate are {nics} x one NIC's")
    notes.append("latency = software overhead + injection + (hops + 1) x router + hops x link "
                 "+ ejection + serialization; host-router links are inside injection/ejection")
    if params["store_and_forward"]:
        notes.append("switching: store-and-forward: each of the hops + 1 routers holds a "
                     "whole packet (the first packet's serialization paid per router)")
    else:
        notes.append("switching: cut-through: serialization paid once, at the slowest channel")
    routing = routing_note(machine)
    if routing:
        notes.append(routing)
    notes.append("packets: payload in whole flits, header flits added per packet, a 0-byte "
                 "message is one header-only packet; links carry header + payload flits at "
                 "link_bandwidth, the host interface payload flits at host_bandwidth")
    if api == "none":
        notes.append("software: none (hardware path only)")
    else:
        notes.append(f"software: {api.upper()} overhead {_OVERHEAD_KEYS[api]} per message "
                     "(send + receive), split evenly between the sides for streaming")
    limit = rendezvous_threshold(machine, api)
    if limit is None:
        notes.append("protocol: eager at every size (no rendezvous handshake)")
    else:
        notes.append(f"protocol: eager up to {limit:g} B (software.rendezvous_threshold); a "
                     "larger message sends its header first and the receiver's NIC pulls the "
                     "rest with a Get: two more one-way trips of a header-only packet")
    if load > 0:
        notes.append(f"contention charged: {pattern} background load; each channel an "
                     "independent M/D/1 queue (Poisson arrivals of full packets, infinite "
                     "buffers), router channels at the busiest channel's utilisation over the "
                     "saturation estimate's share of the bound (the machine's routers: "
                     "virtual_channels, vc_buffer_flits, switch_allocator, internal_speedup; "
                     "docs/saturation.md); the "
                     "wait is the background's queued work, the same for every message size; "
                     "streaming and message rate ignore the background load")
    else:
        notes.append("contention ignored: empty network (zero load)")
    if routing:
        notes.append("message rate: one process streaming back to back, bounded by "
                     "k x link_bandwidth / bytes (V/L, Klimov et al., over the k parallel links;"
                     " no bound for a 0-byte message)")
    else:
        notes.append("message rate: one process streaming back to back, bounded by "
                     "link_bandwidth / bytes (V/L, Klimov et al.; no bound for a 0-byte "
                     "message)")
    return tuple(notes)
