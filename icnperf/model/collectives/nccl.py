"""NCCL's and RCCL's collective algorithms as closed forms on the two-level machine
(:mod:`.nccl_fabric`): icnperf's own cost of each algorithm and protocol, derived from how the
library moves bytes, not fitted per machine.

Every form is t = L + W: a latency L (the library's launch latency plus one per-step latency
per step on the path) and a bandwidth term W, the bytes the busiest link of the path carries
over its bandwidth at the protocol's efficiency. N ranks (GPUs), n scale-up domains of g GPUs,
S the message as nccl-tests prints it (:data:`SIZE_MEANING`), B_up the scale-up bandwidth of a
GPU (the library's per-link rate times the links, all its channels' rings together:
:mod:`.nccl_fabric`), B_net a domain's NICs together, divided on a fat tree by the
algorithm's network slowdown (:mod:`.nccl_network`: its inter-domain flows routed, the
busiest switch-to-switch channel over the busiest NIC, where a taper makes it exceed 1),
B_r = B_up on one domain else min(B_up, B_net).

**Protocols** (NCCL's; Hu et al., "Demystifying NCCL: An In-depth Analysis of GPU
Communication Protocols and Algorithms", 2025, and NCCL's documentation of NCCL_PROTO):

* LL: 8-byte stores of 4 bytes of data and a 4-byte flag: efficiency e = 1/2, no fence;
* LL128: 128-byte lines of 120 bytes of data and an 8-byte flag: e = 120/128;
* Simple: whole chunks followed by a fence and a flag: e = 1, the longest step latency.

LL's rate is bounded by the GPU threads that write and poll its 8-byte lines: ring and tree
with LL also keep nccl-tests' bus bandwidth under the library's stated ceiling B_LL
(:func:`ll_ceiling`).

**Per-step latency** a step is max(the library's stated per-step latency of the link class,
algorithm and protocol (:mod:`.nccl_tables`: stated values, not fits), the machine's
hardware latency of the hop) and the launch latency is the library's stated base latency.
A ring's step inside a domain, when the ring spans domains, also costs at least the
library's stated time to post a network operation (:func:`posting_overhead`), as NCCL's own
estimate takes it: the boundary GPUs post one each step and the pipeline moves at its
slowest stage.

**Algorithms** (their closed forms in :data:`FORMULAS`):

* ring: Patarasuk & Yuan's bandwidth-optimal ring ("Bandwidth optimal all-reduce algorithms
  for clusters of workstations", JPDC 2009), one ring per channel, channels spread over the
  NICs: all-reduce 2(N-1) steps, 2(N-1)/N S over B_r; all-gather and reduce-scatter N-1
  steps, (N-1)/N S; broadcast and reduce a pipelined chain, N-1 steps, S.
* tree: NCCL's double binary tree across domains (Sanders, Speck & Traeff, "Two-tree
  algorithms for full bandwidth broadcast, reduction and scan", Parallel Computing 2009;
  NCCL 2.4) and a chain inside the domain, all-reduce only: 2((g-1) + ceil(lg n)) steps; a
  chain GPU between the chain's ends sends S up (the reduction) and S down (the broadcast),
  2S over the scale-up bandwidth B_up that the library's channels give it (k = 2; k = 1 for
  g = 2, whose two GPUs are the ends and send S each) on a switched fabric and a direct one
  alike (:func:`chain_factor`); a domain's NICs carry 2S each way (interior in one tree,
  leaf in the other; S at n = 2). This is what --hierarchy means under NCCL.
* nvls: NVLink SHARP on one domain: multimem.ld_reduce of each GPU's 1/g slice in the
  NVSwitch, multimem.st multicast back: a GPU's link carries (g+1)/g S each way (all-reduce);
  S for all-gather (multicast) and reduce-scatter; at B_nvls = e_nvls B_up, NCCL's stated
  NVLS efficiency (:func:`nvls_bandwidth`): the switch's reduction and multicast run below
  the link's rate.
* nvls-tree: NVLS inside each domain, the double binary tree between domains (all-reduce).
* collnet: SHARP in the InfiniBand switches (CollNet Direct): reduce-scatter and all-gather
  inside the domain, 2(g-1)/g S over B_up; each domain sends S up and takes S back over B_net.
* pat: NCCL's Parallel Aggregated Trees for all-gather and reduce-scatter with one GPU per
  node: ceil(lg N) network steps, (N-1)/N S over the GPU's NIC.
* p2p: all-to-all and send/recv as NCCL runs them, point-to-point: all peers at once,
  (g-1)/N S per GPU over B_up and g (N-g)/N S per domain over B_net, each remote peer
  after the first a network operation posted o later (:func:`posting_overhead`); send/recv is
  nccl-tests' ring shift (rank r to r+1): S over the shift's thinnest pair inside a domain
  (B_up on a switched fabric), over one NIC across.

**PXN** (:mod:`.nccl_pxn`): where NCCL relays a GPU's inter-node data through the GPU of
the NIC's rail (ring steps, the tree's sends down to its children, point-to-point across
nodes), a relayed inter-node step's hardware latency takes one more scale-up hop (a_net is
the mean over the steps), and all-to-all's scale-up term carries the relayed
part of the (N-g)/N S a GPU sends to other domains: ((g-1)/N + r (N-g)/N) S over B_up, r
the fraction of peers reached through another GPU.

RCCL has no NVLS and no PAT in the versions read; where its node's tuning model runs no
LL128 (RCCL 2.18 and later, :func:`protocol_runs`), LL128 is not priced.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model.collectives.nccl_fabric import Fabric
from icnperf.model.collectives.nccl_pxn import pxn_route
from icnperf.model.collectives.nccl_tables import (GENERATIONS, NCCL_2_30, LibraryTables,
                                                   PROTOCOLS)

NVLS_EFFICIENCY_DEFAULT = NCCL_2_30.nvls_efficiency
"""NCCL's NVLS efficiencies, for tables that have none (RCCL's, which never runs NVLS)."""

OPERATIONS = ("allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall",
              "sendrecv")
"""The operations of ``--api nccl|rccl``, named as nccl-tests' binaries (all_reduce_perf ...)."""

_ALIASES = {"all-reduce": "allreduce", "all_reduce": "allreduce",
            "all-gather": "allgather", "all_gather": "allgather",
            "reduce-scatter": "reducescatter", "reduce_scatter": "reducescatter",
            "all-to-all": "alltoall", "all_to_all": "alltoall", "bcast": "broadcast",
            "send-recv": "sendrecv", "send_recv": "sendrecv", "p2p": "sendrecv"}

SIZE_MEANING = {
    "allreduce": "the vector each rank holds",
    "allgather": "the whole gathered vector (N blocks)",
    "reducescatter": "the whole vector each rank reduces (N blocks)",
    "broadcast": "the broadcast buffer",
    "reduce": "the reduced buffer",
    "alltoall": "everything one rank sends (N blocks)",
    "sendrecv": "the message each rank sends",
}
"""What S is per operation: nccl-tests' printed size."""

BUS_FACTOR = {"allreduce": lambda n: 2 * (n - 1) / n,
              "allgather": lambda n: (n - 1) / n, "reducescatter": lambda n: (n - 1) / n,
              "alltoall": lambda n: (n - 1) / n,
              "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0, "sendrecv": lambda n: 1.0}
"""nccl-tests' bus-bandwidth factor per operation (its doc/PERFORMANCE.md): busbw = algbw x
factor(N)."""

EFFICIENCY = {"LL": 0.5, "LL128": 120 / 128, "Simple": 1.0}
"""Data bytes per byte moved, by protocol (module docstring)."""

ALGORITHMS = ("ring", "tree", "nvls", "nvls-tree", "collnet", "pat", "p2p")
"""icnperf's keys; shown with the library's prefix where MPI has a namesake
(:func:`display_name`)."""

_TABLE_ROW = {"ring": "ring", "tree": "tree", "nvls": "nvls", "nvls-tree": "nvls-tree",
              "collnet": "collnet-direct", "pat": "pat", "p2p": "ring"}
"""The row of the library's tables each algorithm takes its stated latencies from (p2p: the
ring's)."""

FORMULAS = {
    ("ring", "allreduce"): "L0 + 2(N-n) a_up + 2(n-1) a_net + 2(N-1)/N S / (e B_r); LL:"
                           " busbw <= B_LL; a_up >= o, posting a network operation, if n > 1",
    ("ring", "allgather"): "L0 + (N-n) a_up + (n-1) a_net + (N-1)/N S / (e B_r);"
                           " a_up >= o if n > 1",
    ("ring", "reducescatter"): "L0 + (N-n) a_up + (n-1) a_net + (N-1)/N S / (e B_r);"
                               " a_up >= o if n > 1",
    ("ring", "broadcast"): "L0 + (N-n) a_up + (n-1) a_net + S / (e B_r)",
    ("ring", "reduce"): "L0 + (N-n) a_up + (n-1) a_net + S / (e B_r)",
    ("tree", "allreduce"): "L0 + 2((g-1) a_up + ceil(lg n) a_net)"
                           " + max(k S / (e B_up), f S / (e B_net)), k = 2 (1 at g = 2),"
                           " f = 2 (1 at n = 2)",
    ("nvls", "allreduce"): "L0 + a_nvls + (g+1)/g S / B_nvls, B_nvls = e_nvls B_up",
    ("nvls", "allgather"): "L0 + a_nvls + S / B_nvls",
    ("nvls", "reducescatter"): "L0 + a_nvls + S / B_nvls",
    ("nvls-tree", "allreduce"): "L0 + a_nvls + 2 ceil(lg n) a_net"
                                " + max((g+1)/g S / B_nvls, f S / B_net)",
    ("collnet", "allreduce"): "L0 + 2 a_up + a_net + max(2(g-1)/g S / B_up, S / B_net)",
    ("pat", "allgather"): "L0 + ceil(lg N) a_net + (N-1)/N S / B_net",
    ("pat", "reducescatter"): "L0 + ceil(lg N) a_net + (N-1)/N S / B_net",
    ("p2p", "alltoall"): "L0 + a + (N-g-1) o + max(((g-1)/N + r (N-g)/N) S / (e B_up),"
                         " g(N-g)/N S / (e B_net)), r: PXN's relayed fraction,"
                         " o: posting a remote peer's send",
    ("p2p", "sendrecv"): "L0 + a + S / (e B), B = the shift's thinnest pair in a domain"
                         " (B_up switched), one NIC across",
}
"""Each (algorithm, operation)'s closed form, as explain prints it."""

PROTOCOLS_OF = {"ring": PROTOCOLS, "tree": PROTOCOLS, "nvls": ("Simple",),
                "nvls-tree": ("Simple",), "collnet": ("Simple",), "pat": ("Simple",),
                "p2p": ("LL", "Simple")}
"""The protocols each algorithm runs (NCCL runs NVLS, CollNet and PAT with Simple only, and
point-to-point with LL for small messages and Simple otherwise)."""


def operation_name(text: str) -> str:
    """The canonical operation name; InputError naming the choices."""
    name = str(text).strip().lower()
    name = _ALIASES.get(name, name)
    if name not in OPERATIONS:
        raise InputError(f"unknown operation {text!r} with --api nccl|rccl; choose one of "
                         f"{', '.join(OPERATIONS)}")
    return name


def display_name(algorithm: str, library: str) -> str:
    """``ring`` -> ``nccl-ring`` (or ``rccl-ring``), ``tree`` likewise: the library's names
    that do not collide with MPI's; the others as they are."""
    return f"{library}-{algorithm}" if algorithm in ("ring", "tree") else algorithm


def algorithm_key(name: str, library: str) -> str:
    """``nccl-ring`` -> ``ring``; InputError for a name the library does not have."""
    text = name.strip().lower()
    for key in ALGORITHMS:
        if text in (key, display_name(key, library)):
            return key
    names = ", ".join(display_name(a, library) for a in ALGORITHMS)
    raise InputError(f"unknown {library} algorithm {name!r}; choose all, auto, best or one"
                     f" of {names}")


def available(algorithm: str, operation: str, fabric: Fabric, library: str) -> str | None:
    """None when ``algorithm`` runs ``operation`` on ``fabric`` under ``library``, else the
    reason it does not (shown by explain and by an explicit --algorithm)."""
    if (algorithm, operation) not in FORMULAS:
        return f"{algorithm} does not run {operation}"
    if algorithm in ("nvls", "nvls-tree"):
        if library == "rccl":
            return "RCCL has no NVLS"
        if not fabric.nvls:
            return "the scale-up fabric has no NVLink SHARP (node.scaleup_nvls)"
        if algorithm == "nvls" and fabric.domains > 1:
            return "NVLS across domains needs CollNet; nvls-tree is the multi-domain form"
        if algorithm == "nvls-tree" and fabric.domains == 1:
            return "nvls-tree needs more than one domain"
    if algorithm == "collnet":
        if not fabric.collnet:
            return "no switch aggregation (network.collective_hardware)"
        if fabric.domains == 1:
            return "collnet needs more than one domain"
    if algorithm == "pat":
        if library == "rccl":
            return "RCCL (the version read) has no PAT"
        if fabric.per_domain > 1 or fabric.gpus_per_node > 1:
            return "PAT runs with one GPU per node"
    return None


def protocol_runs(tables: LibraryTables, algorithm: str, protocol: str) -> bool:
    """False where RCCL's tuning model of the node states no bandwidth for the algorithm's
    row and ``protocol`` at any node count (a zero ratio: the pair is not run, and the model
    has no latency for it, e.g. LL128 in tuning model 3); True otherwise."""
    if tables.bw_ratio is None:
        return True
    p = PROTOCOLS.index(protocol)
    return any(rows[_TABLE_ROW[algorithm]][p] > 0 for rows in tables.bw_ratio.values()
               if _TABLE_ROW[algorithm] in rows)


class Form(NamedTuple):
    """One algorithm and protocol's cost: ``latency`` (s) and the bandwidth ``terms``
    [(bytes per byte of S, bandwidth bytes/s, what)], time = latency + max_k(c_k S / B_k)."""

    latency: float
    terms: tuple[tuple[float, float, str], ...]

    def time(self, sizes) -> np.ndarray:
        sizes = np.asarray(sizes, dtype=float)
        parts = [c * sizes / b for c, b, _ in self.terms if c > 0]
        return self.latency + (np.maximum.reduce(parts) if parts else 0.0 * sizes)


def chain_factor(per_domain: int) -> float:
    """k, the bytes per byte of S a chain GPU sends over the scale-up fabric in the tree's
    all-reduce: 2 where the chain has GPUs between its ends (g >= 3), 1 for g = 2.

    Each channel's chain moves its share of S up to the chain's first GPU (the reduction)
    and back down (the broadcast), so a GPU between the ends sends its share to its parent
    and to its child: 2S out over all channels together. On a switched fabric both leave
    through the GPU's one port. On a direct fabric the chains are the orders of the
    library's rings opened into paths (RCCL's known nodes take the tree's channels from the
    ring list, rome_models.cc parseGraph with the ring list for NCCL_TOPO_PATTERN_BALANCED_TREE;
    NCCL's search reserves a tree channel's bandwidth in one direction per GPU pair, as a
    ring's, search.cc ncclTopoFollowPath), and a chain runs both directions of its links:
    the chain of a ring and the chain of its reversed ring load the same links both ways,
    where the two rings each took one way. So the chains together carry half of B_up (which
    counts a ring and its reverse apart) per link direction: S over B_up / 2, 2S over B_up
    again. NCCL's own estimate agrees (tuning.cc: the tree's algorithm bandwidth is half
    its channels' bandwidth). RCCL's MI250X chains (rome_model_63/74, two rings and their
    reverses, opened at the NICs) load each single inter-module link with S/2 per direction:
    exactly 2S / B_up. Where a library opens its rings at every GPU in turn (RCCL's 4-MI300A
    node, rome_model_80: 12 chains, each pair in 6) a link carries (g-1)/g of that; not
    modelled, so the form is conservative there by g / (g-1)."""
    return 2.0 if per_domain > 2 else 1.0


def _lg(x: int) -> int:
    return math.ceil(math.log2(x)) if x > 1 else 0


def step_latency(tables: LibraryTables, link: str, algorithm: str, protocol: str,
                 hardware: float) -> float:
    """max(the library's stated per-step latency on ``link`` for the algorithm's table row
    and ``protocol``, the ``hardware`` latency of the hop), s."""
    row = tables.step[link].get(_TABLE_ROW[algorithm])
    stated = row[PROTOCOLS.index(protocol)] if row else 0.0
    return max(stated, hardware)


def base_latency(tables: LibraryTables, algorithm: str, protocol: str) -> float:
    """The library's stated launch latency of the algorithm's row (0 where it has none)."""
    row = tables.base.get(_TABLE_ROW[algorithm])
    return row[PROTOCOLS.index(protocol)] if row else 0.0


def nvls_bandwidth(fabric: Fabric, tables: LibraryTables) -> float:
    """B_nvls = e_nvls B_up (bytes/s per GPU per direction): what a GPU's NVLink moves under
    NVLS, the multimem load-reduce and multicast store through the NVSwitch running below the
    link's rate; e_nvls is NCCL's stated NVLS efficiency of the GPU generation (NCCL 2.30.7
    src/graph/tuning.cc nvlsEfficiency: Hopper 0.85, Blackwell 0.74; a generation it does not
    state takes Hopper's, as NCCL's choice does)."""
    stated = tables.nvls_efficiency or NVLS_EFFICIENCY_DEFAULT
    efficiency = stated.get(fabric.architecture) or stated.get("hopper") or 1.0
    return efficiency * fabric.scaleup_bandwidth


def ll_ceiling(fabric: Fabric, tables: LibraryTables) -> float:
    """The bus bandwidth LL reaches at most (bytes/s), the library's stated llMaxBws (NCCL
    2.30.7 tuning.cc: on one node by GPU generation, Hopper 141 GB/s; across nodes by host
    CPU vendor and 2 or more nodes, Intel 39 and 20.4 GB/s): LL's 8-byte stores are each
    written and polled by the GPU's threads, so its rate is bound by the threads, below the
    link's. inf where the tables state none (RCCL's)."""
    if tables.ll_max is None:
        return math.inf
    n = fabric.domains
    if n == 1:
        generation = fabric.architecture if fabric.architecture in GENERATIONS else "hopper"
        row = GENERATIONS.index(generation)
    else:
        row = 1 if fabric.cpu_vendor == "amd" else 0
    return tables.ll_max[row][min(n, 3) - 1]


def posting_overhead(fabric: Fabric, tables: LibraryTables, protocol: str) -> float:
    """The library's stated time (s) to post one network operation (NCCL 2.30.7 tuning.cc
    getNetOverhead: 1 us on Intel and other hosts, 2 us on AMD x86; x 3 with Simple, as NCCL
    takes it; 0 where the tables state none, rccl-2.7). It bounds two things from below: every
    step of a ring that spans domains, whose boundary GPUs post a network operation each step
    while the pipeline moves at its slowest stage (NCCL's own estimate floors those steps
    so), and each further remote peer of an all-to-all, one more network operation that the
    proxy thread of the GPU on its rail posts after the others."""
    stated = tables.net_overhead or {}
    overhead = stated.get(fabric.cpu_vendor, stated.get("other", 0.0))
    return overhead * (3 if protocol == "Simple" else 1)


def _ll_term(fabric: Fabric, tables: LibraryTables, operation: str, protocol: str):
    """LL's ceiling as a bandwidth term: busbw <= :func:`ll_ceiling`, i.e. t >= factor(N) S
    / ceiling with nccl-tests' bus factor; none for LL128 and Simple."""
    ceiling = ll_ceiling(fabric, tables) if protocol == "LL" else math.inf
    if math.isinf(ceiling):
        return ()
    return ((BUS_FACTOR[operation](fabric.ranks), ceiling, "LL's stated ceiling"),)


def form(fabric: Fabric, tables: LibraryTables, operation: str, algorithm: str,
         protocol: str) -> Form:
    """icnperf's closed form (:data:`FORMULAS`) of ``algorithm`` with ``protocol`` for
    ``operation`` on ``fabric``; the caller checks :func:`available` first."""
    f, N, n, g = fabric, fabric.ranks, fabric.domains, fabric.per_domain
    e = EFFICIENCY[protocol]
    relay = pxn_route(f, tables.pxn, operation, algorithm)
    up_hw, net_hw = f.scaleup_latency, f.net_latency
    a_up = step_latency(tables, f.link, algorithm, protocol, up_hw)
    a_net = ((1 - relay.relayed_steps) * step_latency(tables, "net", algorithm, protocol, net_hw)
             + relay.relayed_steps * step_latency(tables, "net", algorithm, protocol,
                                                  net_hw + relay.relay_latency))
    base = base_latency(tables, algorithm, protocol)
    net_bw = (f.net_bandwidth_of(algorithm, operation, relay.rail_aligned) if n > 1
              else f.net_bandwidth)
    ring_bw = f.scaleup_bandwidth if n == 1 else min(f.scaleup_bandwidth, net_bw)
    tree_net = 1.0 if n == 2 else 2.0
    if algorithm == "ring":
        steps = {"allreduce": 2, "allgather": 1, "reducescatter": 1}.get(operation, 1)
        coef = {"allreduce": 2 * (N - 1) / N, "allgather": (N - 1) / N,
                "reducescatter": (N - 1) / N}.get(operation, 1.0)
        ring_up = a_up
        if n > 1 and operation not in ("broadcast", "reduce"):
            ring_up = max(a_up, posting_overhead(f, tables, protocol))
        latency = base + steps * ((N - n) * ring_up + (n - 1) * a_net)
        return Form(latency, ((coef / e, ring_bw, "ring link"),
                              *_ll_term(f, tables, operation, protocol)))
    if algorithm == "tree":
        latency = base + 2 * ((g - 1) * a_up + _lg(n) * a_net)
        terms = ([(chain_factor(g) / e, f.scaleup_bandwidth, "chain in the domain")]
                 if g > 1 else [])
        if n > 1:
            terms.append((tree_net / e, net_bw, "domain's NICs"))
        return Form(latency, (*terms, *_ll_term(f, tables, operation, protocol)))
    if algorithm == "nvls":
        a_nvls = step_latency(tables, "nvlink", "nvls", protocol, up_hw)
        coef = (g + 1) / g if operation == "allreduce" else 1.0
        return Form(base + a_nvls,
                    ((coef, nvls_bandwidth(f, tables), "NVLS through the switch"),))
    if algorithm == "nvls-tree":
        a_nvls = step_latency(tables, "nvlink", "nvls-tree", protocol, up_hw)
        return Form(base + a_nvls + 2 * _lg(n) * a_net,
                    (((g + 1) / g, nvls_bandwidth(f, tables), "NVLS through the switch"),
                     (tree_net, net_bw, "domain's NICs")))
    if algorithm == "collnet":
        return Form(base + 2 * a_up + a_net,
                    ((2 * (g - 1) / g, f.scaleup_bandwidth, "GPU's scale-up link"),
                     (1.0, f.net_bandwidth, "domain's NICs")))
    if algorithm == "pat":
        return Form(base + _lg(N) * a_net, (((N - 1) / N, net_bw, "GPU's NIC"),))
    if operation == "alltoall":
        hop = a_net if n > 1 else a_up
        up = (g - 1) / N + relay.relayed_fraction * (N - g) / N
        latency = base + hop + max(0, N - g - 1) * posting_overhead(f, tables, protocol)
        return Form(latency, ((up / e, f.scaleup_bandwidth, "GPU's scale-up link"),
                              (g * (N - g) / N / e, net_bw, "domain's NICs")))
    if n > 1:
        slowdown = f.network(algorithm, operation, relay.rail_aligned).slowdown
        return Form(base + a_net, ((1 / e, min(f.shift_bandwidth, f.nic_bandwidth / slowdown),
                                    "one NIC"),))
    return Form(base + a_up, ((1 / e, f.shift_bandwidth, "the shift's thinnest pair"),))


class CclRow(NamedTuple):
    """One algorithm and protocol's times over the sizes (s), with algbw and busbw
    (bytes/s) as nccl-tests computes them."""

    algorithm: str
    protocol: str
    time: np.ndarray
    algbw: np.ndarray
    busbw: np.ndarray


def bandwidths(operation: str, ranks: int, sizes, times) -> tuple[np.ndarray, np.ndarray]:
    """nccl-tests' algbw = S / t and busbw = algbw x :data:`BUS_FACTOR` (bytes/s)."""
    algbw = np.asarray(sizes, dtype=float) / np.asarray(times, dtype=float)
    return algbw, algbw * BUS_FACTOR[operation](ranks)


def evaluate_all(fabric: Fabric, tables: LibraryTables, operation: str, sizes,
                 library: str) -> list[CclRow]:
    """Every algorithm and protocol the library runs for ``operation`` on ``fabric``, in
    :data:`ALGORITHMS` x protocol order."""
    rows = []
    for algorithm in ALGORITHMS:
        if available(algorithm, operation, fabric, library) is not None:
            continue
        for protocol in PROTOCOLS_OF[algorithm]:
            if not protocol_runs(tables, algorithm, protocol):
                continue
            times = form(fabric, tables, operation, algorithm, protocol).time(sizes)
            algbw, busbw = bandwidths(operation, fabric.ranks, sizes, times)
            rows.append(CclRow(algorithm, protocol, times, algbw, busbw))
    return rows
