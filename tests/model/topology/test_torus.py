"""Torus, mesh and hypercube closed forms against brute force on the actual graphs.

Every formula in icnperf/model/topology/torus/ is checked here against networkx graphs
(BFS distances, diameter, edge counts, degrees), against channel loads obtained by routing
every source-destination pair with a dimension-order router written independently below,
against per-channel maximum matchings (linear_sum_assignment) for the worst-case
permutation, and against exhaustive search for the bisection on graphs of <= 16 routers.
"""

from __future__ import annotations

import functools
import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from icnperf.errors import InputError
from icnperf.model.topology import torus as T
from icnperf.model.topology.base import COMMON_NOTES, PATTERNS, Metrics
from metrics_assert import assert_config_equals

SMALL = [
    (2,), (3,), (4,), (5,), (6,), (7,), (8,),
    (2, 2), (2, 3), (3, 2), (3, 3), (3, 4), (4, 4), (5, 3), (2, 5), (6, 3), (2, 7), (5, 5),
    (2, 2, 2), (3, 2, 2), (2, 3, 4), (4, 2, 3), (3, 3, 3), (3, 3, 2),
    (2, 2, 2, 2), (3, 2, 2, 3), (2, 3, 2, 3), (3, 3, 2, 2),
]  # fmt: skip
"""Small instances: 1D to 4D, radices 2..8, mixed, odd (all <= 81 routers)."""

WORST_CASE_MAX_ROUTERS = 64


# --- brute force: graphs, routing, loads ----------------------------------------------


def wraps(radices, wrap):
    """One wrap flag per dimension: ``wrap`` itself if it is a tuple, else repeated."""
    return tuple(wrap) if isinstance(wrap, tuple) else (wrap,) * len(radices)


def grid(radices, wrap):
    """networkx torus/mesh with node tuple (x_0, ..., x_{n-1}) for radices (k_0, ...).

    ``wrap``: a bool (every dimension) or one per dimension (a mixed torus/mesh).
    nx.grid_graph lists its `dim` argument last-coordinate-first, hence the reversal. A
    periodic radix-2 dimension is a 2-cycle, which a simple Graph stores as ONE edge. A
    one-dimensional grid has integer nodes; they are relabelled to 1-tuples.
    """
    g = nx.grid_graph(dim=list(reversed(radices)),
                      periodic=list(reversed(wraps(radices, wrap))))
    if len(radices) == 1:
        g = nx.relabel_nodes(g, {x: (x,) for x in g.nodes})
    return g


def dimension_steps(a, b, k, wrap):
    """Unit steps (+1/-1) from coordinate a to b: minimal, ties (2*delta == k) go +."""
    if not wrap:
        return [1] * (b - a) if b >= a else [-1] * (a - b)
    delta = (b - a) % k
    if 2 * delta <= k:
        return [1] * delta
    return [-1] * (k - delta)


def dor_route(src, dst, radices, wrap):
    """Channels (u, v) of the dimension-order route, dimension 0 first."""
    current = list(src)
    channels = []
    for i, (k, ring) in enumerate(zip(radices, wraps(radices, wrap))):
        for step in dimension_steps(current[i], dst[i], k, ring):
            nxt = list(current)
            nxt[i] = (current[i] + step) % k
            channels.append((tuple(current), tuple(nxt)))
            current = nxt
    assert tuple(current) == tuple(dst)
    return channels


@functools.lru_cache(maxsize=None)
def network(radices, wrap):
    """(graph, routers, routes[(s, d)]) with every ordered pair routed."""
    g = grid(radices, wrap)
    routers = list(itertools.product(*(range(k) for k in radices)))
    assert set(routers) == set(g.nodes)
    routes = {(s, d): dor_route(s, d, radices, wrap) for s in routers for d in routers}
    return g, routers, routes


def gamma_max(radices, wrap, demand):
    """Max over channels of the flits/cycle routed by DOR for demand {(s, d): flits}."""
    _, _, routes = network(radices, wrap)
    load = {}
    for pair, flits in demand.items():
        for channel in routes[pair]:
            load[channel] = load.get(channel, 0.0) + flits
    return max(load.values(), default=0.0)


def ceil_half(k):
    return -(-k // 2)


def demand_for(pattern, radices, wrap):
    """{(s, d): flits/cycle} for one pattern, or None where it is undefined."""
    _, routers, _ = network(radices, wrap)
    n = len(radices)
    if pattern == "uniform":
        return {(s, d): 1.0 / len(routers) for s in routers for d in routers}
    if pattern == "nearest-neighbour":
        demand = {}
        for s in routers:
            for i, (k, ring) in enumerate(zip(radices, wraps(radices, wrap))):
                for step in (1, -1):
                    if ring or 0 <= s[i] + step < k:
                        d = s[:i] + ((s[i] + step) % k,) + s[i + 1 :]
                        demand[s, d] = demand.get((s, d), 0.0) + 1.0 / (2 * n)
        return demand
    destination = permutation_for(pattern, radices)
    if destination is None:
        return None
    return {(s, destination(s)): 1.0 for s in routers}


def permutation_for(pattern, radices):
    """Destination function of a permutation pattern, or None where undefined."""
    if pattern == "tornado":
        return lambda s: tuple((x + ceil_half(k) - 1) % k for x, k in zip(s, radices))
    if pattern == "bit-complement":
        return lambda s: tuple(k - 1 - x for x, k in zip(s, radices))
    h = len(radices) // 2
    if len(radices) % 2 or tuple(radices[:h]) != tuple(radices[h:]):
        return None
    return lambda s: tuple(s[h:]) + tuple(s[:h])


def brute_load(pattern, radices, wrap):
    demand = demand_for(pattern, radices, wrap)
    return math.nan if demand is None else gamma_max(radices, wrap, demand)


def brute_worst_case(radices, wrap):
    """max over channels of a maximum matching of the (s, d) pairs routed over it."""
    _, routers, routes = network(radices, wrap)
    index = {r: i for i, r in enumerate(routers)}
    crossing = {}
    for (s, d), channels in routes.items():
        for channel in channels:
            crossing.setdefault(channel, []).append((index[s], index[d]))
    best = 0
    for pairs in crossing.values():
        weight = np.zeros((len(routers), len(routers)))
        rows, cols = zip(*pairs)
        weight[rows, cols] = 1.0
        r, c = linear_sum_assignment(weight, maximize=True)
        best = max(best, int(weight[r, c].sum()))
    return float(best)


def brute_bisection(g):
    """Minimum links between a part of floor(N/2) routers and the rest (exhaustive)."""
    nodes = list(g.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    u = np.array([index[a] for a, _ in g.edges])
    v = np.array([index[b] for _, b in g.edges])
    subsets = np.array(list(itertools.combinations(range(len(nodes)), len(nodes) // 2)))
    member = np.zeros((len(subsets), len(nodes)), dtype=bool)
    np.put_along_axis(member, subsets, True, axis=1)
    return int(np.min(np.sum(member[:, u] != member[:, v], axis=1)))


def staircase_member(x, radices, order):
    """Whether router x is in the staircase half for the dimension cutting order."""
    for j in order:
        h = radices[j] // 2
        if x[j] != h or radices[j] % 2 == 0:
            return x[j] < h
    return False


def best_staircase_cut(radices, wrap):
    """Smallest cut over all dimension orders of staircase halves; asserts each is balanced."""
    g = grid(radices, wrap)
    best = math.inf
    for order in itertools.permutations(range(len(radices))):
        side = {x: staircase_member(x, radices, order) for x in g.nodes}
        assert sum(side.values()) == g.number_of_nodes() // 2
        best = min(best, sum(side[a] != side[b] for a, b in g.edges))
    return best


def staircase_recursion(radices, wrap):
    """Best staircase cut over all orders by the full recursion (no greedy)."""

    @functools.lru_cache(maxsize=None)
    def best(ks):
        if not ks:
            return 0
        total = math.prod(k for k, _ in ks)
        options = []
        for j, (k, ring) in enumerate(ks):
            per_line = 2 if ring and k > 2 else 1
            rest = ks[:j] + ks[j + 1 :]
            options.append(per_line * total // k + (best(rest) if k % 2 else 0))
        return min(options)

    return best(tuple(sorted(zip(radices, wraps(radices, wrap)))))


def metrics(radices, wrap):
    return T.torus_metrics(radices, wrap=wrap)


# --- structure vs the graph ---------------------------------------------------------------


@pytest.mark.parametrize("wrap", [True, False], ids=["torus", "mesh"])
@pytest.mark.parametrize("radices", SMALL, ids=str)
def test_structure_matches_graph(radices, wrap):
    g, routers, routes = network(radices, wrap)
    m = metrics(radices, wrap)
    n_routers = g.number_of_nodes()
    assert m.routers == n_routers == m.endpoints == math.prod(radices)
    assert m.links == g.number_of_edges()
    assert m.radix == max(dict(g.degree).values()) + 1
    distances = dict(nx.all_pairs_shortest_path_length(g))
    assert m.diameter == max(max(row.values()) for row in distances.values())
    total = sum(sum(row.values()) for row in distances.values())
    assert m.average_distance == pytest.approx(total / (n_routers * (n_routers - 1)), rel=1e-12)
    for (s, d), channels in routes.items():
        assert len(channels) == distances[s][d]
        assert all(g.has_edge(a, b) for a, b in channels)


@pytest.mark.parametrize("wrap", [True, False], ids=["torus", "mesh"])
@pytest.mark.parametrize("radices", SMALL, ids=str)
def test_channel_loads_match_routing(radices, wrap):
    m = metrics(radices, wrap)
    for pattern in ("uniform", "tornado", "bit-complement", "transpose", "nearest-neighbour"):
        expected = brute_load(pattern, radices, wrap)
        assert m.channel_load[pattern] == pytest.approx(expected, rel=1e-12, nan_ok=True), pattern


@pytest.mark.parametrize("wrap", [True, False], ids=["torus", "mesh"])
@pytest.mark.parametrize(
    "radices", [r for r in SMALL if math.prod(r) <= WORST_CASE_MAX_ROUTERS], ids=str
)
def test_worst_case_matches_matching(radices, wrap):
    assert metrics(radices, wrap).channel_load["worst-case"] == brute_worst_case(radices, wrap)


@pytest.mark.parametrize("wrap", [True, False], ids=["torus", "mesh"])
@pytest.mark.parametrize("radices", [r for r in SMALL if math.prod(r) <= 16], ids=str)
def test_bisection_exhaustive(radices, wrap):
    assert metrics(radices, wrap).bisection_links == brute_bisection(grid(radices, wrap))


@pytest.mark.parametrize("wrap", [True, False], ids=["torus", "mesh"])
@pytest.mark.parametrize("radices", [r for r in SMALL if math.prod(r) > 16], ids=str)
def test_bisection_is_a_balanced_staircase_cut(radices, wrap):
    assert metrics(radices, wrap).bisection_links == best_staircase_cut(radices, wrap)


# --- hypothesis: random small radices ------------------------------------------------------

small_radices = st.lists(st.integers(2, 6), min_size=1, max_size=3).filter(
    lambda r: math.prod(r) <= 48
)


@settings(max_examples=25, deadline=None)
@given(radices=small_radices, wrap=st.booleans())
def test_random_instances_match_brute_force(radices, wrap):
    radices = tuple(radices)
    g, _, _ = network(radices, wrap)
    m = metrics(radices, wrap)
    distances = dict(nx.all_pairs_shortest_path_length(g))
    n_routers = g.number_of_nodes()
    total = sum(sum(row.values()) for row in distances.values())
    assert m.links == g.number_of_edges()
    assert m.diameter == max(max(row.values()) for row in distances.values())
    assert m.average_distance == pytest.approx(total / (n_routers * (n_routers - 1)), rel=1e-12)
    for pattern in ("uniform", "tornado", "bit-complement", "transpose", "nearest-neighbour"):
        expected = brute_load(pattern, radices, wrap)
        assert m.channel_load[pattern] == pytest.approx(expected, rel=1e-12, nan_ok=True)
    assert m.channel_load["worst-case"] == brute_worst_case(radices, wrap)
    if n_routers <= 16:
        assert m.bisection_links == brute_bisection(g)
    else:
        assert m.bisection_links == best_staircase_cut(radices, wrap)


@settings(max_examples=300, deadline=None)
@given(radices=st.lists(st.integers(2, 15), min_size=1, max_size=6), wrap=st.booleans())
def test_bisection_greedy_equals_staircase_recursion(radices, wrap):
    assert T.bisection_links(radices, wrap) == staircase_recursion(radices, wrap)


# --- mixed torus/mesh dimensions (Tofu's a and c are meshes) -------------------------------

T_, M_ = True, False
MIXED = [
    ((4, 3), (T_, M_)), ((3, 4), (M_, T_)), ((5, 3), (M_, T_)), ((6, 3), (M_, T_)),
    ((3, 5), (T_, M_)), ((4, 4), (M_, T_)), ((2, 3, 2), (M_, T_, M_)),
    ((3, 2, 3), (T_, M_, M_)), ((5, 2, 3), (T_, M_, T_)), ((4, 4, 2), (T_, M_, T_)),
    ((3, 3, 3), (M_, T_, M_)), ((4, 2, 4), (M_, T_, T_)), ((2, 3, 2, 2), (T_, T_, M_, M_)),
    ((2, 2, 3, 2), (M_, T_, T_, M_)), ((3, 3, 3, 3), (T_, M_, T_, M_)),
    ((4, 4, 4, 4), (M_, M_, T_, T_)), ((6, 3, 6, 3), (T_, M_, M_, T_)),
]  # fmt: skip
"""Mixed instances: every dimension count 2-4, ring and path of odd and even radix, the
transpose-symmetric ones with a ring against a path of the same radix."""


def mixed_id(case):
    radices, wrap = case
    return "x".join(f"{k}{'' if w else 'm'}" for k, w in zip(radices, wrap))


@pytest.mark.parametrize("case", MIXED, ids=mixed_id)
def test_mixed_structure_matches_graph(case):
    radices, wrap = case
    g, routers, routes = network(radices, wrap)
    m = metrics(radices, wrap)
    assert m.family == "torus"
    assert m.routers == m.endpoints == g.number_of_nodes() == math.prod(radices)
    assert m.links == g.number_of_edges()
    assert m.radix == max(dict(g.degree).values()) + 1
    distances = dict(nx.all_pairs_shortest_path_length(g))
    assert m.diameter == max(max(row.values()) for row in distances.values())
    total = sum(sum(row.values()) for row in distances.values())
    n = g.number_of_nodes()
    assert m.average_distance == pytest.approx(total / (n * (n - 1)), rel=1e-12)
    for (src, dst), channels in routes.items():
        assert len(channels) == distances[src][dst]
        assert all(g.has_edge(a, b) for a, b in channels)


@pytest.mark.parametrize("case", MIXED, ids=mixed_id)
def test_mixed_channel_loads_match_routing(case):
    radices, wrap = case
    m = metrics(radices, wrap)
    for pattern in ("uniform", "tornado", "bit-complement", "transpose", "nearest-neighbour"):
        expected = brute_load(pattern, radices, wrap)
        assert m.channel_load[pattern] == pytest.approx(expected, rel=1e-12, nan_ok=True), pattern
    if math.prod(radices) <= WORST_CASE_MAX_ROUTERS:
        assert m.channel_load["worst-case"] == brute_worst_case(radices, wrap)


@pytest.mark.parametrize("case", MIXED, ids=mixed_id)
def test_mixed_bisection(case):
    radices, wrap = case
    m = metrics(radices, wrap)
    if math.prod(radices) <= 16:
        assert m.bisection_links == brute_bisection(grid(radices, wrap))
    else:
        assert m.bisection_links == best_staircase_cut(radices, wrap)



def test_mixed_bisection_cuts_a_path_before_a_ring_of_the_same_ratio():
    # 6-ring (2 links a line, ratio 3) and 3-path (1 link, ratio 3): cutting the even
    # ring first stops at 2*18/6 = 6; the odd path first needs 18/3 + a staircase more.
    assert T.bisection_links((6, 3), (True, False)) == 6 == brute_bisection(
        grid((6, 3), (True, False)))


small_mixed = st.lists(st.tuples(st.integers(2, 6), st.booleans()), min_size=1,
                       max_size=3).filter(lambda dims: math.prod(k for k, _ in dims) <= 48)


@settings(max_examples=25, deadline=None)
@given(dims=small_mixed)
def test_random_mixed_instances_match_brute_force(dims):
    radices = tuple(k for k, _ in dims)
    wrap = tuple(w for _, w in dims)
    g, _, _ = network(radices, wrap)
    m = metrics(radices, wrap)
    distances = dict(nx.all_pairs_shortest_path_length(g))
    n = g.number_of_nodes()
    total = sum(sum(row.values()) for row in distances.values())
    assert m.links == g.number_of_edges()
    assert m.diameter == max(max(row.values()) for row in distances.values())
    assert m.average_distance == pytest.approx(total / (n * (n - 1)), rel=1e-12)
    for pattern in ("uniform", "tornado", "bit-complement", "transpose", "nearest-neighbour"):
        expected = brute_load(pattern, radices, wrap)
        assert m.channel_load[pattern] == pytest.approx(expected, rel=1e-12, nan_ok=True)
    assert m.channel_load["worst-case"] == brute_worst_case(radices, wrap)
    if n <= 16:
        assert m.bisection_links == brute_bisection(g)
    else:
        assert m.bisection_links == best_staircase_cut(radices, wrap)


@settings(max_examples=300, deadline=None)
@given(dims=st.lists(st.tuples(st.integers(2, 15), st.booleans()), min_size=1, max_size=6))
def test_mixed_bisection_greedy_equals_staircase_recursion(dims):
    radices = tuple(k for k, _ in dims)
    wrap = tuple(w for _, w in dims)
    assert T.bisection_links(radices, wrap) == staircase_recursion(radices, wrap)


def test_tofu_radix_two_meshes_are_the_radix_two_rings():
    # Tofu (Ajima et al. 2009): X, Y, Z and b rings, a and c meshes of 2. A radix-2 path
    # is one link like a radix-2 ring, so only nearest-neighbour (one share, not two) moves.
    shape = (4, 3, 4, 2, 3, 2)
    mixed = T.torus_metrics(shape, (True, True, True, False, True, False))
    ring = T.torus_metrics(shape)
    for name in ("routers", "radix", "links", "diameter", "average_distance",
                 "bisection_links"):
        assert getattr(mixed, name) == getattr(ring, name), name
    for pattern in ("uniform", "tornado", "bit-complement", "worst-case"):
        assert mixed.channel_load[pattern] == ring.channel_load[pattern], pattern
    assert ring.channel_load["nearest-neighbour"] == 2 / 12
    assert mixed.channel_load["nearest-neighbour"] == 1 / 12


def test_fugaku_shape_counts():
    # Fugaku's 24x23x24x2x3x2 = 158,976 nodes (RIKEN); 10 network ports + 1 endpoint port.
    m = T.torus_metrics((24, 23, 24, 2, 3, 2), (True, True, True, False, True, False))
    assert m.routers == 158_976
    assert m.radix == 11
    assert m.diameter == 12 + 11 + 12 + 1 + 1 + 1
    assert m.bisection_links == 2 * 158_976 / 24


def test_mixed_vectorized_equals_scalar():
    wrap = (True, False, True)
    batch = np.random.default_rng(3).integers(2, 9, size=(5, 4, 3))
    m = T.torus_metrics(batch, wrap)
    for idx in np.ndindex(5, 4):
        one = T.torus_metrics(tuple(int(k) for k in batch[idx]), wrap)
        assert_config_equals(m, idx, one)


def test_mixed_wrap_rejects():
    with pytest.raises(InputError, match="2 wrap flags for 3"):
        T.torus_metrics((4, 4, 4), (True, False))
    with pytest.raises(InputError, match="one bool per dimension"):
        T.torus_metrics((4, 4), (1, 0))
    with pytest.raises(InputError, match="mesh:4x4"):
        T.check_torus({"radices": (4, 4), "wrap": (False, False)})


def test_mixed_dor_traffic_and_hops_walk_the_routes():
    radices, wrap = (4, 3, 5), (False, True, False)
    _, routers, routes = network(radices, wrap)
    index = {r: sum(x * int(np.prod(radices[:i])) for i, x in enumerate(r)) for r in routers}
    rng = np.random.default_rng(11)
    for _ in range(20):
        chosen = rng.choice(len(routers), size=(15, 2))
        pairs = [(routers[a], routers[b]) for a, b in chosen]
        load = {}
        for pair in pairs:
            for channel in routes[pair]:
                load[channel] = load.get(channel, 0) + 1
        hops = max(len(routes[pair]) for pair in pairs)
        got = T.dor_traffic(radices, [index[a] for a, _ in pairs], [index[b] for _, b in pairs],
                            wrap=wrap)
        assert got == (hops, max(load.values(), default=0))
        for a, b in pairs:
            assert T.hop_distance(radices, a, b, wrap=wrap) == len(routes[a, b])


# --- named values ---------------------------------------------------------------------------


def test_angara_16x16x32():
    m = T.torus_metrics((16, 16, 32))
    assert (m.routers, m.radix, m.links, m.diameter) == (8192, 7, 3 * 8192, 32)
    assert m.bisection_links == 2 * 8192 / 32
    assert m.channel_load["uniform"] == (32 + 2) / 8
    assert m.channel_load["tornado"] == 15
    assert m.channel_load["bit-complement"] == 8
    assert np.isnan(m.channel_load["transpose"])
    assert m.channel_load["nearest-neighbour"] == 1 / 6
    assert m.channel_load["worst-case"] == 8 * min(16, 32)
    assert m.average_distance == pytest.approx(8192 / 8191 * (4 + 4 + 8), rel=1e-12)


def test_uniform_tie_rule_beats_split_ties_by_quarter_flit():
    # Dally & Towles' k/8 splits the distance-k/2 traffic evenly; with ties to + the +
    # channels carry (k+2)/8, which the brute-force router confirms.
    assert T.uniform_load((8,)) == 10 / 8 == brute_load("uniform", (8,), True)
    assert T.uniform_load((7,)) == pytest.approx(48 / 56, rel=1e-15)


def test_mesh_even_radix_uniform_is_k_over_4():
    assert T.uniform_load((8, 8), wrap=False) == 2.0


def test_odd_largest_radix_bisection_is_not_2n_over_k():
    # 5x5: a straight cut (2*25/5 = 10 links) splits 10/15; the balanced staircase needs 12.
    assert T.bisection_links((5, 5)) == 12
    assert T.bisection_links((3, 3)) == brute_bisection(grid((3, 3), True)) == 8


def test_radix_two_ring_is_a_single_link():
    assert T.torus_metrics((2,)).links == 1
    assert T.torus_metrics((2, 2, 2)).radix == 4
    assert grid((2, 2, 2), True).number_of_edges() == 12


def test_hypercube_is_torus_of_radix_two():
    for n in range(1, 7):
        cube = nx.hypercube_graph(n)
        if n == 1:
            cube = nx.relabel_nodes(cube, {x: (x,) for x in cube.nodes})
        edges = {frozenset(e) for e in grid((2,) * n, True).edges}
        assert {frozenset(e) for e in cube.edges} == edges
        assert_same_metrics(T.hypercube_metrics(n), T.torus_metrics((2,) * n))


def test_hypercube_known_values():
    m = T.hypercube_metrics(10)
    assert (m.routers, m.radix, m.links, m.diameter) == (1024, 11, 5120, 10)
    assert m.bisection_links == 512
    assert m.average_distance == pytest.approx(1024 / 1023 * 5, rel=1e-12)
    assert m.channel_load["uniform"] == 0.5
    assert m.channel_load["bit-complement"] == 1
    assert m.channel_load["tornado"] == 0
    assert m.channel_load["transpose"] == 16  # sqrt(N)/2 under e-cube routing
    assert m.channel_load["worst-case"] == 16
    assert m.channel_load["nearest-neighbour"] == 0.1
    assert np.isnan(T.hypercube_metrics(9).channel_load["transpose"])
    assert T.hypercube_metrics(9).channel_load["worst-case"] == 16


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_hypercube_worst_case_and_transpose_brute_force(n):
    m = T.hypercube_metrics(n)
    assert m.channel_load["worst-case"] == brute_worst_case((2,) * n, True)
    expected = brute_load("transpose", (2,) * n, True)
    assert m.channel_load["transpose"] == pytest.approx(expected, nan_ok=True)


# --- vectorized == scalar -------------------------------------------------------------------


def assert_same_metrics(a: Metrics, b: Metrics):
    for name in ("routers", "endpoints", "radix", "links", "diameter", "average_distance",
                 "bisection_links"):  # fmt: skip
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    for pattern in PATTERNS:
        np.testing.assert_array_equal(a.channel_load[pattern], b.channel_load[pattern], pattern)


@pytest.mark.parametrize("wrap", [True, False], ids=["torus", "mesh"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_vectorized_equals_scalar(n, wrap):
    rng = np.random.default_rng(n)
    batch = rng.integers(2, 21, size=(4, 6, n))
    batch[0, 0] = batch[0, 0, :1]  # one symmetric configuration for transpose
    m = T.torus_metrics(batch, wrap=wrap)
    assert m.routers.shape == (4, 6)
    for idx in np.ndindex(4, 6):
        one = T.torus_metrics(tuple(int(k) for k in batch[idx]), wrap=wrap)
        assert_config_equals(m, idx, one)


def test_single_metric_functions_agree_with_record():
    batch = np.random.default_rng(7).integers(2, 12, size=(50, 4))
    for wrap in (True, False):
        m = T.torus_metrics(batch, wrap=wrap)
        np.testing.assert_array_equal(T.link_count(batch, wrap), m.links)
        np.testing.assert_array_equal(T.diameter(batch, wrap), m.diameter)
        np.testing.assert_array_equal(T.average_distance(batch, wrap), m.average_distance)
        np.testing.assert_array_equal(T.bisection_links(batch, wrap), m.bisection_links)
        np.testing.assert_array_equal(T.uniform_load(batch, wrap), m.channel_load["uniform"])
        np.testing.assert_array_equal(T.tornado_load(batch, wrap), m.channel_load["tornado"])
        np.testing.assert_array_equal(
            T.bit_complement_load(batch, wrap), m.channel_load["bit-complement"]
        )
        np.testing.assert_array_equal(T.transpose_load(batch, wrap), m.channel_load["transpose"])
        np.testing.assert_array_equal(
            T.nearest_neighbour_load(batch, wrap), m.channel_load["nearest-neighbour"]
        )
        np.testing.assert_array_equal(T.worst_case_load(batch, wrap), m.channel_load["worst-case"])
    np.testing.assert_array_equal(T.router_count(batch), m.routers)
    np.testing.assert_array_equal(T.router_radix(batch), m.radix)


def test_hypercube_vectorized_equals_scalar():
    n = np.array([[1, 2, 3], [10, 9, 2]])
    m = T.hypercube_metrics(n)
    assert m.routers.shape == (2, 3)
    for idx in np.ndindex(2, 3):
        one = T.torus_metrics((2,) * int(n[idx]))
        assert_config_equals(m, idx, one)


def test_large_values_exact():
    m = T.torus_metrics((10**4, 10**4, 10**4))
    assert m.routers == 10**12
    assert m.bisection_links == 2 * 10**8
    assert T.worst_case_load((999_999, 1_000_001), wrap=False) == 999_999


# --- spec hooks ----------------------------------------------------------------------------


def test_families_registered():
    names = {f.name: f for f in T.FAMILIES}
    assert set(names) == {"torus", "mesh", "hypercube"}
    assert names["torus"].positional == names["mesh"].positional == "radices"
    assert names["hypercube"].positional == "n"
    assert names["torus"].example == "torus:16x16x32"
    assert names["torus"].endpoints({"radices": (16, 16, 32)}) == 8192
    assert names["mesh"].endpoints({"radices": (8, 8)}) == 64
    assert names["hypercube"].endpoints({"n": 10}) == 1024
    for family, params in ((names["torus"], {"radices": (4, 3)}),
                           (names["mesh"], {"radices": (4, 3)}),
                           (names["hypercube"], {"n": 4})):  # fmt: skip
        family.check(params)
        m = family.evaluate(**params)
        assert m.family == family.name
        assert m.notes[: len(COMMON_NOTES)] == COMMON_NOTES
        assert any("one endpoint per router" in note for note in m.notes)
        assert set(m.channel_load) == set(PATTERNS)


@pytest.mark.parametrize(
    "check, params, fragment",
    [
        (T.check_torus, {"radices": (4, 1, 4)}, "radix 1 in dimension 2"),
        (T.check_torus, {"radices": ()}, "non-empty"),
        (T.check_mesh, {"radices": (4, 2.5)}, "not an integer"),
        (T.check_mesh, {"radices": (0,)}, "must be >= 2"),
        (T.check_hypercube, {"n": 0}, "n=0"),
        (T.check_hypercube, {"n": "3"}, "not an integer"),
    ],
)
def test_check_rejects(check, params, fragment):
    with pytest.raises(InputError, match=fragment):
        check(params)


def test_evaluate_rejects_bad_arrays():
    with pytest.raises(InputError):
        T.torus_metrics(np.array([[2.5, 3.0]]))
    with pytest.raises(InputError):
        T.torus_metrics(np.array([[0, 3]]))
    with pytest.raises(InputError):
        T.hypercube_metrics(np.array([3, 0]))


def test_design_for_endpoints_nudt_6d():
    assert T.design_for_endpoints(10_000, dims=6) == {"radices": (5,) * 6}
    assert T.design_for_endpoints(100_000, dims=6) == {"radices": (7,) * 6}
    assert T.torus_metrics((5,) * 6).radix == 13
    assert T.torus_metrics((5,) * 6).endpoints == 15_625
    assert T.torus_metrics((7,) * 6).endpoints == 117_649


@pytest.mark.parametrize(
    "n_endpoints, dims, k",
    [(1, 3, 2), (8, 3, 2), (9, 3, 3), (4096, 6, 4), (4097, 6, 5), (8192, 3, 21),
     (10**12, 3, 10**4), (10**12 + 1, 3, 10**4 + 1), (17, 1, 17)],
)  # fmt: skip
def test_design_for_endpoints_is_smallest(n_endpoints, dims, k):
    assert T.design_for_endpoints(n_endpoints, dims=dims) == {"radices": (k,) * dims}
    assert k**dims >= n_endpoints and (k == 2 or (k - 1) ** dims < n_endpoints)


def test_design_for_endpoints_rejects():
    with pytest.raises(InputError):
        T.design_for_endpoints(0)
    with pytest.raises(InputError):
        T.design_for_endpoints(100, dims=0)
