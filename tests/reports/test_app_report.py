"""``icnperf report --app``: an application skeleton's section (reports/app_report.py)."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.data.machine import load_machine
from icnperf.data.skeleton import load_skeleton
from icnperf.model.apps import timing
from icnperf.api.machine_sections import node_layouts, skeleton_results
from icnperf.reports.app_report import app_section


def test_section_stacks_phase_shares_with_efficiency():
    machine = load_machine("angara-36")
    layouts = node_layouts(machine)
    section = app_section(skeleton_results(load_skeleton("jacobi3d"), machine, "angara-36",
                                           layouts))
    stacked, times = section.figures
    bars = [t for t in stacked.data if t.type == "bar"]
    assert [b.name for b in bars] == ["sweep", "halo", "residual"]
    for i in range(len(layouts)):
        assert sum(b.y[i] for b in bars) == pytest.approx(100)
    (efficiency,) = [t for t in stacked.data if t.type == "scatter"]
    assert efficiency.yaxis == "y2" and efficiency.y[0] == 1
    # the table's totals are the skeleton's own run times
    (table,) = section.tables
    for row, layout in zip(table.rows, layouts):
        result = timing.run(load_skeleton("jacobi3d"), machine, layout)
        assert row[0] == layout.endpoints
        assert row[-3] == pytest.approx(result.total_s)
    assert times.data[-1].name == "total"


def test_report_with_an_app_file(tmp_path, network_loads):
    app = tmp_path / "jacobi.toml"
    app.write_text(_JACOBI)
    target = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["report", "--machine", "angara-36", "--no-validation",
                                      "--app", str(app), "-o", str(target)])
    assert result.exit_code == 0, result.output
    page = target.read_text(encoding="utf-8")
    assert "Application skeleton: jacobi3d" in page
    assert network_loads(page) == []


def test_report_with_a_bad_app_writes_nothing(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(_JACOBI.replace('"8 * n**3 / P"', '"8 * q**3 / P"'))
    target = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["report", "--machine", "angara-36", "--app", str(bad),
                                      "-o", str(target)])
    assert result.exit_code == 2
    assert "phase 'sweep', key 'flops'" in result.output
    assert sorted(os.listdir(tmp_path)) == ["bad.toml"]


_JACOBI = '''format = 1
name = "jacobi3d"
[parameters]
n = 512
iterations = 10
[[phase]]
name = "sweep"
repeat = "iterations"
flops = "8 * n**3 / P"
memory_bytes = "64 * n**3 / P"
[[phase]]
name = "halo"
repeat = "iterations"
halo = { dims = 3, bytes = "8 * (n / P**(1/3))**2" }
'''
