"""``--production`` on predict p2p and predict app, and the presets' cited production
values (issue #31, item 4): cases worked by hand."""

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

import icnperf
from icnperf.cli import cli
from icnperf.data.machine import load_machine

# hypothetical noise (not a machine's): f t >> 1 for any message, so every message is hit
ALWAYS = ["production.noise_frequency=1GHz", "production.noise_duration=10us"]


def _run(*args):
    return CliRunner().invoke(cli, list(args))


# --- the presets' cited values -------------------------------------------------------------

def test_k_computer_noise_spans_the_bound_its_source_states():
    """Mynavi News 2011 on K's Linux: detours at intervals of 200 ms or more, each 50 us or
    less. The preset's spread must cover exactly 0-5 Hz and 0-50 us."""
    k = load_machine("k-computer")
    frequency, duration = (k.production["noise_frequency"], k.production["noise_duration"])
    f_spread = k.spread("production.noise_frequency")
    d_spread = k.spread("production.noise_duration")
    assert f_spread.form == d_spread.form == "absolute"
    assert frequency + f_spread.amount == pytest.approx(1 / 0.200)   # 5 Hz: 200 ms apart
    assert frequency - f_spread.amount == pytest.approx(0.0)
    assert duration + d_spread.amount == pytest.approx(50e-6)
    assert duration - d_spread.amount == pytest.approx(0.0)
    assert "Mynavi" in k.source("production.noise_frequency")


def test_fugaku_noise_is_transferred_from_k_with_its_reason():
    fugaku = load_machine("fugaku")
    for key in ("noise_frequency", "noise_duration"):
        assert fugaku.spread(f"production.{key}").kind == "transferred"
        assert "k-computer" in fugaku.source(f"production.{key}")
    assert fugaku.production == load_machine("k-computer").production


def test_k_noise_on_a_whole_machine_barrier_by_hand():
    """A 16-step recursive-doubling all-reduce over 65,536 K nodes at the preset's values:
    q = 1 - exp(-P f t) with f = 2.5 Hz, t the mean step length from the empty time."""
    result = icnperf.predict_collective("k-computer", "allreduce", nodes=65536, bytes=8,
                                        algorithm="recursive-doubling", production=True)
    row = result.rows[0]
    t = row["empty_time_s"] / 16
    q = 1 - math.exp(-65536 * 2.5 * t)
    assert row["production_steps"] == 16
    assert row["noise_hit_probability"] == pytest.approx(q, rel=1e-9)
    # the delayed steps are Binomial(16, q), q about 0.2 here: its quantiles (SciPy, an
    # independent oracle) in 25-us detours
    from scipy.stats import binom

    for field, quantile in (("time_s_low", 0.05), ("time_s", 0.5), ("time_s_high", 0.95)):
        count = binom.ppf(quantile, 16, q)
        assert row[field] == pytest.approx(row["empty_time_s"] + count * 25e-6)
    assert row["time_s"] > row["empty_time_s"]


# --- predict p2p --production ---------------------------------------------------------------

def test_p2p_production_adds_one_detour_when_every_message_is_hit():
    plain = icnperf.predict_p2p("angara-3d", bytes=[8, 4096]).rows
    busy = icnperf.predict_p2p("angara-3d", bytes=[8, 4096], set=ALWAYS, production=True).rows
    for p, b in zip(plain, busy):
        assert b["empty_latency_s"] == pytest.approx(p["latency_s"])
        assert b["latency_s"] == pytest.approx(p["latency_s"] + 10e-6)
        assert b["latency_s_low"] == b["latency_s_high"] == b["latency_s"]
        assert b["bandwidth_Bps"] == pytest.approx(b["bytes"] / b["latency_s"])


def test_p2p_production_noise_quantiles_by_hand():
    """f chosen so that q = 1 - exp(-2 f t) = 30 % for the 8-byte message: the median and
    the 5th percentile are the empty latency, the 95th one detour (20 us) more."""
    t = icnperf.predict_p2p("angara-3d", bytes=8).rows[0]["latency_s"]
    f = -math.log(0.7) / (2 * t)
    row = icnperf.predict_p2p("angara-3d", bytes=8, production=True,
                              set=[f"production.noise_frequency={f!r}Hz",
                                   "production.noise_duration=20us"]).rows[0]
    assert row["latency_s"] == pytest.approx(t)
    assert row["latency_s_low"] == pytest.approx(t)
    assert row["latency_s_high"] == pytest.approx(t + 20e-6)


def test_p2p_production_background_is_the_load_it_converts_to():
    """Utilisation u of the busiest channel = offered load u x lambda_sat (the saturation
    estimate of uniform traffic): the queueing equals --load at that load."""
    from icnperf.model.production import _saturation

    machine = load_machine("angara-3d")
    load = 0.4 * _saturation(machine)
    by_load = icnperf.predict_p2p("angara-3d", bytes=8, load=load).rows[0]
    busy = icnperf.predict_p2p("angara-3d", bytes=8, production=True,
                               set="production.background_utilization=0.4").rows[0]
    assert busy["queueing_delay_s"] > 0
    assert busy["queueing_delay_s"] == pytest.approx(by_load["queueing_delay_s"])
    assert busy["latency_s"] == pytest.approx(by_load["latency_s"])


def test_p2p_production_with_uncertainty_point_is_the_median_of_the_seeded_draws():
    """The point is the median of (drawn latency + d x Bernoulli(q)) over the seeded draws,
    rebuilt here from the drawn machines and the same seed."""
    from icnperf.data.machine.sampling import sample_machines

    values = ["production.noise_frequency=20kHz+-50%", "production.noise_duration=5us"]
    row = icnperf.predict_p2p("lumi", bytes=8, hops=2, production=True, uncertainty=True,
                              samples=64, seed=3, set=values).rows[0]
    base = icnperf.machine("lumi", set=values)
    latencies, frequencies = [], []
    for drawn in sample_machines(base, 64, 3):
        latencies.append(icnperf.predict_p2p(drawn, bytes=8, hops=2).rows[0]["latency_s"])
        frequencies.append(drawn.production["noise_frequency"])
    latencies, frequencies = np.array(latencies), np.array(frequencies)
    q = 1 - np.exp(-2 * frequencies * latencies)
    hits = np.random.default_rng(3).binomial(1, q)
    totals = latencies + 5e-6 * hits
    assert row["latency_s"] == pytest.approx(float(np.median(totals)))
    assert row["latency_s_high"] == pytest.approx(float(np.quantile(totals, 0.95)))


def test_p2p_production_refusals_are_one_line():
    empty = _run("predict", "p2p", "--machine", "summit", "--production")
    assert empty.exit_code == 2 and "has no [production] values" in empty.output
    loaded = _run("predict", "p2p", "--machine", "fugaku", "--production", "--load", "0.1")
    assert loaded.exit_code == 2 and "drop --load" in loaded.output
    for result in (empty, loaded):
        assert "Traceback" not in result.output and result.output.count("\n") == 1


def test_p2p_production_table_shows_the_range_and_the_values():
    result = _run("predict", "p2p", "--machine", "fugaku", "--bytes", "8", "--production")
    assert result.exit_code == 0
    assert "5-95 %" in result.output
    assert "noise_frequency 2.5 Hz, noise_duration 25 µs" in result.output


# --- predict app --production ---------------------------------------------------------------

def _app(*extra):
    result = _run("predict", "app", "heat", "--machine", "angara-3d", "--nodes", "64",
                  "--steps", "3", "--algorithm", "recursive-doubling", "--format", "json",
                  *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_app_production_charges_a_detour_per_step_when_every_step_is_hit():
    """Every repeat is one step, and the all-reduce's repeats add recursive doubling's
    lg 64 = 6 steps each: 3 steps' detours on the stencil and halos, 3 x 7 on the
    all-reduce phase (q = 1 with f = 1 GHz)."""
    document = _app("--production", *sum((["--set", v] for v in ALWAYS), []))
    extra = {row["phase"]: (row["time_s"] - row["empty_time_s"]) / 10e-6
             for row in document["rows"]}
    assert extra == pytest.approx({"stencil": 3, "halo-x": 3, "halo-y": 3, "allreduce": 21})
    total = document["totals"][0]
    assert total["total_s"] == pytest.approx(total["empty_total_s"] + 30 * 10e-6)
    assert document["inputs"]["production"] == {"noise_frequency": 1e9,
                                                "noise_duration": 1e-5}


def test_app_production_point_is_the_median_of_its_draws():
    """q = 1/2 per step of the stencil phase (3 steps, one a repeat): the detours are
    Binomial(3, 1/2), none or all three with 1/8 each, so over 1000 seeded draws the 5th
    percentile is the empty time and the 95th three detours more; the median one or two
    detours (or their mean, the draws split at the middle)."""
    plain = _app()
    stencil = next(r for r in plain["rows"] if r["phase"] == "stencil")
    f = math.log(2) / (64 * stencil["time_s"] / 3)
    busy = _app("--production", "--set", f"production.noise_frequency={f!r}Hz",
                "--set", "production.noise_duration=10us")
    row = next(r for r in busy["rows"] if r["phase"] == "stencil")
    # 3 steps, q = 1/2: the count is Binomial(3, 1/2); median 1 or 2, 5 % 0, 95 % 3
    assert row["time_s_low"] == pytest.approx(stencil["time_s"])
    assert row["time_s_high"] == pytest.approx(stencil["time_s"] + 3 * 10e-6)
    assert (row["time_s"] - stencil["time_s"]) / 10e-6 in (pytest.approx(1), pytest.approx(2),
                                                           pytest.approx(1.5))


def test_app_production_refusals():
    empty = _run("predict", "app", "heat", "--machine", "angara-3d", "--nodes", "8",
                 "--production")
    assert empty.exit_code == 2 and "has no [production] values" in empty.output
    npb = _run("predict", "app", "npb-is", "--machine", "fugaku", "--production")
    assert npb.exit_code == 2 and "--production takes skeletons" in npb.output


def test_p2p_production_refuses_a_pattern_the_topology_does_not_define():
    """lumi's gdragonfly defines no transpose traffic: --production's background load under
    it is refused naming the pattern, as --load is (it said 'offered_load must be finite',
    the NaN channel load of the pattern having reached the offered load)."""
    busy = _run("predict", "p2p", "--machine", "lumi", "--bytes", "8", "--production",
                "--set", "production.background_utilization=0.2", "--set",
                "production.noise_frequency=10Hz", "--pattern", "transpose")
    loaded = _run("predict", "p2p", "--machine", "lumi", "--bytes", "8", "--load", "0.1",
                  "--pattern", "transpose")
    for result in (busy, loaded):
        assert result.exit_code == 2 and result.output.count("\n") == 1
        assert "traffic pattern 'transpose' is not defined for gdragonfly" in result.output


def test_an_unknown_pattern_is_refused_with_or_without_load():
    """--pattern was read only when a load was given: a misspelt pattern passed silently
    with --production on a machine without background_utilization, or with no --load."""
    for extra in ([], ["--production"], ["--load", "0.1"]):
        result = _run("predict", "p2p", "--machine", "fugaku", "--bytes", "8",
                      "--pattern", "uniformly", *extra)
        assert result.exit_code == 2 and result.output.count("\n") == 1, extra
        assert "'uniformly' is not one of" in result.output


def test_collective_all_leaves_out_algorithms_without_a_step_schedule():
    """k-computer (its cited [production] values) on 64 nodes: --algorithm all, the
    default, was refused whole because the point-to-point tree has no step schedule; now
    that row leaves the table with a note, the others are as when named one by one, and a
    named p2p-tree is still refused."""
    def rows(algorithm):
        result = _run("predict", "collective", "allreduce", "--machine", "k-computer",
                      "--nodes", "64", "--bytes", "8", "--production", "--algorithm",
                      algorithm, "--format", "json")
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    every = rows("all")
    names = [row["algorithm"] for row in every["rows"]]
    assert "p2p-tree" not in names and "recursive-doubling" in names
    assert any(line.startswith("p2p-tree: no step schedule") for line in every["absent"])
    assert "p2p-tree" not in every["assumptions"]
    (alone,) = rows("recursive-doubling")["rows"]
    (among,) = [row for row in every["rows"] if row["algorithm"] == "recursive-doubling"]
    for key in ("time_s", "time_s_low", "time_s_high", "empty_time_s", "production_steps"):
        assert among[key] == pytest.approx(alone[key]), key
    named = _run("predict", "collective", "allreduce", "--machine", "k-computer", "--nodes",
                 "64", "--production", "--algorithm", "p2p-tree")
    assert named.exit_code == 2 and "p2p-tree has no step schedule" in named.output


def test_collective_auto_takes_the_library_pick_under_production():
    """--algorithm auto --production looked the step schedule up under the row's label
    'auto: recursive-doubling' and was refused; the pick's row now equals the pick named."""
    def row(algorithm):
        result = _run("predict", "collective", "allreduce", "--machine", "k-computer",
                      "--nodes", "64", "--bytes", "8", "--production", "--algorithm",
                      algorithm, "--format", "json")
        assert result.exit_code == 0, result.output
        (only,) = json.loads(result.output)["rows"]
        return only

    auto, named = row("auto"), row("recursive-doubling")
    assert auto["algorithm"] == "auto: recursive-doubling"
    for key in ("time_s", "time_s_low", "time_s_high", "empty_time_s", "production_steps"):
        assert auto[key] == pytest.approx(named[key]), key
