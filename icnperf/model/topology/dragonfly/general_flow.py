"""Maximum flow between two routers of the generalized dragonfly ``gdragonfly`` over the
links adaptive routing may use: how many links' worth of one message's packets an idle
network can carry at once when the routers spread them over minimal and non-minimal paths.

Adaptive dragonfly routing (UGAL; Kim et al., ISCA 2008, §4.2: a packet goes minimally or
by Valiant's route through a random intermediate group; Aries and Slingshot choose packet by
packet) lets the packets of one message take many paths at once. The streaming rate of one
source-destination router pair on an idle network is then bounded by the maximum flow
between the two routers (Ford and Fulkerson, 1956: it equals the minimum cut) over the links
those routes may cross, each link carrying its payload rate. Counted here in links (unit
capacity per link and direction; la or lb parallel local links give capacity la or lb):

* **Same group** (non-minimal routes go through an intermediate router of the group, as in
  Aries' intra-group adaptive routing): the links of the group itself.
* **Different groups** (minimal, or Valiant through one intermediate group): the local links
  of every group, the global links from the source group to the destination group, from the
  source group to each other group and from each other group to the destination group.
  Global links between two intermediate groups, into the source group or out of the
  destination group are left out: no route with one intermediate group crosses them.

The flow over a graph is an upper bound on what paths of the routing's exact form carry (a
Valiant route inside a group takes at most two hops each way); on the bundled presets the
minimum cut is the endpoint router's own ports, which those paths do reach. The graph is the
one of :mod:`icnperf.model.topology.dragonfly.general` (router r = i + a·j, group port k
owned by router k mod R, landing on port (g - o - 1)·m + copy of group G + o).

Router pairs fall into classes by their MIN hop count (:func:`pair_classes`): same router
(no router-router link: unbounded), rank-1 neighbours, rank-2 neighbours, the rest of the
group, other groups. One representative pair per class is solved exactly with SciPy's
maximum flow (``scipy.sparse.csgraph.maximum_flow``, Dinic's algorithm) on the graph of
directed arcs. Above :data:`MAX_FLOW_ARCS` arcs the graph is not built and the other-groups
class takes the port count of a router holding the fewest global ports, (a - 1)·la +
(b - 1)·lb + floor(m(g - 1)/R), an estimate (the cut around such a router). Results are
cached per configuration.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from icnperf.model.topology.dragonfly.general import _ints

MAX_FLOW_ARCS = 2_000_000
"""Largest graph (directed arcs) whose maximum flow is computed exactly (a few seconds of
SciPy time and some 100 MB at most); larger graphs get the cut estimate."""


class PairClass(NamedTuple):
    """One class of router pairs: its name, the MIN hop counts its pairs take, the maximum
    flow of its representative pair in links (``math.inf`` for the same router) and whether
    that value is exact (False: the cut estimate above MAX_FLOW_ARCS)."""

    name: str
    hops: tuple[int, ...]
    links: float
    exact: bool


def _group_arcs(a, b, la, lb, base):
    """Directed local arcs (tail, head, capacity) of one group whose routers are
    base .. base + a·b - 1: rank-1 pairs (same row) with la, rank-2 pairs (same column)
    with lb, both directions."""
    r = np.arange(a * b, dtype=np.int64)
    i, j = r % a, r // a
    u, w = np.meshgrid(r, r, indexing="ij")
    row = (j[u] == j[w]) & (u != w)
    column = (i[u] == i[w]) & (u != w)
    cap = np.where(row, la, 0) + np.where(column, lb, 0)
    keep = cap > 0
    return u[keep] + base, w[keep] + base, cap[keep]


def _global_arcs(R, g, m, allowed):
    """Directed global arcs (tail, head, 1) of every group port whose (source group,
    destination group) pair ``allowed`` accepts (a function on arrays of groups)."""
    k = np.arange(m * (g - 1), dtype=np.int64)
    o = k // m + 1
    far_port = (g - o - 1) * m + k % m
    groups = np.arange(g, dtype=np.int64)
    G = np.repeat(groups, k.size)
    H = (G + np.tile(o, g)) % g
    tail = G * R + np.tile(k % R, g)
    head = H * R + np.tile(far_port % R, g)
    keep = allowed(G, H)
    return tail[keep], head[keep], np.ones(int(keep.sum()), dtype=np.int64)


def _arc_count(a, b, g, m, same_group) -> int:
    R = a * b
    local = R * ((a - 1) + (b - 1))
    if same_group:
        return local
    return g * local + m * (1 + 2 * (g - 2))


def _flow(params: tuple, source: tuple[int, int], target: tuple[int, int]) -> tuple[float, bool]:
    """Maximum flow in links from router (group, r) ``source`` to ``target`` over the links
    adaptive routing may use (module docstring); (value, True: exact)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_flow

    _, a, b, la, lb, g, m = params
    R = a * b
    same_group = source[0] == target[0]
    if same_group:
        tails, heads, caps = _group_arcs(a, b, la, lb, 0)
        nodes, s, t = R, source[1], target[1]
    else:
        S, D = source[0], target[0]
        parts = [_group_arcs(a, b, la, lb, G * R) for G in range(g)]

        def allowed(G, H):
            return (((G == S) & (H != S)) | ((H == D) & (G != D)))

        parts.append(_global_arcs(R, g, m, allowed))
        tails, heads, caps = (np.concatenate(x) for x in zip(*parts))
        nodes, s, t = g * R, S * R + source[1], D * R + target[1]
    graph = csr_matrix((caps.astype(np.int32), (tails, heads)), shape=(nodes, nodes))
    graph.sum_duplicates()
    return float(maximum_flow(graph, int(s), int(t)).flow_value), True


@lru_cache(maxsize=64)
def _pair_classes(params: tuple) -> tuple[PairClass, ...]:
    _, a, b, la, lb, g, m = params
    R = a * b
    diameter = int(a > 1) + int(b > 1)
    classes = [PairClass("same router", (0,), math.inf, True)]
    if a > 1:
        classes.append(PairClass("rank-1 neighbours", (1,), *_flow(params, (0, 0), (0, 1))))
    if b > 1:
        classes.append(PairClass("rank-2 neighbours", (1,), *_flow(params, (0, 0), (0, a))))
    if a > 1 and b > 1:
        classes.append(PairClass("same group", (2,), *_flow(params, (0, 0), (0, a + 1))))
    if g > 1:
        hops = tuple(range(1, 2 + 2 * diameter))
        if _arc_count(a, b, g, m, same_group=False) > MAX_FLOW_ARCS:
            # the ports of a router holding the fewest global ports, floor(m(g-1)/R)
            ports = (a - 1) * la + (b - 1) * lb + (m * (g - 1)) // R
            classes.append(PairClass("other groups", hops, float(ports), False))
        else:
            classes.append(PairClass("other groups", hops, *_flow(params, (0, 0), (1, 0))))
    return tuple(classes)


def pair_classes(params: dict) -> tuple[PairClass, ...]:
    """The router-pair classes of a gdragonfly (``params`` as the spec's: p, a, g and the
    optional b, la, lb, m) with the maximum flow of each, in links; cached per
    configuration."""
    return _pair_classes(_ints(params))


def path_links(params: dict, hops) -> np.ndarray:
    """Maximum flow in links between the routers of a pair ``hops`` MIN router-router hops
    apart (array-like): ``math.inf`` at 0 hops (one router), else the smallest flow of the
    classes whose pairs take that many hops; a hop count no class takes (a fraction, such as
    an average distance, or beyond the diameter) gets the smallest flow of every class with
    at least one hop."""
    classes = pair_classes(params)
    apart = [c for c in classes if c.hops != (0,)]
    floor = min((c.links for c in apart), default=math.inf)
    h = np.asarray(hops, dtype=float)
    out = np.full(h.shape, floor)
    for value in np.unique(h):
        if value == 0:
            out[h == value] = math.inf
            continue
        match = [c.links for c in apart if value in c.hops]
        if match:
            out[h == value] = min(match)
    return out


