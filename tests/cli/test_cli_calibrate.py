"""``icnperf calibrate`` end to end: fit, report, calibrated TOML usable with --machine."""

import json
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.data.machine import load_machine

BENCH = Path(__file__).resolve().parents[1] / "data" / "bench"
# The OSU sample was generated from angara-36 with a 450 ns MPI overhead and 6 GB/s links
# (tests/data/bench/generate.py, 0.5 % noise).
TRUE_OVERHEAD, TRUE_LINK = 450e-9, 6e9


def invoke(*args):
    return CliRunner().invoke(cli, ["calibrate", "--machine", "angara-36", *args])


def test_osu_latency_fit_recovers_the_generating_parameters(tmp_path):
    out = tmp_path / "calibrated.toml"
    result = invoke("--data", str(BENCH / "osu_latency.txt"), "-o", str(out), "--format",
                    "json")
    assert result.exit_code == 0, result.output
    fit = {p["parameter"]: p for p in json.loads(result.output)["parameters"]}
    overhead, link = fit["software.mpi_overhead"], fit["network.link_bandwidth"]
    assert overhead["ci_low"] <= TRUE_OVERHEAD <= overhead["ci_high"]
    assert link["ci_low"] <= TRUE_LINK <= link["ci_high"]
    calibrated = load_machine(str(out))
    assert calibrated.require("software.mpi_overhead") == pytest.approx(overhead["value"])
    assert "calibrated" in calibrated.source("software.mpi_overhead")


def test_output_to_standard_output_prints_the_machine_and_no_written_to_line(tmp_path):
    result = invoke("--data", str(BENCH / "osu_latency.txt"), "-o", "-")
    assert result.exit_code == 0, result.output
    toml_text, report = result.output.split("angara-36 calibrated from", 1)
    machine = tomllib.loads(toml_text)
    assert "calibrated" in machine["software"]["mpi_overhead"]["source"]
    assert "written to" not in report
    out = tmp_path / "calibrated.toml"
    result = invoke("--data", str(BENCH / "osu_latency.txt"), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "calibrated machine written to" in result.output and out.exists()


def test_imb_pingpong_with_loggp_aliases():
    result = invoke("--data", str(BENCH / "imb_2021.txt"), "--fit", "o,G", "--format", "csv")
    assert result.exit_code == 0, result.output
    header, *rows = result.output.splitlines()
    assert header.startswith("parameter,keys,unit")
    assert [r.split(",")[0] for r in rows] == ["software.mpi_overhead", "network.link_bandwidth"]


def test_bundled_table_reports_error_per_row():
    result = invoke("--data", "angara-latency-16b", "--fit", "software.mpi_overhead")
    assert result.exit_code == 0, result.output
    assert "300.6 ns" in result.output                 # 1 us - 699.4 ns hardware path
    assert result.output.count("rel. error") == 1 and "-0.08 %" in result.output


@pytest.mark.parametrize("data", ["bad_csv_missing_value.csv", "bad_csv_nan.csv",
                                  "bad_csv_negative.csv", "bad_empty.txt", "missing.csv"])
def test_bad_data_is_one_line_status_2_and_writes_nothing(tmp_path, data):
    out = tmp_path / "out.toml"
    result = invoke("--data", str(BENCH / data), "-o", str(out))
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_unidentifiable_fit_is_rejected(tmp_path):
    out = tmp_path / "out.toml"
    # injection and ejection latency enter every prediction only as their sum
    result = invoke("--data", str(BENCH / "osu_latency.txt"), "-o", str(out), "--fit",
                    "network.injection_latency,network.ejection_latency")
    assert result.exit_code == 2 and not out.exists()
    assert len(result.output.strip().splitlines()) == 1


def test_calibrated_file_carries_the_fit_interval_as_its_uncertainty(tmp_path):
    out = tmp_path / "calibrated.toml"
    result = invoke("--data", str(BENCH / "osu_latency.txt"), "-o", str(out), "--format",
                    "json")
    assert result.exit_code == 0, result.output
    fit = {p["parameter"]: p for p in json.loads(result.output)["parameters"]}
    overhead = fit["software.mpi_overhead"]
    spread = load_machine(str(out)).spread("software.mpi_overhead")
    assert (spread.kind, spread.form) == ("calibrated", "absolute")
    # the wider side of the printed interval, as the file writes it back
    half = max(overhead["ci_high"] - overhead["value"], overhead["value"] - overhead["ci_low"])
    assert spread.amount == pytest.approx(half, rel=1e-12)
    assert "confidence interval" in spread.reason
    # a value the fit did not touch keeps the preset's kind
    assert load_machine(str(out)).spread("node.cores").kind == \
        load_machine("angara-36").spread("node.cores").kind
