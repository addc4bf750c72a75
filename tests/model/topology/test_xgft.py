"""XGFT(h; m; w; p): every closed form against the tree built here with networkx.

The test builds the wiring of Öhring et al. (labels (a_h..a_{l+1}, b_l..b_1), a node linked
to the parents whose label differs from its own only at position l, p parallel cables
each) with SimGrid's port numbering (parent port = parent label + w·cable, child port =
child label + m·cable), routes every pair by its own NCA walk (dmodk: SimGrid's up rule
floor(d / w1..w_l) mod (w·p) and down cable s mod p; random: every up port and down cable
with equal probability), and compares counts, BFS distances, channel loads, worst-case
permutations (a maximum matching per channel, Towles & Dally 2002) and bisections
(exhaustive over node partitions on tiny trees, max-flow between the two halves of the
endpoints on larger ones) with icnperf/model/topology/xgft.py.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import networkx as nx
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from icnperf.errors import InputError
from icnperf.model.topology import fattree as ft
from icnperf.model.topology import tree_routing
from icnperf.model.topology import xgft as xg
from icnperf.model.topology.base import PATTERNS
from icnperf.model.topology.spec import parse_spec
from metrics_assert import assert_config_equals

TREES = [
    ((4, 4), (1, 4), (1, 1)),        # 2-level full
    ((4, 4), (1, 2), (1, 1)),        # 2:1 tapered
    ((8, 4), (1, 2), (1, 1)),        # 4:1 tapered
    ((4, 4), (1, 2), (1, 2)),        # parallel cables, full
    ((4, 2), (1, 1), (1, 2)),        # one spine, 2 cables: 2:1
    ((2, 2, 2), (1, 2, 2), (1, 1, 1)),  # 2-ary 3-tree
    ((2, 2, 4), (1, 2, 2), (1, 1, 1)),  # FT(2,3)
    ((2, 3, 2), (1, 2, 1), (1, 1, 2)),  # mixed, tapered and parallel
    ((3, 3), (1, 3), (1, 1)),        # odd N
    ((2, 4, 2), (1, 1, 2), (1, 2, 1)),  # parallel cables at level 2
    ((4, 2, 2), (1, 2, 2), (1, 1, 1)),
]
"""Small trees: full, tapered (2:1, 4:1), parallel cables, odd N, 2 and 3 levels."""

TINY = [t for t in TREES if math.prod(t[0]) + sum(
    math.prod(t[0][l:]) * math.prod(t[1][:l]) for l in range(1, len(t[0]) + 1)) <= 22]
"""Trees whose node partitions can all be enumerated for the bisection."""


class Tree:
    """The XGFT wiring with SimGrid's labels and ports, and both routing rules."""

    def __init__(self, m, w, p):
        self.m, self.w, self.p, self.h = m, w, p, len(m)
        self.size = math.prod(m)
        self.graph = nx.MultiGraph()
        self.nodes = {}      # level -> list of labels (tuple of h ints)
        for level in range(self.h + 1):
            ranges = [w[i] if i < level else m[i] for i in range(self.h)]
            self.nodes[level] = [tuple(reversed(t)) for t in
                                 itertools.product(*[range(r) for r in reversed(ranges)])]
        self.parents, self.children = {}, {}
        for level in range(self.h):
            for child in self.nodes[level]:
                for parent in self.nodes[level + 1]:
                    if all(parent[i] == child[i] for i in range(self.h) if i != level):
                        for cable in range(p[level]):
                            c, q = (level, child), (level + 1, parent)
                            self.graph.add_edge(c, q, key=cable)
                            self.parents.setdefault(c, {})[parent[level] + w[level] * cable] = q
                            self.children.setdefault(q, {})[child[level] + m[level] * cable] = c
        self.endpoint = {self._index(lab): (0, lab) for lab in self.nodes[0]}

    def _index(self, label) -> int:
        index, scale = 0, 1
        for digit, radix in zip(label, self.m):
            index += digit * scale
            scale *= radix
        return index

    def above(self, node, target) -> bool:
        level, label = node
        return level > 0 and all(label[i] == target[1][i] for i in range(level, self.h))

    def paths(self, s: int, d: int, rule: str):
        """(probability, channels) of each route; a channel is (from node, to node, cable)."""
        src, dst = self.endpoint[s], self.endpoint[d]

        def down(node, weight, hops):
            if node == dst:
                yield weight, hops
                return
            level = node[0]
            cables = [s % self.p[level - 1]] if rule == "dmodk" else range(self.p[level - 1])
            for cable in cables:
                child = self.children[node][dst[1][level - 1] + self.m[level - 1] * cable]
                yield from down(child, weight / len(cables), hops + [(node, child, cable)])

        def up(node, weight, hops):
            if self.above(node, dst):
                yield from down(node, weight, hops)
                return
            level = node[0]
            k = self.w[level] * self.p[level]
            if rule == "dmodk":
                x = d
                for i in range(level):
                    x //= self.w[i]
                ports = [x % k]
            else:
                ports = range(k)
            for port in ports:
                parent = self.parents[node][port]
                yield from up(parent, weight / len(ports),
                              hops + [(node, parent, port // self.w[level])])
        if s == d:
            yield 1.0, []
            return
        yield from up(src, 1.0, [])


@lru_cache(maxsize=None)
def tree(m, w, p) -> Tree:
    return Tree(m, w, p)


@lru_cache(maxsize=None)
def usage(m, w, p, rule):
    """COO (channel, source, destination, fraction) of router-router channels."""
    t = tree(m, w, p)
    index, rows = {}, {}
    for s in range(t.size):
        for d in range(t.size):
            for weight, hops in t.paths(s, d, rule):
                for a, b, cable in hops:
                    if a[0] == 0 or b[0] == 0:
                        continue
                    c = index.setdefault((a, b, cable), len(index))
                    rows[(c, s, d)] = rows.get((c, s, d), 0.0) + weight
    keys = np.array(list(rows) or [(0, 0, 0)], dtype=int)
    values = np.array(list(rows.values()) or [0.0])
    return keys[:, 0], keys[:, 1], keys[:, 2], values


def pattern_matrix(pattern, n):
    ids = np.arange(n)
    matrix = np.zeros((n, n))
    if pattern == "uniform":
        return np.full((n, n), 1.0 / n)
    if pattern == "nearest-neighbour":
        np.add.at(matrix, (ids, (ids + 1) % n), 0.5)
        np.add.at(matrix, (ids, (ids - 1) % n), 0.5)
        return matrix
    root = math.isqrt(n)
    targets = {"tornado": (ids + n // 2) % n if n % 2 == 0 else None,
               "bit-complement": n - 1 - ids if n & (n - 1) == 0 else None,
               "transpose": (ids % root) * root + ids // root if root * root == n else None,
               }[pattern]
    if targets is None:
        return None
    matrix[ids, targets] = 1.0
    return matrix


def brute_load(trio, rule, pattern):
    n = math.prod(trio[0])
    if pattern == "worst-case":
        channel, src, dst, weight = usage(*trio, rule)
        worst = 0.0
        for c in np.unique(channel):
            sel = channel == c
            sources, si = np.unique(src[sel], return_inverse=True)
            targets, ti = np.unique(dst[sel], return_inverse=True)
            mat = np.zeros((len(sources), len(targets)))
            mat[si, ti] = weight[sel]
            r, k = linear_sum_assignment(mat, maximize=True)
            worst = max(worst, mat[r, k].sum())
        return worst
    matrix = pattern_matrix(pattern, n)
    if matrix is None:
        return np.nan
    channel, src, dst, weight = usage(*trio, rule)
    return float(np.bincount(channel, weights=weight * matrix[src, dst]).max(initial=0.0))


def scalar(x) -> float:
    return float(np.asarray(x))


@pytest.mark.parametrize("trio", TREES)
def test_counts_radix_and_distances_match_the_built_tree(trio):
    m, w, p = trio
    t = tree(*trio)
    metrics = xg.xgft(m, w, p)
    switches = [v for v in t.graph if v[0] > 0]
    assert scalar(metrics.routers) == len(switches)
    assert scalar(metrics.endpoints) == t.size
    assert scalar(metrics.radix) == max(t.graph.degree(v) for v in switches)
    assert scalar(metrics.links) == sum(1 for a, b, _ in t.graph.edges(keys=True)
                                        if a[0] > 0 and b[0] > 0)
    per_level = [sum(1 for a, b, _ in t.graph.edges(keys=True) if {a[0], b[0]} == {l, l + 1})
                 for l in range(1, len(m))]
    assert [scalar(x) for x in xg.XGFT(m, w, p).links_by_level()] == per_level
    simple = nx.Graph(t.graph)
    ends = [t.endpoint[i] for i in range(t.size)]
    dist = [nx.single_source_shortest_path_length(simple, e) for e in ends]
    hops = [[dist[i][ends[j]] - 2 for j in range(t.size)] for i in range(t.size)]
    off = [hops[i][j] for i in range(t.size) for j in range(t.size) if i != j]
    assert scalar(metrics.diameter) == max(off)
    assert scalar(metrics.average_distance) == pytest.approx(sum(off) / len(off))
    # NCA routes are shortest paths, and tree_routing.hops counts them
    ids = np.arange(t.size)
    s, d = np.repeat(ids, t.size), np.tile(ids, t.size)
    np.testing.assert_array_equal(tree_routing.hops(m, w, s, d),
                                  np.maximum(np.array(hops).ravel(), 0))


@pytest.mark.parametrize("rule", xg.TREE_ROUTINGS)
@pytest.mark.parametrize("trio", TREES)
def test_channel_loads_match_the_routed_tree(trio, rule):
    m, w, p = trio
    metrics = xg.xgft(m, w, p, routing=rule)
    defined = bool(xg.XGFT(m, w, p).dmodk_defined()) or rule == "random"
    for pattern in PATTERNS:
        got = scalar(metrics.channel_load[pattern])
        if not defined:
            assert math.isnan(got) or pattern == "transpose", pattern
            continue
        want = brute_load(trio, rule, pattern)
        if math.isnan(want):
            assert math.isnan(got), pattern
        else:
            assert got == pytest.approx(want, abs=1e-12), pattern


@pytest.mark.parametrize("trio", TREES)
def test_route_loads_of_collective_steps_match_the_routed_tree(trio):
    """tree_routing.message_load (dmodk, exact) on random pairings equals the count of
    the built tree's routes; pattern_load equals the expected loads under random."""
    m, w, p = trio
    n = math.prod(m)
    rng = np.random.default_rng(1)
    t = tree(*trio)
    for _ in range(5):
        s = rng.integers(0, n, 12)
        d = rng.integers(0, n, 12)
        keep = s != d
        s, d = s[keep], d[keep]
        for rule in xg.TREE_ROUTINGS:
            loads = {}
            for a, b in zip(s, d):
                for weight, hops in t.paths(int(a), int(b), rule):
                    for x, y, cable in hops:
                        if x[0] and y[0]:
                            loads[(x, y, cable)] = loads.get((x, y, cable), 0.0) + weight
            expected = max(loads.values(), default=0.0)
            assert tree_routing.pattern_load(m, w, p, rule, s, d) == pytest.approx(expected)
            if rule == "dmodk":
                assert tree_routing.message_load(m, w, p, rule, s, d) == expected


def brute_bisection(trio) -> int:
    t = tree(*trio)
    simple = [(a, b) for a, b, _ in t.graph.edges(keys=True)]
    switches = [v for v in t.graph if v[0] > 0]
    ends = [t.endpoint[i] for i in range(t.size)]
    best = None
    for side in itertools.combinations(range(t.size), t.size // 2):
        if 0 not in side:
            continue
        chosen = {ends[i] for i in side}
        for bits in range(2 ** len(switches)):
            a = chosen | {v for j, v in enumerate(switches) if bits >> j & 1}
            cut = sum((x in a) != (y in a) for x, y in simple)
            best = cut if best is None else min(best, cut)
    return best


@pytest.mark.slow
@pytest.mark.parametrize("trio", TINY)
def test_bisection_is_the_minimum_balanced_cut(trio):
    assert scalar(xg.xgft(*trio).bisection_links) == brute_bisection(trio)


@pytest.mark.parametrize("trio", TREES)
def test_bisection_meets_the_flow_bound_and_max_flow(trio):
    """The explicit cut equals the flow lower bound floor(N/2)/gamma_wc (so it is the
    minimum), and no cheaper cut separates the two halves of the endpoints (max-flow)."""
    m, w, p = trio
    tree_ = xg.XGFT(m, w, p)
    t = tree(*trio)
    n = t.size
    if n % 2:
        pytest.skip("odd N: the bound is not attained by whole pods")
    assert scalar(tree_.bisection_cut()) == scalar(tree_.bisection_bound())
    flow = nx.DiGraph()
    for a, b, _ in t.graph.edges(keys=True):
        for x, y in ((a, b), (b, a)):
            cap = flow.get_edge_data(x, y, {"capacity": 0})["capacity"] + 1
            flow.add_edge(x, y, capacity=cap)
    for i in range(n):
        flow.add_edge("S" if i < n // 2 else t.endpoint[i],
                      t.endpoint[i] if i < n // 2 else "T", capacity=n)
    cut, _ = nx.minimum_cut(flow, "S", "T")
    assert cut == scalar(tree_.bisection_links())


@pytest.mark.parametrize("k,n", [(k, n) for n in (1, 2, 3, 4) for k in range(1, 7)
                                 if 2 * k**n <= 5000])
def test_fattree_is_the_xgft_with_the_top_level_doubled(k, n):
    """FT(k,n) = XGFT(n; k,..,k,2k; 1,k,..,k): every metric equal under both rules."""
    params = xg.fattree_as_xgft(k, n)
    for rule, up_port in (("random", "random"), ("dmodk", "d-mod-k")):
        a = xg.xgft(params["m"], params["w"], params["p"], routing=rule)
        b = ft.fattree(k, n, up_port=up_port)
        assert_config_equals(b, (), a)


def test_vectorized_evaluation_equals_each_configuration():
    m = (np.array([4, 8, 8]), np.array([4, 8, 8]))
    w = (np.array([1, 1, 1]), np.array([4, 8, 2]))
    batch = xg.xgft(m, w)
    for i in range(3):
        single = xg.xgft((int(m[0][i]), int(m[1][i])), (1, int(w[1][i])))
        assert_config_equals(batch, i, single)


def test_the_issue_examples():
    """4-ary 3-tree: 64 endpoints, 48 switches; 8x8 full: 16 switches; 4:1: 10 switches,
    and the tapered tree's spine channels carry 4x a permutation's flow."""
    cases = {"xgft:m=4x4x4,w=1x4x4": (64, 48, 1.0), "xgft:m=8x8,w=1x8": (64, 16, 1.0),
             "xgft:m=8x8,w=1x2": (64, 10, 4.0)}
    for text, (ends, switches, worst) in cases.items():
        metrics = parse_spec(text).evaluate()
        assert (scalar(metrics.endpoints), scalar(metrics.routers)) == (ends, switches)
        assert scalar(metrics.channel_load["worst-case"]) == worst
    assert scalar(parse_spec("xgft:m=8x8,w=1x2").evaluate().bisection_links) == 8


def test_simgrid_form_is_the_same_tree():
    a, b = parse_spec("xgft:2;8,8;1,8;1,1"), parse_spec("xgft:m=8x8,w=1x8")
    assert a.params == {"m": (8, 8), "w": (1, 8), "p": (1, 1)}
    assert a.text == b.text == "xgft:m=8x8,w=1x8"
    assert parse_spec("xgft:m=4x4,w=1x2,p=1x2").text == "xgft:m=4x4,w=1x2,p=1x2"


@pytest.mark.parametrize("text", [
    "xgft:m=8x8,w=1", "xgft:m=8x0,w=1x8", "xgft:m=8x8,w=2x8", "xgft:m=8x8,w=1x8,p=2x1",
    "xgft:m=8x8", "xgft:3;8,8;1,8;1,1", "xgft:m=8xx8,w=1x8", "xgft:2;8,8;1,8",
    "xgft:m=10000x10000x10000x10000,w=1x1x1x1", "xgft:m=1x1,w=1x1",
    "xgft:m=2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2,w=1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1",
    "xgft:m=1000x1000,w=1x1000000000000",
])
def test_bad_specs_are_one_line_input_errors(text):
    with pytest.raises(InputError) as info:
        parse_spec(text)
    assert "\n" not in str(info.value)


def test_kary_ntree_sizing_for_compare_topologies():
    """The smallest k-ary 3-tree with >= 100 endpoints is the 5-ary 3-tree (125, 3 x 25
    switches of radix 10); within radix 36 the largest is the 18-ary 3-tree."""
    from icnperf.model.topology.compare import design, largest_for_radix

    small = design("xgft", 100, levels=3)
    assert (small.spec, small.endpoints, small.routers, small.radix) == (
        "xgft:m=5x5x5,w=1x5x5", 125, 75, 10)
    assert largest_for_radix("xgft", 36, levels=3).spec == "xgft:m=18x18x18,w=1x18x18"
