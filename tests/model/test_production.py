"""Production effects (model/production.py), cases worked by hand."""

import math

import numpy as np
import pytest

from icnperf.model.production import (collective_production, noise_delay_mean,
                                      noise_delay_quantile, offered_load,
                                      production_quantiles, step_hit_probability)


def test_offered_load_is_the_utilisation_of_the_saturation_load():
    # a torus whose busiest channel saturates at 0.5 flits/endpoint/cycle, 30 % busy
    assert offered_load(0.3, 0.5) == pytest.approx(0.15)
    assert offered_load(0.0, 0.5) == 0.0
    with pytest.raises(ValueError):
        offered_load(1.0, 0.5)


def test_step_hit_probability_by_hand():
    # 1000 ranks, 1 us step, 1000 detours/s each: P f t = 1, q = 1 - 1/e
    assert step_hit_probability(1000, 1e-6, 1000.0) == pytest.approx(1 - math.exp(-1))
    # one rank: q = 1 - exp(-f t) ~ f t for small f t
    assert step_hit_probability(1, 1e-6, 10.0) == pytest.approx(1e-5, rel=1e-5)
    # grows with ranks toward 1
    qs = [step_hit_probability(p, 1e-6, 1000.0) for p in (1, 10, 100, 10_000)]
    assert qs == sorted(qs) and qs[-1] == pytest.approx(1.0, abs=1e-4)


def test_noise_delay_mean_by_hand():
    # 4 steps, q = 1 - 1/e, 100 us detours: 4 x 0.63212 x 100 us = 252.85 us
    assert noise_delay_mean(1000, 4, 1e-6, 1000.0, 1e-4) == pytest.approx(2.5285e-4,
                                                                          rel=1e-4)


def test_noise_delay_quantiles_of_a_fair_binomial():
    # q = 1/2 (P f t = ln 2), S = 2: P(0) = 1/4, P(1) = 1/2, P(2) = 1/4
    args = (1, 2, math.log(2), 1.0, 5e-6)
    assert noise_delay_quantile(0.05, *args) == 0.0
    assert noise_delay_quantile(0.25, *args) == 0.0
    assert noise_delay_quantile(0.5, *args) == 5e-6
    assert noise_delay_quantile(0.95, *args) == 1e-5


def test_noise_delay_median_rises_with_ranks_and_steps():
    few = noise_delay_quantile(0.5, 16, 4, 2e-6, 100.0, 1e-4)
    many = noise_delay_quantile(0.5, 100_000, 4, 2e-6, 100.0, 1e-4)
    # 16 ranks: q = 1 - exp(-0.0032), median 0; 100,000 ranks: q = 1 - exp(-20), all 4 hit
    assert (few, many) == (0.0, pytest.approx(4e-4))
    assert noise_delay_quantile(0.5, 100_000, 17, 2e-6, 100.0, 1e-4) == pytest.approx(
        1.7e-3)


# --- the [production] machine section --------------------------------------------------

PRODUCTION_TOML = '''format = 1
name = "busy"
topology = "torus:4x4"
[production]
noise_frequency.value = "100 Hz"
noise_frequency.source = "a cited measurement"
noise_frequency.kind = "secondary"
noise_duration.value = "25 us"
noise_duration.source = "a cited measurement"
noise_duration.kind = "stated"
noise_duration.uncertainty = "5 us"
background_utilization.value = 0.3
background_utilization.source = "a cited link study"
background_utilization.kind = "assumed"
'''


def test_production_section_reads_and_writes_back(tmp_path):
    from icnperf.data.machine import load_machine, write_machine

    path = tmp_path / "busy.toml"
    path.write_text(PRODUCTION_TOML)
    machine = load_machine(str(path))
    assert machine.production == {"noise_frequency": 100.0, "noise_duration": 25e-6,
                                  "background_utilization": 0.3}
    assert machine.spread("production.noise_duration").amount == pytest.approx(5e-6)
    assert machine.spread("production.background_utilization").amount == 0.2  # assumed
    again = tmp_path / "again.toml"
    write_machine(machine, str(again))
    assert load_machine(str(again)) == machine


HPE_CRAY_EX = ("alps", "aurora", "el-capitan", "frontier", "lumi", "lumi-g", "perlmutter")
"""The presets that carry Alps' 2022 OS noise, transferred (the class of HPE Cray EX nodes)."""


def test_preset_production_values_are_cited_with_their_own_spread():
    """Only the presets with a published measurement of their system class carry
    [production] values: k-computer (a cited bound) and fugaku transferred from it;
    piz-daint derived from the Netgauge traces published with De Sensi et al., 'Noise in
    the Clouds' (2022), and the HPE Cray EX presets transferred from its Alps traces. Each
    names its source, its kind and a written spread with its reason."""
    from icnperf.data.machine import list_presets, load_machine

    busy = {}
    for name, _ in list_presets():
        machine = load_machine(name)
        if machine.production:
            busy[name] = machine
    assert sorted(busy) == sorted(("fugaku", "k-computer", "piz-daint") + HPE_CRAY_EX)
    expected = {"k-computer": ("secondary", "Mynavi News"),
                "fugaku": ("transferred", "Mynavi News"),
                "piz-daint": ("derived", "Noise in the Clouds")}
    expected.update({name: ("transferred", "Noise in the Clouds") for name in HPE_CRAY_EX})
    for name, machine in busy.items():
        kind, cited = expected[name]
        occupancy = {"node_occupancy"} if name == "piz-daint" else set()
        assert set(machine.production) == {"noise_frequency", "noise_duration"} | occupancy
        for key in machine.production:
            path = f"production.{key}"
            spread = machine.spread(path)
            assert spread.kind == kind
            assert spread.written and spread.reason
            assert cited in machine.source(path)


# The published traces (De Sensi et al., 'Noise in the Clouds', 2022, data repository
# DanieleDeSensi/cloud_noise_data): each run's detours per second (detours over its
# measurement period), its mean detour and the overhead its file prints ("CPU overhead due
# to noise"), the smallest and largest over the runs; worked out from the trace files.
DAINT_RUNS = {"frequency": (466.4, 590.1), "duration": (11.09e-6, 13.60e-6),
              "overhead": (0.0060, 0.0069)}                   # 18 runs, March-May 2022
ALPS_RUNS = {"frequency": (237.6, 281.9), "duration": (2.67e-6, 9.44e-6),
             "overhead": (0.0007, 0.0023)}                    # 8 runs, May-July 2022


@pytest.mark.parametrize("name, runs", [("piz-daint", DAINT_RUNS)]
                         + [(name, ALPS_RUNS) for name in HPE_CRAY_EX])
def test_noise_values_match_the_published_traces(name, runs):
    """The preset's detour rate times its detour length is an overhead the runs printed,
    and each value's spread covers every run's figure."""
    from icnperf.data.machine import load_machine

    machine = load_machine(name)
    f = machine.production["noise_frequency"]
    d = machine.production["noise_duration"]
    low, high = runs["overhead"]
    assert low <= f * d <= high
    for key, measured in (("noise_frequency", runs["frequency"]),
                          ("noise_duration", runs["duration"])):
        value, spread = machine.production[key], machine.spread(f"production.{key}")
        if spread.form == "relative":       # uniform on v (1 - r) .. v (1 + r)
            bounds = (value * (1 - spread.amount), value * (1 + spread.amount))
        else:                               # log-uniform on v / F .. v F
            assert spread.form == "factor"
            bounds = (value / spread.amount, value * spread.amount)
        assert bounds[0] <= measured[0] and measured[1] <= bounds[1]


@pytest.mark.parametrize("name", ["piz-daint", "fugaku"])
def test_production_values_do_not_move_the_other_draws(name):
    """piz-daint and fugaku have values solved from measured sums: their [production]
    values, each drawn from its own generator as every value is, leave every other draw as
    the machine without a [production] section has it."""
    from pathlib import Path

    import icnperf
    from icnperf.data.machine import load_machine, parse_machine
    from icnperf.data.machine.sampling import draws

    machine = load_machine(name)
    text = (Path(icnperf.__file__).parent / "data" / "machines" / f"{name}.toml").read_text()
    empty = parse_machine(text[:text.index("\n[production]")], name)
    assert machine.production and not empty.production
    with_them, without = draws(machine, 50, 0), draws(empty, 50, 0)
    assert {p for p in with_them if not p.startswith("production.")} == set(without)
    for path, values in without.items():
        assert np.array_equal(with_them[path], values), path


def test_utilization_above_one_is_refused(tmp_path):
    from icnperf.data.machine import load_machine
    from icnperf.errors import InputError

    path = tmp_path / "bad.toml"
    path.write_text(PRODUCTION_TOML.replace("value = 0.3", "value = 1.5"))
    with pytest.raises(InputError, match="background_utilization"):
        load_machine(str(path))


# --- a collective under production effects ----------------------------------------------


def test_production_quantiles_add_queueing_per_step_and_noise():
    # 4 steps of 1 us on 1 rank with f t = ln 2 per step: q = 1/2, Binomial(4, 1/2):
    # P(<=0) = 1/16, P(<=1) = 5/16, P(<=2) = 11/16, P(<=3) = 15/16, so the 5 % point is
    # 0 detours, the median 2, the 95 % point 4; 10 ns queueing per step adds 40 ns
    f = math.log(2) / 1e-6
    low, mid, high = production_quantiles(4e-6, 4, 1, queueing_per_step=1e-8, frequency=f,
                                          duration=3e-6)
    assert (low, mid, high) == pytest.approx((4.04e-6, 10.04e-6, 16.04e-6))
    assert production_quantiles(4e-6, 4, 1) == (4e-6, 4e-6, 4e-6)


def _piz_daint(*overrides, preset="piz-daint"):
    from icnperf.data.machine import load_machine
    from icnperf.model.collectives import Layout

    # piz-daint's busy scheduler switched off: these tests charge the linear placement
    # (the scheduler's draws: tests/model/test_scheduled_placement.py)
    off = ["production.node_occupancy=0"] if preset == "piz-daint" else []
    machine = load_machine(preset).with_overrides(off + list(overrides))
    return machine, Layout.from_topology(machine.topology).on_part(16)


def test_empty_production_section_changes_nothing():
    from icnperf.model.collectives import collective_time

    machine, layout = _piz_daint(preset="summit")      # a preset without [production]
    assert not machine.production
    out = collective_production(machine, "allreduce", "recursive-doubling", 8, layout)
    empty = float(collective_time(machine, "allreduce", "recursive-doubling", [8],
                                  layout=layout).time[0])
    assert out["steps"] == 4                        # lg 16 exchanges
    assert out["production_time_s"] == (empty, empty, empty)
    assert (out["offered_load"], out["queueing_per_step_s"]) == (0.0, 0.0)


def test_noise_on_a_collective_by_hand():
    # hypothetical values (not a machine's): 1 kHz detours of 50 us on each of 16 ranks
    machine, layout = _piz_daint("production.noise_frequency=1kHz",
                                 "production.noise_duration=50us")
    out = collective_production(machine, "allreduce", "ring", 8, layout)
    assert out["steps"] == 30                       # 2 (P - 1) ring steps
    q = 1 - math.exp(-16 * 1000 * out["time_s"] / 30)
    assert out["noise_hit_probability"] == pytest.approx(q)
    low, mid, high = out["production_time_s"]
    assert low <= mid <= high and low >= out["time_s"]
    # the median adds d x the binomial median of Binomial(30, q)
    k = next(k for k in range(31)
             if sum(math.comb(30, i) * q ** i * (1 - q) ** (30 - i) for i in range(k + 1))
             >= 0.5)
    assert mid == pytest.approx(out["time_s"] + k * 50e-6)


def test_background_is_offered_load_at_the_utilisation():
    # hypothetical 30 % background: lambda = 0.3 x the saturation estimate, each step pays
    # the p2p M/D/1 delay at that load
    from icnperf.model.network import p2p_table
    from icnperf.model.production import _saturation

    # piz-daint's own detours switched off, so the background is all that is added
    machine, layout = _piz_daint("production.background_utilization=0.3",
                                 "production.noise_frequency=0Hz")
    out = collective_production(machine, "allreduce", "recursive-doubling", 8, layout)
    assert out["offered_load"] == pytest.approx(0.3 * _saturation(machine))
    wait = float(p2p_table(machine, [8], None, "mpi", offered_load=out["offered_load"])
                 .columns["queueing_delay_s"][0])
    assert wait > 0
    assert out["production_time_s"][1] == pytest.approx(out["time_s"] + 4 * wait)


def test_a_collective_without_a_schedule_is_refused():
    from icnperf.errors import InputError

    machine, layout = _piz_daint()
    with pytest.raises(InputError, match="step schedule"):
        collective_production(machine, "allreduce", "hw-tree", 8, layout)


# --- predict collective --production ---------------------------------------------------


def _predict(*args):
    from click.testing import CliRunner

    from icnperf.cli import cli

    return CliRunner().invoke(cli, ["predict", "collective", "allreduce", "--machine",
                                    "piz-daint", "--nodes", "16", "--bytes", "8",
                                    "--algorithm", "recursive-doubling", *args])


def test_predict_production_json_takes_the_median():
    import json

    # hypothetical values (not a machine's): every one of 4 steps is hit when P f t >> 1
    plain = json.loads(_predict("--format", "json").output)["rows"][0]
    busy = json.loads(_predict("--format", "json", "--production",
                               "--set", "production.noise_frequency=1MHz",
                               "--set", "production.noise_duration=10us",
                               "--set", "production.node_occupancy=0").output)
    row = busy["rows"][0]
    assert row["empty_time_s"] == plain["time_s"]
    # q = 1 - exp(-16 x 1e6 x T/4) = 1 - exp(-21.7): all 4 steps delayed, 40 us added
    assert row["time_s"] == pytest.approx(plain["time_s"] + 4e-5)
    assert row["time_s_low"] == row["time_s_high"] == row["time_s"]
    assert row["production_steps"] == 4
    assert busy["inputs"]["production"] == {"noise_frequency": 1e6, "noise_duration": 1e-5,
                                            "node_occupancy": 0}
    assert "production" not in json.loads(_predict("--format", "json").output)["inputs"]


def test_predict_production_on_an_empty_machine_is_one_line():
    from click.testing import CliRunner

    from icnperf.cli import cli

    result = CliRunner().invoke(cli, ["predict", "collective", "allreduce", "--machine",
                                      "summit", "--nodes", "16", "--bytes", "8",
                                      "--production"])
    assert result.exit_code == 2
    assert "has no [production] values" in result.output
    assert "Traceback" not in result.output


def test_production_with_uncertainty_shifts_the_drawn_times():
    """Every step delayed in every draw (P f t >> 1, hypothetical values): each draw's total
    is its empty time + 4 x 10 us, so the range is the --uncertainty range moved by 40 us."""
    import json

    # the same --set on both runs: the draws of the other inputs are then the same
    hypothetical = ("--set", "production.noise_frequency=1MHz",
                    "--set", "production.noise_duration=10us",
                    "--set", "production.node_occupancy=0")
    plain = json.loads(_predict("--format", "json", "--uncertainty", *hypothetical)
                       .output)["rows"][0]
    busy = json.loads(_predict("--format", "json", "--uncertainty", "--production",
                               *hypothetical).output)["rows"][0]
    assert busy["time_s_low"] == pytest.approx(plain["time_s_low"] + 4e-5, rel=1e-9)
    assert busy["time_s_high"] == pytest.approx(plain["time_s_high"] + 4e-5, rel=1e-9)
    assert plain["time_s_low"] + 4e-5 <= busy["time_s"] <= plain["time_s_high"] + 4e-5


def test_predict_production_table_fits_and_says_what_it_applied():
    result = _predict("--production", "--set", "production.noise_frequency=1kHz",
                      "--set", "production.noise_duration=20us")
    assert result.exit_code == 0, result.output
    assert "production: time is the median" in result.output
    assert "noise_frequency 1 kHz" in result.output
    assert all(len(line) <= 100 for line in result.output.splitlines())


def test_noise_quantiles_of_many_steps_against_scipy():
    # a ring all-reduce on the whole K computer: 2 (P - 1) = 165,886 steps on 82,944 ranks;
    # C(S, k) overflows a float there (it raised OverflowError before the terms were taken
    # through logarithms); scipy's binomial quantile is the oracle
    from scipy.stats import binom

    for steps, ranks, step, frequency in [(165886, 82944, 1e-6, 2.5), (5000, 1000, 1e-4, 2.5)]:
        q = -math.expm1(-ranks * frequency * step)
        for quantile in (0.05, 0.5, 0.95):
            assert noise_delay_quantile(quantile, ranks, steps, step, frequency, 25e-6) == \
                pytest.approx(binom.ppf(quantile, steps, q) * 25e-6, rel=1e-12)
    assert noise_delay_quantile(0.5, 10, 2000, 1e-3, 0.0, 25e-6) == 0.0
