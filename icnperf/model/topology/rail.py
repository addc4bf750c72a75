"""Rail-optimised fat trees: an XGFT whose endpoints are the NICs of multi-NIC nodes, NIC i
of every node in a scalable unit on rail i's leaf switch.

Source of the wiring: NVIDIA's DGX SuperPOD reference architectures (DGX A100, 2020;
DGX H100, 2023): a scalable unit (SU) of U nodes with R NICs each has R leaf switches,
leaf i holding NIC i of all U nodes (a *rail*); the spines above are shared by the rails,
so a message between NICs of different rails climbs to the level that joins the rails,
even between two nodes of one SU. NCCL's PXN detour (moving data to the GPU of the right
rail over the scale-up fabric first) is not part of the network.

Spec ``rail:rails=R,m=m1x..xmh,w=1xw2..,p=1xp2..[,join=L]``: the switches and cables are
exactly ``xgft:m=..,w=..,p=..`` (xgft.py); what the rails add is where each NIC sits.

* XGFT position x (the tree's own endpoint order, leaf by leaf, xgft.py) has digits
  a_1..a_h in the mixed radix (m1, .., mh). The *join* level L (1 <= L <= h, default h)
  is the lowest level whose pods hold every rail; R divides m_L and the level-L digit is
  a_L = u + (m_L/R)·i for rail i and u < m_L/R. Level-(L-1) pods hold one rail. L = 1 is
  the plain tree of the same switches: every leaf holds all R NICs of m1/R whole nodes
  (not rail-optimised; what ``size`` sets beside the rail tree).
* Endpoint e (icnperf's numbering: node g owns the R consecutive endpoints g·R .. g·R+R-1,
  NIC i = e mod R) sits at x with i = e mod R and node g = e // R spelt in the digits
  (a_1, .., a_{L-1}, u, a_{L+1}, .., a_h), a_1 fastest.

DGX H100 SuperPOD (4 SUs of 32 nodes, 8 rails, 16 spines of 64 ports, 2 cables from each
leaf to each spine): ``rail:rails=8,m=32x32,w=1x16,p=1x2``: leaf index u + 4·i holds rail i
of SU u.

Metrics: switches, cables, radix, diameter, average distance, bisection, uniform and
worst-case channel loads are invariants of the graph (or of the set of all pairs, or the
maximum over all permutations), so they are the XGFT's closed forms. Tornado,
bit-complement, transpose and nearest-neighbour are defined on the endpoint numbering
above; they are counted flow by flow (tree_routing.pattern_load on the positions: exact
under dmodk, the expectation under random) up to COUNT_LIMIT endpoints, NaN beyond.
tests/model/topology/test_rail.py checks them all against the built tree.
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.model.topology import tree_routing
from icnperf.model.topology.base import (
    COMMON_NOTES, PATTERNS, Family, Metrics, is_integer, require, structure_metrics)
from icnperf.model.topology.xgft import TREE_ROUTINGS, XGFT, check_xgft, tree_notes

COUNT_LIMIT = 2**20
"""Most endpoints for which the label-dependent patterns are counted flow by flow."""


def positions(rails: int, m, join: int, endpoints) -> np.ndarray:
    """XGFT position of each endpoint e (module docstring): e = g·R + i -> x."""
    e = np.asarray(endpoints, dtype=np.int64)
    below = math.prod(m[:join - 1])
    units = m[join - 1] // rails
    rail, node = e % rails, e // rails
    low, rest = node % below, node // below
    u, high = rest % units, rest // units
    return low + below * (u + units * rail + m[join - 1] * high)


def endpoints_of(rails: int, m, join: int, x) -> np.ndarray:
    """Inverse of :func:`positions`: the endpoint at each XGFT position x."""
    x = np.asarray(x, dtype=np.int64)
    below = math.prod(m[:join - 1])
    units = m[join - 1] // rails
    low, digit, high = x % below, (x // below) % m[join - 1], x // (below * m[join - 1])
    rail, u = digit // units, digit % units
    node = low + below * (u + units * high)
    return node * rails + rail


def pattern_targets(pattern: str, n: int):
    """(sources, destinations, weights) of a label-dependent pattern on endpoints 0..n-1,
    or None where it is not defined (tornado: n even; bit-complement: n a power of two;
    transpose: n a perfect square; nearest-neighbour: 1/2 to each of e ± 1 mod n)."""
    ids = np.arange(n, dtype=np.int64)
    if pattern == "nearest-neighbour":
        return (np.concatenate([ids, ids]), np.concatenate([(ids + 1) % n, (ids - 1) % n]),
                np.full(2 * n, 0.5))
    root = math.isqrt(n)
    if pattern == "tornado" and n % 2 == 0:
        return ids, (ids + n // 2) % n, None
    if pattern == "bit-complement" and n & (n - 1) == 0:
        return ids, n - 1 - ids, None
    if pattern == "transpose" and root * root == n:
        return ids, (ids % root) * root + ids // root, None
    return None


def rail_loads(rails: int, m, w, p, join: int, routing: str) -> dict:
    """γ_max per pattern (base.PATTERNS) of the rail tree under ``routing``."""
    tree = XGFT(m, w, p)
    closed = tree.channel_loads(routing)
    n = math.prod(m)
    loads = {"uniform": closed["uniform"], "worst-case": closed["worst-case"]}
    for pattern in ("tornado", "bit-complement", "transpose", "nearest-neighbour"):
        flows = pattern_targets(pattern, n) if n <= COUNT_LIMIT else None
        if flows is None:
            loads[pattern] = np.array(np.nan)
            continue
        s, d, weights = flows
        loads[pattern] = np.array(tree_routing.pattern_load(
            m, w, p, routing, positions(rails, m, join, s), positions(rails, m, join, d),
            weights))
    return {pattern: loads[pattern] for pattern in PATTERNS}


def _notes(rails: int, m, join: int, routing: str, xgft_notes) -> tuple[str, ...]:
    units, nodes = m[join - 1] // rails, math.prod(m[:join - 1])
    placed = (f"join=1, the plain tree: a leaf holds all {rails} NICs of {units} whole "
              "node(s)" if join == 1 else
              f"NIC i of each node sits on rail i: a level-{join - 1} pod holds rail i of "
              f"{nodes} nodes, a level-{join} pod {units} such unit(s) of every rail, joined "
              "by its switches")
    return COMMON_NOTES + (
        f"construction: the switches and cables of xgft:m={'x'.join(map(str, m))}; a node "
        f"is {rails} consecutive endpoints (its NICs); {placed}",
        "cross-rail traffic (NIC i to NIC j != i, also of one node or one unit) climbs to "
        f"level {join}; NCCL's PXN detour over the scale-up fabric is not modelled here",
        "uniform, worst-case, counts, distances and bisection: the XGFT's closed forms "
        "(invariant under the endpoint numbering)",
        "tornado, bit-complement, transpose, nearest-neighbour: on the node-major NIC "
        f"numbering, counted flow by flow up to {COUNT_LIMIT} endpoints (NaN beyond)",
    ) + tuple(note for note in xgft_notes if note.startswith(("routing", "radix",
                                                               "bisection_links")))


def rail(rails: int, m, w, p=None, join: int | None = None, *,
         routing: str = "random") -> Metrics:
    """Metrics of the rail-optimised tree (module docstring); m, w, p sequences of h
    integers, ``join`` the level joining the rails (default h). Parameters are assumed
    checked (:func:`check_rail`)."""
    m, w = tuple(int(v) for v in m), tuple(int(v) for v in w)
    p = (1,) * len(m) if p is None else tuple(int(v) for v in p)
    join = len(m) if join is None else int(join)
    require(routing in TREE_ROUTINGS,
            f"rail: tree routing {routing!r} is not one of {', '.join(TREE_ROUTINGS)}")
    tree = XGFT(m, w, p)
    return structure_metrics("rail", tree, rail_loads(rails, m, w, p, join, routing),
                             _notes(rails, m, join, routing, tree_notes(tree, routing)))


def _tuple(value) -> tuple:
    return (value,) if is_integer(value) else tuple(value)


def check_rail(params: dict) -> None:
    """Raise InputError unless the xgft part is valid (xgft.check_xgft), rails >= 1,
    2 <= join <= h and rails divides m_join."""
    require("rails" in params, "rail: give rails, the NICs per node (e.g. "
            "rail:rails=8,m=32x32,w=1x16,p=1x2)")
    check_xgft({key: params[key] for key in ("m", "w", "p") if key in params})
    rails = params["rails"]
    require(is_integer(rails) and rails >= 1, f"rail: rails must be a whole number >= 1, "
            f"not {rails!r}")
    m = _tuple(params["m"])
    h = len(m)
    join = params.get("join", h)
    require(is_integer(join) and 1 <= join <= h,
            f"rail: join={join!r} must be a level from 1 to {h} (the lowest level whose "
            "switches reach every rail; 1: the plain tree, each node's NICs on one leaf)")
    require(m[join - 1] % rails == 0,
            f"rail: m{join}={m[join - 1]} is not a multiple of rails={rails}: the level-"
            f"{join} switches must hold whole sets of the {rails} rails")


def rail_endpoints(params: dict) -> int:
    """Exact endpoint (NIC) count m1·..·mh."""
    return math.prod(_tuple(params["m"]))


def evaluate_rail(rails, m, w, p=None, join=None, routing: str = "random") -> Metrics:
    """The Family.evaluate of ``rail`` (params as parsed)."""
    return rail(rails, _tuple(m), _tuple(w), None if p is None else _tuple(p), join,
                routing=routing)


FAMILIES: tuple[Family, ...] = (
    Family(
        name="rail",
        description="rail-optimised fat tree: the XGFT's switches, each node R consecutive "
        "NIC endpoints, NIC i of a unit's nodes on rail i's leaf, rails joined at level "
        "join (default the top)",
        parameters=("rails", "m", "w", "p", "join"),
        positional=None,
        check=check_rail,
        endpoints=rail_endpoints,
        evaluate=evaluate_rail,
        example="rail:rails=8,m=32x32,w=1x16,p=1x2",
    ),
)
