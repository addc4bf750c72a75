"""model/uncertainty.py and data/machine/sampling.py: draws within each spread, the
correlation rule of solved sums, the quantiles, and ranges of p2p latency worked out by hand."""

import math

import numpy as np
import pytest

from icnperf.data.machine import load_machine, parse_machine
from icnperf.data.machine.sampling import Sampling, draws, ranges, row_ranges
from icnperf.errors import InputError
from icnperf.model.uncertainty import draw, quantiles, solved_sum


def test_draws_stay_within_their_spread():
    rng = np.random.default_rng(1)
    rel = draw(100.0, "relative", 0.1, 5000, rng)
    assert rel.min() >= 90 and rel.max() <= 110
    assert abs(rel.mean() - 100) < 0.5  # uniform: mean at the value
    fac = draw(100.0, "factor", 2.0, 5000, rng)
    assert fac.min() >= 50 and fac.max() <= 200
    # log-uniform: the median sits at the value, half below, half above
    assert abs(np.median(np.log(fac / 100))) < 0.05
    ab = draw(5.0, "absolute", 1.0, 5000, rng)
    assert ab.min() >= 4 and ab.max() <= 6
    alt = draw("cut-through", "alternatives", ("cut-through", "store-and-forward"), 4000, rng)
    assert 0.45 < np.mean(alt == "cut-through") < 0.55
    assert (draw(3.0, "exact", None, 4, rng) == 3.0).all()


def test_quantiles_of_uniform_draws():
    # the 5th and 95th percentiles of 0..100 are 5 and 95
    low, high = quantiles(np.arange(101.0)[:, None])
    assert low[0] == pytest.approx(5.0) and high[0] == pytest.approx(95.0)
    # NaN draws (a quantity that does not apply) are left out
    low, high = quantiles(np.array([[np.nan], [1.0], [3.0]]), 0.0, 1.0)
    assert (low[0], high[0]) == (1.0, 3.0)


def test_solved_sum_keeps_the_measurement():
    total = np.array([10.0, 12.0])
    parts = [np.array([3.0, 4.0]), np.array([2.0, 9.0])]
    assert solved_sum(total, parts).tolist() == [5.0, 0.0]  # never below 0


MACHINE = '''name = "m"
topology = "torus:4x4"
[network]
link_bandwidth = "10 GB/s"
host_bandwidth = "10 GB/s"
flit_size = "16 B"
packet_max_flits = 4
packet_header_flits = 1
router_latency.value = "0 ns"
router_latency.kind = "stated"
link_latency.value = "0 ns"
link_latency.kind = "stated"
injection_latency.value = "100 ns"
injection_latency.kind = "placeholder"
ejection_latency.value = "100 ns"
ejection_latency.kind = "placeholder"
switching = "cut-through"
[software]
mpi_overhead.value = "800 ns"
mpi_overhead.kind = "calibrated"
mpi_overhead.uncertainty = "0.1 us"
mpi_overhead.solved_with = ["network.injection_latency", "network.ejection_latency"]
'''


def test_a_calibrated_value_absorbs_its_placeholders():
    machine = parse_machine(MACHINE)
    drawn = draws(machine, 2000, 7)
    inj, ej = drawn["network.injection_latency"], drawn["network.ejection_latency"]
    assert inj.min() >= 50e-9 and inj.max() <= 200e-9 and inj.std() > 20e-9
    total = drawn["software.mpi_overhead"] + inj + ej
    # the sum is the measured 1 us within +-0.1 us, whatever the placeholders drew
    assert total.min() >= 0.9e-6 - 1e-15 and total.max() <= 1.1e-6 + 1e-15
    # overhead = T - S, T uniform on 1 +-0.1 us (variance 0.2^2/12 = 3333 ns^2), S the two
    # log-uniform placeholders on [50, 200] ns (each: E X = 150/ln 4, E X^2 = 37500/(2 ln 4),
    # variance 1816 ns^2): corr = -sqrt(var S / (var T + var S)) = -0.722
    assert np.corrcoef(drawn["software.mpi_overhead"], inj + ej)[0, 1] == \
        pytest.approx(-0.722, abs=0.04)


def test_p2p_latency_range_by_hand():
    """0 hops, one 8-byte message: latency = overhead + inj + ej + 1 router (0) +
    serialization of 2 flits (32 B at 10 GB/s = 3.2 ns). The solved sum is uniform on
    [0.9, 1.1] us, so the 5-95 % range is 0.91-1.09 us plus 3.2 ns."""
    from icnperf.model.network import p2p_table

    machine = parse_machine(MACHINE)
    nominal = p2p_table(machine, np.array([8.0]), 0, "mpi").columns["latency_s"][0]
    assert nominal == pytest.approx(1.0032e-6)
    spans = ranges(machine, lambda m: {"latency_s": p2p_table(
        m, np.array([8.0]), 0, "mpi").columns["latency_s"]}, Sampling(4000, 0))
    low, high = spans["latency_s"]
    assert low[0] == pytest.approx(0.91e-6 + 3.2e-9, rel=2e-3)
    assert high[0] == pytest.approx(1.09e-6 + 3.2e-9, rel=2e-3)


def test_seeded_and_exact_without_spreads():
    machine = load_machine("lumi")
    first = draws(machine, 50, 3)
    again = draws(machine, 50, 3)
    assert all((first[p] == again[p]).all() for p in first)
    other = draws(machine, 50, 4)
    assert not (first["network.injection_latency"] == other["network.injection_latency"]).all()
    exact = machine.with_overrides(["network.injection_latency=400ns"])
    assert "network.injection_latency" not in draws(exact, 5, 0)


def test_row_ranges_need_the_same_rows():
    machine = load_machine("lumi")
    calls = []

    def rows_of(m):
        calls.append(m)
        return [{"x": 1.0}] * (1 if len(calls) == 1 else 2)

    with pytest.raises(InputError):
        row_ranges(machine, rows_of, ("x",), Sampling(3, 0))
    spans = row_ranges(machine, lambda m: [{"x": 2.0, "y": None}], ("x", "y"),
                       Sampling(3, 0))
    assert spans == [{"x_low": 2.0, "x_high": 2.0, "y_low": None, "y_high": None}]


def test_samples_bounds():
    with pytest.raises(InputError):
        Sampling(0)
    assert math.isclose(Sampling().low, 0.05)
