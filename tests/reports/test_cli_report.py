"""``icnperf report`` and ``icnperf validate -o FILE.html`` through Click's CliRunner."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from icnperf.cli import cli


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_report_writes_one_page(tmp_path, network_loads):
    target = tmp_path / "report.html"
    result = invoke("report", "--machine", "angara-36", "--set",
                    "network.link_latency=60ns", "--no-validation", "-o", target)
    assert result.exit_code == 0, result.output
    assert f"wrote {target}" in result.output
    page = target.read_text(encoding="utf-8")
    assert "icnperf report: angara-36 (with --set)" in page
    assert "network.link_latency=60ns" in page
    assert "60 ns" in page  # the override reaches the summary table
    assert network_loads(page) == []
    assert os.listdir(tmp_path) == ["report.html"]  # no temporary file left


@pytest.mark.parametrize("args, message", [
    (["--machine", "no-such-machine"], "no-such-machine"),
    (["--machine", "angara-36", "--compare", "no-such-machine"], "no-such-machine"),
    (["--machine", "angara-36", "--set", "network.nonsense=1"], "nonsense"),
])
def test_report_bad_machines(tmp_path, args, message):
    target = tmp_path / "report.html"
    result = invoke("report", *args, "-o", target)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("icnperf: error:") and message in lines[0]
    assert os.listdir(tmp_path) == []


def test_report_bad_outputs(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    existing = tmp_path / "old.html"
    existing.write_text("keep me")
    cases = [(tmp_path / "missing" / "r.html", "does not exist"),
             (blocker / "r.html", "does not exist"),
             (existing, "exists; pass --force"),
             (tmp_path / "report.txt", "HTML page")]
    for target, message in cases:
        result = invoke("report", "--machine", "angara-36", "-o", target)
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], lines
    assert existing.read_text() == "keep me"
    assert sorted(os.listdir(tmp_path)) == ["a-file", "old.html"]


def test_validate_html_bad_output_fails_before_checking(tmp_path):
    result = invoke("validate", "-o", tmp_path / "missing" / "v.html")
    assert result.exit_code == 2
    assert "does not exist" in result.output
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
def test_validate_html_page_and_text_unchanged(tmp_path, network_loads):
    """-o v.html writes the page; -o v.csv keeps the CSV; both exit 0 (no failing claim
    today, as `icnperf validate` reports)."""
    page_path = tmp_path / "v.html"
    result = invoke("validate", "-o", page_path)
    assert result.exit_code == 0, result.output
    page = page_path.read_text(encoding="utf-8")
    assert "Simulator cross-checks" in page and "Angara collectives paper (Mukosey 2015)" in page
    assert "Fig. 7 redrawn" in page
    assert network_loads(page) == []
    csv_path = tmp_path / "v.csv"
    result = invoke("validate", "--format", "csv", "-o", csv_path)
    assert result.exit_code == 0
    assert csv_path.read_text().startswith("id,source,quantity,measured,predicted")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root writes into read-only directories")
def test_report_into_a_read_only_directory(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = invoke("report", "--machine", "angara-36", "--no-validation",
                        "-o", locked / "r.html")
        assert result.exit_code == 2
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "cannot write" in lines[0]
        assert os.listdir(locked) == []
    finally:
        locked.chmod(0o700)


def test_validate_html_refuses_a_format(tmp_path):
    result = invoke("validate", "--format", "json", "-o", tmp_path / "v.html")
    assert result.exit_code == 2
    assert "--format json does not apply to an HTML page" in result.output
    assert os.listdir(tmp_path) == []
