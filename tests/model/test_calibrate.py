"""Least-squares calibration (icnperf/model/calibrate/): round trips from known parameters,
the bundled Angara 16-byte latencies, the LogGP aliases, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.data.machine import SCHEMA, load_machine
from icnperf.data.measurements.tables import load_table
from icnperf.model import calibrate as C
from icnperf.model.calibrate.least_squares import _t_quantile
from icnperf.model import network as N

NS = 1e-9
TRUTH = {"software.mpi_overhead": 450 * NS, "network.link_bandwidth": 6e9}
"""The parameters the synthetic measurements come from: the angara-36 preset with a 450 ns MPI
overhead and 6 GB/s links (the link, 6 x 15/16 = 5.6 GB/s of payload, is then the bottleneck
below the 8 GB/s host interface)."""

SIZES = np.tile(2.0 ** np.arange(0, 21), 3)  # 1 B .. 1 MiB
HOPS = np.repeat([1.0, 2.0, 3.0], 21)


@pytest.fixture(scope="module")
def preset():
    return load_machine("angara-36")


@pytest.fixture(scope="module")
def truth(preset):
    return preset.with_values(TRUTH, "test truth")


def _latencies(machine, sizes=SIZES, hops=HOPS, api="mpi"):
    return N.p2p_table(machine, sizes, hops, api).columns["latency_s"]


def _noisy(values, seed, sd=0.01):
    rng = np.random.default_rng(seed)
    return values * (1 + sd * rng.standard_normal(values.shape))


def _one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert message and "\n" not in message
    return message


# --- round trips --------------------------------------------------------------------------


def test_round_trip_recovers_parameters_within_intervals(preset, truth):
    measured = _noisy(_latencies(truth), seed=11)
    obs = C.observations(SIZES, HOPS, measured)
    result = C.fit(preset, obs, list(TRUTH))  # starts from the preset: 300 ns, 75 Gbit/s
    assert result.converged and result.status > 0
    assert result.parameters == tuple(TRUTH)
    assert result.n_points == 63 and result.dof == 61
    for key, value in TRUTH.items():
        low, high = result.intervals[key]
        assert low <= value <= high, (key, value, low, high)
        assert low < result.values[key] < high
        assert result.values[key] == pytest.approx(value, rel=0.02)
        assert 0 < result.stderr[key] < 0.02 * value
    # the interval is the t-quantile times the standard error (symmetric for a time)
    low, high = result.intervals["software.mpi_overhead"]
    assert (high - low) / 2 == pytest.approx(
        _t_quantile(0.95, 61) * result.stderr["software.mpi_overhead"], rel=1e-9)
    # ... and symmetric in ln B for a bandwidth
    low, high = result.intervals["network.link_bandwidth"]
    assert np.sqrt(low * high) == pytest.approx(result.values["network.link_bandwidth"])
    # 1 % noise: the residuals say so
    assert 0.006 < result.rms_relative_error < 0.015
    assert result.covariance.shape == (2, 2)
    assert np.allclose(np.sqrt(np.diag(result.covariance)),
                       [result.stderr[k] for k in result.parameters])


def test_round_trip_residuals_and_relative_errors_are_consistent(preset, truth):
    measured = _noisy(_latencies(truth), seed=3)
    result = C.fit(preset, C.observations(SIZES, HOPS, measured), list(TRUTH))
    assert np.allclose(result.measured, measured)
    assert np.allclose(result.residuals, result.predicted - result.measured)
    assert np.allclose(result.relative_errors, result.predicted / result.measured - 1)
    assert result.rms_relative_error == pytest.approx(
        float(np.sqrt(np.mean(result.relative_errors ** 2))))
    assert result.max_relative_error == pytest.approx(np.max(np.abs(result.relative_errors)))
    # the predictions are the calibrated machine's own table
    calibrated = preset.with_values(result.machine_values(), "fit")
    assert np.allclose(result.predicted, _latencies(calibrated), rtol=1e-12)
    assert all(u == "s" for u in result.units)


def test_exact_data_is_recovered_exactly(preset, truth):
    obs = C.observations(SIZES, HOPS, _latencies(truth))
    result = C.fit(preset, obs, list(TRUTH))
    for key, value in TRUTH.items():
        assert result.values[key] == pytest.approx(value, rel=1e-6)
    assert result.rms_relative_error < 1e-6


def test_intervals_cover_the_truth_about_95_percent_of_the_time(preset, truth):
    clean = _latencies(truth)
    hits = {key: 0 for key in TRUTH}
    seeds = range(40)
    for seed in seeds:
        result = C.fit(preset, C.observations(SIZES, HOPS, _noisy(clean, seed)), list(TRUTH))
        for key, value in TRUTH.items():
            low, high = result.intervals[key]
            hits[key] += low <= value <= high
    for key, count in hits.items():
        assert 0.8 * len(seeds) <= count <= len(seeds), (key, count)


def test_a_key_that_starts_at_zero_is_fitted(preset):
    """angara-36's SHMEM overhead is 0: the fit must not stay stuck on the bound t >= 0."""
    assert preset.require("software.shmem_overhead") == 0
    truth = preset.with_values({"software.shmem_overhead": 120 * NS}, "truth")
    sizes = 2.0 ** np.arange(0, 16)
    obs = C.observations(sizes, 1, _latencies(truth, sizes, 1, "shmem"), api="shmem")
    result = C.fit(preset, obs, "o", api="shmem")
    assert result.values["software.shmem_overhead"] == pytest.approx(120 * NS, rel=1e-6)


def test_a_time_stops_at_zero(preset):
    """Latencies below the hardware path: the overhead would be negative, the fit stops at 0
    and the interval starts there."""
    sizes = 2.0 ** np.arange(0, 16)
    measured = _noisy(0.98 * _latencies(preset, sizes, 1, "shmem"), seed=2, sd=0.002)
    result = C.fit(preset, C.observations(sizes, 1, measured, api="shmem"), "o", api="shmem")
    value = result.values["software.shmem_overhead"]
    assert 0 <= value < 1 * NS
    assert result.intervals["software.shmem_overhead"][0] == 0
    assert result.rms_relative_error == pytest.approx(0.02, abs=0.003)


def test_bandwidth_points_fit_streaming_model(preset, truth):
    sizes = 2.0 ** np.arange(0, 23)
    streaming = N.p2p_table(truth, sizes, 1, "mpi").columns["streaming_bandwidth_Bps"]
    obs = C.observations(sizes, 1, _noisy(streaming, seed=5, sd=0.005), quantity="bandwidth")
    result = C.fit(preset, obs, ["o", "G"])
    for key, value in TRUTH.items():
        low, high = result.intervals[key]
        assert low <= value <= high
    assert set(result.units) == {"B/s"}
    assert "streaming_bandwidth_Bps" in result.model


def test_pingpong_bandwidth_is_bytes_over_latency(preset, truth):
    sizes = 2.0 ** np.arange(4, 21)
    table = N.p2p_table(truth, sizes, 1, "mpi").columns
    predicted = C.predict(truth, C.observations(sizes, 1, table["bandwidth_Bps"],
                                                quantity="pingpong_bandwidth"))
    assert np.allclose(predicted, sizes / table["latency_s"])


def test_robust_loss_resists_an_outlier(preset, truth):
    measured = _noisy(_latencies(truth), seed=8, sd=0.005).copy()
    measured[30] *= 3.0  # one corrupted point
    obs = C.observations(SIZES, HOPS, measured)
    robust = C.fit(preset, obs, list(TRUTH))
    plain = C.fit(preset, obs, list(TRUTH), loss="linear")
    err = {name: abs(fit.values["software.mpi_overhead"] / TRUTH["software.mpi_overhead"] - 1)
           for name, fit in (("robust", robust), ("plain", plain))}
    assert err["robust"] < 0.02
    assert err["robust"] < err["plain"]
    assert abs(robust.relative_errors[30]) > 0.5  # the outlier stands out in the report


# --- the model evaluated is network.py's ---------------------------------------------------


def test_the_fit_evaluates_p2p_table(preset, truth, monkeypatch):
    calls = []
    original = N.p2p_table

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(N, "p2p_table", spy)
    C.fit(preset, C.observations(SIZES, HOPS, _latencies(truth)), ["o"])
    assert len(calls) > 3


def test_predict_matches_network_latency_formula(truth):
    params = N.machine_parameters(truth, "shmem")
    sizes, hops = np.array([0.0, 16, 4096, 65536]), np.array([0.0, 1, 2, 5])
    direct = N.latency(sizes, hops, **N.bind(N.latency, params))
    obs = C.observations(sizes, hops, np.ones(4), api="shmem")
    assert np.allclose(C.predict(truth, obs), direct, rtol=0, atol=0)


# --- the bundled Angara 16-byte latencies ---------------------------------------------------


def test_angara_16_byte_table_fit_reports_error_per_row(preset):
    """Fit software.mpi_overhead to the two rows of Agarkov 2015 Table 2. The table says "between
    two nodes"; like the preset's derivation of the overheads, the nodes are taken as
    neighbours: 1 router-to-router hop (2 routers, 1 link). Each row is evaluated with its own
    interface, so the SHMEM row is a check (no fitted parameter acts on it) and leaves one
    degree of freedom."""
    table = load_table("angara-latency-16b")
    apis = [a.lower() for a in table["api"]]
    labels = [f"{table.name}, line {line}" for line in table.lines]
    obs = C.observations(table["message_bytes"], 1, table["latency_s"], api=apis,
                         labels=labels)
    result = C.fit(preset, obs, "software.mpi_overhead")
    assert result.n_points == 2 and result.dof == 1
    overhead = result.values["software.mpi_overhead"]
    hardware = N.p2p_table(preset, [16], [1], "none").columns["latency_s"][0]
    assert hardware <= 0.7e-6  # the hardware path alone fits under the SHMEM latency
    assert overhead == pytest.approx(1e-6 - hardware, rel=1e-6)
    assert 0.25e-6 < overhead < 0.35e-6  # plausible and non-negative
    rows = dict(zip(result.labels, result.relative_errors))
    assert set(rows) == set(labels)
    mpi_row = labels[apis.index("mpi")]
    shmem_row = labels[apis.index("shmem")]
    assert abs(rows[mpi_row]) < 1e-9
    assert rows[shmem_row] == pytest.approx(hardware / 0.7e-6 - 1, rel=1e-9)
    assert abs(rows[shmem_row]) < 0.01
    low, high = result.intervals["software.mpi_overhead"]
    assert low <= overhead <= high


# --- LogGP aliases --------------------------------------------------------------------------


def test_aliases_resolve_to_machine_keys():
    params = {p.label: p for p in C.resolve_parameters("o,G,L", api="shmem")}
    assert params["software.shmem_overhead"].keys == ("software.shmem_overhead",)
    assert params["network.link_bandwidth"].keys == ("network.link_bandwidth",)
    tied = params["network.injection_latency=network.ejection_latency"]
    assert tied.keys == ("network.injection_latency", "network.ejection_latency")
    assert C.resolve_parameters(["g"], "mpi")[0].keys == ("software.mpi_overhead",)
    assert C.resolve_parameters(" o ", "mpi") == C.resolve_parameters("software.mpi_overhead")


def test_alias_fit_is_consistent_with_loggp_view(preset):
    """Data from a machine with known LogGP parameters; fitting L and G recovers them in the
    calibrated machine's network.loggp view (the mapping is loggp's / from_loggp's)."""
    truth = preset.with_values({"network.injection_latency": 350 * NS,
                                "network.ejection_latency": 350 * NS,
                                "network.link_bandwidth": 6e9}, "truth")
    start = preset.with_values({"network.injection_latency": 250 * NS,
                                "network.ejection_latency": 310 * NS}, "start")
    sizes, hops = 2.0 ** np.arange(0, 21), 2
    obs = C.observations(sizes, hops, _latencies(truth, sizes, hops))
    result = C.fit(start, obs, "L,G")
    values = result.machine_values()
    assert values["network.injection_latency"] == values["network.ejection_latency"]
    fitted = start.with_values(values, "fit")
    want = N.loggp(hops, **N.bind(N.loggp, N.machine_parameters(truth)))
    got = N.loggp(hops, **N.bind(N.loggp, N.machine_parameters(fitted)))
    for name in ("L", "o", "g", "G"):
        assert float(getattr(got, name)) == pytest.approx(float(getattr(want, name)), rel=1e-6)
    # and from_loggp maps the fitted view back to the fitted machine values
    packet = {k: N.machine_parameters(fitted)[k]
              for k in ("router_latency", "link_latency", "flit_size", "packet_max_flits",
                        "packet_header_flits")}
    back = N.from_loggp(float(got.L), float(got.o), float(got.g), float(got.G), hops, **packet)
    assert back["link_bandwidth"] == pytest.approx(values["network.link_bandwidth"], rel=1e-9)
    assert back["injection_latency"] == pytest.approx(values["network.injection_latency"],
                                                      rel=1e-6)
    assert back["software_overhead"] == pytest.approx(fitted.require("software.mpi_overhead"))


def test_fittable_keys_follow_the_machine_schema():
    for key, kind in C.FITTABLE.items():
        section, name = key.split(".")
        schema_key = SCHEMA[section][name]
        assert schema_key.kind == kind
        assert schema_key.positive == (kind == "bandwidth")


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize("keys, match", [
    ("node.peak_flops", "not a machine key the point-to-point latency model uses"),
    ("network.router_clock", "not a machine key the point-to-point latency model uses"),
    ("network.nonsense", "not a machine key the point-to-point latency model uses"),
    ("network.flit_size", "not a continuous parameter"),
    ("network.switching", "not a continuous parameter"),
    ("o,g", "both set software.mpi_overhead"),
    ("o,software.mpi_overhead", "both set software.mpi_overhead"),
    ("L,network.ejection_latency", "both set network.ejection_latency"),
    ("", "give one or more"),
    ("o,,G", "give one or more"),
])
def test_bad_keys(preset, truth, keys, match):
    obs = C.observations(SIZES, HOPS, _latencies(truth))
    with pytest.raises(InputError, match=match) as excinfo:
        C.fit(preset, obs, keys)
    _one_line(excinfo)


def test_fewer_points_than_parameters(preset):
    obs = C.observations([16], [1], [1e-6])
    with pytest.raises(InputError, match="1 measured point cannot determine 2 parameters") as e:
        C.fit(preset, obs, "o,G")
    _one_line(e)


def test_as_many_points_as_parameters_has_no_intervals(preset):
    obs = C.observations([16], [1], [1e-6])
    result = C.fit(preset, obs, "o")
    assert result.dof == 0
    assert np.isnan(result.stderr["software.mpi_overhead"])
    assert all(np.isnan(result.intervals["software.mpi_overhead"]))
    assert any("exact" in note for note in result.assumptions)


@pytest.mark.parametrize("values, match", [
    ([1e-6, np.nan], "not finite"),
    ([1e-6, np.inf], "not finite"),
    ([1e-6, 0.0], "must be positive"),
    ([1e-6, -2e-6], "must be positive"),
])
def test_bad_measurements(values, match):
    with pytest.raises(InputError, match=match) as excinfo:
        C.observations([16, 32], [1, 1], values)
    _one_line(excinfo)


@pytest.mark.parametrize("kwargs, match", [
    ({"sizes": [-16], "hops": [1], "values": [1e-6]}, "message size"),
    ({"sizes": [16], "hops": [np.nan], "values": [1e-6]}, "hops"),
    ({"sizes": [16], "hops": [1], "values": ["fast"]}, "must be numbers"),
    ({"sizes": [16, 32], "hops": [1, 2, 3], "values": [1e-6]}, "different lengths"),
    ({"sizes": [16], "hops": [1], "values": [1e-6], "quantity": "allreduce"},
     "unknown quantity"),
    ({"sizes": [16], "hops": [1], "values": [1e-6], "api": "ucx"}, "unknown api"),
])
def test_bad_observations(kwargs, match):
    with pytest.raises(InputError, match=match):
        C.observations(**kwargs)


def test_no_point_depends_on_the_key(preset, truth):
    obs = C.observations(SIZES, HOPS, _latencies(truth))  # MPI points only
    with pytest.raises(InputError, match="no measured point depends on "
                                         "software.shmem_overhead") as excinfo:
        C.fit(preset, obs, "software.shmem_overhead")
    _one_line(excinfo)
    zero_hops = C.observations([16, 64, 256], [0, 0, 0], [1e-6, 1.1e-6, 1.2e-6])
    with pytest.raises(InputError, match="network.link_latency"):
        C.fit(preset, zero_hops, "network.link_latency")


@pytest.mark.parametrize("keys", ["network.injection_latency,network.ejection_latency",
                                  "L,o", "software.mpi_overhead,network.injection_latency"])
def test_parameters_the_points_cannot_separate(preset, truth, keys):
    obs = C.observations(SIZES, HOPS, _latencies(truth))
    with pytest.raises(InputError, match="cannot tell .* apart") as excinfo:
        C.fit(preset, obs, keys)
    _one_line(excinfo)


def test_a_fit_that_does_not_converge(preset, truth, monkeypatch):
    import scipy.optimize
    from scipy.optimize import OptimizeResult

    def stuck(fun, x0, **kwargs):
        return OptimizeResult(x=x0, fun=fun(x0), cost=1.0, status=0, nfev=1,
                              message="The maximum number of function evaluations is "
                                      "exceeded.")

    monkeypatch.setattr(scipy.optimize, "least_squares", stuck)
    obs = C.observations(SIZES, HOPS, _latencies(truth))
    with pytest.raises(InputError, match="did not converge") as excinfo:
        C.fit(preset, obs, "o")
    _one_line(excinfo)


def test_api_none_has_no_overhead_to_fit():
    with pytest.raises(InputError, match="api 'none'"):
        C.resolve_parameters("o", api="none")


def test_missing_machine_key_names_the_set_option(preset):
    from icnperf.data.machine import Machine

    bare = Machine(name="bare", topology="torus:4", network={"flit_size": 16})
    obs = C.observations([16, 64], [1, 1], [1e-6, 1.1e-6])
    with pytest.raises(InputError, match="--set"):
        C.fit(bare, obs, "o")
