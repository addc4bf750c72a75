"""``--algorithm auto`` under ``--api nccl|rccl``: the algorithm and protocol the library
itself picks, by its own cost model applied to its stated constants (:mod:`.nccl_tables`).

The library estimates every enabled (algorithm, protocol) as ``latency + S / bandwidth`` and
runs the smallest; icnperf repeats that estimate here, in its own words, from the tables and
the machine (:class:`.nccl_fabric.Fabric`), and prints icnperf's cost of the pick
(:mod:`.nccl`), not the library's estimate. What the estimate takes, as read in the sources
of :mod:`.nccl_tables`:

* the topology search's bandwidth: its channels' intra-domain total (here B_up) on up to two
  nodes and for CollNet, the inter-node total (here min(B_up, B_net)) otherwise; channel
  count c = ``software.ccl_channels``;
* refinements: ring LL at half rate capped by the LL maximum, ring LL128 at 0.92 capped by
  c x the per-channel LL128 cap; tree all-reduce at 0.92 capped by c x the per-channel tree
  cap, tree LL at 1/3.8, tree LL128 at 7/9 (one node) or 120/128; PAT at 0.75; NVLS from
  B_up x the generation's NVLS efficiency x (c-1)/c (x 2 for all-reduce); CollNet Direct
  divided by the GPU/NIC ratio's factor (x 0.85 from Hopper on);
* bus to algorithm bandwidth: ring and NVLS x N / steps, tree and CollNet x 1/2;
* latency: the base latency plus per-step latencies by link class (the scale-up fabric's
  NVLink row or PCI row, the network row; with one GPU per node the network row of the tree),
  a network posting overhead by host CPU vendor (x 3 with Simple) as the ring's floor per
  step across nodes; the tree's 2((ppn-1) intra + lg n inter); NVLS one intra step (+ one
  inter); PAT lg n inter / 3.5 + N x 2.8 us;
* at run time: the tree's correction factors by size, and the ring's plateau (x 1.4 from
  Ampere on, x 1.9 before) of Simple all-reduce across nodes.

RCCL 2.7 (``rccl-2.7``) is the NCCL 2.7-era model: ring, tree and CollNet; tree and CollNet
for all-reduce only; LL128 only on NVIDIA Volta and Ampere (so off on AMD GPUs); its own
correction factors for tree and ring.

RCCL 2.18 to 2.21 (``rccl-2.18``, ``-2.20``, ``-2.21``) estimate with the tuning model of the
node's known type (:mod:`.rccl_tuning`): bus bandwidth = the search's bandwidth (B_up on up
to two nodes and for CollNet, min(B_up, B_net) above) x the model's ratio for the algorithm,
protocol and node count (none of NCCL's caps; a zero ratio: not run), x 1.65 for LL broadcast
and reduce on one MI300 node (2.20 on); to algorithm bandwidth as NCCL does; latency the base
latency plus the model's per-step latencies, the ring's inter-node steps 2n for all-reduce
and n - 1 otherwise, its intra-node steps at least the network posting overhead (x 3 with
Simple) across nodes, the tree's 2((ppn-1) intra + lg n inter); at run time the tree's
correction factor, and the ring's across nodes, by log2(S / 64). LL128 is off (RCCL enables it
only on MI250 nodes whose known type says so; none of icnperf's), and with every rank on one
MI300 node the tree with Simple is not run (2.20 on; from 2.18.6 in RCCL).

``ranks`` per node is what NCCL calls ppn; n is the number of scale-up domains (NCCL's
nodes; an NVL72 rack counts as one with multi-node NVLink). Where the machine lacks a key
the choice needs (``node.gpu_architecture``, ``software.ccl_channels``), the assumption is
named in the note.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from icnperf.model.collectives.nccl import PROTOCOLS_OF, available
from icnperf.model.collectives.nccl_fabric import Fabric
from icnperf.model.collectives.nccl_tables import GENERATIONS, LibraryTables, PROTOCOLS

US = 1e-6
GBS = 1e9

P2P_LL_THRESHOLD = 16384
"""Bytes per channel up to which NCCL sends a point-to-point message with LL (NCCL 2.30,
NCCL_P2P_LL_THRESHOLD's default)."""

P2P_CHUNK_SIZE = {"net": 131072, "nvlink": 524288, "pci": 131072}
"""NCCL's point-to-point step size by the communicator's path, bytes: the defaults of
NCCL_P2P_NET_CHUNKSIZE (across nodes), NCCL_P2P_NVL_CHUNKSIZE (one node, every pair on
NVLink) and NCCL_P2P_PCI_CHUNKSIZE (NVIDIA's "NCCL environment variables" documentation)."""

_ROW = {"ring": "ring", "tree": "tree", "nvls": "nvls", "nvls-tree": "nvls-tree",
        "collnet": "collnet-direct", "pat": "pat"}


class Pick(NamedTuple):
    """The library's choice at one size: algorithm, protocol, its own estimate (s)."""

    algorithm: str
    protocol: str
    estimate: float


def _log2i(x: int) -> int:
    return int(math.floor(math.log2(x))) if x >= 1 else 0


def _gen(fabric: Fabric) -> str:
    return fabric.architecture if fabric.architecture in GENERATIONS else "hopper"


def _steps(operation: str, count: int) -> int:
    if operation == "allreduce":
        return 2 * (count - 1)
    if operation in ("allgather", "reducescatter"):
        return count - 1
    return count


def _nccl_estimate(tables: LibraryTables, fabric: Fabric, operation: str, algorithm: str,
                   protocol: str, channels: int):
    """(latency s, bandwidth bytes/s) of NCCL's estimate, or None when disabled."""
    f, N, n, ppn = fabric, fabric.ranks, fabric.domains, fabric.per_domain
    gen = _gen(f)
    p = PROTOCOLS.index(protocol)
    index2 = min(n, 3) - 1
    index1 = GENERATIONS.index(gen) if n == 1 else (1 if f.cpu_vendor == "amd" else 0)
    intra_total = f.scaleup_bandwidth
    inter_total = intra_total if n == 1 else min(f.scaleup_bandwidth, f.net_bandwidth)
    collnet = algorithm == "collnet"
    bw = intra_total if (n <= 2 or collnet) else inter_total
    if algorithm in ("nvls", "nvls-tree"):
        if channels < 2:
            return None
        intra = intra_total * tables.nvls_efficiency[gen] * (channels - 1) / channels
        intra *= 2.0 if operation == "allreduce" else (ppn - 1) / ppn
        inter = inter_total * (2 if (n <= 2 and algorithm == "nvls-tree") else 1)
        bw = min(intra, inter, tables.nvls_tree[gen][index2] * channels
                 if algorithm == "nvls-tree" else math.inf)
    ll_max = tables.ll_max[index1][index2]
    if algorithm == "ring" and protocol == "LL":
        bw = min(ll_max, bw * 0.5)
    if algorithm == "ring" and protocol == "LL128":
        bw = min(bw * 0.92, channels * tables.ring_ll128[gen][index2])
    if algorithm == "tree" and operation == "allreduce":
        bw = min(bw * 0.92, channels * tables.tree[gen][index2])
    if algorithm == "tree" and protocol == "LL":
        bw = min(bw / 3.8, ll_max)
    if algorithm == "tree" and protocol == "LL128":
        bw = min(bw * (7 / 9 if n == 1 else 120 / 128), channels * tables.tree_ll128[gen][index2])
    if algorithm == "pat":
        bw *= 0.75
    if collnet:
        factor = ppn / channels
        factor -= (factor - 1) / 2
        bw /= factor
        if GENERATIONS.index(gen) >= GENERATIONS.index("hopper"):
            bw *= 0.85
    nsteps = _steps(operation, N)
    if algorithm in ("ring", "nvls", "nvls-tree"):
        bw *= N / nsteps
    elif operation not in ("allgather", "reducescatter"):
        bw *= 0.5
    row = _ROW[algorithm]
    intra_link = "nvlink" if f.link == "nvlink" else "pci"
    intra = tables.step[intra_link][row][p]
    inter = tables.step["net"]["tree" if ppn == 1 else row][p]
    latency = tables.base[row][p]
    if algorithm == "ring":
        if operation in ("broadcast", "reduce"):
            latency += tables.step[intra_link if n == 1 else "net"][row][p]
        else:
            overhead = 0.0
            if n > 1:
                overhead = tables.net_overhead.get(f.cpu_vendor, tables.net_overhead["other"])
                overhead *= 3 if protocol == "Simple" else 1
            intra = max(intra, overhead)
            inter_steps = 0 if n == 1 else _steps(operation, n) if operation == "allreduce" \
                else n - 1
            latency += (nsteps - inter_steps) * intra + inter_steps * inter
    elif algorithm == "tree":
        latency += 2 * ((ppn - 1) * intra + _log2i(n) * inter)
    elif collnet:
        latency += 2 * (min(1, ppn - 1) * intra + (ppn - 1) * 0.4 * US) + inter
    elif algorithm == "nvls":
        latency = intra + (inter if n > 1 else 0.0)
    elif algorithm == "nvls-tree":
        latency += intra + 2 * _log2i(n) * inter
    elif algorithm == "pat":
        latency += _log2i(n) * inter / 3.5 + N * 2.8 * US
    return latency, bw


def _nccl_time(tables, fabric, operation, algorithm, protocol, channels, size):
    estimate = _nccl_estimate(tables, fabric, operation, algorithm, protocol, channels)
    if estimate is None or estimate[1] <= 0:
        return None
    latency, bw = estimate
    log_size = _log2i(int(size) >> 6) if size >= 64 else -1
    gen = _gen(fabric)
    correct = (algorithm == "tree" and operation == "allreduce") or (
        algorithm == "nvls-tree" and operation == "allreduce" and gen == "blackwell"
        and fabric.cpu_vendor in ("intel", "amd"))
    factors = tables.tree_correction[protocol]
    if correct and 0 <= log_size < len(factors) - (algorithm == "tree"):
        bw *= factors[log_size]
    if (algorithm == "ring" and protocol == "Simple" and fabric.domains > 1
            and operation == "allreduce" and size / (channels * fabric.ranks) >= 64):
        latency *= 1.4 if GENERATIONS.index(gen) >= GENERATIONS.index("ampere") else 1.9
    return latency + size / bw


def _correction(factors: dict, protocol: str, size: float) -> float:
    """A tuned model's correction factor at ``size`` bytes: entry log2(size / 64), the last
    entry above the table (RCCL 2.18-2.21 ncclTopoGetAlgoTime)."""
    row = factors[protocol]
    return row[min(_log2i(int(size) >> 6), len(row) - 1)]


def _rccl_search_bandwidth(fabric: Fabric, collnet: bool) -> float:
    """The bandwidth RCCL's topology search finds (bytes/s), the same in every RCCL version
    read: B_up on up to two domains and for CollNet, min(B_up, B_net) above."""
    if fabric.domains <= 2 or collnet:
        return fabric.scaleup_bandwidth
    return min(fabric.scaleup_bandwidth, fabric.net_bandwidth)


def _rccl_step_latencies(tables: LibraryTables, fabric: Fabric, row: str, p: int):
    """(scale-up link row, intra-node step s, inter-node step s, base latency s) of RCCL's
    tables for the algorithm's ``row`` and protocol index ``p``: the NVLink row on an
    NVLink-class scale-up (xGMI), else the PCI row."""
    link = "nvlink" if fabric.link == "nvlink" else "pci"
    return (link, tables.step[link][row][p], tables.step["net"][row][p],
            tables.base[row][p])


def _rccl_tuned_time(tables, fabric, operation, algorithm, protocol, size):
    """RCCL 2.18-2.21's estimate with the node's tuning model (module docstring), None when
    the pair is not run."""
    f, N, n, ppn = fabric, fabric.ranks, fabric.domains, fabric.per_domain
    p = PROTOCOLS.index(protocol)
    row = _ROW[algorithm]
    if algorithm != "ring" and operation != "allreduce":
        return None
    one_node_cdna3 = f.architecture == "cdna3" and n == 1
    if (algorithm == "tree" and protocol == "Simple" and one_node_cdna3
            and "tree-simple-off-on-one-node" in tables.cdna3_rules):
        return None
    if protocol == "LL128":
        return None  # RCCL enables LL128 only on gfx90a nodes whose known type says so
    collnet = algorithm == "collnet"
    bw = _rccl_search_bandwidth(f, collnet)
    bw *= tables.bw_ratio["two" if n <= 2 else "more"][row][p]
    if bw <= 0:
        return None
    if (algorithm == "ring" and protocol == "LL" and operation in ("broadcast", "reduce")
            and one_node_cdna3 and "ring-ll-bcast-reduce-x1.65" in tables.cdna3_rules):
        bw *= 1.65
    nsteps = _steps(operation, N)
    bw *= N / nsteps if algorithm == "ring" else 0.5
    intra_link, intra, inter, latency = _rccl_step_latencies(tables, f, row, p)
    if algorithm == "ring":
        if operation in ("broadcast", "reduce"):
            latency += tables.step[intra_link if n == 1 else "net"][row][p]
        else:
            if n > 1:
                overhead = tables.net_overhead.get(f.cpu_vendor, tables.net_overhead["other"])
                intra = max(intra, overhead * (3 if protocol == "Simple" else 1))
            inter_steps = 0 if n == 1 else 2 * n if operation == "allreduce" else n - 1
            latency += (nsteps - inter_steps) * intra + inter_steps * inter
        if n > 1:
            bw *= _correction(tables.ring_correction, protocol, size)
    elif algorithm == "tree":
        latency += 2 * ((ppn - 1) * intra + _log2i(n) * inter)
        bw *= _correction(tables.tree_correction, protocol, size)
    else:
        latency += 2 * (min(1, ppn - 1) * intra + (ppn - 1) * 0.4 * US) + inter
    return None if bw <= 0 else latency + size / bw


def _rccl_time(tables, fabric, operation, algorithm, protocol, channels, size):
    """RCCL's estimate: the tuned model of 2.18 and later where the tables have one, else
    the NCCL 2.7-era estimate (module docstring)."""
    if tables.bw_ratio is not None:
        return _rccl_tuned_time(tables, fabric, operation, algorithm, protocol, size)
    f, N, n, ppn = fabric, fabric.ranks, fabric.domains, fabric.per_domain
    p = PROTOCOLS.index(protocol)
    if protocol == "LL128":
        return None  # enabled by default only on NVIDIA Volta and Ampere
    if algorithm != "ring" and operation != "allreduce":
        return None
    collnet = algorithm == "collnet"
    bw = _rccl_search_bandwidth(f, collnet)
    if algorithm == "ring" and protocol == "LL":
        bw /= 5.0
    if algorithm == "tree":
        bw = min(bw * 0.27, (70.0 if n > 1 else 90.0) * GBS)
        if protocol == "LL":
            bw /= 2.3
    if collnet:
        bw *= 0.9 / (6.0 if protocol == "LL" else 1.0)
    nsteps = _steps(operation, N)
    bw *= 0.5 if algorithm != "ring" else N / nsteps
    row = _ROW[algorithm]
    intra_link, intra, inter, latency = _rccl_step_latencies(tables, f, row, p)
    intra *= 1.8 if n > 1 and protocol == "LL" else 1.0
    if algorithm == "ring":
        if operation in ("broadcast", "reduce"):
            latency += tables.step[intra_link if n == 1 else "net"][row][p]
        else:
            inter_steps = _steps(operation, n) if n > 1 else 0
            latency += (nsteps - inter_steps) * intra + inter_steps * inter
    elif algorithm == "tree":
        latency += 2 * ((ppn - 1) * intra + _log2i(n) * inter)
    else:
        latency += 2 * (ppn - 1) * intra + inter
    log_size = _log2i(int(size) >> 6) if size >= 64 else -1
    factors = (tables.tree_correction if algorithm == "tree" else
               tables.ring_correction if algorithm == "ring" else None)
    if factors is not None and 0 <= log_size < len(factors[protocol]):
        bw *= factors[protocol][log_size]
    return latency + size / bw


def p2p_channels(fabric: Fabric, peer_bytes: float, channels: int) -> int:
    """The channels NCCL splits one peer's point-to-point message over before it picks the
    protocol (NCCL 2.30.7 src/enqueue.cc addP2pToPlan): parts of at least the step size / 2
    across nodes (/ 8 on one node), so min(``channels``, ceil(bytes / that)); the doubling
    NCCL applies above the largest part never reaches LL's threshold. ``channels`` stands for
    NCCL's per-peer minimum, which it takes at most."""
    if fabric.domains > 1:
        smallest = P2P_CHUNK_SIZE["net"] // 2
    else:
        smallest = P2P_CHUNK_SIZE["nvlink" if fabric.link == "nvlink" else "pci"] // 8
    return max(1, min(channels, math.ceil(peer_bytes / smallest)))


def p2p_protocol(fabric: Fabric, peer_bytes: float, channels: int) -> str:
    """LL while one peer's message is at most its own channels x NCCL_P2P_LL_THRESHOLD
    (:func:`p2p_channels`), Simple above: 16 KiB across nodes and over NVLink, where a part
    is at least 64 KiB; over PCIe on one node (16 KiB parts) up to ``channels`` x 16 KiB."""
    parts = p2p_channels(fabric, peer_bytes, channels)
    return "LL" if peer_bytes <= parts * P2P_LL_THRESHOLD else "Simple"


def library_choice(tables: LibraryTables, fabric: Fabric, operation: str, size: float,
                   library: str, channels: int) -> Pick:
    """The library's pick at ``size`` bytes: the enabled (algorithm, protocol) of smallest
    estimate. All-to-all and send/recv are point-to-point, no estimate: LL while a peer's
    message is at most its own channels x 16384 bytes (:func:`p2p_protocol`), Simple above."""
    if operation in ("alltoall", "sendrecv"):
        per_peer = size / fabric.ranks if operation == "alltoall" else size
        return Pick("p2p", p2p_protocol(fabric, per_peer, channels), math.nan)
    estimate = _nccl_time if library == "nccl" else _rccl_time
    best = None
    for algorithm in _ROW:
        if available(algorithm, operation, fabric, library) is not None:
            continue
        for protocol in PROTOCOLS_OF[algorithm]:
            time = estimate(tables, fabric, operation, algorithm, protocol, channels, size)
            if time is not None and (best is None or time < best.estimate):
                best = Pick(algorithm, protocol, time)
    if best is None:
        return Pick("ring", "Simple", math.nan)
    return best
