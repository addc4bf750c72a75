"""The flit simulator: conservation, determinism, deadlock freedom, zero-load latency and the
channel-load bound (the closed forms come from model/topology/torus/, never the engine)."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.model.topology.torus import torus_metrics
from icnperf.sim import (
    GridNetwork,
    RouterConfig,
    Simulation,
    TableNetwork,
    estimate_memory,
    simulate,
)
from flitsim_helpers import zero_load


@pytest.mark.parametrize("radices,wrap,traffic,rate,arbiter", [
    ((4, 4), True, "uniform", 0.3, "round-robin"),
    ((3, 5), True, "tornado", 0.2, "round-robin"),
    ((4, 3), False, "bit-complement", 0.2, "round-robin"),
    ((2, 4, 2), True, "permutation", 0.4, "round-robin"),
    ((5, 4), True, "uniform", 0.8, "age"),
])
def test_conservation_every_injected_flit_ejected_exactly_once(radices, wrap, traffic, rate,
                                                               arbiter, drain_and_trace):
    sim = Simulation(GridNetwork(radices, wrap), RouterConfig(vcs=2, buffer=4, arbiter=arbiter),
                     traffic, rate, seed=5, trace=True)
    for _ in range(400):
        sim.step()
    trace = drain_and_trace(sim)
    assert sim.injected == len(trace.packet) > 0
    assert np.array_equal(np.sort(trace.packet), np.arange(sim.injected))
    assert np.array_equal(np.sort(trace.delivered), np.arange(sim.injected))  # once each
    assert sim.in_network() == 0
    assert int(sim.count.sum()) == 0
    # every credit came home
    assert np.all(sim.inj_credits == 4)


def test_deterministic_for_a_seed():
    net = GridNetwork((4, 4))
    runs = [simulate(net, "uniform", 0.4, warmup=200, measure=300, drain=300, seed=s)
            for s in (7, 7, 8)]
    a, b, c = (r.as_dict() for r in runs)
    for d in (a, b, c):
        d.pop("wall_seconds")
    assert a == b
    assert a != c


def test_no_deadlock_past_saturation_on_torus_with_dateline_vcs():
    net = GridNetwork((6, 5))  # even and odd rings, both with wraparound
    for traffic, arbiter in (("uniform", "round-robin"), ("tornado", "round-robin"),
                             ("tornado", "age")):
        sim = Simulation(net, RouterConfig(vcs=2, buffer=2, arbiter=arbiter), traffic, 1.0,
                         seed=1)
        delivered = []
        for _ in range(6):
            before = sim.ejected
            for _ in range(150):
                sim.step()
            delivered.append(sim.ejected - before)
        assert min(delivered) > 0.1 * net.routers * 150 * 0.1, delivered
        assert sim.in_network() > 0  # the network is full, yet progress continues
        sim.run_until_empty()


def test_latency_never_below_zero_load_bound(drain_and_trace):
    router = RouterConfig(vcs=2, buffer=3, router_delay=2, link_delay=3, terminal_delay=2)
    net = GridNetwork((5, 4))
    sim = Simulation(net, router, "uniform", 0.5, seed=2, trace=True)
    for _ in range(400):
        sim.step()
    trace = drain_and_trace(sim)
    latency = trace.latency
    bound = zero_load(net.hops(trace.source, trace.destination), router)
    assert latency.min() >= 0
    assert np.all(latency >= bound)
    assert np.any(latency == bound)


@pytest.mark.parametrize("radices", [(4, 4), (8, 8)])
def test_zero_load_latency_matches_closed_form(radices):
    router = RouterConfig()
    n = int(np.prod(radices))
    m = torus_metrics(radices)
    hops = float(m.average_distance) * (n - 1) / n  # uniform includes self
    predicted = zero_load(hops, router)
    measure = 6400 if n == 16 else 1600
    result = simulate(GridNetwork(radices), "uniform", 0.04, router, warmup=200,
                      measure=measure, drain=500, seed=11)
    assert result.packets_measured > 3500
    assert not result.saturated
    assert result.average_latency == pytest.approx(predicted, rel=0.02)


def test_accepted_throughput_under_uniform_not_above_channel_load_bound():
    radices = (8, 8)
    bound = float(min(1.0, 1.0 / torus_metrics(radices).channel_load["uniform"]))
    result = simulate(GridNetwork(radices), "uniform", 1.0, RouterConfig(vcs=2, buffer=8),
                      warmup=300, measure=600, drain=0, seed=4)
    assert result.saturated
    assert result.accepted <= 1.02 * bound
    assert result.accepted > 0.3 * bound


@pytest.mark.parametrize("kwargs,message", [
    ({"rate": 0.0}, "rate"),
    ({"rate": 1.5}, "rate"),
    ({"router": RouterConfig(vcs=0)}, "vcs"),
    ({"router": RouterConfig(buffer=0)}, "buffer"),
    ({"router": RouterConfig(vcs=1)}, "2 VCs"),
    ({"router": RouterConfig(packet_flits=0)}, "packet flits"),
    ({"router": RouterConfig(routing_delay=-1)}, "routing delay"),
    ({"router": RouterConfig(router_delay=3, switch_alloc_delay=1)}, "sum of the stage"),
    ({"traffic": "hot-spot"}, "unknown traffic"),
    ({"traffic": "transpose", "network": GridNetwork((4, 2))}, "read the same"),
    ({"traffic": "tornado", "network": TableNetwork("ring", 3, [(0, 1), (1, 2), (2, 0)])},
     "needs a torus"),
    ({"rate": True}, "rate"),
    ({"router": RouterConfig(arbiter="islip")}, "unknown arbiter"),
])
def test_bad_input(kwargs, message):
    args = {"network": GridNetwork((4, 4)), "traffic": "uniform", "rate": 0.1,
            "router": RouterConfig(), "warmup": 1, "measure": 1, "drain": 0}
    args.update(kwargs)
    with pytest.raises(InputError, match=message):
        simulate(**args)


def test_mesh_runs_with_one_vc():
    result = simulate(GridNetwork((4, 4), wrap=False), "uniform", 0.1, RouterConfig(vcs=1),
                      warmup=100, measure=200, drain=200)
    assert result.packets_measured > 0


def test_refuses_huge_runs_naming_the_estimate():
    net = GridNetwork((64, 64, 64))
    need = estimate_memory(net, RouterConfig(vcs=8, buffer=64))
    with pytest.raises(InputError, match="MiB"):
        Simulation(net, RouterConfig(vcs=8, buffer=64), "uniform", 0.1)
    assert need > 2 * 1024**3


def test_cli_simulate_traffic_prints_simulated_next_to_model():
    import json

    from click.testing import CliRunner

    from icnperf.cli import cli

    args = ["simulate", "traffic", "--topology", "torus:4x4", "--rates", "0.1,0.3",
            "--warmup", "100", "--measure", "200", "--drain", "200", "--seed", "3"]
    table = CliRunner().invoke(cli, args)
    assert table.exit_code == 0, table.output
    assert "zero-load (model)" in table.output and "saturation bound" in table.output
    result = CliRunner().invoke(cli, args + ["--format", "json"])
    doc = json.loads(result.output)
    assert doc["model"]["zero_load_latency"] == pytest.approx(7.0)  # 2 + 3*1 + 2*1, H = 2
    assert doc["model"]["saturation_bound"] == pytest.approx(1.0)   # 4x4: gamma_max 0.75
    assert [row["rate"] for row in doc["rows"]] == [0.1, 0.3]


@pytest.mark.parametrize("extra,message", [
    (["--rates", "0..0.5:0.1"], "(0, 1]"),
    (["--vcs", "0"], "vcs"),
    (["--traffic", "hot-spot"], "unknown pattern"),
    (["--topology", "torus:1000x1000x1000"], "of memory"),
])
def test_cli_bad_input_one_line_exit_2(extra, message):
    from click.testing import CliRunner

    from icnperf.cli import (
        cli,
        main,  # noqa: F401  (the console script wraps cli)
    )

    args = ["simulate", "traffic", "--topology", "torus:4x4", "--warmup", "1", "--measure",
            "1", "--drain", "0", *extra]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert message in result.output
