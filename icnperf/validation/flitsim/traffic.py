"""Traffic patterns: the destination endpoint of each packet from its source endpoint.

* ``uniform``: destination drawn uniformly from all N endpoints, the source included (a
  packet to itself enters its router and is ejected without crossing a channel);
* ``tornado``: d_i = (x_i + ceil(k_i/2) - 1) mod k_i in every dimension;
* ``bit-complement``: d_i = k_i - 1 - x_i in every dimension;
* ``permutation``: a random permutation of the endpoints drawn once from the seed.
"""

from __future__ import annotations

import numpy as np

from icnperf.errors import InputError

TRAFFIC_PATTERNS = ("uniform", "tornado", "bit-complement", "permutation")


class Traffic:
    """Destinations for a network's endpoints under one pattern."""

    def __init__(self, pattern: str, network, rng: np.random.Generator):
        if pattern not in TRAFFIC_PATTERNS:
            raise InputError(f"flitsim: unknown traffic {pattern!r} (choose from "
                             f"{', '.join(TRAFFIC_PATTERNS)})")
        self.pattern = pattern
        self.endpoints = network.routers
        self._rng = rng
        k, coords, strides = network.k, network.coords, network.strides
        if pattern == "tornado":
            target = (coords + (k + 1) // 2 - 1) % k
        elif pattern == "bit-complement":
            target = k - 1 - coords
        else:
            target = None
        if target is not None:
            self.fixed = (target * strides).sum(axis=1)
        elif pattern == "permutation":
            self.fixed = rng.permutation(self.endpoints).astype(np.int64)
        else:
            self.fixed = None

    def destinations(self, sources: np.ndarray) -> np.ndarray:
        """Destination endpoint of one new packet from each source (int64)."""
        if self.fixed is not None:
            return self.fixed[sources]
        return self._rng.integers(0, self.endpoints, size=len(sources), dtype=np.int64)
