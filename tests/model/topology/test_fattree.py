"""FT(k, n) and the folded Clos: every closed form against the network built with networkx.

The test builds the wiring stated in icnperf/model/topology/fattree.py (routers
("r", level, pod, j), endpoints ("e", i)), finds each router's reachable endpoints from the
graph itself, and routes every source-destination pair by nearest common ancestor with its
own up-port rule. Counts, BFS distances, channel loads, worst-case permutations (Towles &
Dally 2002: per channel, a maximum-weight matching with linear_sum_assignment) and
bisections (exhaustive over router partitions) are then compared with the closed forms.
"""

from __future__ import annotations

import math
from functools import lru_cache

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from icnperf.errors import InputError
from icnperf.model.topology import fattree as ft
from icnperf.model.topology.base import MAX_ENDPOINTS, PATTERNS
from metrics_assert import assert_config_equals

SMALL = [(k, n) for n in (1, 2, 3, 4) for k in range(1, 7) if 2 * k**n <= 200]
"""Instances checked exhaustively with d-mod-k routing (odd and even k, n = 1..4)."""

RANDOM_ROUTED = [(k, n) for (k, n) in SMALL if 2 * k**n <= 64]
"""Instances small enough to enumerate every random up-port path of every pair."""

TINY = [(k, n) for (k, n) in SMALL if (2 * n - 1) * k ** (n - 1) <= 20]
"""Instances whose router partitions can all be enumerated (at most 2^19 cuts)."""


class Network:
    """The stated FT(k, n) wiring as a networkx graph, with NCA routing written here."""

    def __init__(self, k: int, n: int):
        self.k, self.n, self.size = k, n, 2 * k**n
        self.graph = nx.Graph()
        self.up: dict = {}
        self._wire()
        self.level = {r: r[1] for r in self.graph if r[0] == "r"}
        self.leaf = {e: next(iter(self.graph[("e", e)])) for e in range(self.size)}
        self.reach = self._reach()
        channels = [(a, b) for a, b in self.graph.edges if a[0] == b[0] == "r"]
        channels += [(b, a) for a, b in channels]
        self.channel_index = {c: i for i, c in enumerate(channels)}

    def _wire(self):
        k, n = self.k, self.n
        top = n
        for e in range(self.size):
            self.graph.add_edge(("e", e), ("r", 1, e // k if n > 1 else 0, 0))
        for level in range(1, n):
            for pod in range(self.size // k**level):
                for j in range(k ** (level - 1)):
                    lower = ("r", level, pod, j)
                    for port in range(k):
                        upper_pod = 0 if level + 1 == top else pod // k
                        upper = ("r", level + 1, upper_pod, j * k + port)
                        self.graph.add_edge(lower, upper)
                        self.up.setdefault(lower, {})[port] = upper

    def _reach(self) -> dict:
        """Endpoint range [lo, hi] below each router, found bottom-up on the graph."""
        reach = {}
        for level in range(1, self.n + 1):
            for router in (r for r, lv in self.level.items() if lv == level):
                below = [v for v in self.graph[router]
                         if v[0] == "e" or self.level.get(v) == level - 1]
                spans = sorted((v[1], v[1]) if v[0] == "e" else reach[v] for v in below)
                for (_, hi), (lo, _) in zip(spans, spans[1:]):
                    assert lo == hi + 1, f"{router} does not reach a contiguous block"
                reach[router] = (spans[0][0], spans[-1][1])
        return reach

    def _holds(self, router, t) -> bool:
        lo, hi = self.reach[router]
        return lo <= t <= hi

    def _descend(self, router, t) -> list:
        hops = []
        while self.level[router] > 1:
            (child,) = [v for v in self.graph[router]
                        if self.level.get(v) == self.level[router] - 1 and self._holds(v, t)]
            hops.append((router, child))
            router = child
        return hops

    def paths(self, s: int, t: int, rule: str):
        """(probability, channels) of every NCA path from endpoint s to endpoint t."""
        def climb(router, weight, hops):
            if self._holds(router, t):
                yield weight, hops + self._descend(router, t)
                return
            level = self.level[router]
            ports = [(t // self.k ** (level - 1)) % self.k] if rule == "d-mod-k" \
                else range(self.k)
            for port in ports:
                upper = self.up[router][port]
                yield from climb(upper, weight / len(ports), hops + [(router, upper)])
        yield from climb(self.leaf[s], 1.0, [])


@lru_cache(maxsize=None)
def network(k: int, n: int) -> Network:
    return Network(k, n)


@lru_cache(maxsize=None)
def usage(k: int, n: int, rule: str):
    """COO arrays (channel, source, destination, fraction) over all ordered pairs."""
    net = network(k, n)
    rows = {}
    for s in range(net.size):
        for t in range(net.size):
            for weight, hops in net.paths(s, t, rule):
                for hop in hops:
                    key = (net.channel_index[hop], s, t)
                    rows[key] = rows.get(key, 0.0) + weight
    if not rows:
        return tuple(np.zeros(0, dtype=int) for _ in range(3)) + (np.zeros(0),)
    keys = np.array(list(rows), dtype=int)
    return keys[:, 0], keys[:, 1], keys[:, 2], np.array(list(rows.values()))


def flows(pattern: str, size: int):
    """The pattern as (sources, destinations, rates) arrays, or None where undefined."""
    ids = np.arange(size)
    if pattern == "uniform":
        every = np.arange(size * size)
        return every // size, every % size, np.full(size * size, 1.0 / size)
    if pattern == "nearest-neighbour":
        return np.tile(ids, 2), np.concatenate([(ids + 1) % size, (ids - 1) % size]), \
            np.full(2 * size, 0.5)
    m = math.isqrt(size)
    targets = {
        "tornado": (ids + size // 2) % size,
        "bit-complement": None if size & (size - 1) else size - 1 - ids,
        "transpose": (ids % m) * m + ids // m if m * m == size else None,
    }[pattern]
    return None if targets is None else (ids, targets, np.ones(size))


def max_load(k, n, rule, pattern) -> float:
    """gamma_max from the all-pairs routing table (rates summed per pair first)."""
    size = 2 * k**n
    sources, targets, rates = flows(pattern, size)
    matrix = np.zeros((size, size))
    np.add.at(matrix, (sources, targets), rates)
    channel, src, dst, weight = usage(k, n, rule)
    loads = np.bincount(channel, weights=weight * matrix[src, dst],
                        minlength=len(network(k, n).channel_index))
    return float(loads.max(initial=0.0))


def worst_permutation_load(k, n, rule) -> float:
    """max over channels of the max-weight source->destination matching through it."""
    channel, src, dst, weight = usage(k, n, rule)
    worst = 0.0
    order = np.argsort(channel, kind="stable")
    bounds = np.flatnonzero(np.diff(channel[order])) + 1
    for part in np.split(order, bounds) if len(order) else []:
        sources, s_idx = np.unique(src[part], return_inverse=True)
        targets, t_idx = np.unique(dst[part], return_inverse=True)
        matrix = np.zeros((len(sources), len(targets)))
        matrix[s_idx, t_idx] = weight[part]
        rows, cols = linear_sum_assignment(matrix, maximize=True)
        worst = max(worst, matrix[rows, cols].sum())
    return worst


def scalar(value) -> float:
    return float(np.asarray(value))


@pytest.mark.parametrize("k,n", SMALL)
def test_wiring_has_the_papers_counts_and_every_router_uses_2k_ports(k, n):
    net = network(k, n)
    m = ft.fattree(k, n)
    routers = [v for v in net.graph if v[0] == "r"]
    assert len(routers) == scalar(m.routers) == (2 * n - 1) * k ** (n - 1)
    assert net.size == scalar(m.endpoints) == 2 * k**n
    assert all(net.graph.degree(r) == 2 * k == scalar(m.radix) for r in routers)
    assert len(net.channel_index) == 2 * scalar(m.links)
    levels = [sum(1 for r in routers if r[1] == lv) for lv in range(1, n + 1)]
    assert levels == [2 * k ** (n - 1)] * (n - 1) + [k ** (n - 1)]
    assert net.reach[("r", n, 0, 0)] == (0, net.size - 1)


def test_figure_1_fattree_2_3():
    """NUDT Fig. 1, FatTree(2,3): 20 routers of degree 4, 16 terminals, diameter 4."""
    m = ft.fattree(2, 3)
    assert (scalar(m.routers), scalar(m.endpoints), scalar(m.radix)) == (20, 16, 4)
    assert scalar(m.diameter) == 4 == nx.diameter(network(2, 3).graph) - 2


@pytest.mark.parametrize("k,n", SMALL)
def test_diameter_and_average_distance_match_bfs(k, n):
    net = network(k, n)
    hops = []
    for s in range(net.size):
        dist = nx.single_source_shortest_path_length(net.graph, ("e", s))
        hops += [dist[("e", t)] - 2 for t in range(net.size) if t != s]
    m = ft.fattree(k, n)
    assert scalar(m.diameter) == max(hops)
    assert scalar(m.average_distance) == pytest.approx(np.mean(hops), rel=1e-12)


@pytest.mark.parametrize("k,n", SMALL)
def test_nca_paths_are_shortest(k, n):
    net = network(k, n)
    s = 0
    dist = nx.single_source_shortest_path_length(net.graph, ("e", s))
    for t in range(net.size):
        for rule in ("d-mod-k", "random"):
            for _, hops in net.paths(s, t, rule):
                assert len(hops) == (dist[("e", t)] - 2 if t != s else 0)


@pytest.mark.parametrize("k,n", SMALL)
@pytest.mark.parametrize("pattern", [p for p in PATTERNS if p != "worst-case"])
def test_dmodk_channel_loads_match_routing_every_pair(k, n, pattern):
    expected = scalar(ft.fattree(k, n, up_port="d-mod-k").channel_load[pattern])
    if flows(pattern, 2 * k**n) is None:
        assert math.isnan(expected)
    else:
        assert expected == pytest.approx(max_load(k, n, "d-mod-k", pattern), abs=1e-12)


@pytest.mark.parametrize("k,n", RANDOM_ROUTED)
@pytest.mark.parametrize("pattern", [p for p in PATTERNS if p != "worst-case"])
def test_random_up_port_loads_match_routing_every_pair(k, n, pattern):
    expected = scalar(ft.fattree(k, n, up_port="random").channel_load[pattern])
    if flows(pattern, 2 * k**n) is None:
        assert math.isnan(expected)
    else:
        assert expected == pytest.approx(max_load(k, n, "random", pattern), abs=1e-12)


WORST = [(k, n) for (k, n) in SMALL if 2 * k**n <= 128] + [(2, 5)]


@pytest.mark.parametrize("k,n", WORST)
def test_dmodk_worst_case_matches_matching_per_channel(k, n):
    expected = scalar(ft.fattree(k, n, up_port="d-mod-k").channel_load["worst-case"])
    assert expected == pytest.approx(worst_permutation_load(k, n, "d-mod-k"), abs=1e-9)


@pytest.mark.parametrize("k,n", RANDOM_ROUTED)
def test_random_worst_case_matches_matching_per_channel(k, n):
    expected = scalar(ft.fattree(k, n, up_port="random").channel_load["worst-case"])
    assert expected == pytest.approx(worst_permutation_load(k, n, "random"), abs=1e-9)


LARGER = [(k, n, p) for k, n in [(2, 5), (2, 7), (8, 3), (18, 1), (3, 5), (4, 3)]
          for p in ("tornado", "bit-complement", "transpose")] + [(18, 3, "transpose")]


@pytest.mark.parametrize("k,n,pattern", LARGER)
def test_permutations_on_larger_networks(k, n, pattern):
    """Route only the N flows of each permutation, up to the default spec k=18, n=3."""
    net = network(k, n)
    pattern_flows = flows(pattern, net.size)
    expected = scalar(ft.fattree(k, n, up_port="d-mod-k").channel_load[pattern])
    if pattern_flows is None:
        assert math.isnan(expected)
        return
    loads = np.zeros(len(net.channel_index))
    for s, t, rate in zip(*pattern_flows):
        for weight, hops in net.paths(int(s), int(t), "d-mod-k"):
            for hop in hops:
                loads[net.channel_index[hop]] += weight * rate
    assert expected == loads.max(initial=0.0)


def test_default_spec_transpose_reaches_the_dmodk_worst_case():
    m = ft.fattree(18, 3, up_port="d-mod-k")
    assert scalar(m.channel_load["transpose"]) == scalar(m.channel_load["worst-case"]) == 35


def cut_sizes(net: Network):
    """Every router bipartition (router 0 fixed on side 0): router-router links cut, and
    endpoints on side 1."""
    routers = sorted(net.level)
    index = {r: i for i, r in enumerate(routers)}
    masks = np.arange(2 ** (len(routers) - 1), dtype=np.int64) << 1
    side = ((masks[:, None] >> np.arange(len(routers))) & 1).astype(np.int8)
    cut = np.zeros(len(masks), dtype=np.int64)
    for a, b in ((index[a], index[b]) for a, b in net.graph.edges if a[0] == b[0] == "r"):
        cut += side[:, a] != side[:, b]
    endpoints_per_router = np.array([net.graph.degree(r) - sum(v[0] == "r" for v in
                                     net.graph[r]) for r in routers])
    return cut, side @ endpoints_per_router


@pytest.mark.parametrize("k,n", TINY)
def test_bisection_is_the_minimum_balanced_cut(k, n):
    net = network(k, n)
    cut, side_one = cut_sizes(net)
    half = net.size // 2
    expected = scalar(ft.fattree(k, n).bisection_links)
    assert expected == half
    assert (cut + np.abs(side_one - half)).min() == expected  # endpoints may be cut off
    if n > 1:
        assert cut[side_one == half].min() == expected        # endpoints stay with routers


@pytest.mark.parametrize("k,n", [(k, n) for (k, n) in SMALL if n > 1])
def test_stated_bisection_cut_is_balanced_and_has_that_size(k, n):
    net = network(k, n)
    half = net.size // 2
    side = {r: net.reach[r][0] >= half for r in net.level if r[1] < n}
    side.update({r: False for r in net.level if r[1] == n})
    cut = sum(side[a] != side[b] for a, b in net.graph.edges if a[0] == b[0] == "r")
    assert sum(net.graph.degree(r) - k for r in side if side[r] and r[1] == 1) == half
    assert cut == scalar(ft.fattree(k, n).bisection_links)


def test_uniform_load_is_below_one_with_full_bisection():
    k = np.arange(1, 40)[:, None]
    n = np.arange(1, 6)[None, :]
    m = ft.fattree(k, n)
    assert np.all(m.channel_load["uniform"] < 1)
    assert np.all(m.throughput["uniform"] == 1)
    assert np.array_equal(m.bisection_links, m.endpoints / 2)


configs = st.lists(
    st.tuples(st.integers(1, 60), st.integers(1, 7)).filter(lambda c: 2 * c[0] ** c[1] <= 10**12),
    min_size=1, max_size=30,
)


@settings(max_examples=40, deadline=None)
@given(configs, st.sampled_from(ft.UP_PORT_RULES))
def test_vectorized_call_equals_scalar_calls(pairs, rule):
    k = np.array([p[0] for p in pairs])
    n = np.array([p[1] for p in pairs])
    batch = ft.fattree(k, n, up_port=rule)
    for i, (ki, ni) in enumerate(pairs):
        one = ft.fattree(ki, ni, up_port=rule)
        assert one.routers.shape == ()
        assert_config_equals(batch, i, one)


@pytest.mark.parametrize("k,n", [(1, 1), (2, 1), (18, 3), (3, 4), (32, 3), (5, 2)])
def test_clos_is_fattree_with_half_the_radix(k, n):
    c, f = ft.clos(2 * k, n), ft.fattree(k, n)
    assert (c.family, f.family) == ("clos", "fattree")
    assert_config_equals(ft.clos(np.array([2 * k]), np.array([n])), 0, f)
    assert_config_equals(ft.fattree(np.array([k]), np.array([n])), 0, c)
    assert ft.CLOS_NOTE in c.notes and ft.CLOS_NOTE not in f.notes
    assert ft.clos_endpoints({"radix": 2 * k, "levels": n}) == ft.fattree_endpoints(
        {"k": k, "n": n}) == 2 * k**n


def test_clos_single_level_is_one_switch():
    m = ft.clos(64, 1)
    assert (scalar(m.routers), scalar(m.endpoints), scalar(m.links), scalar(m.diameter)) == \
        (1, 64, 0, 0)
    assert scalar(m.channel_load["uniform"]) == 0 and scalar(m.throughput["uniform"]) == 1


def test_transpose_defined_exactly_when_endpoint_count_is_a_square():
    k = np.arange(1, 300)[:, None]
    n = np.arange(1, 6)[None, :]
    squares = np.array([[math.isqrt(2 * a**b) ** 2 == 2 * a**b for b in range(1, 6)]
                        for a in range(1, 300)])
    assert np.array_equal(ft.FatTree(k, n).transpose_defined(), squares)
    powers = np.array([[(2 * a**b) & (2 * a**b - 1) == 0 for b in range(1, 6)]
                       for a in range(1, 300)])
    assert np.array_equal(np.broadcast_to(ft.FatTree(k, n).bit_complement_defined(),
                                          powers.shape), powers)


@pytest.mark.parametrize("family,params,fragment", [
    ("fattree", {"k": 0, "n": 3}, "k=0"),
    ("fattree", {"k": 4, "n": 0}, "n=0"),
    ("fattree", {"k": 4}, "missing parameter n"),
    ("fattree", {"k": 2.5, "n": 3}, "k=2.5"),
    ("clos", {"radix": 63, "levels": 3}, "radix=63 is odd"),
    ("clos", {"radix": 0, "levels": 3}, "radix=0"),
    ("clos", {"radix": 64, "levels": 0}, "levels=0"),
])
def test_check_rejects_infeasible_parameters(family, params, fragment):
    family = {f.name: f for f in ft.FAMILIES}[family]
    with pytest.raises(InputError, match=fragment) as info:
        family.check(params)
    assert "\n" not in str(info.value)


def test_families_are_registered_with_named_parameters():
    families = {f.name: f for f in ft.FAMILIES}
    assert set(families) == {"fattree", "clos"}
    assert families["fattree"].parameters == ("k", "n")
    assert families["clos"].parameters == ("radix", "levels")
    for family in families.values():
        assert family.positional is None
        family.check({"k": 18, "n": 3} if family.name == "fattree" else {"radix": 64,
                                                                          "levels": 3})
    assert ft.fattree_endpoints({"k": 18, "n": 3}) == 11664
    assert ft.clos_endpoints({"radix": 64, "levels": 3}) == 65536
    assert ft.fattree_endpoints({"k": 10**4, "n": 4}) > MAX_ENDPOINTS


def test_unknown_up_port_rule_is_an_input_error():
    with pytest.raises(InputError, match="up_port"):
        ft.fattree(2, 3, up_port="adaptive")


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 10**12), st.integers(1, 6))
def test_design_for_endpoints_is_the_smallest_k(n_endpoints, levels):
    params = ft.design_for_endpoints(n_endpoints, levels=levels)
    k = params["k"]
    assert params == {"k": k, "n": levels}
    assert 2 * k**levels >= n_endpoints
    assert k == 1 or 2 * (k - 1) ** levels < n_endpoints
    assert ft.clos_design_for_endpoints(n_endpoints, levels) == {"radix": 2 * k,
                                                                  "levels": levels}


def test_design_for_endpoints_at_the_papers_scale_and_radix_limit():
    assert ft.design_for_endpoints(100_000) == {"k": 37, "n": 3}   # 2*37^3 = 101,306
    assert ft.design_for_endpoints(100_000, radix_max=74) == {"k": 37, "n": 3}
    with pytest.raises(InputError, match="radix 74"):
        ft.design_for_endpoints(100_000, radix_max=72)
    with pytest.raises(InputError):
        ft.design_for_endpoints(0)
