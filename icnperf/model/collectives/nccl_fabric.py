"""The two-level machine NCCL and RCCL run on: GPUs joined by a scale-up fabric inside a
domain (a node, or an NVL72 rack), domains joined by their NICs through the network.

:func:`ccl_fabric` reads a machine into a :class:`Fabric` of a communicator of ``nodes`` x
``gpus_per_node`` ranks, each rank one GPU (nccl-tests runs one GPU per rank):

* **domains**: a switched fabric's ``node.scaleup_domain`` GPUs (NVLink through NVSwitch; 72
  over 18 trays of 4 in an NVL72), else a node's GPUs. A communicator of N ranks spans
  ``domains`` = ceil(N / D) of them with ``per_domain`` = N / domains GPUs each.
* **scale-up bandwidth** B_up (bytes/s per GPU per direction, what one ring or chain step
  moves): switched: ``node.scaleup_bandwidth``; direct (xGMI, GH200's NVLink mesh, Xe-Link):
  the bottleneck pair of the best Hamiltonian ring over the node's GPUs in use (links of a
  pair used together; a pair without a link through the host at ``node.gpu_host_bandwidth``),
  found exactly by a dynamic programme over GPU subsets; no fabric: ``gpu_host_bandwidth``.
* **network bandwidth** B_net (bytes/s per direction, a whole domain): the distinct NICs its
  GPUs use (``node.gpu_nics``) x the rate of one, min(``network.link_bandwidth``,
  ``network.host_bandwidth``, ``node.gpu_nic_bandwidth``). NCCL spreads its channels over the
  NICs, so a ring's crossing of a domain boundary has them all (Jeaugey, "Massively Scale
  Your Deep Learning Training with NCCL 2.4", NVIDIA blog, 2019: one ring per NIC).
* **latencies** (s, hardware one way): ``node.scaleup_latency`` inside; between domains
  ``network.injection_latency`` + ``ejection_latency`` + 3 ``router_latency`` + 4
  ``link_latency`` (a route through three switches, leaf-spine-leaf) + 2
  ``node.gpu_nic_latency``.
* **capabilities**: NVLS where ``node.scaleup_nvls`` is true (NVLink SHARP in the NVSwitch);
  CollNet where ``network.collective_hardware`` is ``switch-aggregation`` (SHARP).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from icnperf.errors import InputError
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

    @property
    def net_bandwidth(self) -> float:
        """B_net: the NICs of one domain together (bytes/s per direction)."""
        return self.domain_nics * self.nic_bandwidth


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


def _direct_ring(machine, gpus: int) -> float:
    table = link_table(machine.require("node.scaleup_links"))
    rate = float(machine.require("node.scaleup_link_bandwidth"))

    def pair(a: int, b: int) -> float:
        links = table.get((min(a, b), max(a, b)))
        return links * rate if links else float(machine.require("node.gpu_host_bandwidth"))

    return best_ring_bandwidth(pair, gpus)


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
    if fabric_kind == "switched":
        up = float(machine.require("node.scaleup_bandwidth"))
        link = "nvlink"
    elif fabric_kind == "direct":
        up = _direct_ring(machine, gpn) if gpn > 1 else math.inf
        link = "nvlink"
    else:
        up = float(machine.require("node.gpu_host_bandwidth"))
        link = "pci"
    nic = min(float(machine.require("network.link_bandwidth")),
              float(machine.require("network.host_bandwidth")),
              float(machine.get("node.gpu_nic_bandwidth", math.inf)))
    nics_used = len(set(gpu_nics(machine)[:gpn]))
    net_latency = (float(machine.get("network.injection_latency", 0.0))
                   + float(machine.get("network.ejection_latency", 0.0))
                   + 3 * float(machine.get("network.router_latency", 0.0))
                   + 4 * float(machine.get("network.link_latency", 0.0))
                   + 2 * float(machine.get("node.gpu_nic_latency", 0.0)))
    return Fabric(
        ranks=ranks, domains=domains, per_domain=per_domain, gpus_per_node=gpn,
        scaleup_bandwidth=up, scaleup_latency=float(machine.get("node.scaleup_latency", 0.0)),
        link=link, switched=fabric_kind == "switched", nic_bandwidth=nic, domain_nics=nics_used * (per_domain // gpn or 1),
        net_latency=net_latency,
        nvls=str(machine.get("node.scaleup_nvls", "no")) == "yes" and fabric_kind == "switched",
        collnet=machine.get("network.collective_hardware") == "switch-aggregation",
        architecture=str(machine.get("node.gpu_architecture", "unknown")),
        cpu_vendor=str(machine.get("node.cpu_vendor", "other")))
