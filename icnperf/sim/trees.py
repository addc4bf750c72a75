"""Fat trees for the flit simulator: extended generalized fat trees XGFT(h; m; w; p), built
from their definition (Öhring, Ibel, Das & Kumar, "On generalized fat trees", IPPS 1995;
parallel cables p as in SimGrid's FAT_TREE cluster and Zahavi's PGFT), never from
``icnperf.model``.

Levels are numbered 1 (leaf switches) to h, leaf level first: ``m[l]`` children of each
level-l switch (m1 = endpoints per leaf), ``w[l]`` parents of each level-(l-1) node
(w1 = 1: one link per endpoint), ``p[l]`` parallel cables between a level-(l-1) node and
each of its parents (p1 = 1). A level-l switch is labelled (a_h..a_{l+1}, b_l..b_1),
a_i < m_i, b_i < w_i; it is numbered rep + W_l·sub within its level (rep = b_1..b_l mixed
radix w, b_1 fastest; sub = a_{l+1}..a_h mixed radix m; W_l = w1·..·w_l), levels in turn
from the leaves. It joins every level-(l+1) switch labelled with a_{l+1} replaced by some
b_{l+1}, with p_{l+1} cables each. Its subtree holds the P_l = m1·..·m_l consecutive
endpoints [sub·P_l, (sub+1)·P_l). Endpoint e hangs on leaf e // m1 at port e mod m1.

Ports of a level-l switch: down ports first, child digit c over cable j at port c + m_l·j
(the leaf's down ports are its endpoints), then up ports, parent b over cable j at
m_l·p_l + b + w_{l+1}·j (BookSim's fat tree also numbers down ports first).

Routing, nearest common ancestor (``routing``'s docstring): up until the destination is in
the subtree, choosing the up port by ``random`` (uniform per router, BookSim2's ``nca``) or
``dmodk`` (floor(d / W_l) mod (w_{l+1}·p_{l+1}), SimGrid's FatTreeZone with W_l the product
of the w alone, as icnperf's closed forms take it; for p = 1 that is SimGrid's rule
exactly), then down to child digit (d // P_{l-1}) mod m_l over cable (source mod p_l).
Up*/down* routes need no VC classes.

``fattree:k=K,n=N`` (the NUDT paper's FT(k, n)) is XGFT(n; k,..,k,2k; 1,k,..,k);
``clos:radix=R,levels=L`` is FT(R/2, L); the k-ary n-tree (BookSim's ``fattree``) is
XGFT(n; k,..,k; 1,k,..,k).
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.errors import InputError
from icnperf.sim.network import NetworkTables, graph_tables
from icnperf.sim.routing import CLASS_ALL, ROUTE_TREE, TREE_COLUMNS, tree_parameters

TREE_ROUTINGS = ("random", "dmodk")
"""Up-port rules of a tree (module docstring); the first is the default."""

TREE_ROUTER_LIMIT = 1 << 20
"""Most switches of a simulated tree."""


class TreeNetwork:
    """XGFT(h; m; w; p) with nearest-common-ancestor routing (module docstring)."""

    def __init__(self, name: str, m, w, p=None, routing: str = "random"):
        m = [int(x) for x in m]
        w = [int(x) for x in w]
        p = [1] * len(m) if p is None else [int(x) for x in p]
        if not m or len(w) != len(m) or len(p) != len(m):
            raise InputError(f"flitsim: {name}: m, w and p need one value per level each")
        if min(m + w + p) < 1:
            raise InputError(f"flitsim: {name}: every m, w and p must be >= 1")
        if w[0] != 1 or p[0] != 1:
            raise InputError(f"flitsim: {name}: endpoints have one link each (w1 = p1 = 1)")
        if routing not in TREE_ROUTINGS:
            raise InputError(f"flitsim: unknown tree routing {routing!r} (choose from"
                             f" {', '.join(TREE_ROUTINGS)})")
        h = len(m)
        pod = [1] + list(np.cumprod(m, dtype=object))         # P_0..P_h
        reps = [1] + list(np.cumprod(w, dtype=object))        # W_0..W_h
        N = int(pod[h])
        per_level = [int(N // pod[l] * reps[l]) for l in range(1, h + 1)]
        routers = sum(per_level)
        if routers > TREE_ROUTER_LIMIT:
            raise InputError(f"flitsim: {name} has {routers:,} switches; the simulator builds"
                             f" trees of at most {TREE_ROUTER_LIMIT:,}")
        self.name, self.routing = name, routing
        self.m, self.w, self.p, self.h = m, w, p, h
        self.routers, self.endpoints = routers, N
        self.pod = [int(x) for x in pod]
        down = [m[l] * p[l] for l in range(h)]
        up = [w[l + 1] * p[l + 1] if l + 1 < h else 0 for l in range(h)]
        self.ports = max(d + u for d, u in zip(down, up))
        self.offset = [0] + list(np.cumsum(per_level))
        P = self.ports
        neighbour = np.full((routers, P), -1, dtype=np.int64)
        neighbour_port = np.full((routers, P), -1, dtype=np.int64)
        rparams = np.zeros((routers, TREE_COLUMNS), dtype=np.int64)
        level_of = np.zeros(routers, dtype=np.int64)
        for li in range(h):                       # li = l - 1
            W_l = int(reps[li + 1])
            idx = np.arange(per_level[li], dtype=np.int64)
            rep, sub = idx % W_l, idx // W_l
            rows = self.offset[li] + idx
            level_of[rows] = li + 1
            rparams[rows] = tree_parameters(
                first=sub * self.pod[li + 1], span=self.pod[li + 1], child=self.pod[li],
                m=m[li], cables=p[li], up0=down[li], ups=up[li], wdiv=W_l)
            if li + 1 == h:
                continue
            m_up, w_up, p_up = m[li + 1], w[li + 1], p[li + 1]
            for b in range(w_up):
                parent = self.offset[li + 1] + (rep + W_l * b) + W_l * w_up * (sub // m_up)
                for j in range(p_up):
                    child_port = down[li] + b + w_up * j
                    parent_port = sub % m_up + m_up * j
                    neighbour[rows, child_port] = parent
                    neighbour_port[rows, child_port] = parent_port
                    neighbour[parent, parent_port] = rows
                    neighbour_port[parent, parent_port] = child_port
        self.neighbour, self.neighbour_port = neighbour, neighbour_port
        self.rparams, self.level = rparams, level_of
        e = np.arange(N, dtype=np.int64)
        self.endpoint_router = e // m[0]
        self.endpoint_port = e % m[0]
        self.vc_classes = 1

    def hops(self, source, destination) -> np.ndarray:
        """Router-router channels crossed between endpoints: twice the number of levels
        1..h-1 whose pods differ (up to the nearest common ancestor and down)."""
        s, d = np.asarray(source, dtype=np.int64), np.asarray(destination, dtype=np.int64)
        out = np.zeros(np.broadcast(s, d).shape, dtype=np.int64)
        for l in range(1, self.h):
            out = out + 2 * (s // self.pod[l] != d // self.pod[l])
        return out

    def dateline_ports(self) -> np.ndarray:
        """No dateline classes on a tree."""
        return np.zeros(self.ports, dtype=bool)

    def tables(self) -> NetworkTables:
        return graph_tables(
            self, route_kind=ROUTE_TREE, route_table=np.zeros((0, 0), dtype=np.int16),
            hop_table=np.zeros((0, 0), dtype=np.int16), nonminimal=0, class_kind=CLASS_ALL,
            classes=1, rparams=self.rparams, tree_random=self.routing == "random")


def xgft(m, w, p=None, routing: str = "random", name: str | None = None) -> TreeNetwork:
    """XGFT(h; m; w; p) (module docstring); lists leaf level first."""
    if name is None:
        name = "xgft:m=" + "x".join(map(str, m)) + ",w=" + "x".join(map(str, w))
        if p is not None and any(int(x) != 1 for x in p):
            name += ",p=" + "x".join(map(str, p))
    return TreeNetwork(name, m, w, p, routing)


def rail(rails: int, m, w, p=None, join: int | None = None,
         routing: str = "random") -> TreeNetwork:
    """A rail-optimised tree: the XGFT(h; m; w; p) with its endpoints read as NICs (NVIDIA's
    DGX SuperPOD wiring). Node g owns the NIC endpoints g·R .. g·R+R-1; NIC i of the m1
    nodes of a unit hangs on rail i's leaf. The rail is the high part of the level-``join``
    digit of the tree's own leaf-by-leaf order (default join = h; join = 1: each leaf holds
    whole nodes, the plain tree): leaf-order position
    x = low + B·(u + (m_L/R)·i + m_L·high) for node g = low + B·(u + (m_L/R)·high),
    B = m1·..·m_(L-1), u < m_L/R. The network routes on the tree's order; ``place`` (NIC
    -> position) and ``label`` (position -> NIC) let the traffic patterns speak NICs."""
    m = [int(x) for x in m]
    rails = int(rails)
    join = len(m) if join is None else int(join)
    if rails < 1 or not 1 <= join <= len(m) or m[join - 1] % rails:
        raise InputError(f"flitsim: rail: rails={rails} must divide m{join} and join must be "
                         f"a level from 1 to {len(m)}")
    net = xgft(m, w, p, routing)
    units, below = m[join - 1] // rails, math.prod(m[:join - 1])
    nic = np.arange(net.endpoints, dtype=np.int64)
    node, lane = nic // rails, nic % rails
    low, rest = node % below, node // below
    net.place = low + below * (rest % units + units * lane + m[join - 1] * (rest // units))
    net.label = np.empty_like(net.place)
    net.label[net.place] = nic
    text = net.name.partition(":")[2]
    net.name = f"rail:rails={rails},{text}" + (f",join={join}" if join != len(m) else "")
    return net


def fat_tree(k: int, n: int, routing: str = "random") -> TreeNetwork:
    """The NUDT paper's FT(k, n) = XGFT(n; k,..,k,2k; 1,k,..,k): 2k^n endpoints,
    (2n-1)·k^(n-1) switches of radix 2k (Jiang et al., fat-tree paragraph)."""
    if k < 1 or n < 1:
        raise InputError(f"flitsim: a fat tree needs k >= 1 and n >= 1, got k={k}, n={n}")
    if (n - 1) * math.log2(max(k, 2)) > 40:
        raise InputError(f"flitsim: fattree:k={k},n={n} is too large to simulate")
    return TreeNetwork(f"fattree:k={k},n={n}", [k] * (n - 1) + [2 * k], [1] + [k] * (n - 1),
                       None, routing)
