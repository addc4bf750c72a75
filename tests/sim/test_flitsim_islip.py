"""The iSLIP router (BookSim2's iq router, icnperf/sim/kernel.py) and the link timing both
routers share: zero-load latency per packet against the hand-derived BookSim pipeline,
credits crossing each link with its delay (a hand-derived credit loop), internal speedup,
conservation, determinism and the router options' errors. Expected values are derived in
each test's docstring from the channel and stage rules, not read from the simulator."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.sim import (
    GridNetwork,
    RouterConfig,
    Simulation,
    dragonfly,
    network_from_spec,
    simulate,
    xgft,
)
from icnperf.sim.presets import ROUTER_PRESETS, router_settings

STAGES = dict(routing_delay=1, vc_alloc_delay=1, switch_alloc_delay=1, switch_traversal_delay=1)


def islip(**kwargs) -> RouterConfig:
    return RouterConfig(**{**STAGES, "allocator": "islip", **kwargs})


@pytest.mark.parametrize("flits,link", [(1, 2), (4, 1), (3, 5)])
def test_zero_load_latency_is_booksims_pipeline(flits, link, drain_and_trace):
    """A flit sent in cycle c over a channel of latency L arrives at c + L + 1; a head
    arriving at a is routed at a, VC-allocated at a+1, switch-allocated (leaves the buffer)
    at a+2 and sent at a+3. So a packet created at t0 (and injected at once) reaches its
    first router at t0 + 2, each router adds 3 + L + 1 to the next, and the last delivers
    at a + 3 + 1 + 1: T0 = 3 + 4R + (R-1)L + (flits-1) with R = hops + 1 routers
    (BookSim2's README: 3 + 4R + channel latencies). Every packet is at or above it; some
    meet it."""
    net = GridNetwork((4, 4))
    router = islip(vcs=4, link_delay=link, packet_flits=flits)
    _, src, dst, _, _, latency = drain_and_trace(
        Simulation(net, router, "uniform", 0.05, seed=2, trace=True), 1500)
    hops = net.hops(src, dst)
    bound = 3 + 4 * (hops + 1) + hops * link + flits - 1
    assert np.all(latency >= bound)
    assert np.any(latency == bound)
    assert router.injection_delay == 2 and RouterConfig().injection_delay == 1


def test_internal_speedup_two_halves_the_router_stages(drain_and_trace):
    """Speedup 2: two internal steps per cycle, each stage one step. A head arriving at a
    (steps 2a, 2a+1) is routed at step 2a, VC-allocated at 2a+1, leaves the buffer at step
    2a+2 (cycle a+1), crosses the switch at step 2a+3 (cycle a+1) and is sent then: the next
    router sees it at a + 1 + L + 1. T0 = 2 + (R-1)(2 + L) + 3 = 3 + 2R + (R-1)L."""
    net = GridNetwork((4, 4))
    router = islip(vcs=4, link_delay=2, internal_speedup=2.0)
    _, src, dst, _, _, latency = drain_and_trace(
        Simulation(net, router, "uniform", 0.05, seed=3, trace=True), 1500)
    hops = net.hops(src, dst)
    bound = 3 + 2 * (hops + 1) + 2 * hops
    assert np.all(latency >= bound) and np.any(latency == bound)


@pytest.mark.parametrize("allocator,expected", [("islip", 4 / 25), ("separable", 4 / 21)])
def test_credits_cross_the_link_with_its_delay(allocator, expected):
    """Two routers joined by a 10-cycle link, one VC of 4 flits, endpoint 0 sending to
    endpoint 1 and back at full rate: each buffer slot is reused once per credit loop.
    iSLIP router: the flit leaves the upstream buffer at x, is sent at x+1, arrives at
    x + 12, is routed, VC-allocated at x + 13 and leaves at x + 14; its credit is sent then
    and arrives upstream at x + 25: 4 flits per 25 cycles. Separable router (the whole
    router delay in switch allocation): leaves at x, arrives at x + 10, VC at x + 10,
    leaves at x + 11, credit back at x + 21: 4 per 21."""
    stages = STAGES if allocator == "islip" else {}
    router = RouterConfig(vcs=1, buffer=4, link_delay=10, allocator=allocator, **stages)
    result = simulate(GridNetwork((2,), wrap=False), "bit-complement", 1.0, router,
                      warmup=2000, measure=10_000, drain=0, seed=1)
    assert result.accepted == pytest.approx(expected, rel=0.002)


@pytest.mark.parametrize("network,router,traffic", [
    (GridNetwork((4, 4)), islip(vcs=4, buffer=4), "uniform"),
    (GridNetwork((6, 5)), islip(vcs=2, buffer=2, dateline="dimension", ring_ties="random",
                                packet_flits=3), "tornado"),
    (GridNetwork((4, 3), wrap=False), islip(vcs=2, buffer=3, internal_speedup=1.5),
     "uniform"),
    (GridNetwork((4, 4)), islip(vcs=4, buffer=4, internal_speedup=2.0, packet_flits=4),
     "uniform"),
    (GridNetwork((4, 4)), islip(vcs=2, buffer=4, internal_speedup=0.5), "bit-complement"),
    (dragonfly(2, 4, 2, "ugal", "absolute"), islip(vcs=3, buffer=16, link_delay=3,
                                                   global_link_delay=9), "uniform"),
    (xgft((4, 4, 4), (1, 4, 4), routing="random"), islip(vcs=2, buffer=4, packet_flits=2),
     "uniform"),
])
def test_every_flit_delivered_once_and_every_credit_returns(network, router, traffic,
                                                            deliveries, drain_and_trace):
    """Past saturation the network fills, keeps delivering, and drains; afterwards every
    buffer is empty and every credit (injection, router and ejection VCs) is home."""
    sim = Simulation(network, router, traffic, 1.0, seed=6, trace=True)
    delivered = deliveries(sim, 3, 300)
    assert min(delivered) > 0, delivered
    trace = drain_and_trace(sim)
    assert np.array_equal(np.sort(trace.packet), np.arange(sim.injected))
    assert np.array_equal(np.sort(trace.delivered), np.arange(sim.injected))
    assert int(sim.count.sum()) == 0
    assert np.all(sim.inj_credits == router.buffer)
    assert np.all(sim.credits == router.buffer)


def test_deterministic_for_a_seed():
    router = islip(vcs=4, link_delay=2, dateline="dimension", ring_ties="random")
    runs = [simulate(GridNetwork((4, 4)), "uniform", 0.5, router, warmup=300, measure=400,
                     drain=400, seed=s).as_dict() for s in (3, 3, 4)]
    for r in runs:
        r.pop("wall_seconds")
    assert runs[0] == runs[1] and runs[0] != runs[2]


def test_random_ties_split_the_k_half_flows():
    """4x4 torus, transpose (x, y) -> (y, x): pairs two apart in a dimension are at distance
    k/2 = 2. With + ties they all turn the same way, two flows share a + channel and the
    worst flow gets at most 1/2; a fair coin sends half of them the other way."""
    results = {}
    for ties in ("plus", "random"):
        results[ties] = simulate(GridNetwork((4, 4)), "transpose", 1.0,
                                 RouterConfig(vcs=4, ring_ties=ties, arbiter="age"),
                                 warmup=1000, measure=3000, drain=0, seed=1).accepted_min
    assert results["plus"] <= 0.5 + 1e-9
    assert results["random"] > 0.53


def test_booksim_preset_and_overrides():
    """--router booksim: 4 VCs x 8 flits, 1-cycle stages, iSLIP, BookSim's torus classes and
    ties; explicit options win."""
    preset = ROUTER_PRESETS["booksim"]
    assert (preset["vcs"], preset["buffer"], preset["allocator"]) == (4, 8, "islip")
    config = RouterConfig(**router_settings("booksim", vcs=16, link_delay=2))
    assert (config.vcs, config.link_delay, config.stages) == (16, 2, (1, 1, 1, 1))
    assert (config.dateline, config.ring_ties, config.internal_speedup) == (
        "dimension", "random", 1.0)
    assert config.global_delay == 2
    assert RouterConfig(**router_settings("booksim", global_link_delay=100)).global_delay == 100


@pytest.mark.parametrize("kwargs,message", [
    ({"allocator": "islip"}, "needs VC allocation, switch allocation and switch traversal"),
    ({**STAGES, "allocator": "islip", "arbiter": "age"}, "round-robin only"),
    ({"internal_speedup": 2.0}, "needs the islip router"),
    ({**STAGES, "allocator": "islip", "internal_speedup": 0.0}, "internal speedup"),
    ({**STAGES, "allocator": "islip", "internal_speedup": 9.0}, "internal speedup"),
    ({"allocator": "wavefront"}, "unknown allocator"),
    ({"dateline": "wrap"}, "unknown dateline rule"),
    ({"ring_ties": "minus"}, "unknown ring tie rule"),
    ({"global_link_delay": 0}, "global link delay"),
])
def test_bad_router_options(kwargs, message):
    with pytest.raises(InputError, match=message):
        RouterConfig(**kwargs).check(GridNetwork((4, 4)))


def test_wiring_only_for_dragonflies():
    with pytest.raises(InputError, match="applies to dragonflies"):
        network_from_spec("torus:4x4", wiring="absolute")
    with pytest.raises(InputError, match="unknown dragonfly global wiring"):
        network_from_spec("dragonfly:p=2,a=4,h=2", wiring="palmtree")


def test_refuses_oversized_runs_with_the_islip_router_state_counted():
    """The estimate counts the iSLIP router's pointers and, with internal speedup, its
    output and credit queues: the same torus needs more memory with them."""
    from icnperf.sim import estimate_memory

    net = GridNetwork((64, 64, 64))
    plain = estimate_memory(net, RouterConfig(vcs=8, buffer=64))
    queued = estimate_memory(net, islip(vcs=8, buffer=64, internal_speedup=2.0))
    assert queued > plain > 2 * 1024**3
    with pytest.raises(InputError, match="MiB"):
        Simulation(net, islip(vcs=8, buffer=64, internal_speedup=2.0), "uniform", 0.1)


def test_saturation_is_the_largest_accepted_rate_of_stable_runs():
    """The credit-limited pair of routers above (separable router: 4 flits per 21 cycles
    per direction, 0.1905). Loads a little past the cap can pass the stability test in a
    short window (queues grow slowly), but what they accept is the cap, so the estimate is
    4/21 either way; loads far past it fail the test; the search stays within its halving
    budget (the overload run, then about log2(100) more)."""
    from icnperf.sim import saturation

    router = RouterConfig(vcs=1, buffer=4, link_delay=10)
    found = saturation(GridNetwork((2,), wrap=False), "bit-complement", router,
                       warmup=1000, measure=4000, drain=2000, seed=1)
    assert found.throughput == pytest.approx(4 / 21, rel=0.005)
    assert 0.18 <= found.stable_rate < 0.3
    assert len(found.runs) <= 8
    assert found.runs[0][0] == 1.0 and not found.runs[0][2]
    stable = [result.accepted for rate, result, ok in found.runs if ok]
    assert found.throughput == max(stable + [found.runs[0][1].accepted])
    with pytest.raises(InputError, match="step"):
        saturation(GridNetwork((2,), wrap=False), "uniform", router, step=0.0)
