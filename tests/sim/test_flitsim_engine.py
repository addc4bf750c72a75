"""The flit engine beyond 1-flit packets on grids: wormhole packets, pipeline stages,
table-routed networks and the added traffic patterns. Expected values come from hand
derivations (stated per test) and from a breadth-first search written here."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.sim import (
    GridNetwork,
    RouterConfig,
    Simulation,
    TableNetwork,
    simulate,
)

PETERSEN = [(i, (i + 1) % 5) for i in range(5)] + [(i, i + 5) for i in range(5)] + \
    [(5 + i, 5 + (i + 2) % 5) for i in range(5)]
from flitsim_helpers import bfs_hops, zero_load


def _bfs_hops(routers: int, links) -> np.ndarray:
    """All-pairs hop counts of a link list (independent of TableNetwork)."""
    adjacency = [[] for _ in range(routers)]
    for a, b in links:
        adjacency[a].append(b)
        adjacency[b].append(a)
    return bfs_hops(adjacency)


@pytest.mark.parametrize("router", [
    RouterConfig(packet_flits=4),
    RouterConfig(packet_flits=3, vcs=4, buffer=6, routing_delay=1, vc_alloc_delay=1,
                 switch_alloc_delay=1, switch_traversal_delay=1, link_delay=2,
                 terminal_delay=3),
    RouterConfig(packet_flits=5, routing_delay=0, vc_alloc_delay=1, switch_alloc_delay=0,
                 switch_traversal_delay=2),
])
def test_multi_flit_latency_bound_is_met_and_reached(router, drain_and_trace):
    """Each packet's latency >= the closed form for its own DOR hop count, with equality
    for some (an uncontended packet); every packet delivered once; and every flit of a
    packet crosses the same H channels, so flit-hops = L * sum(H) exactly."""
    net = GridNetwork((4, 3))
    sim = Simulation(net, router, "uniform", 0.15, seed=3, trace=True)
    trace = drain_and_trace(sim, 600)
    assert np.array_equal(np.sort(trace.delivered), np.arange(sim.injected))
    latency = trace.latency
    hops = net.hops(trace.source, trace.destination)
    bound = zero_load(hops, router)
    assert np.all(latency >= bound)
    assert np.any(latency == bound)
    assert sim.flit_hops == router.packet_flits * int(hops.sum())
    assert int(sim.count.sum()) == 0 and np.all(sim.inj_credits == router.buffer)


def test_stage_delays_add_up_to_router_delay():
    """Giving stages sets router_delay to their sum; an inconsistent explicit one is refused."""
    r = RouterConfig(routing_delay=1, vc_alloc_delay=1, switch_alloc_delay=1,
                     switch_traversal_delay=1)
    assert r.router_delay == 4 and r.stages == (1, 1, 1, 1)
    assert RouterConfig(router_delay=3).stages == (0, 0, 3, 0)
    with pytest.raises(InputError, match="sum of the stage"):
        RouterConfig(router_delay=5, switch_traversal_delay=2, switch_alloc_delay=1).check(
            GridNetwork((4, 4)))
    with pytest.raises(InputError, match="separate cycles"):
        RouterConfig(switch_traversal_delay=2).check(GridNetwork((4, 4)))


def test_multi_flit_zero_load_average_matches_closed_form(drain_and_trace):
    """8x8 torus, uniform, 4-flit packets at 0.02 flits/endpoint/cycle: the average latency
    is the closed form at the average DOR hop count of the delivered packets, within 2 %."""
    router = RouterConfig(packet_flits=4)
    net = GridNetwork((8, 8))
    sim = Simulation(net, router, "uniform", 0.02, seed=5, trace=True)
    trace = drain_and_trace(sim, 3000)
    latency = trace.latency
    assert len(latency) > 800
    predicted = zero_load(net.hops(trace.source, trace.destination).mean(), router)
    assert latency.mean() == pytest.approx(predicted, rel=0.02)


def test_no_deadlock_with_wormhole_packets_past_saturation(deliveries):
    """Long packets fill several routers' buffers at once; dateline VCs must still drain."""
    net = GridNetwork((5, 4))
    sim = Simulation(net, RouterConfig(packet_flits=6, vcs=2, buffer=3), "tornado", 1.0,
                     seed=2)
    delivered = deliveries(sim, 4, 200)
    assert min(delivered) > 0, delivered
    sim.run_until_empty()
    assert sim.in_network() == 0


def test_table_network_zero_load_uses_bfs_hops(drain_and_trace):
    """Petersen graph (diameter 2), 2 endpoints per router, shortest-path table routing:
    every packet's latency >= the closed form at the BFS distance, equal for some."""
    net = TableNetwork("petersen", 10, PETERSEN, endpoints_per_router=2, vc_classes=3)
    dist = _bfs_hops(10, PETERSEN)
    assert dist.max() == 2
    assert np.array_equal(net.route_hops, dist)
    router = RouterConfig(vcs=3, packet_flits=2)
    sim = Simulation(net, router, "uniform", 0.1, seed=4, trace=True)
    trace = drain_and_trace(sim, 800)
    assert np.array_equal(np.sort(trace.delivered), np.arange(sim.injected))
    src, dst, latency = trace.source, trace.destination, trace.latency
    bound = zero_load(dist[src // 2, dst // 2], router)
    assert np.all(latency >= bound) and np.any(latency == bound)
    assert np.any(dist[src // 2, dst // 2] == 2)


def test_table_ring_with_hop_classes_drains_past_saturation(deliveries):
    """A 6-router ring routed minimally has cyclic channel dependencies; hop-index VC
    classes (class = hops taken, diameter 3 -> 4 classes) break them."""
    links = [(i, (i + 1) % 6) for i in range(6)]
    net = TableNetwork("ring6", 6, links, endpoints_per_router=1, vc_classes=4)
    sim = Simulation(net, RouterConfig(vcs=4, buffer=2, packet_flits=2), "uniform", 1.0,
                     seed=9)
    assert min(deliveries(sim, 3, 300)) > 0
    sim.run_until_empty()


def test_table_network_bad_input():
    with pytest.raises(InputError, match="not all connected"):
        TableNetwork("split", 4, [(0, 1), (2, 3)])
    with pytest.raises(InputError, match="outside"):
        TableNetwork("bad", 3, [(0, 3)])
    with pytest.raises(InputError, match="loops"):
        TableNetwork("loop", 3, [(0, 1), (1, 2)],
                     route_table=[[-1, 0, 0], [0, -1, 0], [0, 0, -1]])
    net = TableNetwork("ring4", 4, [(i, (i + 1) % 4) for i in range(4)], vc_classes=3)
    with pytest.raises(InputError, match="at least 3 VCs"):
        simulate(net, "uniform", 0.1, RouterConfig(vcs=2), warmup=1, measure=1, drain=0)


def test_transpose_asymmetric_and_hotspot_destinations(drain_and_trace):
    """transpose on 4x4 swaps (x, y); asymmetric always crosses halves; the hotspot mix sends
    f + (1 - f) * h / N of its packets to the h hot endpoints (f = 0.3, h = 2 of 64)."""
    grid = GridNetwork((4, 4))
    sim = Simulation(grid, RouterConfig(), "transpose", 0.3, seed=1, trace=True)
    _, src, dst, *_ = drain_and_trace(sim, 100)
    assert np.array_equal(dst, (src % 4) * 4 + src // 4)

    sim = Simulation(GridNetwork((4, 4)), RouterConfig(), "asymmetric", 0.3, seed=1,
                     trace=True)
    _, src, dst, *_ = drain_and_trace(sim, 300)
    assert np.all((src < 8) != (dst < 8))
    assert len(np.unique(dst)) == 16

    sim = Simulation(GridNetwork((8, 8)), RouterConfig(), "hotspot", 0.05, seed=1,
                     trace=True, traffic_options={"hotspot_traffic": 0.3,
                                                  "hotspot_nodes": 2 / 64})
    _, src, dst, *_ = drain_and_trace(sim, 2000)
    hot = np.array([0, 1])                # the hot region: the first h endpoints
    assert np.array_equal(sim.traffic.hot, hot)
    share = np.isin(dst, hot).mean()
    expected = 0.3 + 0.7 * 2 / 64
    assert share == pytest.approx(expected, abs=4 * np.sqrt(expected / len(dst)))


def test_transpose_on_a_table_network_swaps_index_bits():
    net = TableNetwork("k4", 4, [(a, b) for a in range(4) for b in range(a + 1, 4)],
                       endpoints_per_router=4)
    sim = Simulation(net, RouterConfig(), "transpose", 0.2, seed=0)
    s = np.arange(16)
    assert np.array_equal(sim.traffic.table, (s % 4) * 4 + s // 4)


def test_deterministic_for_a_seed_with_packets_and_tables():
    net = TableNetwork("petersen", 10, PETERSEN, endpoints_per_router=2, vc_classes=3)
    router = RouterConfig(vcs=3, packet_flits=3)
    runs = [simulate(net, "hotspot", 0.3, router, warmup=200, measure=300, drain=300,
                     seed=s).as_dict() for s in (4, 4, 5)]
    for r in runs:
        r.pop("wall_seconds")
    assert runs[0] == runs[1] and runs[0] != runs[2]


def test_offered_and_accepted_count_flits():
    """Below saturation the accepted flit rate matches the offered one (rate in flits)."""
    result = simulate(GridNetwork((4, 4)), "uniform", 0.2, RouterConfig(packet_flits=4),
                      warmup=500, measure=3000, drain=2000, seed=1)
    assert not result.saturated
    assert result.offered == pytest.approx(0.2, rel=0.1)
    assert result.accepted == pytest.approx(result.offered, rel=0.05)


def test_progress_is_reported_and_long_runs_are_refused():
    seen = []
    simulate(GridNetwork((4, 4)), "uniform", 0.1, warmup=1500, measure=1000, drain=0,
             progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (1000, 2500) and seen[-1] == (2500, 2500)
    with pytest.raises(InputError, match="limited to"):
        simulate(GridNetwork((4, 4)), "uniform", 0.1, warmup=1 << 30, measure=1, drain=0)
