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
Model", SPAA 1995; the message-rate bound V/L: Klimov et al. (Klimov, Orlov, Shvorin), section
"Message rate"; NIC sharing: the contention described in Peryshkova (Peryshkova); M/D/1
waiting time: the Pollaczek-Khinchine formula with deterministic service (e.g. Kleinrock,
*Queueing Systems*, vol. 1, 1975) and Kleinrock's independence approximation for a path of
queues. Everything else is derived in the docstrings of the modules below.

The package is split by concept; everything in ``__all__`` is re-exported here, so callers
write ``from icnperf.model import network`` and ``network.<name>``:

* ``parameters``: :data:`APIS`, :data:`PARAMETERS`, :func:`machine_parameters`,
  :func:`symbolic_parameters`, :func:`bind`;
* ``zero_load``: packetization (:func:`packets`, :func:`flits`, :func:`wire_bytes`, ...)
  and the zero-load latency (:func:`path_latency`, :func:`serialization_time`,
  :func:`store_and_forward_delay`, :func:`hardware_latency`, :func:`latency`);
* ``bandwidth``: ping-pong and streaming bandwidth, message rate and its bound V/L;
* ``contention``: M/D/1 queueing under background load, router efficiency, saturation, and
  processes sharing a node's adapter;
* ``loggp_view``: :class:`LogGP`, :func:`loggp`, :func:`loggp_time`, :func:`from_loggp`,
  :func:`exchange_step`, :func:`half_ping_pong`;
* ``node``: a node's processes spread over its NICs (:func:`processes_per_nic`,
  :func:`node_injection_bandwidth`, :func:`nics_per_node`) and messages inside a node
  through shared memory (:func:`shared_memory_time`, :func:`shared_memory_parameters`);
* ``multipath``: one message over several paths under adaptive gdragonfly routing
  (``network.dragonfly_routing``, ``network.nic_ports``): :func:`parallel_paths`,
  :func:`multipath_serialization`, :func:`dragonfly_routing`, :func:`nic_ports`;
* ``gpu``: messages with GPU buffers (:data:`BUFFERS`): the scale-up fabric between GPUs
  (:func:`pair_route`, :func:`link_table`, :func:`scaleup_domain`), each GPU's NIC
  (:func:`gpu_nics`, :func:`nic_table`, :func:`gpus_sharing_nic`) and the machine values of
  the GPU-buffer path (:func:`gpu_buffer_values`, :class:`WithValues`);
* ``table``: :func:`p2p_table` (every term for sizes x hops, with its assumptions),
  :func:`intra_node_table` (two ranks on one node), :data:`COLUMNS`, :class:`P2PTable`.
"""

from __future__ import annotations

from icnperf.model.network.bandwidth import (
    message_rate,
    pingpong_bandwidth,
    rate_bound,
    streaming_bandwidth,
    streaming_interval,
)
from icnperf.model.network.contention import (
    FIXED_PERMUTATIONS,
    background_service_time,
    channel_utilisation,
    md1_waiting_time,
    packet_service_time,
    queueing_delay,
    saturation_load,
    shared_bandwidth,
    sharing_delay,
)
from icnperf.model.network.gpu import (
    BUFFERS,
    GpuBufferPath,
    PairRoute,
    WithValues,
    gpu_buffer_values,
    gpu_nics,
    gpus_per_node,
    gpus_sharing_nic,
    link_table,
    nic_table,
    pair_route,
    scaleup_domain,
)
from icnperf.model.network.loggp_view import (
    LogGP,
    exchange_step,
    from_loggp,
    half_ping_pong,
    loggp,
    loggp_time,
)
from icnperf.model.network.multipath import (
    ROUTINGS,
    dragonfly_routing,
    multipath_serialization,
    nic_ports,
    parallel_paths,
)
from icnperf.model.network.node import (
    SHARED_MEMORY_KEYS,
    nics_per_node,
    node_injection_bandwidth,
    processes_per_nic,
    shared_memory_parameters,
    shared_memory_time,
)
from icnperf.model.network.parameters import (
    APIS,
    PARAMETERS,
    bind,
    machine_parameters,
    symbolic_parameters,
)
from icnperf.model.network.table import (
    COLUMNS,
    P2PTable,
    intra_node_table,
    p2p_table,
)
from icnperf.model.network.zero_load import (
    flits,
    hardware_latency,
    largest_packet_flits,
    latency,
    packet_payload,
    packets,
    path_latency,
    payload_flits,
    serialization_time,
    store_and_forward_delay,
    wire_bytes,
)

__all__ = [
    "BUFFERS",
    "GpuBufferPath",
    "PairRoute",
    "WithValues",
    "gpu_buffer_values",
    "gpu_nics",
    "gpus_per_node",
    "gpus_sharing_nic",
    "link_table",
    "nic_table",
    "pair_route",
    "scaleup_domain",
    "APIS",
    "ROUTINGS",
    "dragonfly_routing",
    "multipath_serialization",
    "nic_ports",
    "parallel_paths",
    "COLUMNS",
    "PARAMETERS",
    "LogGP",
    "P2PTable",
    "background_service_time",
    "bind",
    "channel_utilisation",
    "flits",
    "exchange_step",
    "from_loggp",
    "half_ping_pong",
    "hardware_latency",
    "intra_node_table",
    "largest_packet_flits",
    "latency",
    "loggp",
    "loggp_time",
    "machine_parameters",
    "md1_waiting_time",
    "message_rate",
    "nics_per_node",
    "node_injection_bandwidth",
    "p2p_table",
    "packet_payload",
    "packet_service_time",
    "packets",
    "path_latency",
    "payload_flits",
    "pingpong_bandwidth",
    "processes_per_nic",
    "queueing_delay",
    "rate_bound",
    "FIXED_PERMUTATIONS",
    "saturation_load",
    "serialization_time",
    "SHARED_MEMORY_KEYS",
    "shared_memory_parameters",
    "shared_memory_time",
    "shared_bandwidth",
    "sharing_delay",
    "store_and_forward_delay",
    "streaming_bandwidth",
    "streaming_interval",
    "symbolic_parameters",
    "wire_bytes",
]
