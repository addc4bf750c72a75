"""Dragonfly and slim fly in the flit simulator (fat trees: test_flitsim_trees.py):
structure checked by a BFS written here, zero-load latency against hop counts, the
dragonfly's wirings, VC classes and non-minimal routings."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.sim import RouterConfig, Simulation, simulate
from icnperf.sim.topologies import dragonfly, network_from_spec, slim_fly
from flitsim_helpers import neighbour_hops, zero_load


def test_slim_fly_q5_is_hoffman_singleton_and_zero_load_matches_bfs(drain_and_trace):
    """MMS graph for q = 5: 50 routers of degree 7, diameter 2 (the Hoffman-Singleton graph)."""
    net = slim_fly(5)
    dist = neighbour_hops(net)
    degree = (net.neighbour[:, :net.network_ports] >= 0).sum(axis=1)
    assert net.routers == 50 and np.all(degree == 7) and dist.max() == 2
    assert np.array_equal(net.route_hops, dist)
    router = RouterConfig(vcs=2)
    sim = Simulation(net, router, "uniform", 0.1, seed=2, trace=True)
    _, src, dst, _, _, latency = drain_and_trace(sim, 300)
    bound = zero_load(dist[net.endpoint_router[src], net.endpoint_router[dst]], router)
    assert np.all(latency >= bound) and np.any(latency == bound)


def test_dragonfly_min_routes_local_global_local(drain_and_trace):
    """DF(2,4,2): 9 groups of 4 routers; MIN crosses at most 3 channels (never fewer than
    the BFS distance) and takes the direct global link between two groups."""
    net = dragonfly(2, 4, 2)
    dist = neighbour_hops(net)
    assert net.routers == 36 and dist.max() == 3
    assert np.all(net.route_hops >= dist) and net.route_hops.max() == 3
    group = np.arange(36) // 4
    same = group[:, None] == group[None, :]
    assert np.all(net.route_hops[same & (dist == 1)] == 1)
    router = RouterConfig(vcs=3)
    sim = Simulation(net, router, "uniform", 0.1, seed=3, trace=True)
    _, src, dst, _, _, latency = drain_and_trace(sim, 400)
    bound = zero_load(net.hops(src, dst), router)
    assert np.all(latency >= bound) and np.any(latency == bound)


def test_ugal_beats_min_on_a_dragonfly_under_adversarial_traffic():
    """Bit-complement on DF(2,4,2) sends all of group G to group 8-G (group 4 to itself).
    MIN: the one link from G to 8-G carries 8 endpoints' flits, so 64 endpoints share 8
    flits/cycle and group 4's 8 endpoints get their offered rate r: accepted per endpoint
    <= (8 + 8 r) / 72 = 0.1667 at r = 0.5. UGAL-L (ugal-hops) spreads over other groups'
    links."""
    router = RouterConfig(vcs=6, buffer=8)
    results = {routing: simulate(dragonfly(2, 4, 2, routing), "bit-complement", 0.5, router,
                                 warmup=800, measure=1500, drain=0, seed=1)
               for routing in ("min", "ugal-hops")}
    assert results["min"].accepted == pytest.approx((8 + 8 * 0.5) / 72, rel=0.03)
    assert results["ugal-hops"].accepted > 1.4 * results["min"].accepted


@pytest.mark.parametrize("allocator", ["separable", "islip"])
def test_booksim_ugal_threshold_keeps_shallow_buffers_minimal(allocator):
    """BookSim's UGAL goes non-minimal only when q_min > 2 q_nonmin + 30 flits: with 3 VCs
    x 8 flits an output holds at most 24 flits, so no packet diverts and bit-complement
    (group G to group 8 - G) accepts what MIN accepts; with 64-flit VCs the queues pass the
    threshold and UGAL spreads the traffic over other groups' links."""
    stages = {} if allocator == "separable" else dict(
        routing_delay=1, vc_alloc_delay=1, switch_alloc_delay=1, switch_traversal_delay=1)
    accepted = {}
    for buffer in (8, 64):
        router = RouterConfig(vcs=3, buffer=buffer, allocator=allocator, **stages)
        for routing in ("min", "ugal"):
            accepted[routing, buffer] = simulate(
                dragonfly(2, 4, 2, routing), "bit-complement", 0.5, router, warmup=1500,
                measure=2000, drain=0, seed=2).accepted
    assert accepted["ugal", 8] == pytest.approx(accepted["min", 8], rel=0.02)
    assert accepted["ugal", 64] > 1.3 * accepted["min", 64]


@pytest.mark.parametrize("wiring", ["relative", "absolute"])
def test_dragonfly_global_wiring_one_link_per_group_pair(wiring):
    """DF(2,4,2): 9 groups; group G's global slot s (router 4G + s // 2) reaches group
    (G + s + 1) mod 9 (relative) or s, s + 1 from s = G on (absolute, BookSim's); every
    group pair is joined once; the global links are the ones flagged for the global
    delay."""
    net = dragonfly(2, 4, 2, "min", wiring)
    a, h, g = 4, 2, 9
    seen = set()
    for G in range(g):
        for s in range(a * h):
            D = (G + s + 1) % g if wiring == "relative" else (s if s < G else s + 1)
            r = G * a + s // h
            ports = [p for p in range(net.network_ports)
                     if net.neighbour[r, p] >= 0 and net.neighbour[r, p] // a == D]
            assert len(ports) == 1 and net.link_class[r, ports[0]] == 1
            seen.add((min(G, D), max(G, D)))
    assert len(seen) == g * (g - 1) // 2
    assert int(net.link_class.sum()) == g * (g - 1)


def test_dragonfly_phase_classes_drain_with_one_vc_per_class(deliveries):
    """MIN with BookSim's phases needs 2 VCs (VC 0 before the global hop, VC 1 after);
    UGAL 3. With one VC per class, wormhole packets past saturation still drain, and fewer
    VCs than classes are refused."""
    for routing, vcs in (("min", 2), ("ugal", 3)):
        sim = Simulation(dragonfly(2, 4, 2, routing), RouterConfig(vcs=vcs, buffer=2,
                                                                   packet_flits=3),
                         "uniform", 1.0, seed=5)
        assert min(deliveries(sim, 1, 600)) > 0
        sim.run_until_empty()
        with pytest.raises(InputError, match=f"needs at least {vcs} VCs"):
            Simulation(dragonfly(2, 4, 2, routing), RouterConfig(vcs=vcs - 1), "uniform", 0.1)


def test_global_link_delay_sets_each_packets_zero_load_latency(drain_and_trace):
    """Local links 3 cycles, global links 20: a packet between groups crosses exactly one
    global link under MIN, so its zero-load latency is 2 + (H+1) + 3 (H-1) + 20 (separable
    router, 1-cycle stages); within a group 2 + (H+1) + 3H. Every packet is at or above
    its bound, and some meet it."""
    net = dragonfly(2, 4, 2, "min")
    router = RouterConfig(vcs=2, link_delay=3, global_link_delay=20)
    sim = Simulation(net, router, "uniform", 0.05, seed=3, trace=True)
    _, src, dst, _, _, latency = drain_and_trace(sim, 1500)
    hops = net.hops(src, dst)
    between = (src // 8) != (dst // 8)
    bound = 2 + (hops + 1) + 3 * hops + np.where(between, 20 - 3, 0)
    assert np.all(latency >= bound)
    assert np.any((latency == bound) & between) and np.any((latency == bound) & ~between)


def test_nonminimal_dragonfly_drains_past_saturation(deliveries):
    for routing in ("valiant", "ugal-hops"):
        sim = Simulation(dragonfly(1, 4, 2, routing), RouterConfig(vcs=6, buffer=2,
                                                                   packet_flits=2),
                         "uniform", 1.0, seed=4)
        assert min(deliveries(sim, 1, 500)) > 0
        sim.run_until_empty()


def test_network_from_spec():
    assert network_from_spec("fattree:k=4,n=3").name == "fattree:k=4,n=3"
    clos = network_from_spec("clos:radix=8,levels=2")       # FT(4, 2): 3 x 4 routers
    assert (clos.name, clos.routers, clos.endpoints) == ("clos:radix=8,levels=2", 12, 32)
    single = network_from_spec("fattree:k=3,n=1")
    assert (single.routers, single.endpoints) == (1, 6)
    tree = network_from_spec("xgft:m=4x4x4,w=1x4x4", "dmodk")   # the 4-ary 3-tree
    assert (tree.routers, tree.endpoints, tree.routing) == (48, 64, "dmodk")
    assert network_from_spec("dragonfly:p=2,a=4,h=2", routing="ugal").nonminimal == 3
    assert network_from_spec("dragonfly:p=2,a=4,h=2", routing="ugal-hops").nonminimal == 2
    assert "absolute" in network_from_spec("dragonfly:p=2,a=4,h=2", wiring="absolute").name
    assert network_from_spec("slimfly:q=5").routers == 50
    assert network_from_spec("torus:4x4").routers == 16
    assert network_from_spec("hypercube:3").radices == (2, 2, 2)


@pytest.mark.parametrize("spec,routing,message", [
    ("torus:4x4", "ugal", "does not exist for torus"),
    ("dragonfly:p=2,a=4,h=2", "nca", "does not exist for dragonfly"),
    ("fattree:k=4,n=3", "nca", "choose from random, dmodk"),
    ("xgft:m=4x4,w=2x4", None, "w1 = p1 = 1"),
    ("xgft:m=4x4,w=1", None, "one value per level"),
    ("xgft:m=4x0,w=1x4", None, ">= 1"),
    ("xgft:m=4,q=1", None, "takes m, w"),
    ("butterfly:k=2", None, "no 'butterfly' topology"),
    ("fattree:k=4", None, "takes k, n"),
    ("clos:radix=7,levels=2", None, "even radix"),
    ("slimfly:q=7", None, "primes q = 4w"),
    ("dragonfly:p=2,a=x,h=2", None, "cannot read"),
    ("dragonfly:p=8,a=32,h=16", None, "limited to 4,096"),
    ("slimfly:q=53", None, "MiB"),
])
def test_network_from_spec_bad_input(spec, routing, message):
    with pytest.raises(InputError, match=message):
        network_from_spec(spec, routing=routing)
