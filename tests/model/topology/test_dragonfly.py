"""Dragonfly and megafly closed forms against brute force on the networkx graphs they describe.

The graphs, the MIN routing and the traffic patterns are rebuilt here from the conventions
stated in the module docstring, without calling the module's formulas.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from icnperf.errors import InputError
from icnperf.model.topology import dragonfly as df
from icnperf.model.topology.base import COMMON_NOTES, PATTERNS
from metrics_assert import assert_config_equals

# ------------------------------------------------------------------ graph constructions


class Network:
    """A built topology: graph, routers in index order, endpoints per router, MIN routes."""

    def __init__(self, graph, routers, endpoint_routers, route):
        self.graph = graph
        self.routers = routers
        self.endpoint_routers = endpoint_routers
        self.hosts = list(dict.fromkeys(endpoint_routers))
        self.index = {router: i for i, router in enumerate(self.hosts)}
        self.route = route


def build_dragonfly(p, a, h) -> Network:
    """DF(p,a,h) with the consecutive global arrangement and MIN (local, global, local)."""
    g = a * h + 1
    graph = nx.Graph()
    routers = [("R", grp, r) for grp in range(g) for r in range(a)]
    endpoint_routers = []
    for router in routers:
        graph.add_node(router)
        for t in range(p):
            graph.add_edge(("E",) + router[1:] + (t,), router, kind="endpoint")
            endpoint_routers.append(router)
    owner = {}
    for grp in range(g):
        for r in range(a):
            for r2 in range(r + 1, a):
                graph.add_edge(("R", grp, r), ("R", grp, r2), kind="local")
            for port in range(r * h, r * h + h):
                other = (grp + port + 1) % g
                other_port = g - 2 - port
                far = ("R", other, other_port // h)
                assert (other + other_port + 1) % g == grp
                graph.add_edge(("R", grp, r), far, kind="global")
                owner[(grp, other)] = (("R", grp, r), far)
    assert len(owner) == g * (g - 1)

    def route(src, dst):
        if src == dst:
            return [([src], 1.0)]
        if src[1] == dst[1]:
            return [([src, dst], 1.0)]
        x, y = owner[(src[1], dst[1])]
        path = [src] + ([x] if x != src else []) + [y] + ([dst] if dst != y else [])
        return [(path, 1.0)]

    return Network(graph, routers, endpoint_routers, route)


def build_megafly(k) -> Network:
    """Megafly k: leaf/spine groups, consecutive global arrangement, spine-split MIN."""
    g = k * k + 1
    graph = nx.Graph()
    leaves = [("L", grp, leaf) for grp in range(g) for leaf in range(k)]
    spines = [("S", grp, s) for grp in range(g) for s in range(k)]
    endpoint_routers = []
    for leaf in leaves:
        for t in range(k):
            graph.add_edge(("E",) + leaf[1:] + (t,), leaf, kind="endpoint")
            endpoint_routers.append(leaf)
        for s in range(k):
            graph.add_edge(leaf, ("S", leaf[1], s), kind="local")
    owner = {}
    for grp in range(g):
        for s in range(k):
            for port in range(s * k, s * k + k):
                other = (grp + port + 1) % g
                far = ("S", other, (g - 2 - port) // k)
                graph.add_edge(("S", grp, s), far, kind="global")
                owner[(grp, other)] = (("S", grp, s), far)
    assert len(owner) == g * (g - 1)

    def route(src, dst):
        if src == dst:
            return [([src], 1.0)]
        if src[1] == dst[1]:
            return [([src, ("S", src[1], s), dst], 1.0 / k) for s in range(k)]
        x, y = owner[(src[1], dst[1])]
        return [([src, x, y, dst], 1.0)]

    return Network(graph, leaves + spines, endpoint_routers, route)


# ------------------------------------------------------------------ brute-force measurements


def router_graph(net):
    return net.graph.subgraph(net.routers)


def endpoint_hops(net) -> np.ndarray:
    """Shortest-path hops between endpoints: full-graph BFS length minus the 2 endpoint links."""
    endpoints = [node for node in net.graph if node[0] == "E"]
    endpoints.sort(key=lambda e: (e[1], e[2], e[3]))
    order = {e: i for i, e in enumerate(endpoints)}
    n = len(endpoints)
    hops = np.zeros((n, n))
    for e in endpoints:
        for other, length in nx.single_source_shortest_path_length(net.graph, e).items():
            if other in order and other != e:
                hops[order[e], order[other]] = length - 2
    return hops


def channels_of(net):
    rg = router_graph(net)
    channels = [(u, v) for u, v in rg.edges] + [(v, u) for u, v in rg.edges]
    return {c: i for i, c in enumerate(channels)}


@lru_cache(maxsize=None)
def routed(kind, params):
    """(network, channel index, crossing[c, Rs, Rd] fraction, routed hops[Rs, Rd]).

    Rs, Rd index the routers that host endpoints (net.hosts).
    """
    net = build_dragonfly(*params) if kind == "dragonfly" else build_megafly(*params)
    channels = channels_of(net)
    nr = len(net.hosts)
    crossing = np.zeros((len(channels), nr, nr))
    hops = np.zeros((nr, nr))
    for s, d in itertools.product(net.hosts, repeat=2):
        i, j = net.index[s], net.index[d]
        for path, weight in net.route(s, d):
            assert path[0] == s and path[-1] == d
            hops[i, j] += weight * (len(path) - 1)
            for u, v in zip(path, path[1:]):
                assert net.graph.has_edge(u, v)
                crossing[channels[(u, v)], i, j] += weight
    return net, channels, crossing, hops


def endpoint_router_matrix(net) -> np.ndarray:
    """E[e, R] = 1 if endpoint e (index order) hangs on host router index R."""
    m = np.zeros((len(net.endpoint_routers), len(net.hosts)))
    for e, router in enumerate(net.endpoint_routers):
        m[e, net.index[router]] = 1.0
    return m


def pattern_gamma(kind, params, destination) -> float:
    """γ_max for the permutation e -> destination[e] under the test's MIN routing."""
    net, _, crossing, _ = routed(kind, params)
    er = endpoint_router_matrix(net)
    n = er.shape[0]
    traffic = np.zeros((n, n))
    traffic[np.arange(n), destination] = 1.0
    router_traffic = er.T @ traffic @ er
    return float(np.einsum("cij,ij->c", crossing, router_traffic).max())


def channel_class(u, v) -> str:
    """global between groups; megafly up (leaf -> spine) / down; dragonfly local."""
    if u[1] != v[1]:
        return "global"
    return {"L": "up", "S": "down"}.get(u[0], "local")


def uniform_gamma(kind, params, classes=False):
    net, channels, crossing, _ = routed(kind, params)
    er = endpoint_router_matrix(net)
    n = er.shape[0]
    loads = np.einsum("cij,ij->c", crossing, er.T @ np.full((n, n), 1.0 / n) @ er)
    if not classes:
        return float(loads.max())
    by_class = {}
    for (u, v), c in channels.items():
        by_class.setdefault(channel_class(u, v), set()).add(round(loads[c], 12))
    return by_class


def worst_case_gamma(kind, params) -> float:
    """Towles & Dally 2002: per channel, a max-weight matching of crossing fractions.

    Every host router carries the same number q of endpoints, so the endpoint-level weight
    matrix of a channel is its router-level crossing matrix with each entry a q x q block.
    """
    net, _, crossing, _ = routed(kind, params)
    q = len(net.endpoint_routers) // len(net.hosts)
    best = 0.0
    for c in range(crossing.shape[0]):
        router_level = crossing[c]
        used = router_level[router_level.any(axis=1)][:, router_level.any(axis=0)]
        weights = np.kron(used, np.ones((q, q)))
        rows, cols = linear_sum_assignment(weights, maximize=True)
        best = max(best, float(weights[rows, cols].sum()))
    return best


def tornado_destination(kind, params) -> np.ndarray:
    """Group shift: endpoint of group G -> same router/leaf and port of group G+1."""
    net, *_ = routed(kind, params)
    per_group = len(net.endpoint_routers) // groups_of(kind, params)
    n = len(net.endpoint_routers)
    return (np.arange(n) + per_group) % n


def groups_of(kind, params):
    if kind == "dragonfly":
        _, a, h = params
        return a * h + 1
    (k,) = params
    return k * k + 1


def bit_transpose(n) -> np.ndarray | None:
    bits = n.bit_length() - 1
    if n != 1 << bits or bits % 2:
        return None
    half = bits // 2
    e = np.arange(n)
    return ((e & ((1 << half) - 1)) << half) | (e >> half)


# ------------------------------------------------------------------ exhaustive bisection


def exhaustive_bisection(net, balanced_nodes) -> int:
    """Minimum cut over all router partitions that split balanced_nodes ⌊n/2⌋ / ⌈n/2⌉.

    Routers outside balanced_nodes (megafly spines) may go to either side. Partitions are
    enumerated as bit masks, so this is for graphs of at most ~21 routers.
    """
    nodes = list(net.routers)
    bit = {r: i for i, r in enumerate(nodes)}
    masks = np.arange(1 << len(nodes), dtype=np.int64)
    on_side = np.zeros(masks.shape, dtype=np.int64)
    for r in balanced_nodes:
        on_side += (masks >> bit[r]) & 1
    masks = masks[(on_side == len(balanced_nodes) // 2)]
    cut = np.zeros(masks.shape, dtype=np.int64)
    for u, v in router_graph(net).edges:
        cut += ((masks >> bit[u]) ^ (masks >> bit[v])) & 1
    return int(cut.min())


def cut_size(net, side_a) -> int:
    return sum(1 for u, v in router_graph(net).edges if (u in side_a) != (v in side_a))


def dragonfly_group_cut(p, a, h):
    """Side A of the group-halving cut as the module describes it."""
    g = a * h + 1
    if g % 2 == 0:
        return {("R", grp, r) for grp in range(g // 2) for r in range(a)}
    m = (g - 1) // 2
    side = {("R", (1 + i) % g, r) for i in range(m) for r in range(a)}
    return side | {("R", 0, r) for r in range(a // 2)}


def dragonfly_index_cut(p, a, h):
    """Side A of the router-index cut: index pairs {r, a-1-r}, r < a/4, in every group."""
    g = a * h + 1
    keep = {r for r in range(a // 4)} | {a - 1 - r for r in range(a // 4)}
    return {("R", grp, r) for grp in range(g) for r in keep}


def megafly_group_cut(k):
    g = k * k + 1
    if g % 2 == 0:
        return {(t, grp, i) for t in "LS" for grp in range(g // 2) for i in range(k)}
    m = (g - 1) // 2
    side = {(t, (1 + i) % g, j) for t in "LS" for i in range(m) for j in range(k)}
    return side | {(t, 0, j) for t in "LS" for j in range(k // 2)}


# ------------------------------------------------------------------ instances

DRAGONFLIES = [
    (1, 1, 1), (2, 1, 1), (8, 1, 1), (3, 1, 2), (2, 1, 3), (4, 1, 3), (1, 1, 5),
    (1, 2, 1), (2, 2, 1), (1, 2, 2), (2, 2, 3), (1, 2, 4),
    (1, 3, 1), (2, 3, 1), (1, 3, 2), (2, 3, 2), (1, 3, 4),
    (1, 4, 1), (2, 4, 2), (1, 4, 3), (1, 4, 5), (1, 5, 2), (2, 6, 1),
]
MEGAFLIES = [1, 2, 3, 4]


def scalar(x) -> float:
    assert np.ndim(x) == 0
    return float(x)


# ------------------------------------------------------------------ dragonfly tests


@pytest.mark.parametrize("p,a,h", DRAGONFLIES)
def test_dragonfly_counts_match_graph(p, a, h):
    net = build_dragonfly(p, a, h)
    m = df.evaluate_dragonfly(p, a, h)
    rg = router_graph(net)
    degrees = {net.graph.degree(r) for r in net.routers}
    assert scalar(m.routers) == len(net.routers)
    assert scalar(m.endpoints) == len(net.endpoint_routers)
    assert degrees == {scalar(m.radix)}
    assert scalar(m.links) == rg.number_of_edges()
    kinds = nx.get_edge_attributes(net.graph, "kind")
    assert scalar(df.dragonfly_global_links(a, h)) == sum(k == "global" for k in kinds.values())
    assert scalar(df.dragonfly_local_links(a, h)) == sum(k == "local" for k in kinds.values())
    assert df.dragonfly_endpoint_count({"p": p, "a": a, "h": h}) == len(net.endpoint_routers)


@pytest.mark.parametrize("p,a,h", DRAGONFLIES)
def test_dragonfly_distances_match_bfs(p, a, h):
    net, _, _, routed_hops = routed("dragonfly", (p, a, h))
    hops = endpoint_hops(net)
    n = hops.shape[0]
    m = df.evaluate_dragonfly(p, a, h)
    assert scalar(m.diameter) == hops.max()
    assert scalar(m.average_distance) == pytest.approx(hops.sum() / (n * (n - 1)), rel=1e-12)
    er = endpoint_router_matrix(net)
    endpoint_routed = er @ routed_hops @ er.T
    assert np.all(endpoint_routed >= hops)
    assert scalar(df.dragonfly_min_average_distance(p, a, h)) == pytest.approx(
        endpoint_routed.sum() / (n * (n - 1)), rel=1e-12
    )
    router_bfs = nx.floyd_warshall_numpy(router_graph(net), nodelist=net.hosts)
    assert scalar(df.dragonfly_shortcut_router_pairs(a, h)) == np.sum(routed_hops > router_bfs)


@pytest.mark.parametrize("p,a,h", DRAGONFLIES)
def test_dragonfly_channel_loads_match_routing(p, a, h):
    params = (p, a, h)
    m = df.evaluate_dragonfly(p, a, h)
    n = len(routed("dragonfly", params)[0].endpoint_routers)
    gamma = {pattern: scalar(m.channel_load[pattern]) for pattern in PATTERNS}
    assert gamma["uniform"] == pytest.approx(uniform_gamma("dragonfly", params), rel=1e-12)
    classes = uniform_gamma("dragonfly", params, classes=True)
    loads = df.dragonfly_uniform_loads(p, a, h)
    assert classes["global"] == {round(scalar(loads["global"]), 12)}
    if a == 1:
        assert "local" not in classes and np.isnan(loads["local"])
    else:
        assert classes["local"] == {round(scalar(loads["local"]), 12)}
    tornado = tornado_destination("dragonfly", params)
    assert gamma["tornado"] == pattern_gamma("dragonfly", params, tornado)
    assert gamma["nearest-neighbour"] == pattern_gamma("dragonfly", params, (np.arange(n) + 1) % n)
    if n & (n - 1) == 0:
        complement = n - 1 - np.arange(n)
        assert gamma["bit-complement"] == pattern_gamma("dragonfly", params, complement)
    else:
        assert np.isnan(gamma["bit-complement"])
    transpose = bit_transpose(n)
    if transpose is None:
        assert np.isnan(gamma["transpose"])
    else:
        assert gamma["transpose"] == pattern_gamma("dragonfly", params, transpose)
    assert gamma["worst-case"] == worst_case_gamma("dragonfly", params)


def test_dragonfly_power_of_two_patterns_are_exercised():
    """The a = 1 instances above include defined bit-complement and both transpose regimes."""
    assert scalar(df.evaluate_dragonfly(8, 1, 1).channel_load["transpose"]) == 4.0
    assert scalar(df.evaluate_dragonfly(4, 1, 3).channel_load["transpose"]) == 1.0
    assert scalar(df.evaluate_dragonfly(2, 1, 3).channel_load["bit-complement"]) == 2.0
    assert np.isnan(df.evaluate_dragonfly(2, 1, 3).channel_load["transpose"])


SMALLER_THAN_STATED_CUT = {(2, 3): 8, (2, 4): 13}
"""Exhaustive minimum bisections below the stated cut (a = 2, h >= 3: splitting groups pays)."""


@pytest.mark.parametrize(
    "a,h", [(1, 1), (1, 2), (1, 5), (1, 12), (2, 1), (2, 2), (2, 3), (2, 4), (3, 1), (3, 2), (4, 1)]
)
def test_dragonfly_bisection_against_exhaustive_search(a, h):
    net = build_dragonfly(1, a, h)
    minimum = exhaustive_bisection(net, net.routers)
    stated = scalar(df.evaluate_dragonfly(1, a, h).bisection_links)
    assert minimum == SMALLER_THAN_STATED_CUT.get((a, h), stated)
    assert minimum <= stated


@pytest.mark.parametrize("p,a,h", DRAGONFLIES + [(1, 8, 2), (1, 4, 6)])
def test_dragonfly_stated_cuts_are_balanced_with_stated_size(p, a, h):
    net = build_dragonfly(p, a, h)
    r = len(net.routers)
    group_side = dragonfly_group_cut(p, a, h)
    assert len(group_side) in {r // 2, (r + 1) // 2}
    assert cut_size(net, group_side) == scalar(df.dragonfly_group_cut_links(a, h))
    if a % 4 == 0:
        index_side = dragonfly_index_cut(p, a, h)
        assert len(index_side) == r // 2
        assert cut_size(net, index_side) == scalar(df.dragonfly_index_cut_links(a, h))
    else:
        assert np.isinf(df.dragonfly_index_cut_links(a, h))
    assert scalar(df.dragonfly_bisection_links(a, h)) == min(
        scalar(df.dragonfly_group_cut_links(a, h)), scalar(df.dragonfly_index_cut_links(a, h))
    )


def test_dragonfly_index_cut_beats_group_cut_when_a_below_h():
    assert scalar(df.dragonfly_bisection_links(4, 6)) == 25 * 4
    assert scalar(df.dragonfly_group_cut_links(4, 6)) == 12 * 12 + 4


@settings(max_examples=12, deadline=None)
@given(p=st.integers(1, 3), a=st.integers(1, 4), h=st.integers(1, 3))
def test_dragonfly_random_small_instances_match_graph(p, a, h):
    net = build_dragonfly(p, a, h)
    hops = endpoint_hops(net)
    n = hops.shape[0]
    m = df.evaluate_dragonfly(p, a, h)
    assert scalar(m.average_distance) == pytest.approx(hops.sum() / (n * (n - 1)), rel=1e-12)
    assert scalar(m.diameter) == hops.max()
    assert scalar(m.channel_load["uniform"]) == pytest.approx(
        uniform_gamma("dragonfly", (p, a, h)), rel=1e-12
    )


def test_balanced_dragonfly_df_3_6_3_matches_graph():
    """A larger balanced instance: 114 routers, 342 endpoints (distances and counts only)."""
    net = build_dragonfly(3, 6, 3)
    hops = endpoint_hops(net)
    n = hops.shape[0]
    m = df.evaluate_dragonfly(3, 6, 3)
    assert (scalar(m.routers), scalar(m.endpoints), scalar(m.radix)) == (114, 342, 11)
    assert scalar(m.links) == router_graph(net).number_of_edges()
    assert scalar(m.diameter) == hops.max()
    assert scalar(m.average_distance) == pytest.approx(hops.sum() / (n * (n - 1)), rel=1e-12)
    assert cut_size(net, dragonfly_group_cut(3, 6, 3)) == scalar(m.bisection_links) == 90


def test_dragonfly_paper_formulas_and_balanced_example():
    """Jiang et al. §1.3 for DF(4,8,4): k = 15, a(ah+1) = 264 routers, 1,056 endpoints."""
    m = df.evaluate_dragonfly(4, 8, 4)
    assert (scalar(m.radix), scalar(m.routers), scalar(m.endpoints)) == (15, 264, 1056)
    assert scalar(m.diameter) == 3
    assert m.notes[: len(COMMON_NOTES)] == COMMON_NOTES
    assert m.notes[-1] == "balanced: a = 2p = 2h"
    assert df.evaluate_dragonfly(4, 8, 3).notes[-1].startswith("not balanced")


# ------------------------------------------------------------------ megafly tests


@pytest.mark.parametrize("k", MEGAFLIES)
def test_megafly_counts_and_distances_match_graph(k):
    net, _, _, routed_hops = routed("megafly", (k,))
    m = df.evaluate_megafly(k)
    assert scalar(m.routers) == len(net.routers) == 2 * k * (k * k + 1)
    assert scalar(m.endpoints) == len(net.endpoint_routers)
    assert df.megafly_endpoint_count({"k": k}) == len(net.endpoint_routers)
    assert {net.graph.degree(r) for r in net.routers} == {scalar(m.radix)}
    assert scalar(m.links) == router_graph(net).number_of_edges()
    hops = endpoint_hops(net)
    n = hops.shape[0]
    assert scalar(m.diameter) == hops.max()
    assert scalar(m.average_distance) == pytest.approx(hops.sum() / (n * (n - 1)), rel=1e-12)
    er = endpoint_router_matrix(net)
    assert np.array_equal(er @ routed_hops @ er.T, hops)


@pytest.mark.parametrize("k", MEGAFLIES)
def test_megafly_channel_loads_match_routing(k):
    params = (k,)
    m = df.evaluate_megafly(k)
    n = len(routed("megafly", params)[0].endpoint_routers)
    gamma = {pattern: scalar(m.channel_load[pattern]) for pattern in PATTERNS}
    assert gamma["uniform"] == pytest.approx(uniform_gamma("megafly", params), rel=1e-12)
    assert gamma["uniform"] == pytest.approx(1.0 - 1.0 / (k**3 + k), rel=1e-12)
    classes = uniform_gamma("megafly", params, classes=True)
    loads = df.megafly_uniform_loads(k)
    for name in ("global", "up", "down"):
        assert classes[name] == {round(scalar(loads[name]), 12)}
    tornado = tornado_destination("megafly", params)
    assert gamma["tornado"] == pattern_gamma("megafly", params, tornado)
    assert gamma["nearest-neighbour"] == pytest.approx(
        pattern_gamma("megafly", params, (np.arange(n) + 1) % n), rel=1e-12
    )
    if n & (n - 1) == 0:
        assert gamma["bit-complement"] == pattern_gamma("megafly", params, n - 1 - np.arange(n))
    else:
        assert np.isnan(gamma["bit-complement"])
    assert bit_transpose(n) is None and np.isnan(gamma["transpose"])
    assert gamma["worst-case"] == pytest.approx(worst_case_gamma("megafly", params), rel=1e-12)


@pytest.mark.parametrize("k", [1, 2])
def test_megafly_bisection_is_minimal_on_tiny_instances(k):
    net = build_megafly(k)
    leaves = [r for r in net.routers if r[0] == "L"]
    assert scalar(df.evaluate_megafly(k).bisection_links) == exhaustive_bisection(net, leaves)


@pytest.mark.parametrize("k", MEGAFLIES + [5, 6])
def test_megafly_stated_cut_is_balanced_with_stated_size(k):
    net = build_megafly(k)
    side = megafly_group_cut(k)
    leaves_a = sum(1 for r in side if r[0] == "L")
    assert 2 * leaves_a == k * (k * k + 1)
    assert cut_size(net, side) == scalar(df.megafly_bisection_links(k))


# ------------------------------------------------------------------ shared behaviour


def test_vectorized_equals_scalar_calls():
    rng = np.random.default_rng(7)
    p, a, h = (rng.integers(1, 30, size=(4, 50)) for _ in range(3))
    batch = df.evaluate_dragonfly(p, a, h)
    assert batch.routers.shape == (4, 50)
    for i, j in itertools.product(range(4), range(50)):
        one = df.evaluate_dragonfly(int(p[i, j]), int(a[i, j]), int(h[i, j]))
        assert_config_equals(batch, (i, j), one)
    k = np.arange(1, 60)
    mbatch = df.evaluate_megafly(k)
    for i, kk in enumerate(k):
        assert_config_equals(mbatch, i, df.evaluate_megafly(int(kk)))


def test_broadcasting_over_parameters():
    m = df.evaluate_dragonfly(np.array([[1], [2]]), np.array([2, 4, 8]), 3)
    assert m.endpoints.shape == (2, 3)
    assert m.endpoints[1, 2] == 2 * 8 * 25
    assert "balanced (a = 2p = 2h): 0 of 6 configurations" in m.notes


def test_large_counts_are_exact():
    params = {"p": 1000, "a": 2000, "h": 1000}
    assert df.dragonfly_endpoint_count(params) == 2000 * 1000 * (2000 * 1000 + 1)
    assert df.megafly_endpoint_count({"k": 1000}) == 10**6 * (10**6 + 1)


@pytest.mark.parametrize(
    "family,check,params,fragment",
    [
        ("dragonfly", df.check_dragonfly, {"p": 4, "a": 8}, "missing parameter h"),
        ("dragonfly", df.check_dragonfly, {"p": 4, "a": 8, "h": 4, "k": 2}, "unknown parameter k"),
        ("dragonfly", df.check_dragonfly, {"p": 0, "a": 8, "h": 4}, "p=0"),
        ("dragonfly", df.check_dragonfly, {"p": 4, "a": -1, "h": 4}, "a=-1"),
        ("dragonfly", df.check_dragonfly, {"p": 4, "a": 8, "h": True}, "h=True"),
        ("dragonfly", df.check_dragonfly, {"p": 4, "a": 8.0, "h": 4}, "a=8.0"),
        ("megafly", df.check_megafly, {"k": 0}, "k=0"),
        ("megafly", df.check_megafly, {}, "missing parameter k"),
    ],
)
def test_check_rejects_bad_parameters(family, check, params, fragment):
    with pytest.raises(InputError) as info:
        check(params)
    assert str(info.value).startswith(family + ":")
    assert fragment in str(info.value)


def test_check_accepts_good_parameters():
    df.check_dragonfly({"p": 4, "a": 8, "h": 4})
    df.check_dragonfly({"p": np.int64(1), "a": 1, "h": 1})
    df.check_megafly({"k": 18})


def test_evaluate_rejects_non_integer_arrays():
    with pytest.raises(InputError, match="dragonfly: a must be a positive integer"):
        df.evaluate_dragonfly(4, np.array([8, 0]), 4)
    with pytest.raises(InputError, match="megafly: k must be a positive integer"):
        df.evaluate_megafly(1.5)


def test_families_registration():
    names = {f.name: f for f in df.FAMILIES}
    assert set(names) == {"dragonfly", "megafly", "gdragonfly", "dfplus"}
    assert names["dfplus"].parameters == ("p", "l", "s", "h", "g", "c")
    assert names["gdragonfly"].parameters == ("p", "a", "b", "la", "lb", "g", "m")
    assert names["gdragonfly"].endpoints({"p": 4, "a": 16, "b": 6, "g": 9}) == 3456
    assert names["dragonfly"].parameters == ("p", "a", "h")
    assert names["megafly"].positional == "k"
    assert scalar(names["megafly"].evaluate(k=18).endpoints) == 105300
    assert names["dragonfly"].endpoints({"p": 4, "a": 8, "h": 4}) == 1056


@pytest.mark.parametrize("n", [1, 2, 6, 7, 36, 37, 1056, 1057, 10**5, 10**6, 123457])
def test_design_for_endpoints_is_smallest(n):
    design = df.design_for_endpoints(n)
    t = design["p"]
    assert design == {"p": t, "a": 2 * t, "h": t}
    assert df.dragonfly_endpoint_count(design) >= n
    assert t == 1 or df.dragonfly_endpoint_count({"p": t - 1, "a": 2 * t - 2, "h": t - 1}) < n
    k = df.design_for_endpoints(n, family="megafly")["k"]
    assert df.megafly_endpoint_count({"k": k}) >= n
    assert k == 1 or df.megafly_endpoint_count({"k": k - 1}) < n


def test_design_at_one_hundred_thousand_endpoints():
    """NUDT (Jiang et al. §2.1): at ~1e5 endpoints DF about 50 ports, MF 36 ports."""
    dragonfly = df.evaluate_dragonfly(**df.design_dragonfly_for_endpoints(100_000))
    megafly = df.evaluate_megafly(**df.design_megafly_for_endpoints(100_000))
    assert (scalar(dragonfly.radix), scalar(dragonfly.routers)) == (51, 8814)
    assert scalar(dragonfly.endpoints) == 114_582
    assert (scalar(megafly.radix), scalar(megafly.routers)) == (36, 11_700)
    assert scalar(megafly.endpoints) == 105_300
    with pytest.raises(InputError, match="unknown family"):
        df.design_for_endpoints(10, family="torus")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 3), st.data())
def test_route_traffic_is_the_hops_and_load_worked_out_apart(p, a, h, data):
    """dragonfly_route_traffic works each route out once; it gives the largest of
    dragonfly_route_hops and dragonfly_route_load of the same pairs."""
    from icnperf.model.topology.dragonfly.routes import dragonfly_route_traffic

    n = p * a * (a * h + 1)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                               min_size=1, max_size=40))
    src, dst = (np.array(v) for v in zip(*pairs))
    assert dragonfly_route_traffic(p, a, h, src, dst) == (
        int(df.dragonfly_route_hops(p, a, h, src, dst).max()),
        df.dragonfly_route_load(p, a, h, src, dst))
