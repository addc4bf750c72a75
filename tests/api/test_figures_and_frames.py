"""Each result's figure draws the rows it holds; to_pandas gives the rows as a DataFrame
when pandas is installed and says how to install it when not."""

import sys

import pytest

import icnperf


def test_p2p_figure_draws_latency_and_bandwidth_against_size():
    result = icnperf.predict_p2p("angara-36", bytes=[8, 1024, 65536])
    latency, bandwidth = result.figure().data
    assert list(latency.x) == [8, 1024, 65536]
    assert list(latency.y) == [row["latency_s"] for row in result.rows]
    assert list(bandwidth.y) == [row["bandwidth_Bps"] for row in result.rows]


def test_collective_figure_has_one_curve_per_algorithm_and_size():
    result = icnperf.predict_collective("angara-4d", "allreduce", nodes=[16, 128],
                                        bytes=[8, 1024], algorithm="all")
    curves = {trace.name: list(trace.y) for trace in result.figure().data}
    algorithms = {row["algorithm"] for row in result.rows}
    assert len(curves) == 2 * len(algorithms)
    ring = [row["time_s"] for row in result.rows
            if row["algorithm"] == "ring" and row["bytes"] == 8]
    assert curves["ring, 8 B"] == ring


def test_app_figure_stacks_each_phase():
    result = icnperf.predict_app("angara-4d", "jacobi3d", nodes=[64, 512])
    bars = result.figure().data
    phases = list(dict.fromkeys(row["phase"] for row in result.rows))
    assert [bar.name for bar in bars] == phases
    for bar in bars:
        assert list(bar.y) == [row["time_s"] for row in result.rows
                               if row["phase"] == bar.name]


def test_traffic_figure_plots_accepted_against_offered():
    result = icnperf.simulate_traffic(topology="torus:4x4", rates=[0.1, 0.3], warmup=200,
                                      measure=200, drain=200)
    simulated = result.figure().data[0]
    assert list(simulated.x) == [0.1, 0.3]
    assert list(simulated.y) == [row["accepted"] for row in result.rows]


def test_a_result_without_a_natural_plot_says_so():
    with pytest.raises(TypeError, match="no figure"):
        icnperf.machines().figure()


def test_to_pandas_without_pandas_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        icnperf.topology("torus:4x4").to_pandas()


def test_to_pandas_with_pandas():
    pytest.importorskip("pandas")
    result = icnperf.predict_p2p("angara-36", bytes=[8, 64])
    frame = result.to_pandas()
    assert list(frame["bytes"]) == [8.0, 64.0]
    assert list(frame.columns) == list(result.rows[0])
