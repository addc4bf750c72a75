"""Networks for the flit simulator: tori and meshes, and general networks given as tables.

Every network hands the engine a ``NetworkTables`` (``tables()``): per router and port the
neighbour router and the input port it enters there, the endpoint attached to a terminal
port, each endpoint's router and port, the routing (a route table or, for grids, dimension
order computed in the engine) and the virtual-channel class rule.

Grids. Routers are numbered with dimension 0 varying fastest; one endpoint per router.
Router ports:
``2d`` sends in the + direction of dimension d, ``2d + 1`` in the - direction, and port
``2n`` is the endpoint's (injection in, ejection out). A flit leaving through output port p
enters the next router through *input* port p, so an input port's number names the direction
the flit was travelling. A radix-2 ring is one bidirectional link: only its + ports are used.

Routing is dimension-order: the lowest dimension whose coordinate differs is corrected first;
in a torus the minimal way round the ring, the + direction at a tie (distance exactly k/2);
in a mesh towards the destination.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from icnperf.errors import InputError
from icnperf.sim.routing import (
    CLASS_ALL,
    CLASS_DATELINE,
    CLASS_HOPS,
    ROUTE_DOR,
    ROUTE_TABLE,
)

ROUTE_TABLE_LIMIT = 1 << 24
"""Largest routers^2 for which routes are tabulated once (1 byte per entry)."""

TABLE_CHUNK = 1 << 16
"""Route pairs computed per NumPy call while building the table or routing untabulated."""



@dataclass
class NetworkTables:
    """What the engine needs to know about a network (all arrays int64 unless stated).

    ``neighbour[r, p]``: router reached through output port p (-1: none or terminal);
    ``neighbour_port[r, p]``: the input port it enters there; ``port_endpoint[r, p]``: the
    endpoint on a terminal port (-1 otherwise); ``endpoint_router`` / ``endpoint_port``: each
    endpoint's router and port (injection enters that input port, ejection leaves through
    that output port). Routing: ``route_table`` (routers x routers, the output port towards
    the destination router) or DOR from ``radices``/``coords`` (routers x dims)/``wrap``.
    VC classes:
    ``class_kind`` with ``port_dim`` (dimension of each port, -1 for none), ``dateline``
    (per port) and ``wraps`` (per router and port) for the dateline rule, ``classes`` for
    the hop-index and phase rules (routing's docstring). ``link_class`` (int8, per router
    and port): 1 on a dragonfly's global links; ``rparams`` (routers x
    routing.TREE_COLUMNS): a fat tree's per-router routing figures; ``group``: routers per
    dragonfly group; ``tree_random``: random up ports (else d-mod-k); ``inject_random``: an
    endpoint draws its injection VC at random (BookSim's dragonfly) instead of in turn.
    """

    name: str
    neighbour: np.ndarray
    neighbour_port: np.ndarray
    port_endpoint: np.ndarray
    endpoint_router: np.ndarray
    endpoint_port: np.ndarray
    route_kind: int
    route_table: np.ndarray
    hop_table: np.ndarray
    nonminimal: int
    radices: np.ndarray
    strides: np.ndarray
    coords: np.ndarray
    wrap: bool
    class_kind: int
    classes: int
    port_dim: np.ndarray
    dateline: np.ndarray
    wraps: np.ndarray
    link_class: np.ndarray | None = None
    rparams: np.ndarray = field(default_factory=lambda: np.zeros((0, 8), dtype=np.int64))
    group: int = 1
    tree_random: bool = False
    inject_random: bool = False

    def __post_init__(self):
        if self.link_class is None:
            self.link_class = np.zeros(self.neighbour.shape, dtype=np.int8)

    @property
    def routers(self) -> int:
        return self.neighbour.shape[0]

    @property
    def ports(self) -> int:
        return self.neighbour.shape[1]

    @property
    def endpoints(self) -> int:
        return len(self.endpoint_router)


def port_endpoints(routers: int, ports: int, endpoint_router, endpoint_port) -> np.ndarray:
    """``port_endpoint[r, p]``: the endpoint on router r's terminal port p, -1 on every other
    port (``NetworkTables``), from each endpoint's router and port."""
    port_endpoint = np.full((routers, ports), -1, dtype=np.int64)
    port_endpoint[endpoint_router, endpoint_port] = np.arange(len(endpoint_router))
    return port_endpoint


def graph_tables(net, **routing) -> NetworkTables:
    """The ``NetworkTables`` of a network that is not a grid (``TableNetwork``,
    ``trees.TreeNetwork``): its wiring and endpoints as ``net`` holds them (``name``,
    ``routers``, ``ports``, ``neighbour``, ``neighbour_port``, ``endpoint_router``,
    ``endpoint_port``), no coordinates and no dateline classes; ``routing`` gives the
    remaining fields (route kind and tables, VC class rule)."""
    R, P = net.routers, net.ports
    return NetworkTables(
        name=net.name, neighbour=net.neighbour, neighbour_port=net.neighbour_port,
        port_endpoint=port_endpoints(R, P, net.endpoint_router, net.endpoint_port),
        endpoint_router=net.endpoint_router, endpoint_port=net.endpoint_port,
        radices=np.zeros(0, dtype=np.int64), strides=np.zeros(0, dtype=np.int64),
        coords=np.zeros((0, 0), dtype=np.int64), wrap=False,
        port_dim=np.full(P, -1, dtype=np.int64), dateline=np.zeros(P, dtype=np.int8),
        wraps=np.zeros((R, P), dtype=np.int8), **routing)


class GridNetwork:
    """A torus (``wrap=True``) or mesh of the given radices, one endpoint per router."""

    def __init__(self, radices, wrap: bool = True):
        radices = tuple(int(k) for k in radices)
        if not radices or any(k < 2 for k in radices):
            raise InputError("flitsim: radices must be a non-empty list of integers >= 2")
        self.radices = radices
        self.wrap = bool(wrap)
        self.dims = len(radices)
        self.ports = 2 * self.dims + 1
        self.terminal = 2 * self.dims
        self.routers = int(np.prod(radices))
        k = np.array(radices, dtype=np.int64)
        self.k = k
        self.strides = np.concatenate(([1], np.cumprod(k)[:-1])).astype(np.int64)
        self._coords = None
        self._table = None

    @property
    def coords(self) -> np.ndarray:
        """Router coordinates, (routers, dims) int64; built on first use."""
        if self._coords is None:
            index = np.arange(self.routers, dtype=np.int64)
            self._coords = (index[:, None] // self.strides) % self.k
        return self._coords

    @property
    def endpoints(self) -> int:
        """One endpoint per router, numbered like its router."""
        return self.routers

    def tables(self) -> NetworkTables:
        """The engine's view: DOR computed in the engine, dateline classes on tori."""
        neighbour, wraps = self.links()
        R, P = self.routers, self.ports
        endpoint_port = np.full(R, self.terminal, dtype=np.int64)
        port_dim = np.arange(P, dtype=np.int64) // 2
        port_dim[self.terminal] = -1
        dateline = self.dateline_ports()
        return NetworkTables(
            name=self.name, neighbour=neighbour,
            neighbour_port=np.where(neighbour >= 0, np.arange(P)[None, :], -1),
            port_endpoint=port_endpoints(R, P, np.arange(R), endpoint_port),
            endpoint_router=np.arange(R, dtype=np.int64), endpoint_port=endpoint_port,
            route_kind=ROUTE_DOR, route_table=np.zeros((0, 0), dtype=np.int16),
            hop_table=np.zeros((0, 0), dtype=np.int16), nonminimal=0, radices=self.k.copy(),
            strides=self.strides.copy(), coords=self.coords, wrap=self.wrap,
            class_kind=CLASS_DATELINE if dateline.any() else CLASS_ALL, classes=2,
            port_dim=port_dim, dateline=dateline.astype(np.int8),
            wraps=wraps.astype(np.int8))

    @property
    def name(self) -> str:
        return ("torus:" if self.wrap else "mesh:") + "x".join(map(str, self.radices))

    @property
    def table_bytes(self) -> int:
        """Bytes of route() 's table (0 when computed per call; the engine never uses it)."""
        return self.routers**2 if self.routers**2 <= ROUTE_TABLE_LIMIT else 0

    @property
    def route_scratch_bytes(self) -> int:
        """Largest temporary memory of route computation (a chunk of pairs)."""
        return TABLE_CHUNK * (self.dims * 8 * 4 + 64)

    def links(self) -> tuple[np.ndarray, np.ndarray]:
        """(neighbour, wraps): arrays (routers, ports).

        ``neighbour[r, p]`` is the router reached through output port p (-1: no link; the
        terminal port is -1). ``wraps[r, p]`` is True where the link is a ring's wraparound
        link (crossing the dateline between coordinates k-1 and 0) on a ring of radix > 2.
        """
        R = self.routers
        neighbour = np.full((R, self.ports), -1, dtype=np.int64)
        wraps = np.zeros((R, self.ports), dtype=bool)
        for d, k in enumerate(self.radices):
            x = self.coords[:, d]
            stride = self.strides[d]
            plus = np.where(x + 1 < k, x + 1, 0)
            minus = np.where(x > 0, x - 1, k - 1)
            up = np.arange(R) + (plus - x) * stride
            down = np.arange(R) + (minus - x) * stride
            if self.wrap:
                neighbour[:, 2 * d] = up
                if k > 2:
                    neighbour[:, 2 * d + 1] = down
                    wraps[:, 2 * d] = x == k - 1
                    wraps[:, 2 * d + 1] = x == 0
            else:
                neighbour[:, 2 * d] = np.where(x + 1 < k, up, -1)
                neighbour[:, 2 * d + 1] = np.where(x > 0, down, -1)
        return neighbour, wraps

    def dateline_ports(self) -> np.ndarray:
        """Bool per output port: True where dateline VC classes apply (torus ring, k > 2)."""
        out = np.zeros(self.ports, dtype=bool)
        if self.wrap:
            for d, k in enumerate(self.radices):
                out[2 * d] = out[2 * d + 1] = k > 2
        return out

    def compute_route(self, current, destination) -> np.ndarray:
        """Output port (int8) at router ``current`` for a flit to router ``destination``."""
        cur = self.coords[np.asarray(current, dtype=np.int64)]
        dst = self.coords[np.asarray(destination, dtype=np.int64)]
        differ = cur != dst
        moving = differ.any(axis=-1)
        d = np.argmax(differ, axis=-1)
        c = np.take_along_axis(cur, d[..., None], -1)[..., 0]
        t = np.take_along_axis(dst, d[..., None], -1)[..., 0]
        if self.wrap:
            forward = (t - c) % self.k[d]
            plus = 2 * forward <= self.k[d]
        else:
            plus = t > c
        port = np.where(moving, 2 * d + np.where(plus, 0, 1), self.terminal)
        return port.astype(np.int8)

    def route(self, current, destination) -> np.ndarray:
        """Output port for each (current, destination) pair: tabulated when small enough."""
        if self.table_bytes:
            if self._table is None:
                R = self.routers
                table = np.empty(R * R, dtype=np.int8)
                rows = np.arange(R, dtype=np.int64)
                step = max(1, TABLE_CHUNK // R)  # bounded temporaries
                for start in range(0, R, step):
                    part = rows[start:start + step]
                    table[start * R:(start + len(part)) * R] = self.compute_route(
                        part[:, None], rows[None, :]).ravel()
                self._table = table
            return self._table[current * self.routers + destination]
        return self.compute_route(current, destination)

    def hops(self, source, destination) -> np.ndarray:
        """DOR hop count between routers (walks the routes; used by tests and traces)."""
        cur = self.coords[np.asarray(source, dtype=np.int64)]
        dst = self.coords[np.asarray(destination, dtype=np.int64)]
        delta = np.abs(dst - cur)
        if self.wrap:
            delta = np.minimum(delta, self.k - delta)
        return delta.sum(axis=-1)


TABLE_ROUTER_LIMIT = 4096
"""Most routers of a table-routed network (its routers x routers tables are int64)."""


def check_table_size(name: str, routers: int) -> None:
    """InputError before building a table-routed network too large for its tables."""
    if routers > TABLE_ROUTER_LIMIT:
        need = 4 * 8 * routers**2
        raise InputError(f"flitsim: {name} has {routers:,} routers; table routing is limited to"
                         f" {TABLE_ROUTER_LIMIT:,} (its tables would need about"
                         f" {need / 1024**2:,.0f} MiB)")


class TableNetwork:
    """A general network of routers joined by bidirectional links, routed by a table.

    ``links`` lists router pairs (one entry per bidirectional link; parallel links allowed);
    ``endpoints_per_router`` (an integer, or one count per router) endpoints hang on each
    router, numbered router by router. Ports: router r's links in the order given, then its
    terminal ports. ``route_table[r, d]`` (optional) is the output port at r towards
    router d (needed only for routers d with endpoints); by default a shortest path from a
    breadth-first search (the lowest port among the shortest). ``vc_classes``: 1 lets a
    packet use every VC; C > 1 puts a packet that has crossed h channels in class
    min(h, C-1), the VCs split into C equal ranges — with C at least the longest route,
    every route climbs the classes strictly, so the channel dependency graph is acyclic
    (deadlock-free for any routes).
    """

    def __init__(self, name: str, routers: int, links, endpoints_per_router=1,
                 route_table=None, vc_classes: int = 1):
        routers = int(routers)
        check_table_size(name, routers)
        counts = np.broadcast_to(np.asarray(endpoints_per_router, dtype=np.int64),
                                 (max(routers, 0),)).copy()
        if routers < 1 or counts.min() < 0 or counts.sum() < 1:
            raise InputError("flitsim: a network needs at least one router and one endpoint")
        pairs = np.asarray(list(links), dtype=np.int64).reshape(-1, 2)
        if len(pairs) and (pairs.min() < 0 or pairs.max() >= routers
                           or np.any(pairs[:, 0] == pairs[:, 1])):
            raise InputError(f"flitsim: {name}: a link names a router outside 0..{routers - 1}"
                             " or joins a router to itself")
        if not isinstance(vc_classes, (int, np.integer)) or vc_classes < 1:
            raise InputError(f"flitsim: vc classes must be an integer >= 1, got {vc_classes!r}")
        self.name, self.routers, self.per_router = name, routers, counts
        self.vc_classes = int(vc_classes)
        self.nonminimal = 0
        self.class_kind = None          # None: hop-index classes when vc_classes > 1
        self.link_class = None          # None: every link alike
        self.group = 1
        self.inject_random = False
        degree = np.bincount(pairs.ravel(), minlength=routers)
        self.network_ports = int(degree.max()) if len(pairs) else 0
        self.ports = self.network_ports + int(counts.max())
        P = self.ports
        neighbour = np.full((routers, P), -1, dtype=np.int64)
        neighbour_port = np.full((routers, P), -1, dtype=np.int64)
        used = np.zeros(routers, dtype=np.int64)
        for a, b in pairs:
            pa, pb = used[a], used[b]
            neighbour[a, pa], neighbour_port[a, pa] = b, pb
            neighbour[b, pb], neighbour_port[b, pb] = a, pa
            used[a] += 1
            used[b] += 1
        self.neighbour, self.neighbour_port = neighbour, neighbour_port
        self.endpoints = int(counts.sum())
        self.endpoint_router = np.repeat(np.arange(routers, dtype=np.int64), counts)
        first = np.concatenate(([0], np.cumsum(counts)[:-1]))
        self.endpoint_port = (self.network_ports + np.arange(self.endpoints)
                              - first[self.endpoint_router])
        self.distance = self._bfs()
        if np.any(self.distance < 0):
            raise InputError(f"flitsim: {name}: the routers are not all connected")
        if route_table is None:
            route_table = self._shortest_path_table()
        route_table = np.asarray(route_table, dtype=np.int64)
        if route_table.shape != (routers, routers):
            raise InputError(f"flitsim: {name}: the route table must be routers x routers")
        self.route_table = route_table
        self.route_hops = self._walk_routes()

    def _bfs(self) -> np.ndarray:
        """Hop distance between every pair of routers (-1: unreachable), by breadth-first
        search (SciPy's csgraph)."""
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import shortest_path

        R, NP = self.routers, self.network_ports
        rows = np.repeat(np.arange(R), NP)
        cols = self.neighbour[:, :NP].ravel()
        keep = cols >= 0
        graph = csr_matrix((np.ones(int(keep.sum())), (rows[keep], cols[keep])), shape=(R, R))
        dist = shortest_path(graph, unweighted=True, directed=False)
        return np.where(np.isinf(dist), -1, dist).astype(np.int64)

    def _shortest_path_table(self) -> np.ndarray:
        """Lowest port whose neighbour is one hop closer to the destination."""
        R, NP = self.routers, self.network_ports
        table = np.full((R, R), -1, dtype=np.int64)
        nbr = self.neighbour[:, :NP]
        for r in range(R):
            valid = nbr[r] >= 0
            closer = np.where(valid[:, None], self.distance[np.where(valid, nbr[r], 0)], R + 1)
            ok = closer == self.distance[r][None, :] - 1
            first = np.argmax(ok, axis=0)
            table[r] = np.where(ok.any(axis=0), first, -1)
        return table

    def _walk_routes(self) -> np.ndarray:
        """Channels each table route to a router with endpoints crosses (InputError on a
        dead end or a loop); 0 towards routers without endpoints."""
        R = self.routers
        hops = np.zeros(R * R, dtype=np.int64)
        targets = np.flatnonzero(self.per_router > 0)
        cur = np.repeat(np.arange(R), len(targets))
        dst = np.tile(targets, R)
        where = cur * R + dst
        active = np.flatnonzero(cur != dst)
        for _ in range(R + 1):
            if not len(active):
                return hops.reshape(R, R)
            port = self.route_table[cur[active], dst[active]]
            if np.any((port < 0) | (port >= self.network_ports)):
                raise InputError(f"flitsim: {self.name}: the route table has no link for a"
                                 " router pair")
            cur[active] = self.neighbour[cur[active], port]
            hops[where[active]] += 1
            active = active[cur[active] != dst[active]]
        raise InputError(f"flitsim: {self.name}: the route table loops")

    def hops(self, source, destination) -> np.ndarray:
        """Channels crossed from endpoint ``source`` to endpoint ``destination``."""
        return self.route_hops[self.endpoint_router[np.asarray(source)],
                               self.endpoint_router[np.asarray(destination)]]

    def dateline_ports(self) -> np.ndarray:
        """No dateline classes on a table-routed network."""
        return np.zeros(self.ports, dtype=bool)

    def tables(self) -> NetworkTables:
        return graph_tables(
            self, route_kind=ROUTE_TABLE, route_table=self.route_table.astype(np.int16),
            hop_table=self.route_hops.astype(np.int16), nonminimal=self.nonminimal,
            class_kind=(self.class_kind if self.class_kind is not None
                        else CLASS_HOPS if self.vc_classes > 1 else CLASS_ALL),
            classes=self.vc_classes, link_class=self.link_class, group=self.group,
            inject_random=self.inject_random)
