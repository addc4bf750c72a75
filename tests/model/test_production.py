"""Production effects (model/production.py), cases worked by hand."""

import math

import pytest

from icnperf.model.production import (noise_delay_mean, noise_delay_quantile,
                                      offered_load, step_hit_probability)


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


def test_presets_are_empty_machines():
    from icnperf.data.machine import list_presets, load_machine

    assert all(not load_machine(name).production for name, _ in list_presets())


def test_utilization_above_one_is_refused(tmp_path):
    from icnperf.data.machine import load_machine
    from icnperf.errors import InputError

    path = tmp_path / "bad.toml"
    path.write_text(PRODUCTION_TOML.replace("value = 0.3", "value = 1.5"))
    with pytest.raises(InputError, match="background_utilization"):
        load_machine(str(path))
