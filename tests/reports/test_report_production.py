"""``icnperf report --production``: the report's predictions on the busy machine are
``predict p2p|collective|app --production``'s, worked out by hand where the noise decides,
the mechanisms applied are said with their sources, and a machine without [production]
values is refused in one line with no file written.

angara-36 with [production] values given by --set keeps the tests fast (36 nodes)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

import icnperf
from icnperf.api import machine_sections
from icnperf.cli import cli
from icnperf.data.machine import load_machine
from icnperf.data.machine.sampling import Sampling
from icnperf.data.skeleton import load_skeleton
from icnperf.reports import machine_report

BUSY = ["production.noise_frequency=10 kHz", "production.noise_duration=20 us",
        "production.background_utilization=0.3"]
NODES = [8, 16, 32, 36]
"""angara-36's sweep: 2x2x2, 2x2x4, 2x4x4 and its own 3x3x4 (test_report_uncertainty)."""
SAMPLING = Sampling(12, 7)


def _busy(overrides=BUSY):
    return load_machine("angara-36").with_overrides(overrides)


def test_p2p_latency_is_the_noise_median_by_hand():
    # noise alone (no background): a message of latency t is delayed by d = 25 us with
    # probability 1 - exp(-2 f t), so its median is t + d where t >= ln 2 / (2 f) = 3.47 us
    # at f = 100 kHz, and t below
    overrides = ["production.noise_frequency=100 kHz", "production.noise_duration=25 us"]
    machine = _busy(overrides)
    empty = machine_sections.p2p_results([machine], ["a"])["columns"]["a"]["latency_s"]
    busy = machine_sections.p2p_results([machine], ["a"], production=True)
    latency = busy["columns"]["a"]["latency_s"]
    threshold = math.log(2) / (2 * 100e3)
    expected = np.where(np.asarray(empty) >= threshold, empty + 25e-6, empty)
    assert latency == pytest.approx(expected, rel=1e-12)
    assert (np.asarray(empty) < threshold).any() and (np.asarray(empty) >= threshold).any()
    assert busy["spans"] is None and busy["production"] is True


def test_p2p_error_bars_are_predict_p2p_production_ranges():
    busy = machine_sections.p2p_results([_busy()], ["a"], SAMPLING, production=True)
    rows = icnperf.predict_p2p("angara-36", bytes=list(machine_sections.P2P_SIZES),
                               production=True, uncertainty=True, samples=12, seed=7,
                               set=BUSY).rows
    columns, spans = busy["columns"]["a"], busy["spans"]["a"]
    for field in ("latency_s", "bandwidth_Bps", "streaming_bandwidth_Bps",
                  "message_rate_per_s"):
        assert columns[field] == pytest.approx([r[field] for r in rows], rel=1e-12)
        low, high = spans[field]
        assert low == pytest.approx([r[f"{field}_low"] for r in rows], rel=1e-12)
        assert high == pytest.approx([r[f"{field}_high"] for r in rows], rel=1e-12)
    empty = machine_sections.p2p_results([_busy()], ["a"])["columns"]["a"]
    assert (np.asarray(columns["latency_s"]) > np.asarray(empty["latency_s"])).all()


def test_collective_point_by_hand():
    # binomial broadcast on 8 nodes: 3 steps on 8 ranks; each waits the background's
    # M/D/1 delay w; a step of mean length T/3 is hit with q = 1 - exp(-8 f T / 3); the
    # median of Binomial(3, q) is 0 when (1 - q)^3 >= 1/2, else 1 when
    # (1 - q)^3 + 3 q (1 - q)^2 >= 1/2, ...
    machine = _busy()
    empty = machine_sections.collective_results([load_machine("angara-36")], ["a"])
    busy = machine_sections.collective_results([machine], ["a"], production=True)
    time = dict(empty["operations"][0]["machines"][0]["curves"]["binomial"])[8]
    point = dict(busy["operations"][0]["machines"][0]["curves"]["binomial"])[8]
    (row,) = icnperf.predict_collective("angara-36", "broadcast", nodes=8, bytes=256,
                                        algorithm="binomial", production=True,
                                        set=BUSY).rows
    wait = row["background_wait_per_step_s"]
    q = -math.expm1(-8 * 10e3 * time / 3)
    cumulative = [sum(math.comb(3, j) * q ** j * (1 - q) ** (3 - j) for j in range(k + 1))
                  for k in range(4)]
    median = next(k for k, c in enumerate(cumulative) if c >= 0.5)
    assert point == pytest.approx(time + 3 * wait + median * 20e-6, rel=1e-12)
    assert wait > 0


def test_busy_curves_are_predict_collective_production():
    results = machine_sections.collective_results([_busy()], ["a"], SAMPLING,
                                                  production=True)
    section = machine_report.collectives_section(results)
    assert "On the busy machine (--production)" in section.intro
    for algorithm in ("hw-tree", "p2p-tree"):
        assert (f"a, allreduce: {algorithm} left out under --production: no step schedule"
                " to charge the queueing and OS noise to") in results["absent"]
    predicted = icnperf.predict_collective("angara-36", "allreduce", nodes=NODES, bytes=256,
                                           algorithm="all", production=True,
                                           uncertainty=True, samples=12, seed=7,
                                           set=BUSY).rows
    entry = results["operations"][1]["machines"][0]
    # the report draws the algorithms of model.collectives.ALGORITHMS that have a schedule
    assert set(entry["curves"]) == {"binomial", "recursive-doubling", "ring", "rabenseifner"}
    for algorithm, points in entry["curves"].items():
        rows = [r for r in predicted if r["algorithm"] == algorithm]
        assert [n for n, _ in points] == [r["nodes"] for r in rows] == NODES
        assert [t for _, t in points] == pytest.approx([r["time_s"] for r in rows],
                                                       rel=1e-12)
        assert entry["spans"][algorithm] == pytest.approx(
            [(r["time_s_low"], r["time_s_high"]) for r in rows], rel=1e-12)


def test_skeleton_is_predict_app_production():
    machine = _busy()
    run = machine_sections.skeleton_results(load_skeleton("heat"), machine, "a",
                                            machine_sections.node_layouts(machine),
                                            production=True)
    totals = icnperf.predict_app("angara-36", "heat", nodes=NODES, set=BUSY,
                                 production=True).to_dict()["totals"]
    assert [t["total_s"] for t in run["total_rows"]] == pytest.approx(
        [t["total_s"] for t in totals], rel=1e-12)
    assert all("total_s_low" not in t for t in run["total_rows"])   # points only
    assert any(note.startswith("production: each time is the median over OS noise and "
                               "background traffic; background_utilization 0.3") for note in
               run["notes"])                     # no range said: the report shows none


def test_mechanisms_name_their_sources():
    from icnperf.api.report_production import mechanisms

    rows = {row[1]: row for row in mechanisms(load_machine("k-computer"), "k")}
    assert list(rows) == ["placement", "background traffic", "OS noise"]
    assert rows["placement"][2] == "not applied"
    assert rows["background traffic"][2:] == [
        "not applied", rows["background traffic"][3], "no value in [production]"]
    assert rows["OS noise"][2] == "applied"
    assert rows["OS noise"][3].startswith("noise_frequency 2.5 Hz; noise_duration 25 µs")
    assert "Mynavi News" in rows["OS noise"][4]


def test_page_says_what_was_applied():
    page = icnperf.report("angara-36", set=BUSY, production=True, validation=False)
    assert "Production machine" in page and "--production: the busy machine" in page
    assert "background_utilization 0.3" in page
    assert "the busy machine (--production" in page          # the point-to-point intro
    assert "spmv, heat: the empty machine&#39;s (the source papers&#39; own models" in page


def _run(tmp_path, *args):
    out = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", *args, "-o", str(out)])
    return result, out


@pytest.mark.parametrize("args, named", [
    (["--machine", "summit", "--production"], "'summit'"),
    (["--machine", "k-computer", "--compare", "angara-4d", "--production"], "'angara-4d'"),
    (["--machine", "summit", "--production", "--uncertainty"], "'summit'"),
])
def test_refused_without_production_values(tmp_path, args, named):
    result, out = _run(tmp_path, *args)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert result.output.startswith(f"icnperf: error: --production: machine {named} has no"
                                    " [production] values")
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_page_with_uncertainty_says_the_bars_are_production_ranges():
    page = icnperf.report("angara-36", set=BUSY, production=True, uncertainty=True,
                          samples=5, validation=False)
    assert "Error bars and 5-95 % cells are the --uncertainty --production ranges" in page
    assert "--production (each draw also drawing its OS noise)" in page
    assert "share of the empty machine&#39;s prediction&#39;s range" in page
    assert '"error_y"' in page
