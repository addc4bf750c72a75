"""Messages whose buffers sit in GPU memory: the scale-up fabric between a node's GPUs, each
GPU's NIC, and the path the machine's MPI takes for GPU buffers.

A GPU-buffer message is the host-buffer message of :mod:`.table` run at other parameters,
so the same formulas (and the collectives and skeletons that call them) serve both.
:func:`gpu_buffer_values` gives those parameters as machine values:

* **Between nodes, GPUDirect RDMA** (``software.gpu_buffer_path = gpudirect-rdma``): the
  sending GPU's NIC reads GPU memory directly. The software overhead is
  ``software.gpu_mpi_overhead`` instead of ``mpi_overhead``; injection and ejection each
  gain ``node.gpu_nic_latency`` (the GPU-NIC path beyond the host path); the host interface
  runs at min(``network.host_bandwidth``, ``node.gpu_nic_bandwidth``).
* **Between nodes, staging**: each side copies through host memory (device to host at the
  sender, host to device at the receiver), not overlapped with the network:
  overhead + 2 ``node.gpu_copy_latency``, and 1 / B = 1 / min(B_link, B_host) + 2 / B_gh with
  B_gh = ``node.gpu_host_bandwidth`` (copies in series with the wire).
* **Inside a node, IPC** (``software.gpu_buffer_path_node = ipc``): the receiving process maps
  the sender's buffer and copies GPU to GPU over the scale-up fabric: latency
  ``gpu_mpi_overhead`` + ``node.scaleup_latency``, bandwidth that of the pair
  (:func:`pair_route`).
* **Inside a node, staging**: the host shared-memory path plus a copy on each side:
  L_shm + 2 ``gpu_copy_latency``, 1 / B = 1 / B_shm + 2 / B_gh.

MPI libraries cache memory registrations (registration caches, IPC handle caches), so no
registration is charged per message.

Pairs (:func:`pair_route`): a switched fabric (NVLink through NVSwitch) gives every pair in
one domain of ``node.scaleup_domain`` GPUs ``node.scaleup_bandwidth`` per direction (the
per-GPU figure: one pair talking alone reaches it); a direct fabric (xGMI, Xe-Link, GH200's
NVLink mesh) gives a pair its links x ``node.scaleup_link_bandwidth``; a pair with no
direct link, or a node without a fabric, copies through the host at
``node.gpu_host_bandwidth`` (one pass through the host's root complex, not two staged
copies). A domain wider than a node (NVL72) is reached only inside a node's messages
(``same_node`` with a GPU of another tray): a message between nodes takes the NICs even when
both nodes share the domain.

Units: bytes, seconds, bytes/s. Sources: the latency-bandwidth (Hockney) form as in
:mod:`.node`; the paths as the MPI libraries document them (Cray MPICH's
MPICH_GPU_SUPPORT_ENABLED GPU-NIC RDMA and GPU IPC; MVAPICH2-GDR's GPUDirect RDMA, IPC and
pipelined host staging: Potluri et al., "Efficient Inter-node MPI Communication using
GPUDirect RDMA for InfiniBand Clusters with NVIDIA GPUs", ICPP 2013).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from icnperf.errors import InputError

BUFFERS = ("host", "gpu")
"""Where a message's buffers sit: host memory (the default, the host-buffer model) or GPU
memory (this module)."""

_PAIR = re.compile(r"(\d+)-(\d+):(\d+)")


def link_table(text: str) -> dict[tuple[int, int], int]:
    """``node.scaleup_links`` text -> {(a, b): links} with a < b.

    The text is space- or comma-separated ``A-B:N`` items: GPUs A and B joined by N direct
    links ("0-1:4 0-2:1"). InputError for a malformed item, a GPU joined to itself, a pair
    given twice or a count of 0."""
    table: dict[tuple[int, int], int] = {}
    items = [item for item in re.split(r"[\s,]+", text.strip()) if item]
    if not items:
        raise InputError("a link table needs at least one A-B:N item (GPUs A and B, N links)")
    for item in items:
        match = _PAIR.fullmatch(item)
        if match is None:
            raise InputError(f"link table item {item!r} is not A-B:N (e.g. 0-1:4)")
        a, b, links = (int(group) for group in match.groups())
        if a == b:
            raise InputError(f"link table item {item!r} joins a GPU to itself")
        if links == 0:
            raise InputError(f"link table item {item!r} has 0 links; leave the pair out")
        pair = (min(a, b), max(a, b))
        if pair in table:
            raise InputError(f"link table gives the pair {pair[0]}-{pair[1]} twice")
        table[pair] = links
    return table


def nic_table(text: str) -> tuple[int, ...]:
    """``node.gpu_nics`` text -> the NIC index of each GPU in GPU order ("0 0 1 1" or
    "0,0,1,1"); InputError for anything but whole numbers."""
    items = [item for item in re.split(r"[\s,]+", text.strip()) if item]
    if not items or not all(item.isdigit() for item in items):
        raise InputError(f"a GPU -> NIC table is NIC indices in GPU order (e.g. '0 0 1 1'),"
                         f" got {text!r}")
    return tuple(int(item) for item in items)


# --- a machine's GPUs --------------------------------------------------------------------


def gpus_per_node(machine) -> int:
    """``node.accelerators``; InputError when the machine has none."""
    count = int(machine.get("node.accelerators", 0))
    if count < 1:
        raise InputError(f"machine {machine.name!r} has no GPUs (node.accelerators); GPU "
                         "buffers need them")
    return count


def gpu_nics(machine) -> tuple[int, ...]:
    """The NIC of each GPU of a node: ``node.gpu_nics`` (absent: round robin, GPU g on NIC
    g mod ``node.nics_per_node``). InputError when the table's length is not the GPU count
    or it names a NIC the node lacks."""
    gpus = gpus_per_node(machine)
    nics = int(machine.get("node.nics_per_node", 1))
    text = machine.get("node.gpu_nics")
    if text is None:
        return tuple(g % nics for g in range(gpus))
    table = nic_table(text)
    if len(table) != gpus:
        raise InputError(f"machine {machine.name!r}: node.gpu_nics lists {len(table)} GPUs,"
                         f" node.accelerators is {gpus}")
    if max(table) >= nics:
        raise InputError(f"machine {machine.name!r}: node.gpu_nics names NIC {max(table)},"
                         f" node.nics_per_node is {nics} (NICs 0..{nics - 1})")
    return table


def gpus_sharing_nic(machine, processes: int, gpu: int = 0) -> int:
    """Processes on the NIC of ``gpu`` when ``processes`` processes of a node each drive one
    GPU, the sending ``gpu`` and the next ones in order (mod the GPU count), and each sends
    through its GPU's NIC (:func:`gpu_nics`): Frontier, GCD 0 and 2 processes: GCDs 0 and 1,
    both on NIC 0, so 2."""
    gpus = gpus_per_node(machine)
    if processes > gpus:
        raise InputError(f"{processes} processes per node with GPU buffers: the node has "
                         f"{gpus} GPUs (one process per GPU)")
    if not 0 <= gpu < gpus:
        raise InputError(f"GPU {gpu} is not on the node (GPUs 0..{gpus - 1}); between nodes "
                         "the sender is one of its node's GPUs")
    table = gpu_nics(machine)
    return sum(1 for k in range(processes) if table[(gpu + k) % gpus] == table[gpu])


def scaleup_domain(machine) -> int:
    """GPUs that share one scale-up domain: ``node.scaleup_domain`` on a switched fabric
    (may span nodes, as an NVL72 rack), else the node's GPUs."""
    gpus = gpus_per_node(machine)
    if machine.get("node.scaleup_fabric") == "switched":
        return int(machine.get("node.scaleup_domain", gpus))
    return gpus


class PairRoute(NamedTuple):
    """How one GPU reaches another without the network: bandwidth (bytes/s, one
    direction), hardware latency (s) and a description of the route."""

    bandwidth: float
    latency: float
    route: str


def pair_route(machine, a: int, b: int) -> PairRoute:
    """The route between GPUs ``a`` and ``b`` of one scale-up domain (module docstring).
    InputError for a GPU outside the domain, a = b, or a missing key."""
    domain = scaleup_domain(machine)
    for gpu in (a, b):
        if not 0 <= gpu < domain:
            where = "scale-up domain" if domain > gpus_per_node(machine) else "node"
            raise InputError(f"GPU {gpu} is not in the {where} of {machine.name} "
                             f"(GPUs 0..{domain - 1})")
    if a == b:
        raise InputError(f"--from-gpu and --to-gpu are both {a}: give two different GPUs")
    fabric = machine.get("node.scaleup_fabric")
    latency = float(machine.get("node.scaleup_latency", 0.0))
    if fabric == "switched":
        return PairRoute(float(machine.require("node.scaleup_bandwidth")), latency,
                         f"switched scale-up fabric, node.scaleup_bandwidth per GPU per"
                         f" direction (domain of {domain} GPUs)")
    if fabric == "direct":
        table = link_table(machine.require("node.scaleup_links"))
        highest = max(max(pair) for pair in table)
        if highest >= domain:
            raise InputError(f"machine {machine.name!r}: node.scaleup_links names GPU "
                             f"{highest}, node.accelerators is {domain} (GPUs 0..{domain - 1})")
        links = table.get((min(a, b), max(a, b)))
        if links:
            rate = float(machine.require("node.scaleup_link_bandwidth"))
            return PairRoute(links * rate, latency,
                             f"{links} direct link(s) x node.scaleup_link_bandwidth")
    return PairRoute(float(machine.require("node.gpu_host_bandwidth")), latency,
                     "no direct link: through the host at node.gpu_host_bandwidth")


# --- the GPU-buffer path -----------------------------------------------------------------


class GpuBufferPath(NamedTuple):
    """What :func:`gpu_buffer_values` returns: machine values (path -> SI value) that make
    the host-buffer model describe GPU buffers, and the notes saying how."""

    values: dict
    notes: tuple[str, ...]


def gpu_buffer_values(machine, *, same_node: bool = False, from_gpu: int = 0,
                      to_gpu: int | None = None) -> GpuBufferPath:
    """The machine values a GPU-buffer message runs at (module docstring).

    Between nodes: ``software.mpi_overhead``, ``network.injection_latency``,
    ``network.ejection_latency`` and ``network.host_bandwidth`` by
    ``software.gpu_buffer_path``. Inside a node (``same_node``; also the node-local stages of
    collectives): ``node.shared_memory_latency`` and ``node.shared_memory_bandwidth`` of the
    pair ``from_gpu`` -> ``to_gpu`` (default: the first pair, 0 -> 1) by
    ``software.gpu_buffer_path_node``. InputError for a missing key or a bad pair."""
    gpus_per_node(machine)
    overhead = float(machine.require("software.gpu_mpi_overhead"))
    copy_latency = float(machine.get("node.gpu_copy_latency", 0.0))
    values: dict = {}
    notes = ["buffers: GPU memory (OSU -d cuda|rocm D D); memory registration is cached by "
             "MPI, not charged per message"]
    if to_gpu is None:
        to_gpu = 1 if from_gpu == 0 else 0
    node_path = machine.get("software.gpu_buffer_path_node")
    if not same_node and scaleup_domain(machine) > 1 and node_path is None:
        notes.append("node-local stages: host shared memory (no "
                     "software.gpu_buffer_path_node)")
    if same_node or (scaleup_domain(machine) > 1 and node_path is not None):
        where = "inside a node" if same_node else "node-local stages"
        route = pair_route(machine, from_gpu, to_gpu)
        if machine.require("software.gpu_buffer_path_node") == "ipc":
            values["node.shared_memory_latency"] = overhead + route.latency
            values["node.shared_memory_bandwidth"] = route.bandwidth
            notes.append(f"{where}: GPU IPC, GPU {from_gpu} -> GPU {to_gpu} over "
                         f"{route.route}; latency = software.gpu_mpi_overhead + "
                         "node.scaleup_latency")
        else:
            shm_latency = float(machine.require("node.shared_memory_latency"))
            shm_bandwidth = float(machine.require("node.shared_memory_bandwidth"))
            host = float(machine.require("node.gpu_host_bandwidth"))
            values["node.shared_memory_latency"] = shm_latency + 2 * copy_latency
            values["node.shared_memory_bandwidth"] = 1 / (1 / shm_bandwidth + 2 / host)
            notes.append(f"{where}: GPU {from_gpu} -> GPU {to_gpu} staged through host "
                         "memory, a device-host copy on each side in series with the "
                         "shared-memory message")
    if not same_node:
        path = machine.require("software.gpu_buffer_path")
        injection = float(machine.require("network.injection_latency"))
        ejection = float(machine.require("network.ejection_latency"))
        host_bandwidth = float(machine.require("network.host_bandwidth"))
        link_bandwidth = float(machine.require("network.link_bandwidth"))
        if not 0 <= from_gpu < gpus_per_node(machine):
            raise InputError(f"GPU {from_gpu} is not on the node (GPUs 0.."
                             f"{gpus_per_node(machine) - 1}); between nodes the sender is one"
                             " of its node's GPUs")
        nic = gpu_nics(machine)[from_gpu]
        if path == "gpudirect-rdma":
            extra = float(machine.get("node.gpu_nic_latency", 0.0))
            values["software.mpi_overhead"] = overhead
            values["network.injection_latency"] = injection + extra
            values["network.ejection_latency"] = ejection + extra
            values["network.host_bandwidth"] = min(
                host_bandwidth, float(machine.require("node.gpu_nic_bandwidth")))
            notes.append(f"between nodes: GPUDirect RDMA from GPU {from_gpu} through its NIC "
                         f"{nic} (node.gpu_nics); overhead software.gpu_mpi_overhead, "
                         "node.gpu_nic_latency added to injection and ejection, host "
                         "interface at min(host_bandwidth, node.gpu_nic_bandwidth)")
        else:
            gpu_host = float(machine.require("node.gpu_host_bandwidth"))
            wire = min(host_bandwidth, link_bandwidth)
            values["software.mpi_overhead"] = overhead + 2 * copy_latency
            values["network.host_bandwidth"] = 1 / (1 / wire + 2 / gpu_host)
            notes.append(f"between nodes: staged through host memory from GPU {from_gpu} (NIC "
                         f"{nic}): a device-host copy on each side in series with the "
                         "message, overhead + 2 x node.gpu_copy_latency")
    return GpuBufferPath(values, tuple(notes))


class WithValues:
    """A machine seen with some values replaced (path -> SI value): ``get`` and ``require``
    answer from ``values`` first, everything else from the machine. Lets the host-buffer
    formulas read a GPU-buffer path without building a new machine record."""

    def __init__(self, machine, values):
        self._machine = machine
        self._values = dict(values)

    def get(self, path, default=None):
        if path in self._values:
            return self._values[path]
        return self._machine.get(path, default)

    def require(self, path):
        if path in self._values:
            return self._values[path]
        return self._machine.require(path)

    def __getattr__(self, name):
        return getattr(self._machine, name)
