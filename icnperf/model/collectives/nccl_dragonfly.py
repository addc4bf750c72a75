"""The network under a NCCL or RCCL communicator on a dragonfly (``dragonfly:`` and the
generalized ``gdragonfly:`` of the Slingshot and Aries presets): how many router hops the
inter-domain flows of each algorithm take and how much the busiest local or global channel
slows them below the NICs' own rate. The fat-tree counterpart is :mod:`.nccl_network`, whose
flows (ring, double binary tree, PAT's steps, all-to-all, send/recv's shift) and NIC reading
(rail-aligned, or across rails without PXN) this module takes unchanged; only where the NICs
sit and how their flows are routed differ.

Where NIC i of node n sits. A topology endpoint is a node and the presets give a router p
nodes (docs/machine-format.md, "Nodes with several NICs"), so a router has P = p D NIC ports
for D = ``node.nics_per_node``:

* ``same-switch`` (the model's own reading): every NIC of node n on router n // p;
* ``spread`` (Frontier's four NICs on four switches of the group): the nodes in blocks of P
  consecutive ones, each block on D consecutive routers, NIC i of all P nodes on router i of
  the block (an HPE Cray EX chassis of 16 nodes, each node's 4 NICs on the chassis' 4
  switches; G. Lockwood, "Frontier", citing Atchley et al., "Frontier: Exploring Exascale",
  SC23). Used where D divides the routers of a group, else the same-switch reading.

Consecutive nodes fill a router (or a block), then a group: the layouts' linear placement.
The NIC flows are merged into router pairs and routed by MIN routing with the topology's own
counts (:func:`icnperf.model.topology.dragonfly.dragonfly_route_load`,
:func:`~icnperf.model.topology.dragonfly.gdragonfly_route_load`: local, global, local; a
gdragonfly splits a group pair's traffic over its m global links), giving the busiest
channel in domain flows against the busiest NIC's.

Adaptive routing (``network.dragonfly_routing = adaptive``: Slingshot, Aries) is taken as
UGAL, the smaller of the minimal route's load and Valiant's (Kim, Dally, Scott & Abts,
"Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008, §4.2; the form
gamma = min(gamma_min, 2 gamma_uniform) of the saturation estimate, model/network/
saturation.py), Valiant's estimated per channel class for this communicator:

* local: the busiest router's traffic out plus the busiest router's traffic in, over the R
  routers of a group (times la parallel links) an intermediate router is drawn from: once
  to the intermediate, once from it (Valiant & Brebner 1981). On a group of rows (gdragonfly
  b > 1), whose Valiant paths take more hops, twice the uniform load of one group whose
  every NIC injects at the busiest NIC's rate instead
  (:func:`~icnperf.model.topology.dragonfly.gdragonfly_loads_one` at g = 1);
* global (a communicator over several groups): the busiest group's traffic out plus the
  busiest group's traffic in, over the m (g - 1) global links of a group.

Both spread the communicator's traffic over the whole group or machine as if nothing else
ran (an idle machine; a busy one leaves Valiant less, so these are the optimistic side).
A communicator inside one group is slowed at most by 2P/R (R routers of the group, P NIC
ports each: 1 on Frontier, LUMI-G, El Capitan and Aurora, 32/28 on Alps), and a minimal
route's hot channel is relieved to the Valiant estimate. Under ``minimal`` the minimal
route's load stands.
The latency counts the minimal route's router hops, the path an idle adaptive network takes:
routers = hops + 1 and links = hops + 2 (NIC links included) between the communicator's NICs
of one index.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from icnperf.model.collectives.nccl_network import (
    NetworkTerm,
    combine_steps,
    domain_flows,
    nic_flows,
    slowdown_of,
)

ROUTER_PAIRS = 1 << 20
"""Most router pairs an all-to-all is routed with, pair by pair (about 250 MB at most);
beyond, :meth:`DragonflyView.alltoall_by_groups`."""

HOP_ROUTERS = 512
"""Most routers of one NIC index whose pairs the communicator's hop count walks; beyond,
the family's longest minimal route (the communicator spans many groups)."""


class DragonflyView(NamedTuple):
    """A dragonfly as the network term sees it (a :class:`.nccl_network.NetworkView`):
    ``family`` ("dragonfly" or "gdragonfly"),
    ``shape`` (gdragonfly: p, a, b, la, lb, g, m; dragonfly: p, a, h), D = ``nics`` per
    node, ``spread`` (module docstring) and ``adaptive`` routing."""

    family: str
    shape: tuple
    nics: int
    spread: bool
    adaptive: bool

    where = "on the dragonfly (model/collectives/nccl_dragonfly.py)"

    @staticmethod
    def reach(hops: int) -> str:
        """How far the flows go, for the notes."""
        return f"{hops} hop" + ("" if hops == 1 else "s")

    @property
    def ports(self) -> int:
        """P: NIC ports per router (p nodes of D NICs)."""
        return self.shape[0] * self.nics

    @property
    def group_routers(self) -> int:
        """R: routers of one group."""
        if self.family == "gdragonfly":
            return self.shape[1] * self.shape[2]
        return self.shape[1]

    @property
    def groups(self) -> int:
        """g: groups of the machine."""
        if self.family == "gdragonfly":
            return self.shape[5]
        return self.shape[1] * self.shape[2] + 1

    @property
    def global_links(self) -> int:
        """m: global links between two groups."""
        return self.shape[6] if self.family == "gdragonfly" else 1

    def routers(self, nodes, nics) -> np.ndarray:
        """The router of NIC ``nics`` of ``nodes`` (arrays of indices)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        if not self.spread:
            return nodes // self.shape[0]
        return (nodes // self.ports) * self.nics + np.asarray(nics, dtype=np.int64)

    def _route(self, function, sources, destinations, **weights):
        """``function`` of the routes between routers (one endpoint per router)."""
        from icnperf.model.topology import dragonfly

        if self.family == "gdragonfly":
            return getattr(dragonfly, f"gdragonfly_{function}")(
                1, *self.shape[1:], sources, destinations, **weights)
        return getattr(dragonfly, f"dragonfly_{function}")(
            1, *self.shape[1:], sources, destinations, **weights)

    def channel_load(self, sources, destinations, amounts) -> float:
        """The busiest channel under MIN routing of router pairs carrying ``amounts``."""
        if not len(sources):
            return 0.0
        return float(self._route("route_load", sources, destinations, weights=amounts))

    def hops(self, sources, destinations) -> int:
        """The longest minimal route between the router pairs (0 for none)."""
        if not len(sources):
            return 0
        return int(np.max(self._route("route_hops", sources, destinations)))

    def valiant_ratio(self, sources, destinations, amounts, nic_load: float) -> float:
        """Valiant's channel over NIC load of router-pair traffic ``amounts`` (module
        docstring): local, the busiest router's traffic out plus the busiest router's in,
        over the R (la) links an intermediate router spreads them on; on a group of rows
        (b > 1) twice the uniform load of one group instead; global, across groups, the
        busiest group's out plus in over its m (g - 1) links."""
        from icnperf.model.topology import dragonfly

        if self.family == "gdragonfly" and self.shape[2] > 1:
            _, a, b, la, lb, _, m = self.shape
            loads = dragonfly.gdragonfly_loads_one(self.ports, a, b, la, lb, 1, m)["uniform"]
            ratio = 2.0 * max(loads["rank1"], loads["rank2"])
        else:
            parallel = self.shape[3] if self.family == "gdragonfly" else 1
            ratio = (np.bincount(sources, weights=amounts).max()
                     + np.bincount(destinations, weights=amounts).max()) / (
                         self.group_routers * parallel) / nic_load
        size = self.group_routers
        across = sources // size != destinations // size
        if np.any(across):
            groups = self.groups
            out = np.bincount(sources[across] // size, weights=amounts[across]).max()
            into = np.bincount(destinations[across] // size, weights=amounts[across]).max()
            ratio = max(ratio, (out + into) / (self.global_links * (groups - 1)) / nic_load)
        return float(ratio)

    def term(self, sources, destinations, amounts, nic_load: float) -> NetworkTerm:
        """The network term of router-pair traffic (pairs within one router dropped)."""
        keep = sources != destinations
        sources, destinations, amounts = sources[keep], destinations[keep], amounts[keep]
        channel = self.channel_load(sources, destinations, amounts)
        if self.adaptive and channel > nic_load:
            channel = min(channel, nic_load * self.valiant_ratio(sources, destinations,
                                                                 amounts, nic_load))
        return NetworkTerm(slowdown_of(channel, nic_load), self.hops(sources, destinations),
                           float(channel), float(nic_load))

    def step_term(self, edges, domain_nodes: int, nics: tuple[int, ...],
                  cross_rails: bool) -> NetworkTerm:
        """One step's domain flows ``edges`` (as :func:`.nccl_network.step_term`)."""
        edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        if not len(edges):
            return NetworkTerm(1.0, 0, 0.0, 0.0)
        s_node, s_nic, d_node, d_nic, weight, nic_load = nic_flows(edges, domain_nodes, nics,
                                                                   cross_rails)
        return self.term(*router_pairs(self.routers(s_node, s_nic),
                                       self.routers(d_node, d_nic),
                                       np.full(len(s_node), weight)), nic_load)

    def alltoall_term(self, domains: int, domain_nodes: int, nics: tuple[int, ...],
                      cross_rails: bool) -> NetworkTerm:
        """The all-to-all between ``domains`` domains without listing its NIC flows: per
        class of NICs that exchange (rail-aligned: each NIC slot, weight 1/slots; across
        rails: all the domain's GPUs' NICs, weight 1/G^2), router U sends router V the
        product of the class's NIC weight on each, less a domain's own pairs."""
        if cross_rails:
            gpus = domain_nodes * len(nics)
            node = np.repeat(np.arange(domains * domain_nodes, dtype=np.int64), len(nics))
            nic = np.tile(np.asarray(nics, dtype=np.int64), domains * domain_nodes)
            classes = [self.routers(node, nic)]
            weight = 1.0 / gpus**2
            nic_load = max(np.unique(nics, return_counts=True)[1]) * (domains - 1) / gpus
        else:
            slots = sorted({(k, i) for k in range(domain_nodes) for i in nics})
            first = np.arange(domains, dtype=np.int64) * domain_nodes
            classes = [self.routers(first + k, np.full(domains, i)) for k, i in slots]
            weight = 1.0 / len(slots)
            nic_load = (domains - 1) * weight
        if sum(np.unique(router).size ** 2 for router in classes) > ROUTER_PAIRS:
            return self.alltoall_by_groups(classes, weight, nic_load)
        parts = []
        for router in classes:
            used, count = np.unique(router, return_counts=True)
            parts.append((np.repeat(used, used.size), np.tile(used, used.size),
                          weight * np.outer(count, count).ravel()))
        if cross_rails:
            # a domain sends nothing to itself: the pairs of its own NICs taken off
            own = classes[0].reshape(domains, gpus)
            parts.append((np.repeat(own, gpus, axis=1).ravel(), np.tile(own, gpus).ravel(),
                          np.full(own.size * gpus, -weight)))
        return self.term(*router_pairs(*(np.concatenate(v) for v in zip(*parts))), nic_load)

    def alltoall_by_groups(self, classes, weight: float, nic_load: float) -> NetworkTerm:
        """The all-to-all of a communicator with more than :data:`ROUTER_PAIRS` router
        pairs, counted by group: a global channel exactly as MIN routing loads it (a group
        pair's traffic over its m links), a local channel at the uniform pattern's local
        load (the whole machine's all-to-all; gdragonfly_loads_one, dragonfly_uniform_loads)
        with every NIC at the busiest NIC's rate, the hops the family's longest route. A
        domain's own pairs are not taken off (they stay in its group)."""
        from icnperf.model.topology import dragonfly

        size, groups = self.group_routers, self.groups
        mass = [np.bincount(router // size, minlength=groups).astype(float)
                for router in classes]
        between = weight * sum(np.outer(c, c) for c in mass)
        np.fill_diagonal(between, 0.0)
        if self.family == "gdragonfly":
            _, a, b, la, lb, g, m = self.shape
            loads = dragonfly.gdragonfly_loads_one(self.ports, a, b, la, lb, g, m)["uniform"]
            local = max(loads["rank1"], loads["rank2"])
        else:
            local = float(dragonfly.dragonfly_uniform_loads(self.ports, *self.shape[1:])[
                "local"])
        channel = max(float(between.max()) / self.global_links, local * nic_load)
        if self.adaptive and channel > nic_load:
            per_router = sum(np.bincount(router, minlength=groups * size).astype(float)
                             for router in classes)
            out = weight * float(np.max(per_router * (per_router.sum() - per_router)))
            if self.family == "gdragonfly" and self.shape[2] > 1:
                local = 2 * max(dragonfly.gdragonfly_loads_one(
                    self.ports, a, b, la, lb, 1, m)["uniform"].values()) * nic_load
            else:
                parallel = self.shape[3] if self.family == "gdragonfly" else 1
                local = 2 * out / (size * parallel)
            valiant = max(local, 2 * float(between.sum(axis=1).max())
                          / (self.global_links * (groups - 1)))
            channel = min(channel, valiant)
        return NetworkTerm(slowdown_of(channel, nic_load), self.longest_route(),
                           float(channel), float(nic_load))

    def network_term(self, pattern: str, domains: int, domain_nodes: int,
                     nics: tuple[int, ...], cross_rails: bool) -> NetworkTerm:
        """:func:`.nccl_network.network_term` on the dragonfly."""
        if pattern == "alltoall":
            return self.alltoall_term(domains, domain_nodes, nics, cross_rails)
        return combine_steps([(self.step_term(edges, domain_nodes, nics, cross_rails), share)
                              for edges, share in domain_flows(pattern, domains)])

    def communicator_hops(self, nodes: int) -> tuple[int, int]:
        """(routers, links) of the longest minimal route between two of the first
        ``nodes`` nodes' NICs of one index: hops + 1 and hops + 2."""
        if nodes < 2:
            return 3, 4
        ids = np.arange(nodes, dtype=np.int64)
        hops = 0
        for nic in range(self.nics if self.spread else 1):
            used = np.unique(self.routers(ids, np.full(nodes, nic)))
            if used.size > HOP_ROUTERS:
                hops = max(hops, self.longest_route())
                continue
            hops = max(hops, self.hops(np.repeat(used, used.size), np.tile(used, used.size)))
        return hops + 1, hops + 2

    def longest_route(self) -> int:
        """The family's longest minimal route in router hops: 1 + 2 x the group's diameter
        (gdragonfly: a row hop and a column hop; dragonfly: one local hop)."""
        if self.family == "gdragonfly":
            inner = int(self.shape[1] > 1) + int(self.shape[2] > 1)
        else:
            inner = int(self.shape[1] > 1)
        return 1 + 2 * inner if self.groups > 1 else inner


def router_pairs(sources, destinations, amounts):
    """(sources, destinations, amounts) summed per distinct router pair, pairs within one
    router and sums of nothing (below 1e-12) left out."""
    keep = sources != destinations
    sources, destinations, amounts = sources[keep], destinations[keep], amounts[keep]
    if not sources.size:
        return sources, destinations, amounts.astype(float)
    span = int(max(sources.max(), destinations.max())) + 1
    keys, index = np.unique(sources * span + destinations, return_inverse=True)
    totals = np.bincount(index.ravel(), weights=amounts)
    live = totals > 1e-12
    return keys[live] // span, keys[live] % span, totals[live]


def dragonfly_view(machine) -> DragonflyView | None:
    """The machine's topology as a :class:`DragonflyView`, or None when it is not a
    ``dragonfly:`` or ``gdragonfly:``."""
    text = machine.get("topology")
    if not text:
        return None
    from icnperf.model.topology.spec import parse_spec

    spec = parse_spec(str(text))
    name, params = spec.family.name, spec.params
    if name == "gdragonfly":
        from icnperf.model.topology.dragonfly.general import DEFAULTS, PARAMETERS

        shape = tuple(int({**DEFAULTS, **params}[key]) for key in PARAMETERS)
    elif name == "dragonfly":
        shape = (int(params["p"]), int(params["a"]), int(params["h"]))
    else:
        return None
    nics = int(machine.get("node.nics_per_node", 1))
    view = DragonflyView(name, shape, nics, False,
                         machine.get("network.dragonfly_routing") == "adaptive")
    spread = machine.get("node.nic_attachment") == "spread" and nics > 1 \
        and view.group_routers % nics == 0
    return view._replace(spread=spread)
