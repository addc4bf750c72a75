"""Fat tree, dragonfly and slim fly in the flit simulator: structure checked by a BFS written
here, zero-load latency against hop counts, UGAL against MIN on an adversarial pattern."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.sim import RouterConfig, Simulation, simulate
from icnperf.sim.topologies import (
    dragonfly,
    fat_tree,
    network_from_spec,
    slim_fly,
)
from flitsim_helpers import bfs_hops, zero_load


def _bfs(net) -> np.ndarray:
    """Router-to-router hop counts from the network's neighbour table."""
    return bfs_hops([[int(v) for v in row if v >= 0] for row in net.neighbour])


def _latencies(sim: Simulation, cycles: int):
    sim.run(cycles)
    sim.run_until_empty()
    pid, src, dst, birth = (np.concatenate(x) for x in zip(*sim.injected_log))
    epid, when, _ = (np.concatenate(x) for x in zip(*sim.ejected_log))
    assert np.array_equal(np.sort(epid), np.arange(sim.injected))
    latency = np.empty(len(pid), dtype=np.int64)
    latency[epid] = when
    return src, dst, latency[pid] - birth



def test_fat_tree_routes_are_shortest_and_zero_load_matches_bfs():
    """NUDT FT(4, 3): (2n-1)k^(n-1) = 80 routers, 2k^n = 128 endpoints on 32 leaves; NCA
    routes between leaves are 2 x (level of the nearest common ancestor - 1) long, which
    is the BFS distance; every packet's latency is >= the closed form at that distance,
    equal for some."""
    net = fat_tree(4, 3)
    assert (net.routers, net.endpoints) == (80, 128)
    assert np.array_equal(np.flatnonzero(net.per_router), np.arange(32))
    dist = _bfs(net)
    leaves = np.arange(32)
    assert np.array_equal(net.route_hops[np.ix_(leaves, leaves)], dist[np.ix_(leaves, leaves)])
    assert dist[0, 1] == 2 and dist[0, 4] == 4 and dist[0, 15] == 4
    router = RouterConfig(packet_flits=2)
    sim = Simulation(net, router, "uniform", 0.1, seed=1, trace=True)
    src, dst, latency = _latencies(sim, 600)
    bound = zero_load(dist[net.endpoint_router[src], net.endpoint_router[dst]], router)
    assert np.all(latency >= bound) and np.any(latency == bound)


def test_slim_fly_q5_is_hoffman_singleton_and_zero_load_matches_bfs():
    """MMS graph for q = 5: 50 routers of degree 7, diameter 2 (the Hoffman-Singleton graph)."""
    net = slim_fly(5)
    dist = _bfs(net)
    degree = (net.neighbour[:, :net.network_ports] >= 0).sum(axis=1)
    assert net.routers == 50 and np.all(degree == 7) and dist.max() == 2
    assert np.array_equal(net.route_hops, dist)
    router = RouterConfig(vcs=2)
    sim = Simulation(net, router, "uniform", 0.1, seed=2, trace=True)
    src, dst, latency = _latencies(sim, 300)
    bound = zero_load(dist[net.endpoint_router[src], net.endpoint_router[dst]], router)
    assert np.all(latency >= bound) and np.any(latency == bound)


def test_dragonfly_min_routes_local_global_local():
    """DF(2,4,2): 9 groups of 4 routers; MIN crosses at most 3 channels (never fewer than
    the BFS distance) and takes the direct global link between two groups."""
    net = dragonfly(2, 4, 2)
    dist = _bfs(net)
    assert net.routers == 36 and dist.max() == 3
    assert np.all(net.route_hops >= dist) and net.route_hops.max() == 3
    group = np.arange(36) // 4
    same = group[:, None] == group[None, :]
    assert np.all(net.route_hops[same & (dist == 1)] == 1)
    router = RouterConfig(vcs=3)
    sim = Simulation(net, router, "uniform", 0.1, seed=3, trace=True)
    src, dst, latency = _latencies(sim, 400)
    bound = zero_load(net.hops(src, dst), router)
    assert np.all(latency >= bound) and np.any(latency == bound)


def test_ugal_beats_min_on_a_dragonfly_under_adversarial_traffic():
    """Bit-complement on DF(2,4,2) sends all of group G to group 8-G (group 4 to itself).
    MIN: the one link from G to 8-G carries 8 endpoints' flits, so 64 endpoints share 8
    flits/cycle and group 4's 8 endpoints get their offered rate r: accepted per endpoint
    <= (8 + 8 r) / 72 = 0.1667 at r = 0.5. UGAL-L spreads over other groups' links."""
    router = RouterConfig(vcs=6, buffer=8)
    results = {routing: simulate(dragonfly(2, 4, 2, routing), "bit-complement", 0.5, router,
                                 warmup=800, measure=1500, drain=0, seed=1)
               for routing in ("min", "ugal")}
    assert results["min"].accepted == pytest.approx((8 + 8 * 0.5) / 72, rel=0.03)
    assert results["ugal"].accepted > 1.4 * results["min"].accepted


def test_nonminimal_dragonfly_drains_past_saturation():
    for routing in ("valiant", "ugal"):
        sim = Simulation(dragonfly(1, 4, 2, routing), RouterConfig(vcs=6, buffer=2,
                                                                   packet_flits=2),
                         "uniform", 1.0, seed=4)
        before = sim.ejected
        sim.run(500)
        assert sim.ejected > before
        sim.run_until_empty()


def test_network_from_spec():
    assert network_from_spec("fattree:k=4,n=3").name == "fattree:k=4,n=3"
    clos = network_from_spec("clos:radix=8,levels=2")       # FT(4, 2): 3 x 4 routers
    assert (clos.name, clos.routers, clos.endpoints) == ("clos:radix=8,levels=2", 12, 32)
    single = network_from_spec("fattree:k=3,n=1")
    assert (single.routers, single.endpoints) == (1, 6)
    assert network_from_spec("dragonfly:p=2,a=4,h=2", routing="ugal").nonminimal == 2
    assert network_from_spec("slimfly:q=5").routers == 50
    assert network_from_spec("torus:4x4").routers == 16
    assert network_from_spec("hypercube:3").radices == (2, 2, 2)


@pytest.mark.parametrize("spec,routing,message", [
    ("torus:4x4", "ugal", "does not exist for torus"),
    ("dragonfly:p=2,a=4,h=2", "nca", "does not exist for dragonfly"),
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
