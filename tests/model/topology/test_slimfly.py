"""Slim fly closed forms against brute force on McKay–Miller–Širáň graphs built here.

GF(q) arithmetic (polynomials over GF(r) modulo a primitive polynomial), the generator sets,
the graph, MIN routing with even splitting and the cuts are all rebuilt in this file from the
definitions (Hafner 2004; Besta & Hoefler SC14 §3.1), without calling the module's formulas.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment
from scipy.sparse.csgraph import shortest_path

from icnperf.errors import InputError
from icnperf.model.topology import slimfly as sf
from icnperf.model.topology.base import COMMON_NOTES, PATTERNS
from metrics_assert import assert_config_equals

GRAPH_QS = (3, 4, 5, 7, 8, 9, 11, 13)
"""Every δ: -1 (3, 7, 11), 0 (4, 8), 1 (5, 9, 13); prime powers 4, 8, 9 with e > 1."""

# ------------------------------------------------------------------ GF(q)


def prime_power(q: int) -> tuple[int, int] | None:
    """(r, e) with q = r^e, r prime, or None (plain trial division)."""
    if q < 2:
        return None
    r = next(d for d in range(2, q + 1) if q % d == 0)
    e = 0
    while q % r == 0:
        q //= r
        e += 1
    return (r, e) if q == 1 else None


class Field:
    """GF(q), q = r^e: element a <-> coefficients (a // r^i) % r of x^i, i < e.

    The modulus is the first monic degree-e polynomial f for which x has order q - 1 (so f is
    primitive, hence irreducible) and ξ = x; ``power`` picks ξ^j instead (j coprime to q - 1).
    """

    def __init__(self, q: int, power: int = 1):
        self.q = q
        self.r, self.e = prime_power(q)
        powers = [self.r**i for i in range(self.e)]
        self.digits = np.array([[(a // w) % self.r for w in powers] for a in range(q)])
        self.weights = self.r ** np.arange(self.e)
        self.add = self._combine(+1)
        self.sub = self._combine(-1)
        base = self._powers_of_primitive_x()
        assert math.gcd(power, q - 1) == 1
        self.exp = base[(np.arange(q - 1) * power) % (q - 1)]
        log = np.zeros(q, dtype=int)
        log[self.exp] = np.arange(q - 1)
        product = self.exp[(log[:, None] + log[None, :]) % (q - 1)]
        nonzero = np.arange(q) != 0
        self.mul = np.where(nonzero[:, None] & nonzero[None, :], product, 0)
        self.neg = self.sub[0]

    def _combine(self, sign: int) -> np.ndarray:
        d = self.digits
        return ((d[:, None, :] + sign * d[None, :, :]) % self.r) @ self.weights

    def _times_x(self, coeffs: np.ndarray, low: np.ndarray) -> np.ndarray:
        """coeffs·x modulo f = x^e + low·(1, x, ..., x^(e-1))."""
        top = coeffs[-1]
        shifted = np.concatenate(([0], coeffs[:-1]))
        return (shifted - top * low) % self.r

    def _powers_of_primitive_x(self) -> np.ndarray:
        for low in itertools.product(range(self.r), repeat=self.e):
            low = np.array(low)
            coeffs = np.zeros(self.e, dtype=int)
            coeffs[0] = 1
            powers = []
            for _ in range(self.q - 1):
                powers.append(int(coeffs @ self.weights))
                coeffs = self._times_x(coeffs, low)
            if len(set(powers)) == self.q - 1 and 0 not in powers:
                return np.array(powers)
        raise AssertionError(f"no primitive polynomial for q={self.q}")


def test_field_axioms_for_prime_powers():
    """The tables form a field: distributive, every nonzero element invertible, char r."""
    for q in (4, 8, 9, 16, 25, 27):
        f = Field(q)
        a, b, c = np.meshgrid(np.arange(q), np.arange(q), np.arange(q), indexing="ij")
        assert np.array_equal(f.mul[a, f.add[b, c]], f.add[f.mul[a, b], f.mul[a, c]])
        assert np.array_equal(f.mul[a, f.mul[b, c]], f.mul[f.mul[a, b], c])
        assert all(1 in f.mul[x] for x in range(1, q))
        assert sorted(f.exp) == list(range(1, q))
        one_summed = 0
        for _ in range(f.r):
            one_summed = f.add[one_summed, 1]
        assert one_summed == 0


# ------------------------------------------------------------------ MMS graph


def generator_sets(field: Field) -> tuple[int, np.ndarray, np.ndarray]:
    """δ, X, X' from even/odd powers of ξ (Hafner 2004; Besta & Hoefler §3.1)."""
    q, xi = field.q, field.exp
    d = {0: 0, 1: 1, 3: -1}[q % 4]
    if d == 1:
        exponents = list(range(0, q - 2, 2))
    elif d == -1:
        w = (q + 1) // 4
        exponents = list(range(0, 2 * w - 1, 2)) + list(range(2 * w - 1, 4 * w - 2, 2))
    else:
        exponents = list(range(0, q - 1, 2))
    x_set = np.array([xi[i % (q - 1)] for i in exponents])
    x_prime = np.array([xi[(i + 1) % (q - 1)] for i in exponents])
    return d, x_set, x_prime


class SlimFly:
    """The MMS graph of q: routers (s, x, y) numbered s·q² + x·q + y, adjacency matrix A."""

    def __init__(self, q: int, power: int = 1):
        self.q = q
        self.field = f = Field(q, power)
        self.delta, self.x_set, self.x_prime = generator_sets(f)
        self.routers = [(s, x, y) for s in (0, 1) for x in range(q) for y in range(q)]
        self.index = {router: i for i, router in enumerate(self.routers)}
        graph = nx.Graph()
        graph.add_nodes_from(self.routers)
        for x in range(q):
            for y in range(q):
                for t in self.x_set:
                    graph.add_edge((0, x, y), (0, x, int(f.add[y, t])))
                for t in self.x_prime:
                    graph.add_edge((1, x, y), (1, x, int(f.add[y, t])))
                for m in range(q):
                    c = int(f.sub[y, f.mul[m, x]])
                    graph.add_edge((0, x, y), (1, m, c))
        self.graph = graph
        self.adjacency = nx.to_numpy_array(graph, nodelist=self.routers)
        self.distance = shortest_path(self.adjacency, unweighted=True)
        self.common = self.adjacency @ self.adjacency
        self.cross = np.array([[u[0] != v[0] for v in self.routers] for u in self.routers])


@lru_cache(maxsize=None)
def slim_fly(q: int, power: int = 1) -> SlimFly:
    return SlimFly(q, power)


def router_loads(net: SlimFly, p: int) -> np.ndarray:
    """Uniform-traffic load of channel i -> j (matrix), MIN routing split evenly over paths.

    Every ordered router pair carries p²/N flits/cycle; adjacent pairs use their link, pairs
    at distance 2 split over their common neighbours m: i -> m -> j.
    """
    a, dist, common = net.adjacency, net.distance, net.common
    n_endpoints = len(net.routers) * p
    share = np.where(dist == 2, 1.0 / np.maximum(common, 1), 0.0)
    first_hop = a * (share @ a)
    last_hop = a * (a @ share)
    return p * p / n_endpoints * (a + first_hop + last_hop)


def path_loads_by_enumeration(net: SlimFly, p: int) -> np.ndarray:
    """Same as router_loads, by listing every shortest path with networkx."""
    n = len(net.routers)
    loads = np.zeros((n, n))
    flow = p * p / (n * p)
    for u in net.routers:
        for v in net.routers:
            if u == v:
                continue
            paths = list(nx.all_shortest_paths(net.graph, u, v))
            for path in paths:
                for hop in zip(path, path[1:]):
                    loads[net.index[hop[0]], net.index[hop[1]]] += flow / len(paths)
    return loads


# ------------------------------------------------------------------ structure


@pytest.mark.parametrize("q", GRAPH_QS)
def test_counts_degree_and_diameter(q):
    net = slim_fly(q)
    m = sf.evaluate(q)
    k = (3 * q - net.delta) // 2
    degrees = {d for _, d in net.graph.degree()}
    assert degrees == {k} == {int(sf.network_radix(q))}
    assert net.graph.number_of_nodes() == 2 * q * q == int(m.routers)
    assert net.graph.number_of_edges() == int(m.links)
    assert nx.diameter(net.graph) == 2 == int(m.diameter)
    assert int(sf.delta(q)) == net.delta
    p = math.ceil(k / 2)
    assert int(m.endpoints) == 2 * q * q * p
    assert int(m.radix) == k + p
    assert len(set(net.x_set)) == len(net.x_set) == (q - net.delta) // 2
    assert len(set(net.x_set) & set(net.x_prime)) == 1 - net.delta
    assert set(net.x_set) | set(net.x_prime) == set(range(1, q))


@pytest.mark.parametrize("q", GRAPH_QS)
@pytest.mark.parametrize("p", [1, 2, 5])
def test_average_distance(q, p):
    net = slim_fly(q)
    n = len(net.routers) * p
    expected = p * p * net.distance.sum() / (n * (n - 1))
    assert float(sf.average_distance(q, p)) == pytest.approx(expected, rel=1e-12)
    assert float(sf.evaluate(q, p).average_distance) == pytest.approx(expected, rel=1e-12)


def test_q4_q8_q9_are_prime_powers_with_exponent_above_one():
    """Sanity: the graphs of q = 4, 8, 9 really come from GF(r^e), e > 1."""
    assert [slim_fly(q).field.e for q in (4, 8, 9)] == [2, 3, 2]


# ------------------------------------------------------------------ uniform channel load


@pytest.mark.parametrize("q", GRAPH_QS)
@pytest.mark.parametrize("p", [1, 3])
def test_uniform_gamma_max_and_cross_channels(q, p):
    net = slim_fly(q)
    loads = router_loads(net, p)
    gamma = float(sf.uniform_channel_load(q, p))
    assert loads.max() == pytest.approx(gamma, rel=1e-12)
    cross = loads[(net.adjacency > 0) & net.cross]
    assert np.allclose(cross, gamma, rtol=1e-12)
    channels = loads[net.adjacency > 0]
    assert channels.mean() == pytest.approx(float(sf.mean_channel_load_uniform(q, p)), rel=1e-12)
    assert float(sf.evaluate(q, p).channel_load["uniform"]) == pytest.approx(gamma, rel=1e-12)


@pytest.mark.parametrize("q", [3, 4, 5])
def test_matrix_routing_equals_path_enumeration(q):
    net = slim_fly(q)
    assert np.allclose(router_loads(net, 2), path_loads_by_enumeration(net, 2), rtol=1e-12)


@pytest.mark.parametrize("q", [7, 11, 19])
def test_uniform_gamma_max_for_every_primitive_element(q):
    """δ = -1 graphs depend on ξ; the maximum (on cross channels) must not."""
    gamma = float(sf.uniform_channel_load(q, 1))
    for power in range(1, q - 1):
        if math.gcd(power, q - 1) != 1:
            continue
        net = slim_fly(q, power)
        assert net.distance.max() == 2
        assert router_loads(net, 1).max() == pytest.approx(gamma, rel=1e-12)


def column_channel_loads(field: Field, column: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Uniform load (in units of p²/N) of intra-column channel y -> y + t for each t in column.

    Column routers are joined when their difference lies in ``column``; two routers of one
    column have no common neighbour outside it, while the q cross neighbours of y + t each
    share 1 + [t ∈ other] neighbours with y (and symmetrically into y + t).
    """
    q = field.q
    in_column = np.zeros(q, dtype=bool)
    in_column[column] = True
    in_other = np.zeros(q, dtype=bool)
    in_other[other] = True
    common = np.bincount(field.sub[np.ix_(column, column)].ravel(), minlength=q)
    far = ~in_column
    far[0] = False
    assert (common[far] >= 1).all()
    share = np.where(far, 1.0 / np.maximum(common, 1), 0.0)
    column_part = share[field.add[np.ix_(column, column)]].sum(axis=1)
    return 1.0 + 2.0 * q / (1.0 + in_other[column]) + 2.0 * column_part


@pytest.mark.parametrize("q", GRAPH_QS)
def test_column_load_formula_matches_graph(q):
    net = slim_fly(q)
    f = net.field
    loads = router_loads(net, 1) * len(net.routers)
    for s, column, other in ((0, net.x_set, net.x_prime), (1, net.x_prime, net.x_set)):
        expected = column_channel_loads(f, column, other)
        for t, value in zip(column, expected):
            for x, y in ((0, 0), (q - 1, 1 % q)):
                u = net.index[(s, x, y)]
                v = net.index[(s, x, int(f.add[y, t]))]
                assert loads[u, v] == pytest.approx(value, rel=1e-12)


def test_intra_column_channels_never_exceed_cross_channels_up_to_q_128():
    """The closed form's claim, for every valid q <= 128 and two choices of ξ."""
    checked = 0
    for q in range(3, 129):
        if not sf.is_valid_q(q):
            continue
        for power in sorted({1, next(j for j in range(q - 2, 0, -1) if math.gcd(j, q - 1) == 1)}):
            f = Field(q, power)
            _, x_set, x_prime = generator_sets(f)
            worst = max(
                column_channel_loads(f, x_set, x_prime).max(),
                column_channel_loads(f, x_prime, x_set).max(),
            )
            assert worst <= 3 * q - 2 + 1e-9
            checked += 1
    assert checked > 60


# ------------------------------------------------------------------ worst-case permutation


def channel_weights(net: SlimFly, u: int, v: int) -> np.ndarray:
    """Fraction F[i, j] of router i -> router j traffic that crosses channel u -> v."""
    a, dist, common = net.adjacency, net.distance, net.common
    n = len(net.routers)
    weights = np.zeros((n, n))
    weights[u, v] = 1.0
    onward = (dist[u] == 2) & (a[v] > 0)
    weights[u, onward] += 1.0 / common[u, onward]
    inward = (dist[:, v] == 2) & (a[:, u] > 0)
    weights[inward, v] += 1.0 / common[inward, v]
    return weights


def worst_permutation_load(net: SlimFly, p: int) -> tuple[float, float]:
    """Max over channels of the max-weight endpoint matching (Towles & Dally 2002): all, cross."""
    best = best_cross = 0.0
    block = np.ones((p, p))
    for u, v in zip(*np.nonzero(net.adjacency)):
        weights = np.kron(channel_weights(net, u, v), block)
        rows, cols = linear_sum_assignment(weights, maximize=True)
        value = weights[rows, cols].sum()
        best = max(best, value)
        if net.cross[u, v]:
            best_cross = max(best_cross, value)
    return best, best_cross


@pytest.mark.parametrize("q, p", [(3, 1), (3, 2), (3, 3), (4, 1), (4, 2), (5, 1)])
def test_worst_case_permutation(q, p):
    net = slim_fly(q)
    best, best_cross = worst_permutation_load(net, p)
    assert best == pytest.approx(2 * p, rel=1e-9)
    assert best_cross == pytest.approx(2 * p, rel=1e-9)
    assert float(sf.evaluate(q, p).channel_load["worst-case"]) == 2 * p


def test_uniform_load_bounded_by_worst_case():
    q = np.array([3, 4, 5, 7, 8, 9, 11, 13, 101, 1024])
    m = sf.evaluate(q)
    assert np.all(m.channel_load["uniform"] <= m.channel_load["worst-case"])


# ------------------------------------------------------------------ bisection


def column_cut(net: SlimFly) -> tuple[int, int]:
    """(routers on side A, links cut) for ⌊q/2⌋ columns of subgraph 0, ⌈q/2⌉ of subgraph 1."""
    q = net.q
    side = {r: (r[0] == 0 and r[1] < q // 2) or (r[0] == 1 and r[1] < (q + 1) // 2)
            for r in net.routers}
    cut = sum(side[u] != side[v] for u, v in net.graph.edges())
    return sum(side.values()), cut


@pytest.mark.parametrize("q", GRAPH_QS)
def test_bisection_cut_is_balanced_and_has_stated_size(q):
    net = slim_fly(q)
    on_a, cut = column_cut(net)
    assert on_a == q * q
    assert cut == int(sf.bisection_links(q)) == int(sf.evaluate(q).bisection_links)


@pytest.mark.parametrize("q", GRAPH_QS)
def test_spectral_lower_bound(q):
    """Laplacian λ₂ = q on the graph, so every balanced cut has >= q³/2 links."""
    net = slim_fly(q)
    laplacian = np.diag(net.adjacency.sum(axis=1)) - net.adjacency
    lambda_2 = np.sort(np.linalg.eigvalsh(laplacian))[1]
    assert lambda_2 == pytest.approx(q, abs=1e-8)
    lower = math.ceil(lambda_2 * len(net.routers) / 4 - 1e-9)
    assert lower == int(sf.bisection_lower_bound(q))
    gap = int(sf.bisection_links(q)) - lower
    assert gap == (0 if q % 2 == 0 else (q - 1) // 2)


def test_bisection_q3_exhaustive():
    """All C(17, 8) balanced router cuts of the 18-router graph: the minimum is 15."""
    net = slim_fly(3)
    edges = np.array([(net.index[u], net.index[v]) for u, v in net.graph.edges()])
    n = len(net.routers)
    combos = np.array(list(itertools.combinations(range(1, n), n // 2 - 1)))
    side = np.zeros((len(combos), n), dtype=bool)
    side[:, 0] = True
    side[np.arange(len(combos))[:, None], combos] = True
    cuts = (side[:, edges[:, 0]] != side[:, edges[:, 1]]).sum(axis=1)
    assert cuts.min() == 15 == int(sf.bisection_links(3))


def test_lambda_2_from_characters_up_to_q_200():
    """λ₂ = q for every valid q <= 200: the nontrivial-character eigenvalues stay <= |X|."""
    for q in range(3, 201):
        if not sf.is_valid_q(q):
            continue
        f = Field(q)
        d, x_set, x_prime = generator_sets(f)

        def character_sums(subset):
            indicator = np.zeros(q)
            indicator[subset] = 1.0
            return np.fft.fftn(indicator.reshape((f.r,) * f.e)).ravel()[1:]

        a, b = character_sums(x_set), character_sums(x_prime)
        assert np.abs(a.imag).max() < 1e-9 and np.abs(b.imag).max() < 1e-9
        a, b = a.real, b.real
        top = (a + b) / 2 + np.sqrt(((a - b) / 2) ** 2 + q)
        assert top.max() <= (q - d) / 2 + 1e-9


# ------------------------------------------------------------------ other patterns, notes


def test_undefined_patterns_are_nan_and_notes_present():
    m = sf.evaluate(13)
    assert set(m.channel_load) == set(PATTERNS)
    for pattern in ("tornado", "bit-complement", "transpose", "nearest-neighbour"):
        assert np.isnan(m.channel_load[pattern])
        assert np.isnan(m.throughput[pattern])
    assert m.notes[: len(COMMON_NOTES)] == COMMON_NOTES
    assert any("worst-case" in note for note in m.notes)
    assert any("bisection_links" in note and "upper bound" in note for note in m.notes)
    assert m.throughput["uniform"] == pytest.approx(338 / 370)


def test_q13_numbers():
    m = sf.evaluate(13)
    assert (int(m.routers), int(m.radix), int(m.endpoints), int(m.links)) == (338, 29, 3380, 3211)
    assert float(m.channel_load["uniform"]) == pytest.approx(10 * 37 / 338)


# ------------------------------------------------------------------ vectorization


def test_vectorized_equals_scalar():
    qs = np.array([3, 4, 5, 7, 8, 9, 11, 13, 16, 25, 27, 32, 41, 49, 81, 127, 128])
    ps = np.array([1, 2, 3, 5, 6, 7, 9, 10, 12, 19, 20, 24, 31, 37, 61, 95, 96])
    given_p = sf.evaluate(qs, ps)
    default_p = sf.evaluate(qs)
    for i, q in enumerate(qs):
        assert_config_equals(given_p, i, sf.evaluate(int(q), int(ps[i])))
        assert_config_equals(default_p, i, sf.evaluate(int(q)))


def test_broadcasting_shapes():
    m = sf.evaluate(np.array([[5], [7]]), np.array([1, 2, 3]))
    assert m.endpoints.shape == (2, 3)
    assert m.channel_load["tornado"].shape == (2, 3)
    assert np.array_equal(m.endpoints, 2 * np.array([[25], [49]]) * np.array([1, 2, 3]))


def test_default_p_is_ceil_half_network_radix():
    for q in range(3, 300):
        if sf.is_valid_q(q):
            k = (3 * q - int(sf.delta(q))) // 2
            assert int(sf.default_endpoints_per_router(q)) == (k + 1) // 2
            assert sf.endpoint_count({"q": q}) == 2 * q * q * ((k + 1) // 2)


@given(st.lists(st.integers(min_value=-5, max_value=5000), min_size=1, max_size=40))
@settings(max_examples=60, deadline=None)
def test_is_prime_power_matches_trial_division(values):
    got = sf.is_prime_power(np.array(values))
    assert list(got) == [prime_power(v) is not None for v in values]


def test_is_prime_power_rejects_non_integers():
    assert not sf.is_prime_power(7.5)
    assert bool(sf.is_prime_power(7.0))
    assert not sf.is_valid_q(2) and bool(sf.is_valid_q(4))


# ------------------------------------------------------------------ check, design


@pytest.mark.parametrize("q", [6, 1, 10, 0, 2, 12, -7, 15])
def test_check_rejects_invalid_q(q):
    with pytest.raises(InputError, match=f"slimfly: q={q} "):
        sf.check({"q": q})
    with pytest.raises(InputError, match="slimfly"):
        sf.evaluate(np.array([13, q]))


@pytest.mark.parametrize("params", [{"q": 13, "p": 0}, {"p": 3}, {"q": 13, "k": 2}, {"q": 13.0}])
def test_check_rejects_bad_params(params):
    with pytest.raises(InputError, match="slimfly"):
        sf.check(params)


@pytest.mark.parametrize("q", [3, 4, 5, 8, 9, 13, 27, 41, 1024])
def test_check_accepts_valid_q(q):
    sf.check({"q": q})
    sf.check({"q": q, "p": 1})


def test_design_for_100k_endpoints():
    params = sf.design_for_endpoints(100_000)
    assert params == {"q": 41, "p": 31}
    m = sf.evaluate(**params)
    assert (int(m.routers), int(m.radix), int(m.endpoints)) == (3362, 92, 104_222)
    below = sf.evaluate(37)
    assert int(below.endpoints) < 100_000


VALID_Q_BELOW_2000 = [c for c in range(3, 2000) if prime_power(c)]


@given(st.integers(min_value=1, max_value=10**8), st.one_of(st.none(), st.integers(1, 64)))
@settings(max_examples=80, deadline=None)
def test_design_is_smallest(n, p):
    params = sf.design_for_endpoints(n) if p is None else sf.design_for_endpoints(n, p=p)
    q = params["q"]
    assert sf.is_valid_q(q)
    assert sf.endpoint_count(params) >= n
    if p is not None:
        assert params["p"] == p
    smaller = [c for c in VALID_Q_BELOW_2000 if c < q]
    if smaller:
        previous = {"q": smaller[-1]} if p is None else {"q": smaller[-1], "p": p}
        assert sf.endpoint_count(previous) < n


def test_family_registration():
    (family,) = sf.FAMILIES
    assert family.name == "slimfly" and family.positional == "q"
    assert family.endpoints({"q": 13}) == 3380
    assert family.endpoints({"q": 13, "p": 4}) == 2 * 169 * 4
    m = family.evaluate(q=13, p=4)
    assert int(m.radix) == 23
