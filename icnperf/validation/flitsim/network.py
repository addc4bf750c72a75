"""Torus and mesh networks for the flit simulator: coordinates, links, DOR routes.

Routers are numbered with dimension 0 varying fastest; one endpoint per router. Router ports:
``2d`` sends in the + direction of dimension d, ``2d + 1`` in the - direction, and port
``2n`` is the endpoint's (injection in, ejection out). A flit leaving through output port p
enters the next router through *input* port p, so an input port's number names the direction
the flit was travelling. A radix-2 ring is one bidirectional link: only its + ports are used.

Routing is dimension-order: the lowest dimension whose coordinate differs is corrected first;
in a torus the minimal way round the ring, the + direction at a tie (distance exactly k/2);
in a mesh towards the destination.
"""

from __future__ import annotations

import numpy as np

from icnperf.errors import InputError

ROUTE_TABLE_LIMIT = 1 << 24
"""Largest routers^2 for which routes are tabulated once (1 byte per entry)."""

TABLE_CHUNK = 1 << 16
"""Route pairs computed per NumPy call while building the table or routing untabulated."""


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
    def name(self) -> str:
        return ("torus:" if self.wrap else "mesh:") + "x".join(map(str, self.radices))

    @property
    def table_bytes(self) -> int:
        """Bytes of the route table (0 when routes are computed per cycle)."""
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
