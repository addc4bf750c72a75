"""``icnperf validate`` through Click: the 100-column table by claim kind with its notes,
--wide, --only, the simulation flags, and the kind / tolerance reason fields of JSON and CSV."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.validation.registry import all_claims


def run(*args):
    return CliRunner().invoke(cli, ["validate", *args])


@pytest.fixture(scope="module")
def table():
    result = run()
    assert result.exit_code == 0, result.output
    return result.output


def test_default_table_fits_100_columns_and_counts_kinds_apart(table):
    lines = table.splitlines()
    assert max(len(line) for line in lines) <= 100
    fast = all_claims(runs=("closed-form", "application"))
    predicted = [c for c in fast if c.kind == "predicted"]
    post_hoc = [c for c in fast if c.kind == "post-hoc"]
    calibrated = [c for c in fast if c.kind == "calibrated"]
    titles = [next(i for i, l in enumerate(lines) if l.startswith(title))
              for title in ("Predicted", "Post hoc", "Calibrated")]
    assert titles == sorted(titles)
    at = next(i for i, l in enumerate(lines) if " predicted: " in l)
    summary = " ".join(lines[at:at + 2])
    assert summary.startswith(f"{len(predicted)} predicted: ")
    assert (f"; {len(post_hoc)} post-hoc (" in summary
            and f"; {len(calibrated)} calibrated; 0 regression" in summary)
    assert "--simulation runs them" in lines[-1]
    assert not any(line.startswith("flitsim-") for line in lines)
    header = next(l for l in lines if l.startswith("claim "))
    assert header.split() == ["claim", "measured", "predicted", "error", "tolerance", "status"]


def test_each_known_discrepancy_has_a_numbered_note(table):
    lines = table.splitlines()
    rows = [l for l in lines if l.split() and l.split()[0] in {c.id for c in all_claims()}]
    marked = [row for row in rows if "known [" in row]
    assert marked
    for number, row in enumerate(marked, 1):
        assert row.endswith(f"known [{number}]")
        claim_id = row.split()[0]
        note = next(l for l in lines if l.startswith(f"[{number}] "))
        assert note.startswith(f"[{number}] {claim_id} (known discrepancy): ")


def test_calibrated_rows_name_what_was_fitted(table):
    text = " ".join(table.split())
    assert "fitted: node.stencil_overhead (angara-4d, 14.4 µs)" in text
    assert "fitted: software.mpi_overhead (angara-36)" in text


def test_only_takes_a_glob_or_a_substring():
    glob = run("--only", "nudt-??-radix", "--format", "json")
    assert glob.exit_code == 0, glob.output
    assert [c["id"] for c in json.loads(glob.output)["checks"]] == [
        "nudt-sf-radix", "nudt-df-radix", "nudt-mf-radix"]
    sub = run("--only", "torus6d")
    assert sub.exit_code == 0
    assert [l.split()[0] for l in sub.output.splitlines() if l.startswith("nudt-")] == [
        "nudt-torus6d-ports", "nudt-torus6d-k5-endpoints", "nudt-torus6d-k7-endpoints"]
    assert "3 predicted: 3 pass" in sub.output


def test_only_without_a_match_is_a_one_line_error():
    result = run("--only", "no-such-claim")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "icnperf: error: --only 'no-such-claim': no claim id matches"]
    hidden = run("--only", "flitsim-zero-load-*")
    assert hidden.exit_code == 2
    assert "simulator cross-check(s) match: add --simulation" in hidden.output


def test_simulation_flags_contradicting_each_other():
    result = run("--simulation", "--skip-simulation", "--only", "nudt-sf-radix")
    assert result.exit_code == 2 and "contradict" in result.output
    kept = run("--skip-simulation", "--only", "nudt-sf-radix")
    assert kept.exit_code == 0 and "1 predicted: 1 pass" in kept.output


def test_wide_is_the_one_line_layout_with_every_field():
    result = run("--wide", "--only", "angara-fig7-allreduce-3d-8192")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split()[:3] == ["id", "kind", "source"] and "tolerance reason" in lines[0]
    assert lines[2].startswith("angara-fig7-allreduce-3d-8192  predicted  Angara")
    assert max(len(line) for line in lines) > 100
    assert "  - angara-fig7-allreduce-3d-8192 (known-discrepancy): 'approximately" in (
        result.output)


def test_json_and_csv_carry_kind_and_tolerance_reason():
    doc = json.loads(run("--only", "angara-", "--format", "json").output)
    assert doc["simulation"] is False
    assert set(doc["counts"]) == {"predicted", "post-hoc", "calibrated", "regression"}
    for check in doc["checks"]:
        assert check["kind"] in ("predicted", "post-hoc", "calibrated", "regression")
        assert check["tolerance_reason"] and check["runs"] in ("closed-form", "application")
    assert sum(sum(v.values()) for v in doc["counts"].values()) == len(doc["checks"])
    rows = list(csv.DictReader(io.StringIO(run("--only", "nudt-mf", "--format", "csv").output)))
    assert rows and {"kind", "tolerance_reason", "runs", "expected", "reason"} <= set(rows[0])
    assert all(r["kind"] == "predicted" and r["tolerance_reason"] for r in rows)


def test_html_page_of_a_selection(tmp_path):
    target = tmp_path / "v.html"
    result = run("--only", "nudt-sf-*", "-o", str(target))
    assert result.exit_code == 0, result.output
    page = target.read_text(encoding="utf-8")
    assert "3 predicted: 3 pass, 0 known discrepancy, 0 open, 0 fail" in page
    assert "They were not run" in page


def test_help_states_the_default():
    text = " ".join(run("--help").output.split())
    assert "By default the closed-form and application claims run" in text
    assert "--simulation" in text and "--only PATTERN" in text and "--wide" in text
