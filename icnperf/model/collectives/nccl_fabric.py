"""The two-level machine NCCL and RCCL run on: GPUs joined by a scale-up fabric inside a
domain (a node, or an NVL72 rack), domains joined by their NICs through the network.

:func:`ccl_fabric` reads a machine into a :class:`Fabric` of a communicator of ``nodes`` x
``gpus_per_node`` ranks, each rank one GPU (nccl-tests runs one GPU per rank):

* **domains**: a switched fabric's ``node.scaleup_domain`` GPUs (NVLink through NVSwitch; 72
  over 18 trays of 4 in an NVL72), else a node's GPUs. A communicator of N ranks spans
  ``domains`` = ceil(N / D) of them with ``per_domain`` = N / domains GPUs each.
* **scale-up bandwidth** B_up (bytes/s per GPU per direction, what the library's rings or
  chains move out of a GPU, all channels together), the links' signalling rate times the
  library's link efficiency e_link (:func:`.nccl_tables.link_efficiency`: the per-link rate
  its topology search states, e.g. 20.6 of H100's 25 GB/s, 36 of MI250X's 50): switched:
  e_link ``node.scaleup_bandwidth``; direct (xGMI, GH200's NVLink mesh, Xe-Link): the rings
  the library runs at once over different links (:func:`ring_packing_bandwidth`: the most
  bandwidth Hamiltonian rings over the links can carry together, each ring run in both
  directions, as NCCL and RCCL run rings and their reverses on separate channels), where no
  ring closes over links alone the bottleneck pair of the best single ring with the host
  path (``node.gpu_host_bandwidth``) for a missing pair (:func:`best_ring_bandwidth`);
  no fabric: ``gpu_host_bandwidth``.
* **shift bandwidth** (bytes/s): what nccl-tests' send/recv shift (rank r to r+1) moves per
  GPU inside a domain, the bottleneck pair of that order (one pair's links, not the rings'
  packing; the host path for a pair without a link); B_up on a switched fabric.
* **network bandwidth** B_net (bytes/s per direction, a whole domain): the distinct NICs its
  GPUs use (``node.gpu_nics``) x the rate of one, min(``network.link_bandwidth``,
  ``network.host_bandwidth``, ``node.gpu_nic_bandwidth``). NCCL spreads its channels over the
  NICs, so a ring's crossing of a domain boundary has them all (Jeaugey, "Massively Scale
  Your Deep Learning Training with NCCL 2.4", NVIDIA blog, 2019: one ring per NIC).
* **latencies** (s, hardware one way): ``node.scaleup_latency`` inside; between domains
  ``network.injection_latency`` + ``ejection_latency`` + r ``router_latency`` + l
  ``link_latency`` + 2 ``node.gpu_nic_latency``, r = 3 and l = 4 (a route through three
  switches, leaf-spine-leaf) unless the machine's fat tree says how high the
  communicator's nodes climb (:mod:`.nccl_network`: 2L - 1 switches and 2L links to level
  L; one switch within a rail's leaf) or the dragonfly routes them (:mod:`.nccl_dragonfly`:
  h + 1 routers and h + 2 links for a longest minimal route of h router hops).
* **the network behind the NICs** (:mod:`.nccl_network`): on a fat tree (``rail:``,
  ``xgft:``, ``fattree:``, ``clos:``) each algorithm's inter-domain flows are routed and
  B_net divided by the busiest switch-to-switch channel's load over the busiest NIC's
  (:meth:`Fabric.net_bandwidth_of`), where that exceeds 1 (a taper); on a dragonfly
  (``dragonfly:``, ``gdragonfly:``) the same over its local and global channels
  (:mod:`.nccl_dragonfly`).
* **capabilities**: NVLS where ``node.scaleup_nvls`` is true (NVLink SHARP in the NVSwitch);
  CollNet where ``network.collective_hardware`` is ``switch-aggregation`` (SHARP).
* **rails** (what PXN reads, :mod:`.nccl_pxn`): each used GPU's NIC (``node.gpu_nics``), the
  GPU-NIC path (``node.gpu_nic_path``) and the GPU pairs a direct fabric links (all pairs
  on a switched one).
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import NamedTuple

import numpy as np
from scipy.optimize import linprog

from icnperf.errors import InputError
from icnperf.model.collectives.nccl_dragonfly import dragonfly_view
from icnperf.model.collectives.nccl_network import NetworkView, communicator_hops, tree_view
from icnperf.model.collectives.nccl_tables import link_efficiency
from icnperf.model.network.gpu import gpu_nics, gpus_per_node, link_table, scaleup_domain


class Fabric(NamedTuple):
    """A communicator on the two-level machine (module docstring). Bandwidths bytes/s per
    direction, latencies s."""

    ranks: int
    domains: int
    per_domain: int
    gpus_per_node: int
    scaleup_bandwidth: float
    scaleup_latency: float
    link: str
    switched: bool
    nic_bandwidth: float
    domain_nics: int
    net_latency: float
    nvls: bool
    collnet: bool
    architecture: str
    cpu_vendor: str
    link_efficiency: float = 1.0
    shift_bandwidth: float = math.inf
    view: NetworkView | None = None
    gpu_nic_indices: tuple = ()
    domain_nodes: int = 1
    nic_path: str = "pcie-switch"
    linked: frozenset | None = None

    @property
    def net_bandwidth(self) -> float:
        """B_net: the NICs of one domain together (bytes/s per direction)."""
        return self.domain_nics * self.nic_bandwidth

    def network(self, algorithm: str, operation: str, rail_aligned: bool | None = None):
        """The network term of ``algorithm``'s inter-domain flows as the machine's network
        view routes them (:func:`.nccl_network.network_term`: slowdown and level; a fat
        tree's, :mod:`.nccl_network`, or a dragonfly's, :mod:`.nccl_dragonfly`); slowdown 1
        without a view.
        All-to-all stays on the rails where PXN relays it (``rail_aligned``, from
        :func:`.nccl_pxn.pxn_route`; not given: where the scale-up fabric is switched)."""
        from icnperf.model.collectives.nccl_network import cached_network_term, pattern_of

        pattern = pattern_of(algorithm, operation)
        aligned = self.switched if rail_aligned is None else rail_aligned
        cross = pattern == "alltoall" and not aligned
        return cached_network_term(self.view, pattern, self.domains, self.domain_nodes,
                                   self.gpu_nic_indices, cross)

    def net_bandwidth_of(self, algorithm: str, operation: str,
                         rail_aligned: bool | None = None) -> float:
        """B_net over the network's slowdown for ``algorithm`` (bytes/s per direction);
        ``rail_aligned`` as :meth:`network`."""
        return self.net_bandwidth / self.network(algorithm, operation, rail_aligned).slowdown


def best_ring_bandwidth(pair_bandwidth, gpus: int) -> float:
    """The largest bottleneck bandwidth of a ring through GPUs 0..gpus-1, where
    ``pair_bandwidth(a, b)`` is a pair's bandwidth: the best Hamiltonian cycle under the
    bottleneck (max-min) objective, exact, by dynamic programming over subsets holding
    GPU 0 (O(2^g g^2); g <= 16). Two GPUs: their pair."""
    if gpus < 2:
        return math.inf
    if gpus > 16:
        raise InputError(f"a direct scale-up fabric of {gpus} GPUs: rings are searched up "
                         "to 16 GPUs")
    if gpus == 2:
        return pair_bandwidth(0, 1)
    full = (1 << gpus) - 1
    best = [[-1.0] * gpus for _ in range(1 << gpus)]
    best[1][0] = math.inf
    for subset in range(1, full + 1, 2):
        for last in range(gpus):
            value = best[subset][last]
            if value < 0:
                continue
            for nxt in range(1, gpus):
                if subset & (1 << nxt):
                    continue
                candidate = min(value, pair_bandwidth(last, nxt))
                grown = subset | (1 << nxt)
                if candidate > best[grown][nxt]:
                    best[grown][nxt] = candidate
    return max(min(best[full][last], pair_bandwidth(last, 0)) for last in range(1, gpus)
               if best[full][last] >= 0)


PACKED_RINGS_MAX_GPUS = 8
"""Up to this many GPUs the ring packing is exact (every Hamiltonian ring enumerated, 2520 at
8); above, the best single ring run both ways stands for it (a lower bound)."""


def _rings(links: dict[tuple[int, int], float], gpus: int):
    """Every Hamiltonian ring through GPUs 0..gpus-1 over ``links`` pairs, each once (as its
    tuple of pairs, a < b)."""
    for order in itertools.permutations(range(1, gpus)):
        if order[0] > order[-1]:
            continue
        ring = (0, *order, 0)
        pairs = tuple((min(a, b), max(a, b)) for a, b in zip(ring, ring[1:]))
        if all(pair in links for pair in pairs):
            yield pairs


def ring_packing_bandwidth(links: dict[tuple[int, int], float], gpus: int) -> float:
    """The bandwidth (per GPU per direction) of the rings a library runs at once over a direct
    fabric of GPUs 0..gpus-1, ``links`` {(a, b): bytes/s per direction of the pair, a < b}.

    Each channel's ring moves data one way round; the library splits the message over its
    channels, so a GPU sends at the sum of its rings' rates. The most they carry together is
    the packing max sum x_r over Hamiltonian rings r, subject to, for each pair, the rates of
    the rings through it at most its bandwidth: a linear programme over the enumerated rings
    (scipy's HiGHS; exact up to :data:`PACKED_RINGS_MAX_GPUS` GPUs). A ring and its reverse
    use opposite directions of the same links, so the packing counts twice. Two GPUs: the
    pair. 0 when no ring closes over the links."""
    return _packing(tuple(sorted(links.items())), gpus)


@functools.lru_cache(maxsize=64)
def _packing(items: tuple, gpus: int) -> float:
    links = dict(items)
    if gpus == 2:
        return links.get((0, 1), 0.0)
    if gpus > PACKED_RINGS_MAX_GPUS:
        inside = best_ring_bandwidth(lambda a, b: links.get((min(a, b), max(a, b)), 0.0), gpus)
        return 2 * inside
    rings = list(_rings(links, gpus))
    if not rings:
        return 0.0
    pairs = sorted({pair for ring in rings for pair in ring})
    usage = np.zeros((len(pairs), len(rings)))
    for j, ring in enumerate(rings):
        for pair in ring:
            usage[pairs.index(pair), j] = 1.0
    capacity = np.array([links[pair] for pair in pairs])
    result = linprog(-np.ones(len(rings)), A_ub=usage, b_ub=capacity, bounds=(0, None),
                     method="highs")
    return 2 * float(-result.fun)


def _direct_ring(machine, gpus: int, efficiency: float) -> tuple[float, float]:
    """(B_up, the shift's bottleneck pair) of a direct fabric's first ``gpus`` GPUs."""
    table = link_table(machine.require("node.scaleup_links"))
    rate = float(machine.require("node.scaleup_link_bandwidth")) * efficiency
    links = {pair: count * rate for pair, count in table.items()
             if pair[0] < gpus and pair[1] < gpus}

    def pair(a: int, b: int) -> float:
        bandwidth = links.get((min(a, b), max(a, b)))
        return bandwidth if bandwidth else float(machine.require("node.gpu_host_bandwidth"))

    shift = min(pair(r, (r + 1) % gpus) for r in range(gpus))
    counts = {pair: count for pair, count in table.items() if pair[0] < gpus and pair[1] < gpus}
    packed = rate * ring_packing_bandwidth(counts, gpus)  # linear in the rate: packed in links
    return (packed if packed > 0 else best_ring_bandwidth(pair, gpus)), shift


def _linked_pairs(machine, gpus: int) -> frozenset | None:
    """The pairs (a, b), a < b, of a node's first ``gpus`` GPUs that a direct fabric joins by
    links; None on a switched fabric (every pair through the switch); empty without one."""
    kind = machine.get("node.scaleup_fabric")
    if kind == "switched":
        return None
    if kind != "direct":
        return frozenset()
    table = link_table(machine.require("node.scaleup_links"))
    return frozenset(pair for pair in table if pair[1] < gpus)


def node_signature(machine, gpus_per_node_used: int | None = None) -> tuple[str, int, int, int]:
    """(GPU architecture, GPUs, distinct NICs, most linked peers of a GPU) of the part of a
    node a communicator uses: what RCCL's table of known node types is matched on
    (:func:`.rccl_tuning.node_type`)."""
    gpus = gpus_per_node(machine) if gpus_per_node_used is None else int(gpus_per_node_used)
    pairs = _linked_pairs(machine, gpus)
    peers = gpus - 1 if pairs is None else max(
        (sum(g in pair for pair in pairs) for g in range(gpus)), default=0)
    return (str(machine.get("node.gpu_architecture", "unknown")), gpus,
            len(set(gpu_nics(machine)[:gpus])), peers)


def network_view(machine) -> NetworkView | None:
    """The machine's topology as the network term reads it: a fat tree's
    :class:`~.nccl_network.TreeView`, a dragonfly's :class:`~.nccl_dragonfly.DragonflyView`,
    None for any other (the forms keep the NICs alone)."""
    return tree_view(machine) or dragonfly_view(machine)


def ccl_fabric(machine, nodes: int, gpus_per_node_used: int | None = None) -> Fabric:
    """The :class:`Fabric` of ``nodes`` nodes x ``gpus_per_node_used`` GPUs (default: all of
    a node's, ``node.accelerators``). InputError for a machine without GPUs, more ranks per
    node than GPUs, or a single rank (the machine's ``system.nodes`` is the caller's to
    check: a sizing study runs other machines' sizes). A communicator that
    fills its last domain only in part is taken as domains of the full size (n = ceil(N /
    D)), its forms' g the full domain's."""
    gpn_all = gpus_per_node(machine)
    gpn = gpn_all if gpus_per_node_used is None else int(gpus_per_node_used)
    if not 1 <= gpn <= gpn_all:
        raise InputError(f"{gpn} GPUs per node: {machine.name} has {gpn_all} per node (one "
                         "rank per GPU with --api nccl|rccl)")
    ranks = nodes * gpn
    if ranks < 2:
        raise InputError("a collective of one GPU moves nothing: give --nodes 2 or more, or "
                         "--ppn 2 or more")
    fabric_kind = machine.get("node.scaleup_fabric")
    domain_gpus = scaleup_domain(machine)
    nodes_per_domain = max(1, domain_gpus // gpn_all) if fabric_kind == "switched" else 1
    per_domain = min(ranks, nodes_per_domain * gpn)
    domains = math.ceil(ranks / per_domain)
    architecture = str(machine.get("node.gpu_architecture", "unknown"))
    efficiency = link_efficiency(architecture) if fabric_kind in ("switched", "direct") else 1.0
    if fabric_kind == "switched":
        up = shift = float(machine.require("node.scaleup_bandwidth")) * efficiency
        link = "nvlink"
    elif fabric_kind == "direct":
        up, shift = _direct_ring(machine, gpn, efficiency) if gpn > 1 else (math.inf,
                                                                             math.inf)
        link = "nvlink"
    else:
        up = shift = float(machine.require("node.gpu_host_bandwidth"))
        link = "pci"
    nic = min(float(machine.require("network.link_bandwidth")),
              float(machine.require("network.host_bandwidth")),
              float(machine.get("node.gpu_nic_bandwidth", math.inf)))
    nic_indices = tuple(int(i) for i in gpu_nics(machine)[:gpn])
    nics_used = len(set(nic_indices))
    view = network_view(machine)
    domain_nodes = max(1, per_domain // gpn)
    routers, links = communicator_hops(view, domains * domain_nodes if domains > 1 else 1)
    net_latency = (float(machine.get("network.injection_latency", 0.0))
                   + float(machine.get("network.ejection_latency", 0.0))
                   + routers * float(machine.get("network.router_latency", 0.0))
                   + links * float(machine.get("network.link_latency", 0.0))
                   + 2 * float(machine.get("node.gpu_nic_latency", 0.0)))
    return Fabric(
        ranks=ranks, domains=domains, per_domain=per_domain, gpus_per_node=gpn,
        scaleup_bandwidth=up, scaleup_latency=float(machine.get("node.scaleup_latency", 0.0)),
        link=link, switched=fabric_kind == "switched", nic_bandwidth=nic,
        domain_nics=nics_used * (per_domain // gpn or 1),
        net_latency=net_latency,
        nvls=str(machine.get("node.scaleup_nvls", "no")) == "yes" and fabric_kind == "switched",
        collnet=machine.get("network.collective_hardware") == "switch-aggregation",
        architecture=architecture,
        cpu_vendor=str(machine.get("node.cpu_vendor", "other")), link_efficiency=efficiency,
        shift_bandwidth=shift, view=view, gpu_nic_indices=nic_indices,
        domain_nodes=domain_nodes,
        nic_path=str(machine.get("node.gpu_nic_path", "pcie-switch")),
        linked=_linked_pairs(machine, gpn))
