"""The flit simulator's registered cross-checks (icnperf/validation/claims/flitsim.py)."""

import json

import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.validation.claims import flitsim as F
from icnperf.validation.registry import all_claims, evaluate

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def results():
    return {c.id: evaluate(c) for c in F.CLAIMS}


def test_registered_as_simulation_claims():
    ids = {c.id for c in all_claims(runs=("simulation",))}
    assert {c.id for c in F.CLAIMS} <= ids   # beside claims/booksim.py's
    assert not ids & {c.id for c in all_claims(runs=("closed-form", "application"))}


def test_every_cross_check_holds_or_is_a_known_discrepancy(results):
    """The simulator's claims are not part of the default validate run; CI runs them here."""
    statuses = {r.id: r.status for r in results.values()}
    known = {"flitsim-nudt-ugal-beats-min-hotspot", "flitsim-nudt-ugal-beats-min-hotspot-2pct",
             "flitsim-nudt-ugal-min-little-difference-2pct"}
    # the saturation estimate misses the 8x8x8 torus by +15.4 % (0.551 against 0.478): an
    # open miss (claims/flitsim.py ESTIMATE_OPEN), failing only past its outer 30 % band
    missed = {"flitsim-saturation-estimate-torus:8x8x8-uniform"}
    assert statuses == {i: "known-discrepancy" if i in known else "open" if i in missed
                        else "pass" for i in statuses}
    assert [r.id for r in results.values() if r.kind == "calibrated"] == []


def test_ugal_margin_per_seed():
    """Group-adversarial traffic: UGAL about doubles MIN in every seed (pass). The 10 % hot
    region: UGAL ahead in every seed but not always by the 2 % margin (known discrepancy,
    the analysis expects >= 1). The 2 % region: the single hot endpoint's ejection caps
    both routings at 1 / (0.9 + 0.1 · 72) = 0.1235 flits/endpoint/cycle, and the ratio
    scatters around 1."""
    assert min(F.ugal_over_min("bit-complement")) > 1.5
    hot10 = F.ugal_over_min("hotspot", "10pct")
    assert all(r > 1 for r in hot10) and min(hot10) < F.MARGIN
    for seed in F.ROUTING_SEEDS:
        for routing in ("min", "ugal-hops"):
            run = F.simulated(F.DRAGONFLY, "hotspot", 1.0, routing, "2pct", seed)
            assert run.accepted == pytest.approx(1 / (0.9 + 0.1 * 72), rel=0.03)
    hot2 = F.ugal_over_min("hotspot", "2pct")
    assert min(hot2) < 1 < max(hot2)
    assert all(abs(r - 1) <= F.NOISE_2PCT for r in hot2)


def test_hotspot_bounds_by_hand():
    """72 endpoints, groups of 8; 2 %: h = 1, ejection 1/(0.9 + 7.2); 10 %: h = 7 (all in
    group 0), ejection 1/(0.9 + 0.1·72/7); MIN's link from a group into group 0 carries
    8·(0.9·8/72 + 0.1) = 1.6 per unit of offered load either way."""
    assert F.hotspot_bounds("2pct") == (1, pytest.approx(1 / 8.1), pytest.approx(1 / 1.6))
    assert F.hotspot_bounds("10pct") == (7, pytest.approx(1 / (0.9 + 7.2 / 7)),
                                         pytest.approx(1 / 1.6))


def test_hotspot_claims_state_their_readings(results):
    margin = results["flitsim-nudt-ugal-beats-min-hotspot"]
    assert (margin.measured, margin.tolerance_kind, margin.expected) == (1.02, "at-least", 1.0)
    little = results["flitsim-nudt-ugal-min-little-difference-2pct"]
    assert (little.measured, little.tolerance, little.tolerance_kind) == (1.0, 0.02, "relative")
    assert little.predicted == max(F.ugal_over_min("hotspot", "2pct"),
                                   key=lambda r: abs(r - 1))
    assert "0.123 flits/endpoint/cycle" in little.reason


def test_simulated_saturation_never_exceeds_the_channel_load_bound(results):
    for spec, pattern in F.SATURATION:
        r = results[f"flitsim-saturation-bound-{spec}-{pattern}"]
        assert r.measured <= 1.02 * r.predicted
        # permutations reach the bound; uniform traffic stays well below it
        if pattern == "uniform":
            assert r.measured < 0.85 * r.predicted
        else:
            assert r.measured == pytest.approx(r.predicted, rel=0.01)


def test_default_router_saturation_is_predicted_not_fitted():
    """The 8x8 torus, uniform, default router: 0.534 accepted at offered load 1 (the old
    eta = 0.67 calibration point) against the estimate's 0.559, within 15 % with no
    fitted value (bound 1/((8+2)/8) = 0.8)."""
    assert F.bound("torus:8x8", "uniform") == pytest.approx(0.8)
    assert F.saturation("torus:8x8", "uniform") == pytest.approx(0.534, abs=0.005)
    assert F.saturation_estimate("torus:8x8") == pytest.approx(0.534, rel=0.15)


def test_simulation_flag_runs_the_cross_checks():
    result = CliRunner().invoke(cli, ["validate", "--simulation", "--only", "flitsim-zero-load-*",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    ids = [c["id"] for c in json.loads(result.output)["checks"]]
    assert ids == [c.id for c in F.CLAIMS if c.id.startswith("flitsim-zero-load-")]
