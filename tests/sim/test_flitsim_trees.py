"""Fat trees in the flit simulator (icnperf/sim/trees.py): the wiring against the XGFT label
definition written out here, nearest-common-ancestor routes against a breadth-first search,
and the two up-port rules against what they promise: d-mod-k is contention-free for a
shift-like permutation on a full tree (Zahavi, "D-Mod-K routing providing non-blocking
traffic for shift permutations on real life fat trees", 2010), random spreading lifts a
full tree's uniform saturation far above the 1/k of routes keyed by the destination leaf."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.sim import RouterConfig, Simulation, fat_tree, network_from_spec, simulate, xgft
from flitsim_helpers import neighbour_hops, zero_load


def _mixed(digits, radices) -> int:
    value, scale = 0, 1
    for digit, radix in zip(digits, radices):
        value += digit * scale
        scale *= radix
    return value


def _label_links(m, w, p):
    """Links of XGFT(h; m; w; p) from its labels: a level-l node (a_{l+1}..a_h;
    b_1..b_l) joins the level-(l+1) nodes (a_{l+2}..a_h; b_1..b_l, b) for every b < w_{l+1},
    p_{l+1} cables each; numbered rep + W_l * sub per level, levels from the leaves."""
    h = len(m)
    per_level = [int(np.prod(m[l:]) * np.prod(w[:l])) for l in range(1, h + 1)]
    offset = [0] + list(np.cumsum(per_level))
    links = Counter()
    for l in range(1, h):
        W_l = int(np.prod(w[:l]))
        for a in itertools.product(*[range(x) for x in m[l:]]):
            for b in itertools.product(*[range(x) for x in w[:l]]):
                child = offset[l - 1] + _mixed(b, w[:l]) + W_l * _mixed(a, m[l:])
                for up in range(w[l]):
                    parent = (offset[l] + _mixed(b + (up,), w[:l + 1])
                              + W_l * w[l] * _mixed(a[1:], m[l + 1:]))
                    links[(child, parent)] += p[l]
    return links, sum(per_level)


@pytest.mark.parametrize("m,w,p", [
    ((4, 4, 4), (1, 4, 4), (1, 1, 1)),     # the 4-ary 3-tree (BookSim's fattree k=4, n=3)
    ((8, 8), (1, 8), (1, 1)),              # SimGrid's 2;8,8;1,8;1,1
    ((8, 8), (1, 2), (1, 1)),              # 4:1 tapered
    ((3, 2, 4), (1, 2, 3), (1, 2, 1)),     # mixed radices, parallel cables
])
def test_wiring_is_the_label_definition(m, w, p):
    net = xgft(m, w, p)
    expected, routers = _label_links(m, w, p)
    assert net.routers == routers and net.endpoints == int(np.prod(m))
    seen = Counter()
    for r in range(net.routers):
        for port in range(net.ports):
            n = net.neighbour[r, port]
            if n >= 0 and net.level[n] > net.level[r]:
                seen[(r, int(n))] += 1
                # the link comes back on the port the far end names
                assert net.neighbour[n, net.neighbour_port[r, port]] == r
    assert seen == expected
    e = np.arange(net.endpoints)
    assert np.array_equal(net.endpoint_router, e // m[0])


def test_fattree_and_clos_are_xgfts():
    """FT(k, n) = XGFT(n; k,..,k,2k; 1,k,..,k): 2k^n endpoints and (2n-1) k^(n-1)
    switches (NUDT); clos:radix=R,levels=L is FT(R/2, L)."""
    ft = fat_tree(4, 3)
    assert (ft.routers, ft.endpoints, ft.ports) == (80, 128, 8)
    assert ft.m == [4, 4, 8] and ft.w == [1, 4, 4]
    clos = network_from_spec("clos:radix=8,levels=2")
    assert (clos.routers, clos.endpoints) == (12, 32)


@pytest.mark.parametrize("routing", ["random", "dmodk"])
def test_routes_are_shortest_and_zero_load_matches(routing, drain_and_trace):
    """Up to the nearest common ancestor and down: between leaves, 2 x (levels whose pods
    differ) channels, which is the BFS distance; every packet's latency is at least the
    closed form at that distance, and some packets meet it."""
    net = xgft((4, 4, 4), (1, 4, 4), routing=routing)
    dist = neighbour_hops(net)
    leaves = net.endpoint_router[np.arange(0, 64, 4)]
    s, d = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    assert np.array_equal(net.hops(s, d), dist[net.endpoint_router[s], net.endpoint_router[d]])
    assert dist[leaves[0], leaves[1]] == 2 and dist[leaves[0], leaves[4]] == 4
    router = RouterConfig(packet_flits=2)
    sim = Simulation(net, router, "uniform", 0.1, seed=1, trace=True)
    _, src, dst, _, _, latency = drain_and_trace(sim, 800)
    bound = zero_load(net.hops(src, dst), router)
    assert np.all(latency >= bound) and np.any(latency == bound)


@pytest.mark.parametrize("m,w", [((8, 8), (1, 8)), ((4, 4, 4), (1, 4, 4))])
def test_dmodk_is_contention_free_for_bit_complement(m, w):
    """Bit-complement d = N-1-s on a full tree: the sources of a pod send to destinations
    whose residues mod every W_l are all different, so d-mod-k gives each up and down
    channel at most one flow and every endpoint gets its full offered rate; random up
    ports collide."""
    net = {r: xgft(m, w, routing=r) for r in ("dmodk", "random")}
    runs = {r: simulate(n, "bit-complement", 1.0, RouterConfig(), warmup=1000, measure=2000,
                        drain=0, seed=1) for r, n in net.items()}
    assert runs["dmodk"].accepted_min == pytest.approx(1.0, abs=0.01)
    assert runs["random"].accepted < 0.8


def test_random_up_ports_lift_a_full_tree_far_above_one_over_k():
    """FT(4, 3) under uniform traffic: routes keyed by the destination leaf put a leaf's k
    endpoints on one down link (1/k = 0.25); random up ports spread them."""
    result = simulate(fat_tree(4, 3, "random"), "uniform", 1.0, RouterConfig(), warmup=1500,
                      measure=2000, drain=0, seed=2)
    assert result.accepted > 0.5


def test_tapered_tree_saturates_at_its_spine_links():
    """XGFT(2; 8,8; 1,2), 4:1 tapered: a leaf sends 8 x 7/8 of its endpoints' flits up two
    links, so the uniform saturation is at most 2 / 7 = 0.286; the full tree
    (w2 = 8) goes far past it."""
    tapered = simulate(xgft((8, 8), (1, 2)), "uniform", 1.0, RouterConfig(), warmup=1000,
                       measure=2000, drain=0, seed=3)
    full = simulate(xgft((8, 8), (1, 8)), "uniform", 1.0, RouterConfig(), warmup=1000,
                    measure=2000, drain=0, seed=3)
    assert tapered.accepted <= 2 / 7 * 1.02
    assert full.accepted > 2 * tapered.accepted


def test_parallel_cables_carry_traffic_and_drain(drain_and_trace):
    """XGFT(2; 4,4; 1,2; 1,2): two cables from each leaf to each of its two spines; every
    flit delivered once past saturation, both routings."""
    for routing in ("random", "dmodk"):
        net = xgft((4, 4), (1, 2), (1, 2), routing=routing)
        assert net.ports == 8
        sim = Simulation(net, RouterConfig(vcs=2, buffer=2, packet_flits=3), "uniform", 1.0,
                         seed=4, trace=True)
        trace = drain_and_trace(sim, 500)
        assert np.array_equal(np.sort(trace.delivered), np.arange(sim.injected))


@pytest.mark.parametrize("m,w,p,message", [
    ((4, 4), (1, 4), (1,), "one value per level"),
    ((4, 4), (2, 4), None, "w1 = p1 = 1"),
    ((4, 0), (1, 4), None, ">= 1"),
])
def test_bad_trees(m, w, p, message):
    with pytest.raises(InputError, match=message):
        xgft(m, w, p)
    with pytest.raises(InputError, match="unknown tree routing"):
        xgft((4, 4), (1, 4), routing="nca")


def test_rail_tree_places_nics_as_the_model_does_and_routes_them():
    """sim.rail writes the NIC placement out again (never importing icnperf.model): it
    equals model/topology/rail.positions; NIC 0 -> NIC 1 of one node crosses to a spine,
    NIC 0 of node 0 -> NIC 0 of node 1 (same rail, same unit) stays on its leaf; the
    traffic tables are the NIC pattern carried to positions."""
    from icnperf.model.topology.rail import positions
    from icnperf.sim import Traffic, rail

    net = rail(4, (4, 8), (1, 4), None, routing="dmodk")
    assert net.name == "rail:rails=4,m=4x8,w=1x4"
    np.testing.assert_array_equal(net.place, positions(4, (4, 8), 2, np.arange(32)))
    np.testing.assert_array_equal(net.label[net.place], np.arange(32))
    assert net.hops(net.place[0], net.place[1]) == 2
    assert net.hops(net.place[0], net.place[4]) == 0
    table = Traffic("bit-complement", net, np.random.default_rng(0)).table
    np.testing.assert_array_equal(table[net.place], net.place[31 - np.arange(32)])
    assert network_from_spec("rail:rails=4,m=4x8,w=1x4,join=2").name == net.name


def test_plain_tree_join_1_keeps_each_node_on_its_leaf():
    """rail:...,join=1 (the plain tree of the same switches): node g's 4 NICs hang on leaf
    g, so NIC 0 -> NIC 1 of one node stays on its leaf (0 hops) and node 0 -> node 1 climbs
    to a spine (2); the placement equals the model's."""
    from icnperf.model.topology.rail import positions
    from icnperf.sim import rail

    net = rail(4, (4, 8), (1, 4), None, join=1, routing="dmodk")
    assert net.name == "rail:rails=4,m=4x8,w=1x4,join=1"
    np.testing.assert_array_equal(net.place, positions(4, (4, 8), 1, np.arange(32)))
    np.testing.assert_array_equal(net.place // 4, np.arange(32) // 4)
    assert net.hops(net.place[0], net.place[1]) == 0
    assert net.hops(net.place[0], net.place[4]) == 2


def test_rail_tree_bit_complement_runs_at_the_models_bound():
    """rail:rails=4,m=8x8,w=1x8 under d-mod-k: the model's bit-complement gamma_max on the
    NIC numbering is 1 (model/topology/rail.py, checked against the routed tree in
    tests/model/topology), so every endpoint gets its full offered rate."""
    from icnperf.model.topology.rail import rail as model_rail
    from icnperf.sim import rail

    assert float(model_rail(4, (8, 8), (1, 8), routing="dmodk")
                 .channel_load["bit-complement"]) == 1.0
    run = simulate(rail(4, (8, 8), (1, 8), routing="dmodk"), "bit-complement", 1.0,
                   RouterConfig(), warmup=1000, measure=2000, drain=0, seed=1)
    assert run.accepted_min == pytest.approx(1.0, abs=0.01)


def test_rail_tree_refuses_asymmetric_traffic_and_bad_rails():
    from icnperf.sim import Traffic, rail

    with pytest.raises(InputError, match="asymmetric"):
        Traffic("asymmetric", rail(2, (4, 4), (1, 2)), np.random.default_rng(0))
    with pytest.raises(InputError, match="rails=3"):
        network_from_spec("rail:rails=3,m=4x4,w=1x2")
