"""Collective closed forms (icnperf/model/collectives) and their torus helpers: the explicit
spanning tree, brute-force routes, Thakur et al.'s textbook forms on a crossbar, MPICH's
non-power-of-two fallback, hand-computed Angara cases, SymPy agreement and properties."""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from icnperf.errors import InputError
from icnperf.data.machine import Machine, load_machine
from icnperf.model import collectives as C
from icnperf.model.collectives import fluid
from icnperf.model import network as N
from icnperf.model import ops
from icnperf.model.topology import torus

NS = 1e-9

# --- the explicit dimension-order tree ----------------------------------------------------


def explicit_tree(radices, root):
    """children[v] of the dimension-order spanning tree built by its definition: a router's
    parent is its neighbour towards the root in the highest dimension where it differs."""
    nodes = list(itertools.product(*[range(k) for k in radices]))
    children = {v: [] for v in nodes}
    for v in nodes:
        differing = [i for i in range(len(radices)) if v[i] != root[i]]
        if not differing:
            continue
        i = differing[-1]
        k = radices[i]
        offset = (v[i] - root[i]) % k
        parent = list(v)
        parent[i] = (v[i] - 1) % k if offset <= k // 2 else (v[i] + 1) % k
        children[tuple(parent)].append(v)
    return children


def tree_depth(children, root):
    return max((1 + tree_depth(children, c) for c in children[root]), default=0)


def critical_path(children, root, T, g):
    """Finishing time of a tree broadcast in which every rank sends to its children one
    per gap g, in the best order (largest remaining time first), each message taking T."""

    @functools.lru_cache(maxsize=None)
    def finish(v):
        below = sorted((finish(c) for c in children[v]), reverse=True)
        return max((j * g + T + x for j, x in enumerate(below)), default=0.0)

    return finish(root)


SMALL_TORI = [(2,), (3,), (5,), (2, 2, 2), (3, 3, 3), (4, 4), (2, 3, 4), (5, 2, 3), (4, 5),
              (3, 4, 2, 3), (6, 3), (7,), (2, 2, 2, 2)]


@pytest.mark.parametrize("radices", SMALL_TORI, ids=str)
def test_tree_depth_is_the_diameter_from_every_root(radices):
    depths = {tree_depth(explicit_tree(radices, root), root)
              for root in itertools.product(*[range(k) for k in radices])}
    assert depths == {torus.spanning_tree_depth(radices)}
    assert torus.spanning_tree_depth(radices) == int(torus.diameter(radices))


@pytest.mark.parametrize("radices", SMALL_TORI, ids=str)
def test_explicit_tree_spans_the_torus(radices):
    root = tuple(k // 3 for k in radices)
    children = explicit_tree(radices, root)
    assert sum(len(c) for c in children.values()) == math.prod(radices) - 1
    assert len(children[root]) == torus.spanning_tree_fanout(radices)
    for parent, kids in children.items():       # every tree edge is one torus hop
        for child in kids:
            assert torus.hop_distance(radices, parent, child) == 1


def test_p2p_tree_critical_path_closed_form_against_the_explicit_tree():
    rng = random.Random(7)
    for radices in SMALL_TORI + [(3, 5, 7), (6, 6, 3), (9,), (2, 7)]:
        root = tuple(rng.randrange(k) for k in radices)
        children = explicit_tree(radices, root)
        for _ in range(5):
            T = rng.uniform(0.5, 3.0)
            g = rng.uniform(0.0, T)           # g <= T always holds in the model
            expected = (torus.spanning_tree_depth(radices) * T
                        + torus.spanning_tree_ties(radices) * g)
            assert critical_path(children, root, T, g) == pytest.approx(expected, rel=1e-12)


def test_p2p_tree_broadcast_is_depth_latencies_plus_gaps_on_odd_rings():
    params = dict(ANGARA)
    T = N.latency(240, 1, **N.bind(N.latency, params))
    g = max(params["software_overhead"] / 2,
            N.serialization_time(240, **N.bind(N.serialization_time, params)))
    assert C.send_gap(240, **N.bind(C.send_gap, params)) == pytest.approx(g)
    for radices in [(3, 3, 3), (2, 5, 4), (16, 16, 32)]:
        layout = C.Layout.torus(radices)
        got = C.evaluate("broadcast", "p2p-tree", 240, layout, params)
        D = sum(k // 2 for k in radices)
        odd = sum(1 for k in radices if k % 2 and k >= 3)
        assert got == pytest.approx(D * T + odd * g, rel=1e-12)
        assert g <= T


# --- torus helpers ------------------------------------------------------------------------


def brute_traffic(radices, sources, destinations, ties="plus"):
    load, hops = Counter(), 0
    for s, d in zip(sources, destinations):
        x = list(torus.endpoint_coordinates(radices, s))
        y = list(torus.endpoint_coordinates(radices, d))
        walked = 0
        for i, k in enumerate(radices):
            forward = (y[i] - x[i]) % k
            tie_plus = ties == "plus" or x[i] % 2 == 0 or k == 2
            plus = 2 * forward < k or (2 * forward == k and tie_plus)
            step, n = (1, forward) if plus else (-1, k - forward)
            for _ in range(n):
                nxt = (x[i] + step) % k
                load[(i, tuple(x), nxt)] += 1
                x[i] = nxt
                walked += 1
        hops = max(hops, walked)
    return hops, max(load.values(), default=0)


def test_dor_traffic_against_walking_every_route():
    rng = random.Random(3)
    for _ in range(150):
        radices = tuple(rng.randint(2, 6) for _ in range(rng.randint(1, 4)))
        n = math.prod(radices)
        count = rng.randint(0, 2 * n)
        src = [rng.randrange(n) for _ in range(count)]
        dst = [rng.randrange(n) for _ in range(count)]
        assert torus.dor_traffic(radices, src, dst) == brute_traffic(radices, src, dst)
        assert (torus.dor_traffic(radices, src, dst, "split")
                == brute_traffic(radices, src, dst, "split"))


def test_split_ties_halve_the_half_ring_exchange():
    # every node of an even ring k >= 4 sends k/2 ahead: with + at the tie each + channel
    # carries k/2 messages; split (even positions +, odd -) puts k/4 on every channel of
    # both directions (ceil(k/4) for k/2 odd), the least possible: k messages x k/2 hops
    # over 2k channels
    for k in (4, 6, 8, 16):
        ranks = np.arange(k)
        across = (ranks + k // 2) % k
        assert torus.dor_traffic((k,), ranks, across) == (k // 2, k // 2)
        assert torus.dor_traffic((k,), ranks, across, "split") == (k // 2, -(-k // 4))
    with pytest.raises(InputError, match="ring tie rule"):
        torus.dor_traffic((4,), [0], [2], "minus")


def test_dor_traffic_of_recursive_doubling_on_power_of_two_radices():
    # closed form: the exchange with r XOR 2^s moves 2^j along one ring (j = the bit of s
    # within its dimension): 2^j hops, and the 2^j senders of a block all cross the
    # channel in the middle of the block: load 2^j
    radices = (4, 8, 16)
    p = math.prod(radices)
    ranks = np.arange(p)
    for s in range(p.bit_length() - 1):
        bit = s
        for k in radices:
            if bit < k.bit_length() - 1:
                break
            bit -= k.bit_length() - 1
        assert torus.dor_traffic(radices, ranks, ranks ^ (1 << s)) == (1 << bit, 1 << bit)


def test_balanced_torus_shapes():
    assert torus.balanced_torus_shape(8, 3) == (2, 2, 2)
    assert torus.balanced_torus_shape(8192, 3) == (16, 16, 32)
    assert torus.balanced_torus_shape(8192, 4) == (8, 8, 8, 16)
    assert torus.balanced_torus_shape(2048, 3) == (8, 16, 16)
    assert torus.balanced_torus_shape(12, 3) == (2, 2, 3)
    assert torus.balanced_torus_shape(97, 1) == (97,)


def factorisations(nodes, dims, smallest=2):
    """Every non-decreasing tuple of dims integers >= smallest with product nodes."""
    if dims == 1:
        return [(nodes,)] if nodes >= smallest else []
    return [(k,) + rest for k in range(smallest, nodes + 1) if nodes % k == 0
            for rest in factorisations(nodes // k, dims - 1, k)]


@pytest.mark.parametrize("dims", [1, 2, 3, 4])
def test_balanced_torus_shape_is_the_best_factorisation(dims):
    for nodes in range(1, 400):
        candidates = factorisations(nodes, dims)
        if not candidates:
            with pytest.raises(InputError, match="cannot be shaped"):
                torus.balanced_torus_shape(nodes, dims)
            continue
        best = min(candidates, key=lambda c: (max(c), sum(c)))
        assert torus.balanced_torus_shape(nodes, dims) == best


@pytest.mark.parametrize("bad", [(7, 3), (4, 3), (0, 2), (-8, 3), (8, 0), (2.0, 1),
                                 (10**13, 3)])
def test_balanced_torus_shape_errors(bad):
    with pytest.raises(InputError):
        torus.balanced_torus_shape(*bad)


# --- Thakur et al.'s textbook forms on a full crossbar -------------------------------------

LINEAR = {
    # 1-byte flits, no header flits, one huge packet: T(n, h) = α(h) + n β exactly
    "flit_size": 1,
    "packet_max_flits": 10**12,
    "packet_header_flits": 0,
    "injection_latency": 100 * NS,
    "ejection_latency": 120 * NS,
    "router_latency": 10 * NS,
    "link_latency": 30 * NS,
    "link_bandwidth": 2e9,
    "host_bandwidth": 1e9,
    "software_overhead": 500 * NS,
    "store_and_forward": 0,
    "combine_time": 0.25 * NS,
}
ALPHA = (500 + 100 + 2 * 10 + 30 + 120) * NS      # T(0, 1 hop)
BETA = 1 / 1e9                                    # the slower channel, host
GAMMA = 0.25 * NS


def thakur(algorithm, operation, p, n):
    """Thakur, Rabenseifner & Gropp (2005) α-β-γ forms (None where not stated)."""
    a, b, c = ALPHA, BETA, GAMMA
    lg = math.ceil(math.log2(p))
    fl = p.bit_length() - 1
    pow2 = p & (p - 1) == 0
    part = (p - 1) / p
    forms = {
        ("binomial", "broadcast"): lg * (a + n * b),
        ("binomial", "reduce"): lg * (a + n * b + n * c),
        ("binomial", "allreduce"): 2 * lg * (a + n * b) + lg * n * c,
        ("recursive-doubling", "allgather"): lg * a + part * n * b,
        ("ring", "allgather"): (p - 1) * a + part * n * b,
        ("ring", "allreduce"): 2 * (p - 1) * a + 2 * part * n * b + part * n * c,
        ("ring", "broadcast"): (lg + p - 1) * a + 2 * part * n * b,
        ("bruck", "allgather"): lg * a + part * n * b,
        ("bruck", "barrier"): lg * a,
    }
    if pow2:
        forms.update({
            ("recursive-doubling", "allreduce"): lg * (a + n * b + n * c),
            ("recursive-doubling", "barrier"): lg * a,
            ("rabenseifner", "allreduce"): 2 * lg * a + 2 * part * n * b + part * n * c,
            ("rabenseifner", "reduce"): 2 * lg * a + 2 * part * n * b + part * n * c,
            ("bruck", "alltoall"): lg * a + n / 2 * lg * b,
        })
    else:
        # MPICH's fallback: p' = 2^floor(lg p) survivors, one step before and one after
        q = 1 << fl
        qpart = (q - 1) / q
        forms.update({
            ("recursive-doubling", "allreduce"): (fl + 2) * (a + n * b) + (fl + 1) * n * c,
            ("recursive-doubling", "barrier"): (fl + 2) * a,
            ("rabenseifner", "allreduce"): (2 * fl * a + 2 * qpart * n * b + qpart * n * c
                                            + (a + n * b + n * c) + (a + n * b)),
            ("rabenseifner", "reduce"): (2 * fl * a + 2 * qpart * n * b + qpart * n * c
                                         + (a + n * b + n * c)),
        })
    return forms.get((algorithm, operation))


STEP_ALGORITHMS = [pair for pair, entry in C.TABLE.items() if entry.steps]


@pytest.mark.parametrize("p", [2, 3, 4, 5, 6, 7, 8, 12, 16, 31, 64, 100, 128])
def test_crossbar_recovers_the_textbook_forms_exactly(p):
    layout = C.Layout.crossbar(p)
    n = p * 3 * 2.0 ** 12          # every block size a whole number of bytes
    checked = 0
    for algorithm, operation in STEP_ALGORITHMS:
        form = thakur(algorithm, operation, p, n)
        if form is None:
            continue
        got = C.evaluate(operation, algorithm, n, layout, LINEAR)
        assert float(got) == pytest.approx(form, rel=1e-12), (algorithm, operation)
        checked += 1
    assert checked >= 12


def test_linear_machine_is_alpha_plus_n_beta():
    for n in (0, 1, 1000, 123456):
        assert N.latency(n, 1, **N.bind(N.latency, LINEAR)) == pytest.approx(ALPHA + n * BETA)


def test_bruck_alltoall_non_power_of_two_counts_the_blocks_with_each_bit():
    p, n = 6, 6 * 1024.0
    steps = C.schedule("bruck", "alltoall", C.Layout.crossbar(p))
    # blocks 0..5: bit 0 set in 1,3,5; bit 1 in 2,3; bit 2 in 4,5
    fractions = sorted(s.fraction for s in steps for _ in range(s.count))
    assert fractions == [Fraction(2, 6), Fraction(2, 6), Fraction(3, 6)]
    got = C.evaluate("alltoall", "bruck", n, C.Layout.crossbar(p), LINEAR)
    assert float(got) == pytest.approx(3 * ALPHA + 7 * 1024 * BETA)


# --- MPICH's non-power-of-two fallback ------------------------------------------------------


def test_fold_keeps_a_power_of_two_of_survivors():
    for p in range(2, 70):
        p2, src, dst, actual = C._fold(p)
        r = p - p2
        assert p2 & (p2 - 1) == 0 and p2 <= p < 2 * p2
        assert list(src) == list(range(0, 2 * r, 2)) and list(dst) == list(range(1, 2 * r, 2))
        survivors = set(actual.tolist())
        assert len(survivors) == p2
        assert survivors.isdisjoint(src.tolist())
        assert survivors | set(src.tolist()) == set(range(p))


@pytest.mark.parametrize("p", [3, 5, 6, 7, 12, 100])
def test_recursive_doubling_allreduce_non_power_of_two_takes_two_extra_steps(p):
    steps = C.schedule("recursive-doubling", "allreduce", C.Layout.crossbar(p))
    total = sum(s.count for s in steps)
    combining = sum(s.count for s in steps if s.combine)
    fl = p.bit_length() - 1
    assert total == fl + 2               # pre-step, lg p' exchanges, post-step
    assert combining == fl + 1           # the post-step only returns the result
    assert all(s.fraction == 1 for s in steps)


@pytest.mark.parametrize("p", [3, 6, 12, 100])
def test_recursive_doubling_allgather_non_power_of_two_falls_back_to_bruck(p):
    layout = C.Layout.crossbar(p)
    assert (C.schedule("recursive-doubling", "allgather", layout)
            == C.schedule("bruck", "allgather", layout))
    # on a torus the two differ for a power of two: XOR partners vs r - 2^k
    cube = C.Layout.torus((4, 4))
    assert (C.schedule("recursive-doubling", "allgather", cube)
            != C.schedule("bruck", "allgather", cube))


def test_power_of_two_allreduce_has_no_fold_steps():
    steps = C.schedule("recursive-doubling", "allreduce", C.Layout.crossbar(16))
    assert sum(s.count for s in steps) == 4


# --- hand-computed Angara cases -----------------------------------------------------------

ANGARA = C.collective_parameters(load_machine("angara-3d"), "mpi")
PACKET = 240          # one 16-flit packet: 15 payload flits + the preset's header flit
B_LINK = 75e9 / 8
HOST = 5.85e9         # the angara presets' host rate (calibrated on Fig. 9)
SER = PACKET / HOST   # 41.03 ns: PCIe is the slower channel


def test_angara_2x2x2_broadcast_by_hand():
    layout = C.Layout.torus((2, 2, 2))
    ser = max(SER, 256 / B_LINK)                       # 41.03 ns against 27.31 ns
    # hardware: O + injection + 4 routers + 3 links + ejection + serialization, and
    # store-and-forward: the packet once more on the injection channel and on each link
    hw = (300 + 300 + 4 * 8 + 3 * 80 + 300) * NS + ser + ser + 3 * 256 / B_LINK
    # point-to-point: 3 levels of O + injection + 2 routers + 1 link + ejection + ser
    p2p = 3 * ((300 + 300 + 2 * 8 + 80 + 300) * NS + ser)
    assert C.evaluate("broadcast", "hw-tree", PACKET, layout, ANGARA) == pytest.approx(hw)
    assert C.evaluate("broadcast", "p2p-tree", PACKET, layout, ANGARA) == pytest.approx(p2p)
    assert hw == pytest.approx(1335.97 * NS, rel=1e-5)
    assert p2p == pytest.approx(3111.08 * NS, rel=1e-5)


def test_angara_2x2x2_allreduce_by_hand():
    layout = C.Layout.torus((2, 2, 2))
    hw = (300 + 300 + 7 * 8 + 6 * 80 + 300) * NS + SER + SER + 6 * 256 / B_LINK
    assert hw == pytest.approx(1681.89 * NS, rel=1e-5)
    assert C.evaluate("allreduce", "hw-tree", PACKET, layout, ANGARA) == pytest.approx(hw)
    assert C.evaluate("allreduce", "p2p-tree", PACKET, layout, ANGARA) == pytest.approx(
        6 * (996 * NS + SER))


def test_angara_2x2x2_schedules_by_hand():
    layout = C.Layout.torus((2, 2, 2))
    # XOR partners differ in one coordinate: 1 hop, each pair on its own link direction
    rd = C.schedule("recursive-doubling", "allgather", layout)
    assert sorted((s.fraction, s.hops, s.load) for s in rd) == [
        (Fraction(1, 8), 1, 1), (Fraction(1, 4), 1, 1), (Fraction(1, 2), 1, 1)]
    # ring r -> r + 1: rank 7 = (1,1,1) -> rank 0 = (0,0,0) is 3 hops
    assert C.schedule("ring", "allgather", layout) == (C.Step(7, Fraction(1, 8), 3, 1, False),)
    assert C.schedule("binomial", "broadcast", layout) == (C.Step(3, Fraction(1), 1, 1, False),)
    t = C.evaluate("allgather", "ring", 8 * 240, layout, ANGARA)
    assert t == pytest.approx(7 * N.latency(240, 3, **N.bind(N.latency, ANGARA)))


def test_recursive_doubling_charges_contention_on_the_torus():
    layout = C.Layout.torus((16, 16, 32))
    steps = C.schedule("recursive-doubling", "allgather", layout)
    last = max(steps, key=lambda s: s.fraction)
    assert (last.fraction, last.hops, last.load) == (Fraction(1, 2), 16, 16)
    m = 8192 * 1024.0
    # the last step: 16 messages of m/2 share a channel: 16 x the link serialization
    net = N.bind(N.latency, ANGARA)
    shared = N.latency(m / 2, 16, **{**net, "link_bandwidth": B_LINK / 16})
    assert shared > 15 * N.latency(m / 2, 16, **net) / 2
    crossbar = C.evaluate("allgather", "recursive-doubling", m, C.Layout.crossbar(8192),
                          ANGARA)
    assert C.evaluate("allgather", "recursive-doubling", m, layout, ANGARA) > 4 * crossbar


def test_hw_allreduce_is_a_broadcast_over_twice_the_depth():
    kw = N.bind(C.hw_broadcast, ANGARA)
    for D in (1, 3, 20, 32):
        assert C.hw_allreduce(PACKET, D, **N.bind(C.hw_allreduce, ANGARA)) == pytest.approx(
            C.hw_broadcast(PACKET, D, D, **kw))


def test_non_root_broadcast_source_climbs_to_the_root_first():
    layout = C.Layout.torus((4, 4, 4))
    root = C.collective_time(load_machine("angara-3d"), "broadcast", "hw-tree", [PACKET],
                             layout=layout)
    away = C.collective_time(load_machine("angara-3d"), "broadcast", "hw-tree", [PACKET],
                             layout=layout, source_hops=2)
    per_hop = (8 + 80) * NS + 256 / B_LINK
    assert away.time[0] - root.time[0] == pytest.approx(2 * per_hop)
    p2p_root = C.collective_time(load_machine("angara-3d"), "broadcast", "p2p-tree",
                                 [PACKET], layout=layout)
    p2p_away = C.collective_time(load_machine("angara-3d"), "broadcast", "p2p-tree",
                                 [PACKET], layout=layout, source_hops=2)
    assert p2p_away.time[0] - p2p_root.time[0] == pytest.approx(
        N.latency(PACKET, 2, **N.bind(N.latency, ANGARA)))
    assert "2 hops from the root" in " ".join(away.assumptions)


def test_credit_delay():
    kw = N.bind(C.credit_delay, ANGARA)
    # one packet: nothing to pipeline; Angara: loop 2(8+80) ns + 256 B + 16 B on the link
    # = 205 ns < 9 x 41 ns, so credits never throttle
    assert C.credit_delay(PACKET, **kw) == 0
    assert C.credit_delay(10**6, **kw) == 0
    # slow links: loop = 2 (8 + 1000) ns + 272 B / 9.375 GB/s, interval SER = 41.03 ns
    slow = {**kw, "link_latency": 1000 * NS}
    loop = 2 * (8 + 1000) * NS + 272 / B_LINK
    n = N.packets(2400, flit_size=16, packet_max_flits=16, packet_header_flits=1)
    assert n == 10
    assert C.credit_delay(2400, **slow) == pytest.approx(9 * (loop / 9 - SER))
    assert C.credit_delay(2400, **{**slow, "reduce_window": 32}) == pytest.approx(
        9 * (loop / 25 - SER))


def test_hw_allgather_is_bounded_by_ejection():
    layout = C.Layout.torus((8, 8, 8, 16))
    m = 8192 * 1024.0
    t = C.evaluate("allgather", "hw-tree", m, layout, ANGARA)
    eject = 8191 * N.serialization_time(1024, **N.bind(N.serialization_time, ANGARA))
    assert eject < t < eject + 10e-6


# --- properties -----------------------------------------------------------------------------

LAYOUTS = [C.Layout.torus((2, 2, 2)),
           pytest.param(C.Layout.torus((3, 4, 5)), marks=pytest.mark.slow),  # minutes
           C.Layout.torus((8, 8, 16)),
           C.Layout.crossbar(24)]


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: layout.text)
def test_times_are_monotone_in_message_size(layout):
    sizes = np.unique(np.concatenate([np.geomspace(1, 1e8, 60), np.arange(1, 600, 7.0)]))
    for (algorithm, operation) in C.TABLE:
        if algorithm in ("hw-tree", "p2p-tree") and not layout.is_torus:
            continue
        if not fluid.offered(algorithm, layout.ranks, operation) or (
                algorithm in ("linear", "reduce-bcast") and ANGARA.get("store_and_forward")):
            continue
        # Rabenseifner in whole elements is not monotone (7 doubles over 8 blocks all sit
        # in the last one, 8 doubles spread one per block): checked with bytes split evenly
        params = ({k: v for k, v in ANGARA.items() if k != "element_size"}
                  if algorithm == "rabenseifner" else ANGARA)
        t = np.broadcast_to(C.evaluate(operation, algorithm, sizes, layout, params),
                            sizes.shape)
        assert np.all(np.diff(t) >= -1e-18), (algorithm, operation)
        assert np.all(t > 0)


def test_rabenseifner_in_whole_elements_gets_faster_when_the_blocks_fill():
    layout = C.Layout.torus((2, 2, 2))
    seven, eight = C.evaluate("allreduce", "rabenseifner", np.array([56.0, 64.0]), layout,
                              ANGARA)
    assert eight < seven          # 56 B in every step, against 32, 16, 8 B


def speedup(preset, nodes, dims, operation="broadcast"):
    shape = torus.balanced_torus_shape(nodes, dims)
    params = C.collective_parameters(load_machine(preset), "mpi")
    layout = C.Layout.torus(shape)
    return float(C.evaluate(operation, "p2p-tree", PACKET, layout, params)
                 / C.evaluate(operation, "hw-tree", PACKET, layout, params))


@pytest.mark.parametrize("operation", ["broadcast", "allreduce", "reduce", "barrier"])
def test_hardware_speedup_grows_with_node_count(operation):
    for preset, dims, first in (("angara-3d", 3, 8), ("angara-4d", 4, 16)):
        ratios = [speedup(preset, first * 2 ** i, dims, operation) for i in range(12)]
        assert all(b > a for a, b in zip(ratios, ratios[1:])), (preset, ratios)
        assert ratios[0] > 1


def test_4d_gains_less_than_3d_at_equal_size():
    for nodes in [16 * 2 ** i for i in range(12)]:
        three, four = speedup("angara-3d", nodes, 3), speedup("angara-4d", nodes, 4)
        d3 = torus.spanning_tree_depth(torus.balanced_torus_shape(nodes, 3))
        d4 = torus.spanning_tree_depth(torus.balanced_torus_shape(nodes, 4))
        assert four <= three * (1 + 1e-12)
        if d4 < d3:                             # smaller diameter, smaller gain
            assert four < three
    assert speedup("angara-4d", 8192, 4) < speedup("angara-3d", 8192, 3)


@pytest.mark.slow
def test_sympy_agrees_with_numpy_on_every_formula():
    # with a per-step cost set, so that its symbol O_step is checked too
    machine = load_machine("angara-4d").with_overrides(["software.mpi_step_overhead=300ns"])
    params = C.collective_parameters(machine, "mpi", combine_time=2e-10)
    symbols = C.symbolic_collective_parameters()
    # exact substitution (the floats' binary values as rationals): a Float coefficient
    # such as 1/12 rounded would move ceiling(m/(12 f)) across an integer
    values = {symbols[k]: sp.Rational(params[k]) for k in symbols}
    # whole-element splits (Rabenseifner) take the element size as a number, as explain
    # passes it: ceiling(m / 8) and floor(.../p') stay exact in m
    symbols["element_size"] = sp.Integer(int(params["element_size"]))
    m = ops.symbols("m", positive=True)
    sizes = np.array([1.0, 240.0, 241.0, 5000.0, 3e6])
    # P = 12 on a torus (non-power-of-two fallbacks, contention) and 4 on a crossbar
    for layout in (C.Layout.torus((2, 3, 2)), C.Layout.crossbar(4)):
        for (algorithm, operation) in C.TABLE:
            if algorithm in ("hw-tree", "p2p-tree") and not layout.is_torus:
                continue
            if algorithm in ("linear", "reduce-bcast"):
                continue    # timed as flows: numeric only (collectives.fluid)
            expression = sp.sympify(C.evaluate(operation, algorithm, m, layout, symbols))
            assert expression.free_symbols <= set(symbols.values()) | {m}
            bound = expression.xreplace(values)
            numeric = np.broadcast_to(C.evaluate(operation, algorithm, sizes, layout, params),
                                      sizes.shape)
            for size, value in zip(sizes, numeric):
                exact = float(bound.xreplace({m: sp.Rational(size)}))
                assert exact == pytest.approx(value, rel=1e-12), (algorithm, operation)


def test_symbolic_hw_broadcast_reads_as_the_model():
    s = C.symbolic_collective_parameters()
    m, D = ops.symbols("m", positive=True), 5
    expression = C.hw_broadcast(m, D, **N.bind(C.hw_broadcast, s))
    # software once, injection and ejection once, D + 1 routers and D links
    assert sp.expand(expression).coeff(s["software_overhead"]) == 1
    assert sp.expand(expression).coeff(s["injection_latency"]) == 1
    assert sp.expand(expression).coeff(s["router_latency"]) == D + 1
    assert sp.expand(expression).coeff(s["link_latency"]) == D


# --- records and bad input ----------------------------------------------------------------


def test_collective_time_record_and_assumptions():
    machine = load_machine("angara-3d")
    result = C.collective_time(machine, "all-reduce", "rabenseifner", [8, 1024])
    assert result.operation == "allreduce" and result.layout == "torus:16x16x32"
    assert result.endpoints == 8192 and result.time.shape == (2,)
    text = " ".join(result.assumptions)
    for phrase in ("linear", "contention", "non-power-of-two", "combining", "MPI"):
        assert phrase in text
    hw = C.collective_time(machine, "broadcast", "hw-tree", [240])
    assert "store-and-forward" in " ".join(hw.assumptions)
    barrier = C.collective_time(machine, "barrier", "bruck")
    assert barrier.time.shape == (1,) and barrier.time[0] > 0


def test_compare_lists_every_algorithm_of_an_operation():
    machine = load_machine("angara-4d")
    results = C.compare(machine, "allgather", [8192 * 8.0])
    # 8,192 ranks on the whole 8x8x8x16 torus, one per node: pairwise's 8,191 shift steps
    # are counted in structure, so it runs past the mapped algorithms' 4,096-rank limit
    assert list(results) == ["hw-tree", "recursive-doubling", "ring", "bruck", "pairwise"]
    crossbar = C.compare(machine, "broadcast", [64.0], layout=C.Layout.crossbar(64))
    assert "hw-tree" not in crossbar and "p2p-tree" not in crossbar


def test_defined_pairs():
    assert C.defined("hw-tree", "all-reduce")
    assert not C.defined("hw-tree", "alltoall")
    assert {a for a, _ in C.TABLE} == set(C.ALL_ALGORITHMS)
    assert {o for _, o in C.TABLE} == set(C.OPERATIONS)


def _no_collectives_machine() -> Machine:
    machine = load_machine("angara-3d")
    network = {k: v for k, v in machine.network.items()
               if k not in ("collective_trees", "collective_switching")}
    return Machine(name="plain", topology="torus:4x4x4", network=network,
                   software=dict(machine.software))


@pytest.mark.parametrize("call, message", [
    (lambda m: C.collective_time(m, "broadcast", "fastest", [8]), "unknown algorithm"),
    (lambda m: C.collective_time(m, "scan", "ring", [8]), "unknown collective operation"),
    (lambda m: C.collective_time(m, "alltoall", "hw-tree", [8]), "does not define"),
    (lambda m: C.collective_time(m, "broadcast", "ring", [0]), "> 0 bytes"),
    (lambda m: C.collective_time(m, "broadcast", "ring", [-5]), "> 0 bytes"),
    (lambda m: C.collective_time(m, "broadcast", "ring", [np.nan]), "finite"),
    (lambda m: C.collective_time(m, "broadcast", "ring", ["x"]), "numbers"),
    (lambda m: C.collective_time(m, "broadcast", "p2p-tree", [8],
                                 layout=C.Layout.crossbar(8)), "defined on a torus"),
    (lambda m: C.collective_time(m, "broadcast", "hw-tree", [8], source_hops=99),
     "exceeds the diameter"),
    (lambda m: C.collective_time(m, "allgather", "ring", [8], source_hops=1),
     "tree broadcasts only"),
    (lambda m: C.collective_time(_no_collectives_machine(), "broadcast", "hw-tree", [8]),
     "no hardware collectives"),
    (lambda m: C.collective_time(m.with_overrides(["topology=mesh:4x4"]),
                                 "broadcast", "ring", [8]), "tori"),
    (lambda m: C.collective_time(m.with_overrides(["topology=fattree:k=4,n=2"]),
                                 "broadcast", "p2p-tree", [8]), "defined on a torus"),
    (lambda m: C.Layout.crossbar(1), "endpoints"),
    (lambda m: C.Layout.torus((4, 1)), "radices"),
    (lambda m: C.collective_time(m, "allreduce", "ring", [8], combine_time=-1), "combine"),
])
def test_bad_input_is_one_input_error(call, message):
    with pytest.raises(InputError, match=message):
        call(load_machine("angara-3d"))


def test_plain_machine_still_has_point_to_point_algorithms():
    result = C.collective_time(_no_collectives_machine(), "broadcast", "binomial", [8])
    assert result.time[0] > 0
    assert "hw-tree" not in C.compare(_no_collectives_machine(), "broadcast", [8])
