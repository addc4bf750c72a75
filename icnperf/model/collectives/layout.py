"""Where the ranks sit: :class:`Layout` (a torus, a full crossbar or a fat tree / Clos /
dragonfly / megafly / generalized dragonfly), its rank placement (processes per node,
linear or random; PLACEMENTS, MAX_RANKS) and the mapping of a set of simultaneous messages onto the network (hops,
channel load, adapter sharing; :meth:`Layout.traffic`, :meth:`Layout.rank_traffic`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from icnperf.errors import InputError
from icnperf.model.topology import torus

# --- layouts: where ranks are and what each step's messages cost --------------------------


PLACEMENTS = ("linear", "random", "spread")
"""Rank placements: ``linear`` puts node i on endpoint i; ``random`` on endpoint
perm[i] for a permutation of the machine's endpoints seeded by ``seed`` (NumPy's
default_rng); ``spread`` deals the nodes round-robin over the leaf switches of a fat tree
or the groups of a dragonfly / megafly / gdragonfly (node i on unit i mod U, the
(i // U)-th endpoint of it)."""

_NETWORK_FAMILIES = ("fattree", "clos", "xgft", "rail", "dragonfly", "megafly", "gdragonfly",
                     "dfplus")
_TREE_FAMILIES = ("fattree", "clos", "xgft", "rail")
"""Non-torus families whose minimal routes the textbook algorithms are mapped onto."""


MAX_RANKS = 2**21
"""Most ranks a layout holds: the schedules map every rank's messages onto the network,
so memory and time grow with the rank count (2^21 ranks take a few seconds)."""


@dataclass(frozen=True)
class Layout:
    """Where the ranks sit: a torus (radices), a full crossbar (every pair 1 hop apart, no
    two messages share a channel) or a fat tree / Clos / dragonfly / megafly (``network``:
    the family name and its parameters), with ``processes_per_node`` ranks r..r+ppn-1 on
    one node and the nodes on the endpoints by ``placement`` (linear: node i on endpoint i,
    dimension 0 fastest on a torus; random: a permutation seeded by ``seed``).
    ``endpoints`` counts nodes (every endpoint holds one node); :attr:`ranks` the ranks.
    ``ring_ties``: how a torus routes a message half a ring away (torus.RING_TIES; None:
    not set, routed + unless a machine sets it, see collectives.machine_layout).
    ``tree_routing``: a fat tree's up-port rule (xgft.TREE_ROUTINGS; None: random).
    ``machine_endpoints``: the network's nodes when the job uses only ``endpoints`` of
    them (:meth:`on_part`; None: the job fills the network). ``occupancy``: with the random
    placement, the share ρ of the network's nodes that other jobs hold (0: none, the
    permutation); above 0 the nodes are the first free ones of a busy machine, a batch
    scheduler's placement (model/scheduled_placement.scheduled_nodes, seeded by ``seed``;
    ``--production``, model/production.py).

    On a rail-optimised tree (``rail``, model/topology/rail.py) a node is R NICs: node
    slot g owns the NIC endpoints g·R .. g·R+R-1 (NIC i on rail i), rank r's messages
    leave and enter by NIC (r mod ppn) mod R (one NIC per GPU when ppn = R; NIC 0 with one
    rank per node); :meth:`rank_endpoints` and :meth:`traffic` speak NIC endpoints, which
    :meth:`tree_points` places on the XGFT."""

    endpoints: int
    radices: tuple[int, ...] | None = None
    network: tuple | None = None
    processes_per_node: int = 1
    placement: str = "linear"
    seed: int = 0
    ring_ties: str | None = None
    tree_routing: str | None = None
    machine_endpoints: int | None = None
    occupancy: float = 0.0

    def __post_init__(self):
        if self.endpoints * self.processes_per_node > MAX_RANKS:
            raise InputError(f"{self.endpoints * self.processes_per_node:,} ranks is more than"
                             f" the {MAX_RANKS:,} the step-by-step algorithms map (they place"
                             " every rank); use fewer nodes")

    @classmethod
    def torus(cls, radices) -> Layout:
        """A torus of the given radices (each an integer >= 2)."""
        radices = tuple(radices)
        if not radices or not all(isinstance(k, (int, np.integer)) and not isinstance(k, bool)
                                  and k >= 2 for k in radices):
            raise InputError(f"torus radices must be integers >= 2, not {radices!r}")
        radices = tuple(int(k) for k in radices)
        return cls(math.prod(radices), radices)

    @classmethod
    def crossbar(cls, endpoints: int) -> Layout:
        """P endpoints on a full crossbar: every distance 1, no contention."""
        if not (isinstance(endpoints, (int, np.integer)) and not isinstance(endpoints, bool)
                and endpoints >= 2):
            raise InputError(f"a crossbar needs an integer number of endpoints >= 2, "
                             f"not {endpoints!r}")
        return cls(int(endpoints), None)

    @classmethod
    def one_node(cls) -> Layout:
        """A job on one node: no network message (its ranks meet through shared memory)."""
        return cls(1, None)

    @property
    def network_nodes(self) -> int:
        """Nodes of the whole network (the job's nodes unless :meth:`on_part`)."""
        return self.machine_endpoints or self.endpoints

    @property
    def network_endpoints(self) -> int:
        """Endpoints of the whole network: its nodes times :attr:`rails`."""
        return self.network_nodes * self.rails

    @property
    def rails(self) -> int:
        """NIC endpoints per node: R on a rail-optimised tree, else 1."""
        return self.network[1] if self.family == "rail" else 1

    def same_node_as_source(self, sources, destinations) -> np.ndarray:
        """``destinations`` with every endpoint on its source's node replaced by the source
        (a rail tree's NICs of one node; a no-op elsewhere): messages inside a node never
        cross the network."""
        sources = np.asarray(sources, dtype=np.int64)
        destinations = np.asarray(destinations, dtype=np.int64)
        if self.rails == 1:
            return destinations
        return np.where(sources // self.rails == destinations // self.rails, sources,
                        destinations)

    def tree_points(self, endpoints) -> np.ndarray:
        """The XGFT positions of endpoints (rail.positions on a rail tree; the endpoints
        themselves on other trees)."""
        endpoints = np.asarray(endpoints, dtype=np.int64)
        if self.family != "rail":
            return endpoints
        from icnperf.model.topology.rail import positions

        _, rails, m, _, _, join = self.network
        return positions(rails, m, join, endpoints)

    def on_part(self, nodes: int) -> Layout:
        """A job of ``nodes`` nodes on this fat tree / dragonfly as it is (the network keeps
        its size; the nodes go where the placement puts them). InputError if the network
        has fewer endpoints, on a torus (reshape it instead) or a crossbar."""
        if self.network is None:
            raise InputError(f"a job on part of the machine needs a fat tree or dragonfly, "
                             f"not {self.text}")
        size = self.network_nodes
        if not (isinstance(nodes, (int, np.integer)) and not isinstance(nodes, bool)
                and 2 <= nodes):
            raise InputError(f"a job needs a whole number of nodes >= 2, not {nodes!r}")
        if nodes > size:
            raise InputError(f"{nodes} nodes is more than the {size} endpoints of {self.text}")
        return replace(self, endpoints=int(nodes),
                       machine_endpoints=None if nodes == size else size)

    @classmethod
    def from_topology(cls, text: str) -> Layout:
        """The layout of a topology spec (``torus:16x16x32``, ``hypercube:3``,
        ``fattree:k=4,n=2``, ``clos:radix=8,levels=2``, ``dragonfly:p=2,a=4,h=2``,
        ``megafly:k=4``, ``gdragonfly:p=4,a=16,b=6,lb=3,g=14,m=73``: every parameter kept,
        defaults filled); other families raise InputError (their collective mapping is not
        modelled)."""
        from icnperf.model.topology.spec import parse_spec

        spec = parse_spec(text)
        name = spec.family.name
        if name == "torus":
            return cls.torus(spec.params["radices"])
        if name == "hypercube":
            return cls.torus((2,) * spec.params["n"])
        if name == "xgft":
            m = spec.params["m"]
            m = (m,) if isinstance(m, int) else m
            w = spec.params["w"]
            w = (w,) if isinstance(w, int) else w
            p = spec.params.get("p", (1,) * len(m))
            p = (p,) if isinstance(p, int) else p
            return cls(int(spec.family.endpoints(spec.params)), None, (name, m, w, p))
        if name == "rail":
            def levels(key, default):
                value = spec.params.get(key, default)
                return (value,) if isinstance(value, int) else tuple(value)
            m = levels("m", None)
            rails = int(spec.params["rails"])
            network = (name, rails, m, levels("w", None), levels("p", (1,) * len(m)),
                       int(spec.params.get("join", len(m))))
            return cls(int(spec.family.endpoints(spec.params)) // rails, None, network)
        if name == "dfplus":
            p = spec.params
            values = (p["p"], p["l"], p["s"], p["h"], p.get("g", p["s"] * p["h"] + 1),
                      p.get("c", 1))
            return cls(int(spec.family.endpoints(spec.params)), None,
                       (name, *(int(v) for v in values)))
        if name == "gdragonfly":
            from icnperf.model.topology.dragonfly.general import DEFAULTS

            params = {**DEFAULTS, **spec.params}
            values = tuple(int(params[key]) for key in spec.family.parameters)
            return cls(int(spec.family.endpoints(spec.params)), None, (name, *values))
        if name in _NETWORK_FAMILIES:
            values = tuple(int(spec.params[key]) for key in spec.family.parameters)
            return cls(int(spec.family.endpoints(spec.params)), None, (name, *values))
        raise InputError(f"collectives are modelled on tori (torus, hypercube), fat trees "
                         f"(fattree, clos, xgft, rail) and dragonflies (dragonfly, megafly, "
                         f"dfplus, gdragonfly) "
                         f"only, not {spec.text}")

    @classmethod
    def machine_job(cls, text: str, nodes: int | None = None) -> Layout:
        """The default job of a machine whose topology is ``text`` and which has ``nodes``
        nodes (``system.nodes``; None: as many as the topology's endpoints): a job of
        ``nodes`` on the fat tree or dragonfly as it is when the network holds more
        endpoints (one built from whole switches, e.g. Summit's 4,608 nodes on a radix-36
        Clos of 11,664), else the whole topology (a torus is its nodes)."""
        layout = cls.from_topology(text)
        if nodes is None or layout.network is None or not 2 <= nodes < layout.endpoints:
            return layout
        return layout.on_part(int(nodes))

    def placed(self, processes_per_node: int = 1, placement: str = "linear",
               seed: int = 0) -> Layout:
        """This layout with ``processes_per_node`` ranks per node and the nodes placed by
        ``placement`` (linear or random, seeded by ``seed``); InputError on bad values."""
        if not (isinstance(processes_per_node, (int, np.integer))
                and not isinstance(processes_per_node, bool) and processes_per_node >= 1):
            raise InputError(f"processes_per_node must be a whole number >= 1, "
                             f"not {processes_per_node!r}")
        if placement not in PLACEMENTS:
            raise InputError(f"unknown placement {placement!r}; choose one of "
                             f"{', '.join(PLACEMENTS)}")
        if not (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)
                and seed >= 0):
            raise InputError(f"seed must be a whole number >= 0, not {seed!r}")
        if placement == "spread" and self.network is None and self.endpoints > 1:
            raise InputError(f"spread placement deals nodes over the leaf switches of a fat "
                             f"tree or the groups of a dragonfly, not over {self.text}")
        return replace(self, processes_per_node=int(processes_per_node),
                       placement=placement, seed=int(seed) if placement == "random" else 0)

    def tree_routed(self, tree_routing: str) -> Layout:
        """This layout with fat-tree up ports chosen by ``tree_routing``
        (xgft.TREE_ROUTINGS); InputError on another value."""
        from icnperf.model.topology.xgft import TREE_ROUTINGS

        if tree_routing not in TREE_ROUTINGS:
            raise InputError(f"unknown tree routing {tree_routing!r}; choose one of "
                             f"{', '.join(TREE_ROUTINGS)}")
        return replace(self, tree_routing=tree_routing)

    @property
    def tree(self) -> tuple | None:
        """(m, w, p) of the XGFT this fat tree / Clos / xgft is (FT(k, n) =
        xgft.fattree_as_xgft); None for other layouts."""
        if self.network is None or self.network[0] not in _TREE_FAMILIES:
            return None
        from icnperf.model.topology.xgft import fattree_as_xgft

        name, *values = self.network
        if name == "xgft":
            return tuple(values)
        if name == "rail":
            return tuple(values[1:4])
        k, n = (values[0] // 2 if name == "clos" else values[0]), values[1]
        params = fattree_as_xgft(k, n)
        return params["m"], params["w"], params["p"]

    def routed(self, ring_ties: str) -> Layout:
        """This layout with half-ring ties routed by ``ring_ties`` (torus.RING_TIES: plus
        or split); InputError on another value."""
        if ring_ties not in torus.RING_TIES:
            raise InputError(f"unknown ring tie rule {ring_ties!r}; choose one of "
                             f"{', '.join(torus.RING_TIES)}")
        return replace(self, ring_ties=ring_ties)

    @property
    def is_torus(self) -> bool:
        return self.radices is not None

    @property
    def family(self) -> str:
        """``torus``, ``crossbar``, ``node`` (:meth:`one_node`) or the network family
        (fattree, clos, xgft, dragonfly, megafly, gdragonfly)."""
        if self.radices is not None:
            return "torus"
        if self.network is None and self.endpoints == 1:
            return "node"
        return "crossbar" if self.network is None else self.network[0]

    @property
    def ranks(self) -> int:
        """Ranks P = nodes x processes per node."""
        return self.endpoints * self.processes_per_node

    @property
    def is_default_placement(self) -> bool:
        """One process per node, linear placement (the tree algorithms' setting)."""
        return self.processes_per_node == 1 and self.placement == "linear"

    @property
    def text(self) -> str:
        """``torus:16x16x32``, ``crossbar:P``, ``node:1`` (one node) or the network's spec
        (``fattree:k=4,n=2``)."""
        if self.radices is not None:
            return "torus:" + "x".join(str(k) for k in self.radices)
        if self.family == "node":
            return "node:1"
        if self.network is None:
            return f"crossbar:{self.endpoints}"
        name, *values = self.network
        if name == "xgft":
            text = ",".join(f"{key}=" + "x".join(map(str, v)) for key, v in zip("mwp", values)
                            if not (key == "p" and set(v) == {1}))
            return f"xgft:{text}"
        if name == "rail":
            rails, m, w, p, join = values
            text = ",".join(f"{key}=" + "x".join(map(str, v)) for key, v in zip("mwp", (m, w, p))
                            if not (key == "p" and set(v) == {1}))
            return f"rail:rails={rails},{text}" + (f",join={join}" if join != len(m) else "")
        if name == "gdragonfly":
            from icnperf.model.topology.dragonfly.general import DEFAULTS, PARAMETERS

            return f"{name}:" + ",".join(f"{key}={v}" for key, v in zip(PARAMETERS, values)
                                         if DEFAULTS.get(key) != v)
        keys = {"fattree": ("k", "n"), "clos": ("radix", "levels"),
                "dragonfly": ("p", "a", "h"), "megafly": ("k",),
                "dfplus": ("p", "l", "s", "h", "g", "c")}[name]
        return f"{name}:" + ",".join(f"{key}={v}" for key, v in zip(keys, values)
                                     if not (name == "dfplus" and key == "c" and v == 1))

    def _require_torus(self, what: str) -> tuple[int, ...]:
        if self.radices is None:
            raise InputError(f"{what} is defined on a torus, not on {self.text}")
        return self.radices

    @property
    def depth(self) -> int:
        """Depth of the dimension-order spanning tree (torus.spanning_tree_depth)."""
        return torus.spanning_tree_depth(self._require_torus("the collective tree"))

    @property
    def tree_ties(self) -> int:
        """Equal-depth sibling pairs on the tree's critical path (torus.spanning_tree_ties)."""
        return torus.spanning_tree_ties(self._require_torus("the collective tree"))

    @property
    def diameter(self) -> int:
        """Largest distance between two endpoints, hops (minimal routing)."""
        if self.radices is not None:
            return self.depth
        family = self.family
        if family == "crossbar":
            return 1
        if family in _TREE_FAMILIES:
            m = self.tree[0]
            size = math.prod(m)
            return 2 * sum(1 for level in range(1, len(m)) if math.prod(m[:level]) < size)
        if family in ("megafly", "dfplus"):
            return 3
        if family == "gdragonfly":
            _, _, a, b, _, _, g, _ = self.network
            group = int(a >= 2) + int(b >= 2)
            return 1 + 2 * group if g >= 2 else group
        return 3 if self.network[2] >= 2 else 1

    @property
    def span_hops(self) -> int:
        """Router-router hops of a fat tree (fattree, clos, xgft) between the job's farthest
        nodes: 2 (l - 1) for the lowest level l whose pod holds every node (pods are
        nested, so the largest hop count from the first node to another is that of every
        pair; tree_routing.hops); 0 on one leaf switch. InputError off a fat tree."""
        if self.tree is None:
            raise InputError(f"switch aggregation runs on a fat tree (fattree, clos, xgft), "
                             f"not on {self.text}")
        from icnperf.model.topology import tree_routing

        ends = self.tree_points(self.node_endpoints() * self.rails)
        m, w, _ = self.tree
        return int(tree_routing.hops(m, w, np.full(ends.size, ends[0]), ends).max())

    def _unit_size(self) -> int:
        """Endpoints per leaf switch (trees) or per group (dragonfly, megafly, gdragonfly:
        p·a·b)."""
        name, *values = self.network
        if name in _TREE_FAMILIES:
            return self.tree[0][0]
        if name == "dragonfly":
            return values[0] * values[1]
        if name == "gdragonfly":
            return values[0] * values[1] * values[2]
        if name == "dfplus":
            return values[0] * values[1]
        return values[0] * values[0]

    def node_endpoints(self) -> np.ndarray:
        """The endpoint of every node: node i on endpoint i (linear), perm[i] (random,
        ``np.random.default_rng(seed).permutation`` of the network's endpoints; with an
        ``occupancy`` above 0 the i-th of a busy machine's first free nodes) or
        (i mod U)·E + i // U (spread: U leaf switches or groups of E endpoints)."""
        node = np.arange(self.endpoints, dtype=np.int64)
        if self.placement == "random" and self.occupancy:
            from icnperf.model.scheduled_placement import scheduled_nodes

            return scheduled_nodes(self.network_nodes, self.endpoints, self.occupancy,
                                   np.random.default_rng(self.seed))
        if self.placement == "random":
            perm = np.random.default_rng(self.seed).permutation(self.network_nodes)
            return perm.astype(np.int64)[node]
        if self.placement == "spread":
            size = self._unit_size()
            units = self.network_nodes // size
            return (node % units) * size + node // units
        return node

    def rank_endpoints(self) -> np.ndarray:
        """The endpoint of every rank: rank r is on node r // ppn, node i on
        :meth:`node_endpoints` [i]; on a rail tree NIC (r mod ppn) mod R of that node."""
        rank = np.arange(self.ranks, dtype=np.int64)
        node = rank // self.processes_per_node
        if self.placement != "linear":
            node = self.node_endpoints()[node]
        if self.rails == 1:
            return node
        return node * self.rails + (rank % self.processes_per_node) % self.rails

    def traffic(self, sources, destinations) -> tuple[int, int]:
        """(largest hops, largest channel load) of messages sent at once between distinct
        endpoints: torus.dor_traffic on a torus (ties by ``ring_ties``); (1, 1) on a
        crossbar; on a fat tree (fattree, clos, xgft) the NCA hops and the busiest channel
        under ``tree_routing`` (tree_routing.hops, message_load: exact counts for dmodk,
        the pigeonhole bound ceil(c / C_l) for random); on a dragonfly / megafly the MIN-route hops
        and exact channel load (dragonfly.dragonfly_route_hops / _load, megafly_route_hops /
        _load); on a gdragonfly the hops of each message's longest share and the busiest
        channel with every message split over its group pair's m global links, rounded up
        (dragonfly.gdragonfly_route_hops / _load). (0, 0) with no messages."""
        if self.radices is not None:
            return torus.dor_traffic(self.radices, sources, destinations,
                                     self.ring_ties or "plus")
        if len(sources) == 0:
            return (0, 0)
        if self.network is None:
            return (1, 1)
        from icnperf.model.topology import dragonfly

        name, *values = self.network
        if name in _TREE_FAMILIES:
            from icnperf.model.topology import tree_routing

            m, w, p = self.tree
            sources, destinations = self.tree_points(sources), self.tree_points(destinations)
            hops = tree_routing.hops(m, w, sources, destinations)
            load = tree_routing.message_load(m, w, p, self.tree_routing or "random",
                                             sources, destinations)
        elif name == "dragonfly":
            from icnperf.model.topology.dragonfly.routes import dragonfly_route_traffic

            return dragonfly_route_traffic(*values, sources, destinations)
        elif name == "gdragonfly":
            hops = dragonfly.gdragonfly_route_hops(*values, sources, destinations)
            load = dragonfly.gdragonfly_route_load(*values, sources, destinations)
        elif name == "dfplus":
            from icnperf.model.topology.dragonfly.plus import DFPlus

            net = DFPlus(*values)
            hops = net.hops(sources, destinations)
            load = math.ceil(net.pattern_load(sources, destinations) - 1e-9)
        else:
            hops = dragonfly.megafly_route_hops(*values, sources, destinations)
            load = dragonfly.megafly_route_load(*values, sources, destinations)
        return int(hops.max()), int(load)

    def rank_traffic(self, sources, destinations) -> tuple[int, int, int, bool]:
        """(hops, load, host, intra) of messages sent at once between ranks: ``hops`` and
        ``load`` as :meth:`traffic` for the messages between different nodes, the load
        raised to ``host`` = the most of them leaving or entering one node (its adapter
        and endpoint channel carry them all; 0 when every message stays on its node);
        ``intra`` whether some message joins two ranks of one node."""
        sources = np.asarray(sources, dtype=np.int64)
        destinations = np.asarray(destinations, dtype=np.int64)
        if len(sources) == 0:
            return (0, 0, 0, False)
        if self.is_default_placement and self.rails == 1:
            hops, load = self.traffic(sources, destinations)
            return hops, max(load, 1), 1, False
        if self.placement == "linear" and self.rails == 1:
            # rank r on node r // ppn, node i on endpoint i: no table of every rank
            src = sources // self.processes_per_node
            dst = destinations // self.processes_per_node
        else:
            ends = self.rank_endpoints()
            src, dst = ends[sources], ends[destinations]
        inter = src // self.rails != dst // self.rails
        intra = bool((~inter).any())
        if not inter.any():
            return (0, 0, 0, intra)
        src, dst = src[inter], dst[inter]
        host = max(int(np.bincount(src).max()), int(np.bincount(dst).max()))
        if self.radices is not None and self.processes_per_node > 1:
            # the ranks of a node share its endpoint, so node pairs repeat: route each
            # once, loading its channels as often as it repeats
            pairs, repeats = _node_pairs(src * self.network_endpoints + dst)
            hops, load = torus.dor_traffic(self.radices, pairs // self.network_endpoints,
                                           pairs % self.network_endpoints,
                                           self.ring_ties or "plus", counts=repeats)
        else:
            hops, load = self.traffic(src, dst)
        return hops, max(load, host), host, intra


def _node_pairs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Node-pair keys with how often each repeats, for dor_traffic's ``counts`` (which is
    linear: a pair may appear more than once). Runs of equal consecutive keys first (the
    ranks of a node, in rank order, sending by one offset: a halo, a shift, a round of a
    collective), in O(n); when that leaves more than half the keys, a sort (np.unique)."""
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    if 2 * len(starts) > len(keys):
        return np.unique(keys, return_counts=True)
    return keys[starts], np.diff(np.append(starts, len(keys)))

