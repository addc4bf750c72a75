"""The flit simulator's registered cross-checks (icnperf/validation/claims/flitsim.py)."""

import json

import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.model import network
from icnperf.validation.claims import flitsim as F
from icnperf.validation.registry import all_claims, evaluate

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def results():
    return {c.id: evaluate(c) for c in F.CLAIMS}


def test_registered_as_simulation_claims():
    ids = {c.id for c in all_claims(kinds=("simulation",))}
    assert {c.id for c in F.CLAIMS} <= ids   # beside claims/booksim.py's
    assert not ids & {c.id for c in all_claims(kinds=("closed-form", "application"))}


def test_every_cross_check_holds(results):
    assert {r.status for r in results.values()} == {"pass"}


def test_ugal_wins_past_saturation_in_every_seed():
    """Group-adversarial traffic: UGAL about doubles MIN; the 10 % hot region: a small but
    consistent gain."""
    for seed in F.ROUTING_SEEDS:
        runs = {r: F.simulated(F.DRAGONFLY, "bit-complement", 1.0, r, False, seed).accepted
                for r in ("min", "ugal-hops")}
        assert runs["ugal-hops"] > 1.5 * runs["min"]
        hot = {r: F.simulated(F.DRAGONFLY, "hotspot", 1.0, r, True, seed).accepted
               for r in ("min", "ugal-hops")}
        assert hot["min"] < hot["ugal-hops"] < 1.05 * hot["min"]


def test_simulated_saturation_never_exceeds_the_channel_load_bound(results):
    for spec, pattern in F.SATURATION:
        r = results[f"flitsim-saturation-bound-{spec}-{pattern}"]
        assert r.measured <= 1.02 * r.predicted
        # permutations reach the bound; uniform traffic stays well below it
        if pattern == "uniform":
            assert r.measured < 0.85 * r.predicted
        else:
            assert r.measured == pytest.approx(r.predicted, rel=0.01)


def test_router_efficiency_is_the_8x8_uniform_calibration():
    """η = accepted / bound on the calibration case: 8x8 uniform bound 1/((8+2)/8) = 0.8."""
    assert F.bound("torus:8x8", "uniform") == pytest.approx(0.8)
    ratio = F.saturation("torus:8x8", "uniform") / 0.8
    assert network.ROUTER_EFFICIENCY == pytest.approx(ratio, abs=0.005)


def test_skip_simulation_leaves_the_cross_checks_out():
    result = CliRunner().invoke(cli, ["validate", "--skip-simulation", "--format", "json"])
    assert result.exit_code == 0, result.output
    ids = [c["id"] for c in json.loads(result.output)["checks"]]
    assert ids == [c.id for c in all_claims(kinds=("closed-form", "application"))]
    assert not any(i.startswith("flitsim-") for i in ids)
