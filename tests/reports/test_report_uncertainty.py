"""``icnperf report --uncertainty``: error bars and 5-95 % cells from the predict commands'
own ranges, the tornado chart from explain's shares, the draws stated, the budget.

The ranges must be the API's: for the same machine, seed and sample count, the report's
error-bar ends equal ``predict p2p|collective|app --uncertainty``'s ``<field>_low`` and
``<field>_high``, and the tornado's shares equal ``explain collective --uncertainty``'s.
Few draws (12) keep the tests fast; equality does not depend on the count."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
from click.testing import CliRunner

import icnperf
from icnperf.api import machine_sections
from icnperf.cli import cli
from icnperf.data.machine import load_machine
from icnperf.data.machine.sampling import Sampling, sample_machines
from icnperf.data.skeleton import load_skeleton
from icnperf.reports import machine_report
from icnperf.reports.app_report import app_section

SAMPLES, SEED = 12, 7
SAMPLING = Sampling(SAMPLES, SEED)


def _ends(trace, scale):
    """A trace's error-bar ends in the API's units (SI)."""
    y = np.array(trace.y, dtype=float)
    return ((y - np.array(trace.error_y.arrayminus)) / scale,
            (y + np.array(trace.error_y.array)) / scale)


def test_p2p_error_bars_are_predict_p2p_ranges():
    machine = load_machine("angara-36")
    section = machine_report.p2p_section(
        machine_sections.p2p_results([machine], ["angara-36"], SAMPLING))
    rows = icnperf.predict_p2p("angara-36", bytes=list(machine_sections.P2P_SIZES),
                               uncertainty=True, samples=SAMPLES, seed=SEED).rows
    traces = {t.name: t for fig in section.figures for t in fig.data}
    for name, field, scale in (("angara-36: total", "latency_s", 1e6),
                               ("angara-36: ping-pong", "bandwidth_Bps", 1e-9),
                               ("angara-36: streaming", "streaming_bandwidth_Bps", 1e-9),
                               ("angara-36", "message_rate_per_s", 1e-6)):
        low, high = _ends(traces[name], scale)
        assert low == pytest.approx([r[f"{field}_low"] for r in rows], rel=1e-12)
        assert high == pytest.approx([r[f"{field}_high"] for r in rows], rel=1e-12)
        assert (low <= np.array([r[field] for r in rows]) * (1 + 1e-12)).all()
    assert traces["angara-36: hardware path only"].error_y.array is None
    (table,) = section.tables
    assert table.columns[4] == "latency 5-95 % (µs)"
    one_k = next(r for r in rows if r["bytes"] == 1024)
    row = next(row for row in table.rows if row[1] == 1024)
    assert row[4] == f"{one_k['latency_s_low'] * 1e6:.4g}–{one_k['latency_s_high'] * 1e6:.4g}"


def test_collective_error_bars_are_predict_collective_ranges():
    """angara-36's sweep is 2x2x2, 2x2x4, 2x4x4 and its own 3x3x4, the layouts predict
    collective builds for 8, 16, 32 and 36 nodes."""
    machine = load_machine("angara-36")
    results = machine_sections.collective_results([machine], ["angara-36"], SAMPLING)
    section = machine_report.collectives_section(results)
    predicted = icnperf.predict_collective("angara-36", "allreduce", nodes=[8, 16, 32, 36],
                                           bytes=256, algorithm="all", uncertainty=True,
                                           samples=SAMPLES, seed=SEED).rows
    allreduce = section.figures[1]
    checked = 0
    for trace in allreduce.data:
        if trace.name == "angara-36: crossovers" or trace.name.endswith("crossovers"):
            continue
        rows = [r for r in predicted if r["algorithm"] == trace.name]
        assert [r["nodes"] for r in rows] == list(trace.x)
        low, high = _ends(trace, 1e6)
        assert low == pytest.approx([r["time_s_low"] for r in rows], rel=1e-12)
        assert high == pytest.approx([r["time_s_high"] for r in rows], rel=1e-12)
        checked += 1
    assert checked >= 4 and "hw-tree" in [t.name for t in allreduce.data]
    (table,) = section.tables
    assert table.columns[5] == "time 5-95 % (µs)"
    own = next(r for r in predicted if r["nodes"] == 36 and r["algorithm"] == "hw-tree")
    row = next(r for r in table.rows if r[1] == "allreduce" and r[3] == "hw-tree")
    assert row[5] == f"{own['time_s_low'] * 1e6:.4g}–{own['time_s_high'] * 1e6:.4g}"


def test_application_totals_are_quantiles_of_the_drawn_machines():
    """The apps' totals (the Angara papers' Python models, which predict app does not run)
    checked by brute force: each drawn machine, with that draw's model constants in force
    (the roofline's byte counts), through app_rows, then numpy's 5th and 95th
    percentiles."""
    from icnperf.model import constants
    from icnperf.api.app_runs import app_rows

    machine = load_machine("angara-36")
    results = machine_sections.app_results([machine], ["angara-36"], SAMPLING)
    layouts = machine_sections.fewer(machine_sections.node_layouts(machine))
    drawn = sample_machines(machine, SAMPLES, SEED)
    constant_draws = constants.draws(SAMPLES, SEED)

    def totals_of(app, index):
        with constants.drawn(constants.at(constant_draws, index)):
            return [r["total_s"] for r in app_rows(app, drawn[index], layouts, "all", {})]

    for entry in results["apps"]:
        totals = np.array([totals_of(entry["app"], i) for i in range(SAMPLES)])
        rows = [r for _, r in entry["rows"]]
        assert [r["total_s_low"] for r in rows] == pytest.approx(
            np.percentile(totals, 5, axis=0), rel=1e-12)
        assert [r["total_s_high"] for r in rows] == pytest.approx(
            np.percentile(totals, 95, axis=0), rel=1e-12)
    section = machine_report.apps_section(results)
    totals_figure = section.figures[1]
    hw = next(t for t in totals_figure.data if t.name == "hw-tree")
    rows = [r for _, r in results["apps"][0]["rows"] if r["algorithm"] == "hw-tree"]
    assert _ends(hw, 1e6)[1] == pytest.approx([r["total_s_high"] for r in rows], rel=1e-12)
    assert "total 5-95 % (µs)" in section.tables[0].columns


def test_skeleton_error_bars_are_predict_app_ranges():
    machine = load_machine("angara-36")
    layouts = machine_sections.node_layouts(machine)
    run = machine_sections.skeleton_results(load_skeleton("jacobi3d"), machine, "angara-36",
                                            layouts, SAMPLING)
    section = app_section(run)
    totals = icnperf.predict_app("angara-36", "jacobi3d", nodes=[8, 16, 32, 36],
                                 uncertainty=True, samples=SAMPLES, seed=SEED).to_dict()["totals"]
    total = next(t for t in section.figures[1].data if t.name == "total")
    low, high = _ends(total, 1.0)
    assert low == pytest.approx([t["total_s_low"] for t in totals], rel=1e-12)
    assert high == pytest.approx([t["total_s_high"] for t in totals], rel=1e-12)
    assert "total 5-95 % (s)" in section.tables[0].columns


def test_tornado_shares_are_explains():
    """angara-4d: the all-reduces its formulas print (hw-tree, p2p-tree); lumi, a dragonfly
    with no tree formula: the MPI library's choice (auto: recursive doubling)."""
    machine = load_machine("angara-4d")
    charts = machine_sections.tornadoes(machine, "angara-4d", [{"algorithm": "hw-tree"},
                                                                {"algorithm": "p2p-tree"}])
    (lumi,) = machine_sections.tornadoes(load_machine("lumi"), "lumi", [])["charts"]
    assert lumi["algorithm"] == "auto: recursive-doubling"
    section = machine_report.uncertainty_section(
        SAMPLING.as_record(), {"charts": charts["charts"] + [lumi], "absent": []},
        "angara-4d")
    for chart, fig, preset, asked in zip(
            charts["charts"] + [lumi], section.figures, ("angara-4d", "angara-4d", "lumi"),
            ("hw-tree", "p2p-tree", "auto")):
        explained = icnperf.explain_collective(preset, "allreduce", algorithm=asked,
                                               bytes=256,
                                               uncertainty=True).to_dict()["elasticities"]
        shares = {r["key"]: r for r in explained}
        (bars,) = fig.data
        assert bars.orientation == "h"
        ranked = sorted((r for r in explained if r["range_share"] > 0),
                        key=lambda r: -r["range_share"])[:len(bars.y)]
        assert list(bars.y) == [r["key"] for r in ranked][::-1]      # largest on top
        for key, base, width, share in zip(bars.y, bars.base, bars.x, bars.customdata):
            assert share == pytest.approx(shares[key]["range_share"] * 100, rel=1e-12)
            assert -base == pytest.approx(shares[key]["range_contribution"] * 100, rel=1e-12)
            assert width == pytest.approx(-2 * base, rel=1e-12)
        shown = sum(bars.customdata) / 100
        assert shown + chart["rest"] == pytest.approx(1.0, rel=1e-9)
    assert f"over {SAMPLES} draws" in section.intro and f"seed {SEED}" in section.intro


def test_page_states_the_draws_and_plain_reports_have_no_bars(network_loads):
    page = icnperf.report("angara-36", validation=False, uncertainty=True, samples=SAMPLES,
                          seed=SEED)
    assert "Uncertainty: what matters most" in page
    assert f"--uncertainty: {SAMPLES} draws of the inputs, seed {SEED}" in page
    assert page.count('"error_y":{"array"') >= 10
    assert "latency 5-95 % (µs)" in page and "time 5-95 % (µs)" in page
    assert network_loads(page) == []
    plain = icnperf.report("angara-36", validation=False)
    assert "\"error_y\":{" not in plain and "5-95 %" not in plain
    assert "Uncertainty: what matters most" not in plain


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_samples_beyond_the_budget_are_refused(tmp_path):
    """fugaku's 13 node counts: 100,000 draws are estimated at hours, over the 3-minute
    default; 10 draws fit."""
    target = tmp_path / "r.html"
    result = invoke("report", "--machine", "fugaku", "--uncertainty", "--samples", 100000,
                    "-o", target)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "x 100,000 draws" in lines[0]
    assert "fewer --samples" in lines[0]
    assert os.listdir(tmp_path) == []
    from icnperf.data.limits import within_limits
    from icnperf.model.budget import report_estimate

    fugaku = load_machine("fugaku")
    ranks = [[layout.ranks for layout in machine_sections.node_layouts(fugaku)]]
    within_limits(report_estimate(ranks, ["fugaku"], 200))


@pytest.mark.parametrize("args, message", [
    (["--samples", "10"], "--samples and --seed go with --uncertainty"),
    (["--seed", "3"], "--samples and --seed go with --uncertainty"),
    (["--uncertainty", "--samples", "0"], "--samples"),
    (["--uncertainty", "--samples", "-1"], "--samples"),
    (["--uncertainty", "--samples", "abc"], "--samples"),
    (["--uncertainty", "--seed", "x"], "--seed"),
    (["--uncertainty", "--samples", "200000"], "--samples"),
    (["--uncertainty", "--seed", "-1"], "--seed"),
])
def test_bad_sampling_options(tmp_path, args, message):
    target = tmp_path / "r.html"
    result = invoke("report", "--machine", "angara-36", *args, "-o", target)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and re.search(r"\berror: ", lines[0]) and message in lines[0]
    assert os.listdir(tmp_path) == []
