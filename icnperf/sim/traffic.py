"""Traffic patterns: the destination endpoint of each packet from its source endpoint.

Endpoints are numbered 0..N-1 (on a grid like their routers, dimension 0 fastest).

* ``uniform``: destination drawn uniformly from all N endpoints, the source included (a
  packet to itself enters its router and is ejected without crossing a channel);
* ``tornado`` (grids): d_i = (x_i + ceil(k_i/2) - 1) mod k_i in every dimension;
* ``bit-complement``: d_i = k_i - 1 - x_i in every dimension, i.e. endpoint N-1-s;
* ``transpose``: on a grid the coordinates reversed, d_i = x_(n-1-i) (radices must read the
  same both ways, e.g. k x k); elsewhere, with N = 4^b, the high and low b bits swapped;
* ``asymmetric``: the two halves send only across: a source in [0, N/2) picks a destination
  uniformly in [N/2, N), and the other way round;
* ``hotspot``: uniform, except that a fraction ``hotspot_traffic`` of the packets (default
  0.1) goes to one of the hot endpoints, uniformly; the hot endpoints are a fraction
  ``hotspot_nodes`` of all (default 0.02, at least one), a contiguous *region* of
  endpoints 0 .. h-1 — the NUDT paper's mix (Jiang et al., Fig. 8: "2 % of the nodes chosen
  as the hot region, 10 % hotspot traffic and 90 % uniform");
* ``permutation``: a random permutation of the endpoints drawn once from the seed.

On a rail-optimised tree (``trees.rail``) the endpoints are numbered as NICs (node by
node) and the patterns are defined on that numbering; the network routes on the tree's
leaf-by-leaf positions (``network.place``), so the tables are mapped through it
(asymmetric traffic, drawn per packet on halves of the positions, is refused there).

The engine draws the random destinations itself (``kernel._destination``) from ``kind``,
``table``, ``hot`` and ``hot_fraction``.
"""

from __future__ import annotations

import numpy as np

from icnperf.errors import InputError
from icnperf.sim.state import (
    TRAFFIC_FIXED,
    TRAFFIC_HALVES,
    TRAFFIC_UNIFORM,
)

ALL_PATTERNS = ("uniform", "tornado", "bit-complement", "permutation", "transpose",
                "asymmetric", "hotspot")
"""Every destination pattern the simulator draws (module docstring)."""


class Traffic:
    """Destinations for a network's endpoints under one pattern."""

    def __init__(self, pattern: str, network, rng: np.random.Generator,
                 hotspot_traffic: float = 0.1, hotspot_nodes: float = 0.02):
        if pattern not in ALL_PATTERNS:
            raise InputError(f"flitsim: unknown traffic {pattern!r} (choose from "
                             f"{', '.join(ALL_PATTERNS)})")
        self.pattern = pattern
        n = self.endpoints = int(getattr(network, "endpoints", network.routers))
        grid = hasattr(network, "radices") and hasattr(network, "strides")
        self.fixed = None
        if pattern == "tornado":
            if not grid:
                raise InputError(f"flitsim: tornado traffic needs a torus or mesh, not"
                                 f" {network.name}")
            k, coords = network.k, network.coords
            self.fixed = ((coords + (k + 1) // 2 - 1) % k * network.strides).sum(axis=1)
        elif pattern == "bit-complement":
            self.fixed = n - 1 - np.arange(n, dtype=np.int64)
        elif pattern == "transpose":
            self.fixed = _transpose(network, n, grid)
        elif pattern == "permutation":
            self.fixed = rng.permutation(n).astype(np.int64)
        if pattern == "asymmetric" and n < 2:
            raise InputError("flitsim: asymmetric traffic needs at least 2 endpoints")
        self.hot = np.zeros(0, dtype=np.int64)
        self.hot_fraction = 0.0
        if pattern == "hotspot":
            for name, value in (("hotspot traffic", hotspot_traffic),
                                ("hotspot nodes", hotspot_nodes)):
                if not isinstance(value, (int, float)) or not 0 < value <= 1:
                    raise InputError(f"flitsim: {name} must be a fraction in (0, 1], got"
                                     f" {value!r}")
            h = max(1, round(hotspot_nodes * n))
            self.hot = np.arange(h, dtype=np.int64)
            self.hot_fraction = float(hotspot_traffic)
        place = getattr(network, "place", None)
        if place is not None:
            # a rail tree: the pattern is defined on NICs, the network routes on positions
            if pattern == "asymmetric":
                raise InputError(f"flitsim: asymmetric traffic is not drawn on {network.name}"
                                 " (its halves are NIC numbers, not tree positions)")
            if self.fixed is not None:
                self.fixed = place[self.fixed[network.label]]
            self.hot = place[self.hot]
        if self.fixed is not None:
            self.kind, self.table = TRAFFIC_FIXED, self.fixed.astype(np.int64)
        else:
            self.kind = TRAFFIC_HALVES if pattern == "asymmetric" else TRAFFIC_UNIFORM
            self.table = np.zeros(1, dtype=np.int64)



def _transpose(network, n: int, grid: bool) -> np.ndarray:
    """Transpose destinations (see the module docstring)."""
    if grid:
        radices = tuple(network.radices)
        if radices != radices[::-1]:
            raise InputError(f"flitsim: transpose traffic needs radices that read the same"
                             f" both ways (e.g. 8x8), not {'x'.join(map(str, radices))}")
        return (network.coords[:, ::-1] * network.strides).sum(axis=1).astype(np.int64)
    bits = n.bit_length() - 1
    if n < 1 or 1 << bits != n or bits % 2:
        raise InputError(f"flitsim: transpose traffic needs 4^b endpoints on {network.name},"
                         f" got {n}")
    b = bits // 2
    s = np.arange(n, dtype=np.int64)
    return ((s & ((1 << b) - 1)) << b) | (s >> b)
