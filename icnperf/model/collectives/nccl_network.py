"""The network under a NCCL or RCCL communicator: which switch levels the inter-domain flows
of each algorithm cross, and how much the busiest router-router channel slows them below the
NICs' own rate, on the fat trees of model/topology (``rail:`` rail-optimised trees and
plain ones, ``xgft:``, ``fattree:``, ``clos:``).

The closed forms of :mod:`.nccl` charge a domain's NICs together (B_net). This module says
what the network behind them adds, for the flows the algorithm runs between domains, the
communicator on the first nodes of the machine (the layouts' linear placement):

* ring (and broadcast/reduce as chains): domain a sends to a + 1 (mod n);
* send/recv (nccl-tests' shift, rank r to r + 1): the same, by one NIC slot of each node
  (the boundary GPU's message, on one rail under PXN);
* tree, nvls-tree: the edges of NCCL's double binary tree over the domains, both ways
  (:func:`double_binary_tree`);
* pat: the Bruck steps of distance 2^k, step k moving 2^k of the n - 1 blocks;
* p2p all-to-all: every domain to every other;
* collnet: none between switches counted (SHARP reduces in the switches, so a switch sends
  one reduced stream up per tree: never more than its NICs bring in).

A domain flow is carried by its NICs. NCCL's rings and trees use NIC i at both ends of a
hop (its topology search keeps a channel on one NIC index, NCCL_CROSS_NIC; NVIDIA, "NCCL
environment variables"): flow a -> b is the D flows NIC j of a -> NIC j of b, each 1/D of
it. All-to-all under NCCL on an NVLink-switched node uses PXN (NCCL 2.12 and later,
default on): a GPU hands data for a peer to the GPU of its node on the peer's rail over
NVLink, which sends it on that rail, so all-to-all too stays rail-aligned ("Doubling
all2all Performance with NVIDIA Collective Communication Library 2.12", NVIDIA developer
blog, 2022). Without PXN (RCCL here, or a node without an NVLink switch) each GPU sends
through its own NIC to the peer GPU's NIC: the flows cross rails.

Where NIC j sits: on ``rail:`` each node owns R consecutive NIC endpoints, placed by
:func:`icnperf.model.topology.rail.positions` (a ``join=1`` tree keeps every node's NICs
under one leaf: the plain tree of the same switches); on ``xgft:``/``fattree:``/``clos:``
an endpoint is a node (docs/machine-format.md, "Nodes with several NICs"), so all its NICs
sit at its endpoint.

The busiest channel: :func:`icnperf.model.topology.tree_routing.pattern_load` of the NIC
flows (exact under dmodk, the expectation under random), against the busiest NIC of the
same flows; the algorithm's network term is slowed by max(1, channel / NIC): a taper (fewer
up channels than the pod's NICs) is where that exceeds 1. PAT's steps run one after the
other, so its factor is the byte-weighted mean of its steps'. The levels crossed are the
highest level the communicator's nodes reach (its pairs' nearest common ancestor): the
hardware latency of a network hop is then ``injection + ejection + (2L - 1) routers + 2L
links + 2 gpu_nic`` for a climb to level L (L = 2, a leaf-spine-leaf route, is what the
two-level machine takes elsewhere).

A topology is read through a :class:`NetworkView`: :class:`TreeView` here, the
``DragonflyView`` of :mod:`.nccl_dragonfly` on dragonflies, with the same methods (the
network term of a pattern, the router hops of a communicator, and the words of the notes);
:func:`network_term` and :func:`communicator_hops` ask the view. Other topologies (tori,
megaflies) give none: the forms keep the NICs alone.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple, Protocol

import numpy as np

from icnperf.errors import InputError
from icnperf.model.collectives.nccl_pxn import pxn_route
from icnperf.model.topology import tree_routing

CROSS_RAIL_FLOWS = 1 << 22
"""Most NIC flows an all-to-all across rails (no PXN) is routed with, flow by flow (about
0.5 GB of index arrays); the rail-aligned all-to-all has a closed form (alltoall_term)."""

ALGORITHM_PATTERN = {"ring": "ring", "tree": "tree", "nvls-tree": "tree", "pat": "pat",
                     "collnet": None, "nvls": None}
"""The inter-domain pattern each algorithm runs (p2p: all-to-all, or send/recv's shift,
:func:`pattern_of`); None where no flow between domains loads a switch-to-switch channel."""


class NetworkView(Protocol):
    """What the network term asks of a topology (module docstring): :class:`TreeView`,
    ``nccl_dragonfly.DragonflyView``."""

    where: str
    """Where the notes say the flows are routed ("on the fat tree (...)")."""

    def reach(self, level: int) -> str:
        """How high or far a term's ``level`` takes the flows, for the notes."""

    def network_term(self, pattern: str, domains: int, domain_nodes: int,
                     nics: tuple[int, ...], cross_rails: bool) -> NetworkTerm:
        """The term of ``pattern`` ("ring", "tree", "pat", "alltoall") over ``domains`` >= 2
        domains (:func:`network_term`'s arguments, send/recv's shift already a ring)."""

    def communicator_hops(self, nodes: int) -> tuple[int, int]:
        """(routers, links) of a network hop between the first ``nodes`` nodes."""


class TreeView(NamedTuple):
    """A fat tree as the network term sees it (a :class:`NetworkView`): the XGFT's m, w, p
    (leaf level first), the routing rule, NIC endpoints per node (``rails`` R on ``rail:``;
    1 where an endpoint is a node), the rail join level (``rail:``; 0 where an endpoint is a
    node) and ``planes``: where an endpoint is a node whose NICs are ``spread``
    (``node.nic_attachment``), the tree is one rail's, each NIC index on its own copy (the
    dgx-a100 preset's reading), so the flows of NIC i load plane i only; else a node's NICs
    share its endpoint's leaf."""

    m: tuple
    w: tuple
    p: tuple
    routing: str
    rails: int
    join: int
    planes: bool = False

    def positions(self, nodes, nics) -> np.ndarray:
        """XGFT positions of NIC ``nics`` (indices) of ``nodes``."""
        nodes = np.asarray(nodes, dtype=np.int64)
        if not self.join:
            return nodes
        from icnperf.model.topology.rail import positions

        nics = np.asarray(nics, dtype=np.int64) % self.rails
        return positions(self.rails, self.m, self.join, nodes * self.rails + nics)

    @property
    def nodes(self) -> int:
        """Nodes the tree holds."""
        return math.prod(self.m) // self.rails

    where = "on the fat tree (model/collectives/nccl_network.py)"

    @staticmethod
    def reach(level: int) -> str:
        """How high the flows climb, for the notes."""
        return f"to level {level}"

    def network_term(self, pattern: str, domains: int, domain_nodes: int,
                     nics: tuple[int, ...], cross_rails: bool) -> NetworkTerm:
        """:func:`network_term` on the fat tree: the rail-aligned all-to-all in closed form
        (:func:`alltoall_term`), any other pattern routed step by step (:func:`step_term`;
        an all-to-all across rails up to :data:`CROSS_RAIL_FLOWS` NIC flows)."""
        if pattern == "alltoall" and not cross_rails:
            return alltoall_term(self, domains, domain_nodes, nics)
        if pattern == "alltoall" and domains * (domains - 1) * (
                domain_nodes * len(nics)) ** 2 > CROSS_RAIL_FLOWS:
            raise InputError(f"an all-to-all across rails over {domains} domains has more "
                             f"than {CROSS_RAIL_FLOWS:,} NIC flows to route; ask for fewer "
                             "nodes")
        return combine_steps([(step_term(self, edges, domain_nodes, nics, cross_rails),
                               share) for edges, share in domain_flows(pattern, domains)])

    def communicator_hops(self, nodes: int) -> tuple[int, int]:
        """:func:`hop_counts` of :func:`communicator_level`."""
        return hop_counts(communicator_level(self, nodes) if nodes > 1 else 0)


def tree_view(machine) -> TreeView | None:
    """The machine's topology as a :class:`TreeView`, or None for a topology that is not a
    fat tree (or gives none)."""
    text = machine.get("topology")
    if not text:
        return None
    from icnperf.model.topology.spec import parse_spec

    spec = parse_spec(str(text))
    name, params = spec.family.name, spec.params
    routing = str(machine.get("network.tree_routing", "random"))
    planes = machine.get("node.nic_attachment") == "spread"

    def levels(key, default):
        value = params.get(key, default)
        return (int(value),) if isinstance(value, (int, np.integer)) else tuple(
            int(v) for v in value)

    if name in ("xgft", "rail"):
        m = levels("m", None)
        w, p = levels("w", None), levels("p", (1,) * len(m))
        if name == "xgft":
            return TreeView(m, w, p, routing, 1, 0, planes)
        return TreeView(m, w, p, routing, int(params["rails"]),
                        int(params.get("join", len(m))))
    if name in ("fattree", "clos"):
        from icnperf.model.topology.xgft import fattree_as_xgft

        k = params["k"] if name == "fattree" else params["radix"] // 2
        n = params["n"] if name == "fattree" else params["levels"]
        tree = fattree_as_xgft(int(k), int(n))
        m = tuple(int(v) for v in tree["m"])
        return TreeView(m, tuple(int(v) for v in tree["w"]), (1,) * len(m), routing, 1, 0,
                        planes)
    return None


def double_binary_tree(n: int) -> list[tuple[int, int]]:
    """The (child, parent) edges of the two binary trees of NCCL's double binary tree over
    ranks 0..n-1 (Sanders, Speck & Traeff, "Two-tree algorithms for full bandwidth
    broadcast, reduction and scan", Parallel Computing 2009; Jeaugey, "Massively Scale Your
    Deep Learning Training with NCCL 2.4", NVIDIA blog, 2019).

    Tree one is the in-order binary tree: rank r > 0 with lowest set bit b hangs under
    (r - b) | 2b, or under r - b where that is n or more; so odd ranks are leaves and the
    root 0 has the single child of the highest power of two below n. Tree two is the same
    tree on the mirrored ranks n-1-r (n even) or shifted by one, r -> r+1 mod n (n odd),
    so that a leaf of one tree is interior in the other."""
    def tree(rank_of):
        edges = []
        for r in range(1, n):
            low = r & -r
            parent = (r - low) | (2 * low)
            if parent >= n:
                parent = r - low
            edges.append((rank_of(r), rank_of(parent)))
        return edges

    second = (lambda r: n - 1 - r) if n % 2 == 0 else (lambda r: (r + 1) % n)
    return tree(lambda r: r) + tree(second)


def domain_flows(pattern: str, n: int) -> list[tuple[list[tuple[int, int]], float]]:
    """The domain-to-domain flows of ``pattern`` over n domains, as steps [(edges, share)]:
    the steps run one after the other, each moving ``share`` of the bytes; every edge of a
    step carries the same amount (a, b) = a to b."""
    if n < 2:
        return []
    if pattern == "ring":
        return [([(a, (a + 1) % n) for a in range(n)], 1.0)]
    if pattern == "tree":
        edges = double_binary_tree(n)
        return [([*edges, *((b, a) for a, b in edges)], 1.0)]
    if pattern == "alltoall":
        return [([(a, b) for a in range(n) for b in range(n) if a != b], 1.0)]
    if pattern == "pat":
        steps, distance = [], 1
        while distance < n:
            moved = min(distance, n - distance)
            steps.append(([(a, (a - distance) % n) for a in range(n)], moved / (n - 1)))
            distance *= 2
        return steps
    raise ValueError(f"unknown pattern {pattern!r}")


class NetworkTerm(NamedTuple):
    """What the network adds to one algorithm's inter-domain term: ``slowdown`` >= 1
    (the busiest switch-to-switch channel over the busiest NIC), the highest ``level`` its
    flows climb to (1: they stay in their leaves; 0: no flow, or no tree), and
    ``channel_load`` and ``nic_load`` behind the slowdown (in units of a domain flow's
    rate)."""

    slowdown: float
    level: int
    channel_load: float
    nic_load: float


def _level(view: TreeView, sources, destinations) -> int:
    """The highest level the pairs' nearest common ancestors reach (1: one leaf)."""
    level, pod = 1, 1
    for l in range(1, len(view.m)):
        pod *= view.m[l - 1]
        if np.any(sources // pod != destinations // pod):
            level = l + 1
    return level


def step_term(view: TreeView, edges, domain_nodes: int, nics: tuple[int, ...],
              cross_rails: bool) -> NetworkTerm:
    """The network term of one step: domain flows ``edges`` (a -> b) over domains of
    ``domain_nodes`` consecutive nodes whose GPUs use NICs ``nics`` (indices, one per GPU
    of a node, repeats allowed), rail-aligned (NIC j of a to NIC j of b, each 1/D of the
    domain flow for the domain's D NICs) unless ``cross_rails`` (each GPU's NIC to each
    peer GPU's NIC, 1/G^2 each for G GPUs)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if not len(edges):
        return NetworkTerm(1.0, 1, 0.0, 0.0)
    s_node, s_nic, d_node, d_nic, weight, nic_load = nic_flows(edges, domain_nodes, nics,
                                                               cross_rails)
    x_src, x_dst = view.positions(s_node, s_nic), view.positions(d_node, d_nic)
    planes = np.unique(s_nic) if view.planes else [None]
    channel = 0.0
    for plane in planes:
        mine = slice(None) if plane is None else s_nic == plane
        channel = max(channel, tree_routing.pattern_load(
            view.m, view.w, view.p, view.routing, x_src[mine], x_dst[mine],
            np.full(len(x_src[mine]), weight)))
    return NetworkTerm(slowdown_of(channel, nic_load), _level(view, x_src, x_dst), channel,
                       nic_load)


def nic_flows(edges, domain_nodes: int, nics: tuple[int, ...], cross_rails: bool):
    """The NIC flows of domain flows ``edges`` (an (E, 2) array, a -> b; :func:`step_term`'s
    reading): (source node, source NIC, destination node, destination NIC, the weight of
    every flow in domain flows, the busiest NIC's load in domain flows)."""
    node = np.repeat(np.arange(domain_nodes, dtype=np.int64), len(nics))
    nic = np.tile(np.asarray(nics, dtype=np.int64), domain_nodes)
    if cross_rails:
        src_local = np.repeat(np.arange(len(node)), len(node))
        dst_local = np.tile(np.arange(len(node)), len(node))
    else:
        keys = np.unique(node * (max(nics) + 1) + nic, return_index=True)[1]
        src_local = dst_local = keys
    weight = 1.0 / len(src_local)
    a = np.repeat(edges[:, 0], len(src_local))
    b = np.repeat(edges[:, 1], len(src_local))
    s_node = a * domain_nodes + np.tile(node[src_local], len(edges))
    d_node = b * domain_nodes + np.tile(node[dst_local], len(edges))
    s_nic = np.tile(nic[src_local], len(edges))
    d_nic = np.tile(nic[dst_local], len(edges))
    width = max(nics) + 1
    out_load = np.unique(s_node * width + s_nic, return_counts=True)[1].max()
    in_load = np.unique(d_node * width + d_nic, return_counts=True)[1].max()
    nic_load = weight * float(max(out_load, in_load))
    return s_node, s_nic, d_node, d_nic, weight, nic_load


def slowdown_of(channel: float, nic: float) -> float:
    """max(1, channel / nic), 1 where the two differ by rounding only (1e-9)."""
    return channel / nic if channel > nic * (1 + 1e-9) else 1.0


def alltoall_term(view: TreeView, domains: int, domain_nodes: int,
                  nics: tuple[int, ...]) -> NetworkTerm:
    """:func:`step_term` of the rail-aligned all-to-all in closed form, without listing its
    n(n-1)D flows. The flows join the same NIC slot (node k of the domain, NIC i) of every
    pair of domains, so each slot's n points send to one another, 1/D each. Per level l and
    pod Q, with c the slot's points in Q: random, up (and down) load Σ_slots c (n - c) / D
    over C_l channels; dmodk, up channel r: Σ_slots c (points outside Q ≡ r mod C_l) / D,
    down channel (a, b): Σ_slots (points in Q ≡ a mod W_(l+1)) (points outside Q ≡ b mod
    p_(l+1)) / D (tree_routing's rules counted by residue). Where the view has planes, each
    NIC index's slots load their own copy of the tree."""
    slots = sorted({(k, i) for k in range(domain_nodes) for i in nics})
    weight = 1.0 / len(slots)
    nodes = np.arange(domains, dtype=np.int64) * domain_nodes
    groups: dict = {}
    for k, i in slots:
        groups.setdefault(i if view.planes else None, []).append(
            view.positions(nodes + k, np.full(domains, i)))
    channel, level = 0.0, 1
    for points in groups.values():
        load, reach = _alltoall_channels(view, points, domains)
        channel, level = max(channel, weight * load), max(level, reach)
    nic_load = weight * (domains - 1)
    return NetworkTerm(slowdown_of(channel, nic_load), level, channel, nic_load)


def _alltoall_channels(view: TreeView, points, domains: int) -> tuple[float, int]:
    """(busiest channel in flows, level reached) of the slots' all-to-all on one plane
    (alltoall_term's sums before the 1/D weight)."""
    total = math.prod(view.m)
    channel, level, pod, switches = 0.0, 1, 1, 1
    for l in range(1, len(view.m)):
        pod *= view.m[l - 1]
        switches *= view.w[l - 1]
        upper, cables = switches * view.w[l], view.p[l]
        count_channels, pods = upper * cables, total // pod
        if any(np.unique(x // pod).size > 1 for x in points):
            level = l + 1
        if view.routing == "dmodk":
            up = np.zeros((pods, count_channels))
            down = np.zeros((pods, upper, cables))
            for x in points:
                q = x // pod
                inside = np.bincount(q, minlength=pods)
                residue_in = np.zeros((pods, count_channels))
                np.add.at(residue_in, (q, x % count_channels), 1.0)
                residue_all = np.bincount(x % count_channels, minlength=count_channels)
                up += inside[:, None] * (residue_all[None, :] - residue_in)
                dest_in = np.zeros((pods, upper))
                np.add.at(dest_in, (q, x % upper), 1.0)
                source_in = np.zeros((pods, cables))
                np.add.at(source_in, (q, x % cables), 1.0)
                source_all = np.bincount(x % cables, minlength=cables)
                down += dest_in[:, :, None] * (source_all[None, None, :]
                                               - source_in[:, None, :])
            channel = max(channel, float(max(up.max(), down.max())))
        else:
            out = np.zeros(pods)
            for x in points:
                inside = np.bincount(x // pod, minlength=pods).astype(float)
                out += inside * (domains - inside)
            channel = max(channel, float(out.max()) / count_channels)
    return channel, level


def pattern_of(algorithm: str, operation: str) -> str | None:
    """The inter-domain pattern of an algorithm and operation (:data:`ALGORITHM_PATTERN`;
    p2p: all-to-all, or the ring's shift for send/recv)."""
    if algorithm == "p2p":
        return "alltoall" if operation == "alltoall" else "shift"
    return ALGORITHM_PATTERN.get(algorithm)


def network_term(view: NetworkView | None, pattern: str | None, domains: int,
                 domain_nodes: int, nics: tuple[int, ...],
                 cross_rails: bool = False) -> NetworkTerm:
    """The slowdown and level of ``pattern`` over ``domains`` domains of ``domain_nodes``
    nodes each (module docstring), as the view routes it; slowdown 1 without a view, a
    pattern or a second domain. Steps run in turn, so the slowdown is their byte-weighted
    mean. Send/recv's shift is the ring by the first NIC slot."""
    if view is None or pattern is None or domains < 2:
        return NetworkTerm(1.0, 0, 0.0, 0.0)
    if pattern == "shift":
        pattern, nics = "ring", nics[:1]
    return view.network_term(pattern, domains, domain_nodes, nics, cross_rails)


def combine_steps(terms: list[tuple[NetworkTerm, float]]) -> NetworkTerm:
    """One term of steps [(term, share of the bytes)] run in turn: the byte-weighted mean
    slowdown, the highest level, the channel and NIC loads of the step whose ratio is the
    largest."""
    total = sum(share for _, share in terms)
    slowdown = sum(t.slowdown * share for t, share in terms) / total
    slowdown = 1.0 if abs(slowdown - 1.0) < 1e-9 else slowdown
    worst = max(terms, key=lambda ts: ts[0].channel_load / max(ts[0].nic_load, 1e-300))[0]
    return NetworkTerm(slowdown, max(t.level for t, _ in terms), worst.channel_load,
                       worst.nic_load)


def communicator_level(view: TreeView | None, nodes: int) -> int:
    """The highest level the pairs of the first ``nodes`` nodes climb to, any NIC to the
    same NIC index (0 without a tree view; 1 within one leaf): one more than the highest
    level l whose pods split some rail's NICs of the communicator."""
    if view is None or nodes < 2:
        return 0
    ids = np.arange(nodes, dtype=np.int64)
    points = [view.positions(ids, np.full(nodes, nic)) for nic in range(max(1, view.rails))]
    level, pod = 1, 1
    for l in range(1, len(view.m)):
        pod *= view.m[l - 1]
        if any(np.unique(x // pod).size > 1 for x in points):
            level = l + 1
    return level


@functools.lru_cache(maxsize=512)
def cached_network_term(view: NetworkView | None, pattern: str | None, domains: int,
                        domain_nodes: int, nics: tuple[int, ...],
                        cross_rails: bool) -> NetworkTerm:
    """:func:`network_term`, remembered (a sizing study asks the same communicator on many
    designs, predict on many sizes)."""
    return network_term(view, pattern, domains, domain_nodes, nics, cross_rails)


def communicator_hops(view: NetworkView | None, nodes: int) -> tuple[int, int]:
    """(routers, links) of a network hop between the first ``nodes`` nodes, as the view
    counts them (a fat tree: :func:`hop_counts` of :func:`communicator_level`); without a
    view leaf-spine-leaf (3, 4)."""
    return hop_counts(0) if view is None else view.communicator_hops(nodes)


def hop_counts(level: int) -> tuple[int, int]:
    """(routers, links) of a route climbing to ``level`` (2L - 1 and 2L, endpoint links
    included); a leaf-spine-leaf route (3, 4) where no tree says otherwise (level 0)."""
    if level <= 0:
        return 3, 4
    return 2 * level - 1, 2 * level


def network_note(fabric, operation: str, algorithms, nodes: int,
                 pxn_default: bool | None = None) -> str | None:
    """One line saying, for a communicator of ``nodes`` nodes on ``fabric`` (a
    nccl_fabric.Fabric), how high each algorithm's inter-domain flows climb and by how much
    the busiest channel slows them; None without a network view or on one domain.
    ``pxn_default``: the library's PXN default, which decides whether all-to-all stays on
    its rails
    (:func:`.nccl_pxn.pxn_route`); None: the fabric's own rule."""
    view = fabric.view
    if view is None or fabric.domains < 2:
        return None
    parts = []
    for algorithm in algorithms:
        aligned = (None if pxn_default is None else
                   pxn_route(fabric, pxn_default, operation, algorithm).rail_aligned)
        term = fabric.network(algorithm, operation, aligned)
        if pattern_of(algorithm, operation) is None:
            continue
        parts.append(f"{algorithm} {view.reach(term.level)}, channel/NIC "
                     f"{term.channel_load / term.nic_load:.3g}"
                     + (f" (B_net / {term.slowdown:.3g})" if term.slowdown > 1 else ""))
    if not parts:
        return None
    return (f"network at {nodes} nodes: the inter-domain flows routed {view.where}: "
            f"{'; '.join(parts)}")
