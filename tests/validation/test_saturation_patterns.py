"""One pattern at a time: the saturation estimate's permutation mechanisms against the flit
simulator (the laboratory), saturation taken as BookSim takes it (sim.runs.saturation: the
larger of the stable runs' accepted rate and the overload run's at offered load 1, loads on
a 0.02 grid).

* **Overload accepted rate** (max-min fair flows over their DOR routes): a transpose's
  diagonal sends to itself and flows clear of the busiest channels keep their rate, so the
  overload run's mean passes the stable rate (and the channel-load bound).
* **Input-port conflicts**: where a FIFO input's flows split between busy outputs (tornado
  on a ring of 8: each router's through input turns one flow of three into the next
  dimension), its heads wait out other inputs' heads, round-robin arbitration losing half
  the conflicts and the age arbiter letting the through input win over the injection.
* **Random paths**: a fat tree's random up ports meet at outputs at random under a
  permutation as under uniform traffic, so the allocator terms stay (E < 1).

Each case checks the estimate within 15 % (issue #32's band; the simulator's run-to-run
spread over these windows is a few %) and that the mechanism is what brings it there: the
estimate without it is outside the band. Small networks and 1,500-cycle windows (the
windows of test_saturation_knobs.py) keep each case under a few seconds.
"""

from __future__ import annotations

import pytest

from icnperf.model.topology.saturation import fixed_paths, saturation_of
from icnperf.model.topology.spec import parse_spec
from icnperf.sim import RouterConfig, network_from_spec, saturation
from icnperf.sim.presets import router_settings
from icnperf.validation.closed_forms import predictions, queueing_latency, router_model

BAND = 0.15
WINDOWS = {"warmup": 1_500, "measure": 1_500, "drain": 1_500, "seed": 0}


def _case(spec: str, pattern: str, preset: str = "booksim", routing: str | None = None,
          **knobs):
    """(simulated saturation, the model's predictions) of one network and pattern."""
    router = RouterConfig(**router_settings(preset, **knobs))
    network = network_from_spec(spec, routing)
    simulated = saturation(network, pattern, router, step=0.02, **WINDOWS).throughput
    model = predictions(parse_spec(spec), routing or "dor", network, pattern, router, 0)
    return simulated, model, router, network


def _stable_only(spec: str, pattern: str, router, model, routing=None) -> float:
    """The estimate without the overload mechanism (no destinations)."""
    parsed = parse_spec(spec)
    return float(saturation_of(parsed.family.name, parsed.params, parsed.evaluate(), pattern,
                               router_model(router), routing=routing,
                               gamma=model["gamma_max"], hops=model["mean_hops"],
                               ejection=model["ejection_load"])["saturation_estimate"])


@pytest.mark.parametrize("spec,preset", [("mesh:4x4", "booksim"), ("torus:4x4", "booksim"),
                                         ("mesh:8x8", "booksim")])
def test_transpose_overload_accepted_rate(spec, preset):
    """Transpose: the stable estimate sits at or under the bound; the simulator's
    saturation is the overload run's mean (mesh 4x4: 0.63 against a bound of 0.33)."""
    simulated, model, router, _ = _case(spec, "transpose", preset)
    assert model["saturation_estimate"] == pytest.approx(simulated, rel=BAND)
    stable = _stable_only(spec, "transpose", router, model)
    assert stable < (1 - BAND) * simulated  # without the mechanism it misses
    # the queueing latency saturates at the stable estimate, not the overload rate
    assert model["stable_saturation_estimate"] == pytest.approx(stable, rel=1e-5)
    between = (stable + model["saturation_estimate"]) / 2
    assert queueing_latency(between, model, 1) == float("inf")
    assert simulated > model["saturation_bound"] or spec == "torus:4x4"


def test_symmetric_permutation_keeps_the_stable_estimate():
    """Tornado on the 4x4 torus: every flow crosses equally loaded channels, the overload
    mean equals the stable rate, 2 VCs x 1/3 flit per cycle = 0.667 (the simulator: 0.667)."""
    simulated, model, router, _ = _case("torus:4x4", "tornado")
    assert model["saturation_estimate"] == pytest.approx(2 / 3, rel=1e-9)
    assert simulated == pytest.approx(2 / 3, rel=0.03)


@pytest.mark.parametrize("spec,pattern,preset,knobs,needed", [
    ("mesh:8x8", "tornado", "booksim", {}, True),
    ("torus:8x8", "tornado", "booksim", {"vcs": 8}, True),
    ("torus:8x8", "bit-complement", "booksim", {"vcs": 8}, True),
    ("mesh:8x8", "tornado", "default", {"arbiter": "age"}, False)])
def test_input_port_conflicts(spec, pattern, preset, knobs, needed):
    """The stable runs end at the input-port ceiling (tornado, 8x8 mesh: simulator 0.26,
    ceiling 0.27) where the channel and VC ceilings alone said 0.333 (+27 %); with the age
    arbiter the ceiling is 0.295 against 0.307, where 0.333 was within the band too."""
    simulated, model, router, _ = _case(spec, pattern, preset, **knobs)
    assert model["saturation_estimate"] == pytest.approx(simulated, rel=BAND)
    without = _stable_only(spec, pattern, router, model)
    if needed:  # without the mechanism it misses
        assert without > (1 + BAND) * simulated


def test_the_arbiter_moves_the_input_port_ceiling_as_the_simulator():
    """Tornado on the 8x8 mesh, default router: oldest-first lets the through input win
    its conflicts with the injection port; the simulator 0.307 against round-robin's 0.261
    (+18 %), the estimate 0.295 against 0.272."""
    age, model_age, _, _ = _case("mesh:8x8", "tornado", "default", arbiter="age")
    rr, model_rr, _, _ = _case("mesh:8x8", "tornado", "default", arbiter="round-robin")
    assert age > 1.1 * rr
    assert model_age["saturation_estimate"] > 1.05 * model_rr["saturation_estimate"]
    assert model_rr["saturation_estimate"] == pytest.approx(rr, rel=BAND)


@pytest.mark.parametrize("pattern", ["permutation", "bit-complement"])
def test_dragonfly_min_permutation_overload_accepted_rate(pattern):
    """DF(2, 4, 2), MIN, 2 VCs (one per phase class): the stable runs end near the
    estimate's 0.083 (seeded permutation), but the overload run's mean is the simulator's
    figure (0.22): flows on lightly loaded global links keep their rate."""
    spec = "dragonfly:p=2,a=4,h=2"
    simulated, model, router, _ = _case(spec, pattern, routing="min", vcs=2)
    assert model["saturation_estimate"] == pytest.approx(simulated, rel=BAND)
    stable = _stable_only(spec, pattern, router, model, routing="min")
    assert stable < (1 - BAND) * simulated


@pytest.mark.slow
def test_random_up_ports_keep_allocator_conflicts_under_a_permutation():
    """A seeded permutation on the k-ary 3-tree with random up ports: the simulator 0.67,
    like uniform traffic (0.67); the fixed-path premise (E = 1) would say 1.0."""
    spec = "xgft:m=4x4x4,w=1x4x4"
    simulated, model, router, _ = _case(spec, "permutation", routing="random")
    assert not fixed_paths("xgft", "permutation", "random")
    assert model["saturation_estimate"] == pytest.approx(simulated, rel=BAND)
    assert fixed_paths("xgft", "permutation", "dmodk")
    assert _stable_only(spec, "permutation", router, model, routing="dmodk") == 1.0
