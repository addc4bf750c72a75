"""Dragonfly and megafly channel loads: γ_max under each traffic pattern of ``base.PATTERNS``.

γ_max is the load of the busiest unidirectional channel (local, leaf-spine or global), in
flits/cycle, when every endpoint injects 1 flit/cycle (``model/topology/base.py``), under MIN
routing on the graph of :mod:`icnperf.model.topology.dragonfly`; the traffic patterns are
defined on the endpoint index there. Every function broadcasts over NumPy arrays of its
parameters; NaN marks a pattern the configuration does not define.

Sources: Kim et al., ISCA 2008, §4 (MIN routing and the adversarial group shift); Towles &
Dally, "Worst-case traffic for oblivious routing functions" (2002) for the worst case. The
loads are derived here and checked against brute force (routes walked on networkx graphs,
maximum matchings) in tests/model/topology/test_dragonfly.py.
"""

from __future__ import annotations

import numpy as np

from icnperf.model.topology.dragonfly.structure import (
    _arrays,
    dragonfly_groups,
    megafly_endpoints,
    megafly_groups,
)


def _is_power_of_two(n: np.ndarray) -> np.ndarray:
    """True where n (a positive integer below 2^63) is 2^b."""
    whole = n.astype(np.int64)
    return (whole & (whole - 1)) == 0


def _is_power_of_four(n: np.ndarray) -> np.ndarray:
    """True where n (a positive integer below 2^63) is 2^b with b even."""
    whole = n.astype(np.int64)
    return _is_power_of_two(n) & ((whole & 0x5555555555555555) != 0)


def _complete_graph_permutation_loads(p, g) -> tuple[np.ndarray, np.ndarray]:
    """γ_max of bit-complement and transpose on g routers, all pairwise linked, p endpoints each.

    Derived here. Bit-complement e -> N-1-e maps router R to router g-1-R (R != g-1-R as g is
    even), so each used channel carries p flows. Transpose with N = 2^b, b even, p = 2^m: if
    m <= b/2 the p endpoints of a router differ in low address bits that become router bits of
    the destination, so they reach p distinct routers (load 1); if m > b/2 a router sends
    2^(2m-b) = p²/N flows to every other router. Hence max(1, p²/N). NaN where undefined.
    """
    n = p * g
    defined = _is_power_of_two(n) & _is_power_of_two(p)
    complement = np.where(defined, p, np.nan)
    transpose = np.where(defined & _is_power_of_four(n), np.maximum(1.0, p * p / n), np.nan)
    return complement, transpose


# ---------------------------------------------------------------- dragonfly DF(p, a, h)


def dragonfly_uniform_loads(p, a, h) -> dict[str, np.ndarray]:
    """Uniform-traffic channel load per class under MIN, flits/cycle: {"global", "local"}.

    Derived here (every endpoint sends 1/N to every endpoint, self included). Global channel
    G -> G': all (a·p)² pairs of the two groups, a·p/g. Local channel u -> v: p² intra-router
    pairs, p·h·a·p leaving through v (v owns h global links) and h·a·p·p entering at u (h
    links land on u): p(2ah + 1)/N = p(2g - 1)/(a·g). Local is NaN for a = 1 (no local links).
    Both hold for any arrangement giving every router h global links.
    """
    p, a, h = _arrays(p, a, h)
    g = dragonfly_groups(a, h)
    local = np.where(a >= 2, p * (2.0 * g - 1.0) / (a * g), np.nan)
    return {"global": a * p / g, "local": local}


def dragonfly_channel_load(p, a, h) -> dict[str, np.ndarray]:
    """γ_max (flits/cycle) per pattern in base.PATTERNS under MIN routing.

    uniform: max of dragonfly_uniform_loads. tornado (group shift +1) and worst-case: a·p
    (Kim et al. 2008 §4 for the shift; derived here that it is the maximum: a global channel
    only carries flows leaving one group, a local channel u -> v only flows from u's p endpoints
    or to v's p endpoints, 2p <= a·p). bit-complement, transpose: defined only for a = 1 (see
    _complete_graph_permutation_loads). nearest-neighbour e -> e+1: router R sends one flow to
    router R+1; for a >= 2 the local channel a-1 -> 0 of every group carries the flow leaving
    the group and the one entering it (2); for a = 1 each link carries one flow (1).
    """
    p, a, h = _arrays(p, a, h)
    loads = dragonfly_uniform_loads(p, a, h)
    uniform = np.fmax(loads["global"], loads["local"])
    shift = a * p
    complement, transpose = _complete_graph_permutation_loads(p, dragonfly_groups(a, h))
    one_router_groups = a == 1
    return {
        "uniform": uniform,
        "tornado": shift,
        "bit-complement": np.where(one_router_groups, complement, np.nan),
        "transpose": np.where(one_router_groups, transpose, np.nan),
        "nearest-neighbour": np.where(one_router_groups, 1.0, 2.0),
        "worst-case": shift,
    }


# ---------------------------------------------------------------- megafly (dragonfly+) k


def megafly_uniform_loads(k) -> dict[str, np.ndarray]:
    """Uniform-traffic load per channel class under MIN, flits/cycle: global, up, down.

    Derived here. Global: (k²)² pairs between two groups over N: k²/g. Leaf -> spine x: the
    k endpoints of the leaf send 1/k of their k(k-1) intra-group flows through each spine and
    all flows to the k groups x links to (k·k·k²): (k(k-1) + k⁴)/N; spine -> leaf alike.
    """
    (k,) = _arrays(k)
    n = megafly_endpoints(k)
    leaf_spine = (k * (k - 1.0) + k**4) / n
    return {"global": k * k / megafly_groups(k), "up": leaf_spine, "down": leaf_spine}


def megafly_channel_load(k) -> dict[str, np.ndarray]:
    """γ_max (flits/cycle) per pattern in base.PATTERNS under MIN routing.

    uniform: max of megafly_uniform_loads = 1 - 1/(k³ + k) for every k. tornado (group shift)
    and worst-case: k² (a global channel carries flows of one group's k² endpoints; a leaf-spine
    channel flows of one leaf's k endpoints). bit-complement: N = k²(k²+1) is a power of two
    only for k = 1 (N = 2: one flow per channel, 1); transpose never defined. nearest-neighbour
    e -> e+1: the flow leaving a group uses its own up, global and down channels alone (1);
    intra-group flows add 1/k per spine.
    """
    (k,) = _arrays(k)
    loads = megafly_uniform_loads(k)
    shift = k * k
    return {
        "uniform": np.maximum(loads["global"], loads["up"]),
        "tornado": shift,
        "bit-complement": np.where(k == 1, 1.0, np.nan),
        "transpose": np.full(k.shape, np.nan),
        "nearest-neighbour": np.ones(k.shape),
        "worst-case": shift,
    }
