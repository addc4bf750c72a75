"""The machine-file schema: every allowed key with its unit kind and meaning, the node-type
record, and the checks a value must pass (type, sign, integrality, choices).

:data:`SCHEMA` is the one place keys live; docs/machine-format.md documents them. The
parser (:mod:`.parse`), the ``Machine`` record (:mod:`.machine`) and the writer
(:mod:`.serialize`) all check and show values through the functions here.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator, Mapping

from icnperf import units
from icnperf.errors import InputError

FORMAT_VERSION = 1
"""The machine-file format this module reads and writes (top-level key ``format``)."""


@dataclass(frozen=True)
class Key:
    """One allowed machine parameter.

    ``kind`` is a units.py kind (time, bandwidth, size, frequency, rate, count, cycles) or
    ``choice`` (one of ``choices``) or ``text`` (free text, shown but not used by models).
    ``positive`` keys must be > 0 (others ≥ 0); ``maximum`` (when set) is the largest value
    allowed (1 for fractions); ``unit`` is the preferred display unit. A ``text`` key with a
    ``table`` (``links``: GPU pairs and their link counts, ``nics``: a NIC per GPU) is
    checked with the model's table reader and kept as written.
    """

    section: str
    name: str
    kind: str
    meaning: str
    positive: bool = False
    unit: str | None = None
    choices: tuple[str, ...] = ()
    maximum: float | None = None
    table: str | None = None

    @property
    def path(self) -> str:
        return f"{self.section}.{self.name}"

    @property
    def dimensioned(self) -> bool:
        """True when a bare number is not enough: the value needs a unit."""
        return self.kind in ("time", "bandwidth", "size", "frequency", "rate")


_SWITCHING = ("cut-through", "store-and-forward")
_FRACTION = {"positive": True, "maximum": 1.0}

MPI_LIBRARIES = ("mpich", "openmpi", "mvapich2", "intel-mpi")
"""The MPI code bases whose documented algorithm choices a machine's MPI follows
(``software.mpi_library``); vendor builds name their base (Cray MPICH and IBM's Blue Gene/Q
MPI: mpich; Fujitsu MPI and IBM Spectrum MPI: openmpi) and say which in ``mpi_version``."""


def _keys(section: str, *rows: tuple) -> dict[str, Key]:
    out = {}
    for name, kind, meaning, *extra in rows:
        options = extra[0] if extra else {}
        out[name] = Key(section, name, kind, meaning, **options)
    return out


SCHEMA: dict[str, dict[str, Key]] = {
    "network": _keys(
        "network",
        ("link_latency", "time",
         "time for data to cross one router-router link (wire + SerDes), charged per hop"),
        ("link_bandwidth", "bandwidth",
         "payload bandwidth of one link in one direction", {"positive": True, "unit": "Gbit/s"}),
        ("router_latency", "time",
         "time for a packet head to pass one router's pipeline, charged per router traversed"),
        ("router_clock", "frequency", "router (network adapter) clock", {"positive": True}),
        ("router_pipeline_cycles", "cycles",
         "router pipeline depth in router clock cycles (routing, VC allocation, switch "
         "allocation, traversal) for cycle-level descriptions"),
        ("terminal_link_latency", "cycles",
         "router-terminal (endpoint) link traversal in router clock cycles"),
        ("router_link_latency", "cycles",
         "router-router link traversal in router clock cycles"),
        ("flit_size", "size", "smallest unit of transfer (flit)", {"positive": True}),
        ("packet_max_flits", "count",
         "largest packet in flits, header flits included", {"positive": True}),
        ("packet_header_flits", "count",
         "flits of every packet that carry the header instead of payload"),
        ("injection_latency", "time",
         "host -> router: from the send call's doorbell to the packet entering the router, "
         "host interface (e.g. PCIe) included"),
        ("ejection_latency", "time",
         "router -> host: from the packet leaving the router to the data in host memory"),
        ("host_bandwidth", "bandwidth",
         "host interface (e.g. PCIe) bandwidth per direction", {"positive": True, "unit": "GB/s"}),
        ("virtual_channels", "count", "virtual channels per input port", {"positive": True}),
        ("vc_buffer_flits", "count", "buffer depth of one virtual channel in flits",
         {"positive": True}),
        ("switch_allocator", "choice",
         "the routers' switch and VC allocators, one iteration per cycle: separable "
         "(input-first) or islip (BookSim2's iq router); the saturation estimate's matching "
         "efficiency (absent: separable)", {"choices": ("separable", "islip")}),
        ("arbiter", "choice",
         "allocation priority: round-robin or age (oldest packet first); it decides which "
         "requester wins, not how many outputs are matched (absent: age)",
         {"choices": ("round-robin", "age")}),
        ("internal_speedup", "number",
         "allocation rounds per router cycle (BookSim2's internal_speedup; 1: none), "
         "a positive number (absent: 1)", {"positive": True}),
        ("switching", "choice",
         "how ordinary packets cross a router: cut-through forwards the head before the tail "
         "arrives, store-and-forward waits for the whole packet", {"choices": _SWITCHING}),
        ("collective_switching", "choice",
         "the same for hardware-collective (tree) channels", {"choices": _SWITCHING}),
        ("ring_ties", "choice",
         "how a torus routes a message exactly half a ring away in the collective and "
         "application message mapping: plus sends it in the + direction, split sends it + "
         "from even and - from odd ring positions (absent: plus)",
         {"choices": ("plus", "split")}),
        ("tree_routing", "choice",
         "up-port rule of fat trees (fattree, clos, xgft): random spreads every packet over "
         "the up ports, dmodk picks port floor(d / w1..w_l) mod (w·p) by destination d as "
         "SimGrid's FatTreeZone (absent: random)",
         {"choices": ("random", "dmodk")}),
        ("dragonfly_routing", "choice",
         "how a gdragonfly routes one message's packets: minimal sends them all on the MIN "
         "route (one path), adaptive spreads them packet by packet over minimal and "
         "non-minimal (Valiant) paths, so a large message streams at the smaller of the "
         "NIC's rate and the maximum flow between the two routers (absent: minimal)",
         {"choices": ("minimal", "adaptive")}),
        ("nic_ports", "count",
         "router ports of one NIC, each at link_bandwidth: under adaptive dragonfly routing "
         "a message's packets leave and enter the NIC over all of them (absent: 1)",
         {"positive": True}),
        ("collective_trees", "count",
         "hardware collective trees the routers support (absent: no hardware collectives "
         "unless collective_hardware is switch-aggregation)"),
        ("collective_hardware", "choice",
         "what combines a collective in the network: angara-tree (the Angara router's "
         "collective tree with its reduce credits), torus-router (collective logic in the "
         "torus routers, Blue Gene/Q's class routes), switch-aggregation (reduction in "
         "fat-tree switches, InfiniBand SHARP) (absent: angara-tree when collective_trees is "
         "set, else none)",
         {"choices": ("angara-tree", "torus-router", "switch-aggregation")}),
        ("aggregation_payload", "size",
         "largest payload one switch aggregation operation carries (SHARP: per outstanding "
         "transaction); larger reductions are pipelined in fragments of this size",
         {"positive": True}),
        ("aggregation_window", "count",
         "switch aggregation operations (fragments) one job keeps in flight (SHARP: "
         "outstanding transactions per group)", {"positive": True}),
    ),
    "node": _keys(
        "node",
        ("cpu", "text", "processor(s) of one node, for display"),
        ("peak_flops", "rate", "peak floating-point rate of one node", {"positive": True}),
        ("memory_bandwidth", "bandwidth", "peak DRAM bandwidth of one node (all sockets)",
         {"positive": True, "unit": "GB/s"}),
        ("cores", "count", "CPU cores of one node", {"positive": True}),
        ("processes_per_node", "count", "default number of processes placed on one node",
         {"positive": True}),
        ("spmv_rate", "rate", "measured single-node sparse matrix-vector product rate "
         "(absent: the node's SpMV roofline, derived)", {"positive": True}),
        ("stencil_rate", "rate", "measured single-node rate of the heat-equation stencil "
         "(absent: the node's stencil roofline, derived)", {"positive": True}),
        ("stencil_overhead", "time",
         "fixed time of one stencil sweep on one node whatever the block size (thread "
         "start-up and join, loop set-up; absent: 0)"),
        ("memory_efficiency", "number",
         "fraction of memory_bandwidth a streaming kernel reaches on this node (STREAM "
         "triad / peak), with its source; HPCG's memory roofline runs at it", _FRACTION),
        ("nics_per_node", "count",
         "network interfaces (NICs, rails, Tofu TNIs) of one node: its processes are spread "
         "over them, so injection bandwidth and message rate scale with the count "
         "(absent: 1)", {"positive": True}),
        ("nic_attachment", "choice",
         "where a node's NICs attach: same-switch (all to the node's own router) or spread "
         "(to different switches); the model keeps one topology endpoint per node either "
         "way (docs/machine-format.md, 'Nodes with several NICs') (absent: same-switch)",
         {"choices": ("same-switch", "spread")}),
        ("accelerators", "count",
         "accelerator devices of one node as programs see them (an AMD MI250X is two GCDs; "
         "absent: 0)"),
        ("accelerator_peak_flops", "rate", "peak double-precision rate of one accelerator",
         {"positive": True}),
        ("accelerator_memory_bandwidth", "bandwidth",
         "peak memory (HBM) bandwidth of one accelerator", {"positive": True, "unit": "GB/s"}),
        ("accelerator_memory_efficiency", "number",
         "fraction of accelerator_memory_bandwidth a streaming kernel reaches (e.g. "
         "BabelStream triad / peak), with its source", _FRACTION),
        ("scaleup_fabric", "choice",
         "how a node's GPUs are joined: switched (NVLink through NVSwitch: any pair of a "
         "domain at scaleup_bandwidth) or direct (a link table of GPU pairs: xGMI, Xe-Link, "
         "GH200's NVLink mesh) (absent: none, GPU pairs go through the host at "
         "gpu_host_bandwidth)", {"choices": ("switched", "direct")}),
        ("scaleup_bandwidth", "bandwidth",
         "switched fabric: bandwidth of one GPU into the fabric, per direction",
         {"positive": True, "unit": "GB/s"}),
        ("scaleup_latency", "time",
         "one-way hardware latency of a small GPU-to-GPU transfer over the scale-up fabric "
         "(one switch crossing or one direct link; absent: 0)"),
        ("scaleup_domain", "count",
         "switched fabric: GPUs in one scale-up domain; more than accelerators when a domain "
         "spans nodes (NVL72: 72 GPUs over 18 nodes of 4) (absent: accelerators)",
         {"positive": True}),
        ("scaleup_links", "text",
         "direct fabric: link table of GPU pairs, items A-B:N (GPUs A and B joined by N "
         "links, e.g. '0-1:4 0-2:1'); pairs not listed have no direct link",
         {"table": "links"}),
        ("scaleup_link_bandwidth", "bandwidth",
         "direct fabric: bandwidth of one link, per direction", {"positive": True, "unit": "GB/s"}),
        ("gpu_nics", "text",
         "the NIC of each GPU, NIC indices (0..nics_per_node-1) in GPU order, e.g. "
         "'0 0 1 1 2 2 3 3' (absent: round robin, GPU g on NIC g mod nics_per_node)",
         {"table": "nics"}),
        ("gpu_nic_path", "choice",
         "the path between a GPU and its NIC: pcie-switch (both behind one PCIe switch), "
         "gpu-attached (the NIC on the GPU package's own link), c2c (NVLink-C2C through the "
         "Grace CPU, NIC on its PCIe), cpu (through the host CPU's PCIe root)",
         {"choices": ("pcie-switch", "gpu-attached", "c2c", "cpu")}),
        ("gpu_nic_bandwidth", "bandwidth",
         "bandwidth of the GPU-NIC path, per direction: caps GPUDirect RDMA",
         {"positive": True, "unit": "GB/s"}),
        ("gpu_nic_latency", "time",
         "time the GPU-NIC path adds on each side over the host-memory path (absent: 0)"),
        ("gpu_host_bandwidth", "bandwidth",
         "bandwidth between one GPU's memory and host memory, per direction (PCIe, "
         "NVLink-C2C, Infinity Fabric): staging copies, GPU pairs with no direct link",
         {"positive": True, "unit": "GB/s"}),
        ("gpu_copy_latency", "time",
         "start-up time of one staging copy between GPU and host memory (absent: 0)"),
        ("gpu_memory", "choice",
         "GPU memory separate from the host's, or unified: one memory (MI300A's HBM, "
         "GH200's coherent pair) whose bandwidth is counted once (absent: separate)",
         {"choices": ("separate", "unified")}),
        ("gpu_architecture", "choice",
         "the GPUs' generation, which NCCL's and RCCL's cost-model caps are indexed by: "
         "volta, ampere, hopper, blackwell (NVIDIA compute capability 7.x, 8.x, 9.x, 10.x), "
         "cdna2 (MI250X), cdna3 (MI300A/X), xe-hpc (Ponte Vecchio)",
         {"choices": ("volta", "ampere", "hopper", "blackwell", "cdna2", "cdna3", "xe-hpc")}),
        ("cpu_vendor", "choice",
         "the host CPUs' vendor: NCCL's network posting overhead and LL caps across nodes "
         "depend on it (intel, amd, arm; absent: other)",
         {"choices": ("intel", "amd", "arm", "other")}),
        ("scaleup_nvls", "choice",
         "yes when the switched scale-up fabric reduces and multicasts in the switch (NVLink "
         "SHARP of third-generation NVSwitch and later: NCCL's NVLS algorithms) (absent: no)",
         {"choices": ("yes", "no")}),
        ("shared_memory_latency", "time",
         "one-way latency of a small MPI message between two processes of one node "
         "(shared memory; osu_latency inside a node)"),
        ("shared_memory_bandwidth", "bandwidth",
         "bandwidth of a large MPI message between two processes of one node (shared-memory "
         "copy; osu_bw inside a node)", {"positive": True, "unit": "GB/s"}),
    ),
    "software": _keys(
        "software",
        ("mpi_latency", "time",
         "published one-way latency of a small MPI message between two neighbouring nodes"),
        ("shmem_latency", "time",
         "published one-way latency of a small SHMEM put between two neighbouring nodes"),
        ("mpi_overhead", "time",
         "software time MPI adds per message on top of the network path (send + receive)"),
        ("mpi_step_overhead", "time",
         "software time an MPI collective adds per step of a point-to-point algorithm, "
         "beyond its messages' mpi_overhead (absent: 0)"),
        ("shmem_overhead", "time",
         "software time SHMEM adds per message on top of the network path"),
        ("gpu_buffer_path", "choice",
         "how the machine's MPI moves GPU buffers between nodes: gpudirect-rdma (the NIC "
         "reads and writes GPU memory) or staging (copies through host memory)",
         {"choices": ("gpudirect-rdma", "staging")}),
        ("gpu_buffer_path_node", "choice",
         "how it moves GPU buffers inside a node: ipc (GPU to GPU over the scale-up fabric) "
         "or staging (through host shared memory)", {"choices": ("ipc", "staging")}),
        ("gpu_mpi_overhead", "time",
         "software time MPI adds per message on GPU buffers (send + receive), in place of "
         "mpi_overhead; registrations are cached, not charged per message"),
        ("eager_limit", "size",
         "largest message an MPI send returns at once for (eager): the collectives' flow "
         "model lets such sends leave together; larger ones wait for their receiver (what "
         "predict p2p charges a large message is rendezvous_threshold)"),
        ("rendezvous_threshold", "size",
         "largest point-to-point MPI message sent in one go; a larger one sends its header "
         "first and the receiver's NIC pulls the rest with a Get: two more one-way trips of "
         "a header-only packet (model/network/rendezvous.py; absent: eager at every size)"),
        ("mpi_library", "choice",
         "the MPI code base the machine's MPI follows (vendor builds name their base)",
         {"choices": MPI_LIBRARIES}),
        ("mpi_version", "text", "the MPI library as installed: vendor, name and version"),
        ("ccl_library", "choice",
         "the GPU collective library (--api nccl|rccl): nccl or rccl; its version picks "
         "the cost-model tables of --algorithm auto",
         {"choices": ("nccl", "rccl")}),
        ("ccl_version", "text", "the collective library as installed, e.g. 2.30.7"),
        ("ccl_channels", "count",
         "channels (rings or trees run in parallel, each a thread block) the library opens "
         "per GPU; scales its per-channel bandwidth caps (absent: 16)", {"positive": True}),
        ("hpcg_optimized", "choice",
         "what `predict app hpcg --variant optimized` runs: vendor (the vendor-optimized "
         "HPCG of the HPCG list: memory roofline on the node's fastest memory at its "
         "efficiency, MPI halo and dot products) or angara-shmem (the SHMEM port with "
         "node-level factors of Agarkov 2015) (absent: vendor)", {"choices": ("vendor", "angara-shmem")}),
    ),
    "system": _keys(
        "system",
        ("name", "text", "the system's name, for display (icnperf machines)"),
        ("site", "text", "where the system is installed"),
        ("year", "count", "year the system (or this configuration) entered service",
         {"positive": True}),
        ("nodes", "count",
         "nodes the machine has (compute nodes; on a torus the nodes on its network): the "
         "default job of predict and explain; a fat tree or dragonfly built from "
         "whole switches may hold more (absent: every endpoint of the topology)",
         {"positive": True}),
    ),
    "production": _keys(
        "production",
        ("background_utilization", "number",
         "fraction of the busiest channel's bandwidth that other jobs keep busy on a "
         "production machine (0-1): the background of `--production`, carried to the M/D/1 "
         "queueing as offered load = utilization x the saturation load "
         "(model/production.py) (absent: an empty network)", {"maximum": 1.0}),
        ("noise_frequency", "frequency",
         "operating-system detours per second on each rank of a production machine "
         "(absent: no noise)"),
        ("noise_duration", "time",
         "length of one operating-system detour (absent: no noise)"),
        ("node_occupancy", "number",
         "share of the machine's nodes allocated to other jobs on a production machine "
         "(0-1): a job's nodes are the first free ones of a machine whose free nodes are "
         "scattered, so it spans more groups or leaf switches (model/scheduled_placement.py) "
         "(absent: an empty machine, the job where --placement puts it)", {"maximum": 1.0}),
    ),
}
"""Every allowed key, by section and name: its unit kind and meaning. The one place keys live."""

SECTIONS = tuple(SCHEMA)
"""The parameter sections, in file order."""

NODE_TYPE_KEYS: dict[str, Key] = {
    "count": Key("node_types", "count", "count", "nodes of this type in the machine"),
    **{
        name: replace(key, section="node_types")
        for name, key in SCHEMA["node"].items()
        if name != "processes_per_node"
    },
}
"""Keys of a ``[node_types.NAME]`` table: a count and the node keys."""

TOP_LEVEL = ("format", "name", "description", "topology", "notes", *SECTIONS, "node_types")
TYPE_NAME_RE = re.compile(r"[A-Za-z0-9_-]+")
"""A node type's NAME in ``[node_types.NAME]``."""

Value = float | int | str
"""A checked machine value: int (counts, cycles), float (SI quantities) or str."""


class FrozenMap(Mapping):
    """A read-only, picklable, hashable mapping (dataclass fields of a frozen Machine)."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping | Iterable = ()):
        self._data = dict(data)

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self) -> Iterator:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        return hash(frozenset(self._data.items()))

    def __repr__(self) -> str:
        return repr(self._data)

    def __getstate__(self):
        return self._data

    def __setstate__(self, state):
        self._data = state


@dataclass(frozen=True)
class NodeType:
    """One kind of node in a heterogeneous machine: how many, and its node parameters
    (keys of the ``node`` section, ``cpu`` naming the processor)."""

    count: int
    params: Mapping[str, Value] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "params", FrozenMap(self.params))


# ---------------------------------------------------------------------------------- checks


def ordered(values: Mapping[str, Value], keys: Mapping[str, Key]) -> dict[str, Value]:
    """``values`` in the order ``keys`` declares them (schema order)."""
    return {name: values[name] for name in keys if name in values}


def unknown_key(where: str, path: str, known: Mapping[str, Key]) -> InputError:
    """The one-line error for a key the schema does not know, listing the known ones."""
    return InputError(f"{where}: unknown key {path!r} (known: {', '.join(known)})")


def check_topology(value: Any, where: str) -> None:
    """Raise InputError unless value is a topology spec the model accepts."""
    from icnperf.model.topology.spec import parse_spec

    if not isinstance(value, str):
        raise InputError(f"{where}: topology must be a spec such as 'torus:16x16x32', got {value!r}")
    try:
        parse_spec(value)
    except InputError as error:
        raise InputError(f"{where}: {error}") from None


def check_value(key: Key, value: Any, where: str, path: str) -> Value:
    """Check an already-SI value against its key (type, sign, integrality, choices) and
    return it as a plain Python int (counts, cycles), float or str."""
    if key.kind in ("choice", "text"):
        if not isinstance(value, str):
            raise InputError(f"{where}: {path} must be text, got {value!r}")
        if key.kind == "choice" and value not in key.choices:
            raise InputError(
                f"{where}: {path} = {value!r} is not one of: {', '.join(key.choices)}"
            )
        if key.table is not None:
            _check_table(key, value, where, path)
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{where}: {path} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise InputError(f"{where}: {path} must be finite, got {value!r}")
    if value < 0:
        raise InputError(f"{where}: {path} = {value!r} is negative; values must be >= 0")
    if key.positive and value == 0:
        raise InputError(f"{where}: {path} must be greater than 0")
    if key.maximum is not None and value > key.maximum:
        raise InputError(f"{where}: {path} = {value!r} is above its maximum {key.maximum:g}")
    if key.kind in ("count", "cycles"):
        if not isinstance(value, numbers.Integral):
            raise InputError(f"{where}: {path} must be a whole number, got {value!r}")
        return int(value)
    return float(value)


def _check_table(key: Key, value: str, where: str, path: str) -> None:
    """InputError naming the key unless ``value`` reads as the key's table."""
    from icnperf.model.network.gpu import link_table, nic_table

    try:
        (link_table if key.table == "links" else nic_table)(value)
    except InputError as error:
        raise InputError(f"{where}: {path}: {error}") from None


def parse_value(key: Key, raw: Any, where: str, path: str) -> Value:
    """A TOML or --set value (text, number) for ``key`` -> checked SI value."""
    if key.kind in ("choice", "text"):
        return check_value(key, raw.strip() if isinstance(raw, str) else raw, where, path)
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        raise InputError(f"{where}: {path} must be a number or text with a unit, got {raw!r}")
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        if not math.isfinite(raw):
            raise InputError(f"{where}: {path} must be finite, got {raw!r}")
        if raw < 0:
            raise InputError(f"{where}: {path} = {raw!r} is negative; values must be >= 0")
        if key.dimensioned and raw != 0:
            example = units.KINDS[key.kind].example.split(" ", 1)[1]
            raise InputError(f"{where}: {path}: {raw!r} has no unit; write e.g. '{raw} {example}'")
    try:
        value = units.parse_quantity(raw, key.kind)
    except InputError as err:
        raise InputError(f"{where}: {path}: {err}") from None
    if key.kind in ("count", "cycles"):
        value = int(value)
    return check_value(key, value, where, path)


def value_syntax(key: Key) -> str:
    """What a ``--set`` of ``key`` takes, as syntax rather than a value (a suggested number
    would not fit every machine): ``VALUE`` with a unit of its kind, the choices, ``COUNT``
    or ``VALUE``."""
    if key.kind == "choice":
        return "|".join(key.choices)
    if key.kind in ("count", "cycles"):
        return "COUNT"
    if key.kind in units.KINDS and key.dimensioned:
        unit = key.unit or units.KINDS[key.kind].example.split(" ", 1)[1]
        return f"VALUE with a unit such as {unit}"
    return "VALUE"


def key_for_path(path: str, where: str) -> Key:
    """The Key of a dotted path (``SECTION.KEY`` or ``node_types.NAME.KEY``); InputError
    naming ``where`` for an unknown or malformed path."""
    parts = path.split(".")
    if parts[0] == "node_types":
        if len(parts) != 3 or not TYPE_NAME_RE.fullmatch(parts[1]):
            raise InputError(f"{where}: expected node_types.NAME.KEY, got {path!r}")
        key = NODE_TYPE_KEYS.get(parts[2])
        if key is None:
            raise unknown_key(where, path, NODE_TYPE_KEYS)
        return key
    if parts[0] not in SCHEMA:
        raise InputError(
            f"{where}: unknown section {parts[0]!r} "
            f"(known: topology, {', '.join(SECTIONS)}, node_types.NAME)"
        )
    if len(parts) != 2:
        raise InputError(f"{where}: expected SECTION.KEY, got {path!r}")
    key = SCHEMA[parts[0]].get(parts[1])
    if key is None:
        raise unknown_key(where, path, SCHEMA[parts[0]])
    return key
