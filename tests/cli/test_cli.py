"""The command line through Click's CliRunner: outputs, formats, files and bad input."""

import json
import os

import pytest
from click.testing import CliRunner

from icnperf import __version__
from icnperf.cli import cli

TOPOLOGY_KEYS = {"family", "spec", "routers", "endpoints", "radix", "links", "diameter",
                 "average_distance", "bisection_links", "channel_load", "throughput",
                 "saturation_estimate", "router", "icnperf_version", "notes"}
CHECK_KEYS = {"id", "source", "quantity", "measured", "predicted", "unit", "error",
              "tolerance", "tolerance_kind", "status", "passed"}


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_version_and_help():
    assert __version__ in run("--version").output
    result = run("--help")
    assert result.exit_code == 0
    for command in ("topology", "compare-topologies", "machines", "machine", "validate"):
        assert command in result.output
        assert run(command, "--help").exit_code == 0


def test_topology_json_has_the_documented_keys():
    result = run("topology", "torus:8x8x16", "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert set(doc) == TOPOLOGY_KEYS
    assert (doc["routers"], doc["endpoints"], doc["diameter"]) == (1024, 1024, 16)
    # 16-ring with ties at distance 8 all sent in + direction: (k + 2) / 8 (torus notes)
    assert doc["channel_load"]["uniform"] == pytest.approx(18 / 8)
    assert doc["throughput"]["uniform"] == pytest.approx(8 / 18)
    assert 0 < doc["saturation_estimate"]["uniform"] < doc["throughput"]["uniform"]
    assert doc["icnperf_version"] == __version__


def test_topology_estimate_takes_the_machines_routers():
    """Internal speedup 2 gives the allocator two rounds per cycle, so the estimate rises;
    --set alone (no machine) is a one-line error."""
    base = ["topology", "torus:8x8", "--format", "json"]
    plain = json.loads(run(*base).output)
    machine = json.loads(run(*base, "--machine", "angara-3d").output)
    faster = json.loads(run(*base, "--machine", "angara-3d", "--set",
                            "network.internal_speedup=2").output)
    assert faster["router"]["speedup"] == 2.0
    assert faster["saturation_estimate"]["uniform"] > machine["saturation_estimate"]["uniform"]
    assert plain["router"]["vcs"] == 2
    bad = run(*base, "--set", "network.internal_speedup=2")
    assert bad.exit_code == 2 and "--set needs --machine" in bad.output


def test_topology_table_and_csv():
    table = run("topology", "dragonfly:p=2,a=4,h=2")
    assert table.exit_code == 0
    assert "diameter" in table.output and "notes:" in table.output
    csv = run("topology", "dragonfly:p=2,a=4,h=2", "--format", "csv").output.splitlines()
    assert csv[0] == "metric,value"
    assert "routers,36" in csv       # a(ah+1) = 4 * 9


def test_compare_topologies_names_every_family():
    result = run("compare-topologies", "--endpoints", "100000", "--format", "json")
    assert result.exit_code == 0
    designs = json.loads(result.output)["designs"]
    families = [d["family"] for d in designs]
    assert families == ["fattree", "dragonfly", "megafly", "slimfly", "3D torus", "6D torus"]
    assert all(d["endpoints"] >= 100_000 for d in designs)
    six = designs[-1]
    assert (six["spec"], six["radix"], six["endpoints"]) == ("torus:7x7x7x7x7x7", 13, 117_649)


def test_compare_by_radix_and_counts_with_exponents():
    by_radix = json.loads(run("compare-topologies", "--radix", "36", "--format", "json").output)
    specs = {d["family"]: d["spec"] for d in by_radix["designs"]}
    assert specs == {"fattree": "fattree:k=18,n=3", "dragonfly": "dragonfly:p=9,a=18,h=9",
                     "megafly": "megafly:k=18", "slimfly": "slimfly:q=16,p=12"}
    assert all(d["radix"] <= 36 for d in by_radix["designs"])
    exponent = run("compare-topologies", "--endpoints", "1e5", "--families", "megafly")
    assert "megafly:k=18" in exponent.output


@pytest.mark.slow
def test_validate_json_lists_checks_with_the_registry_keys():
    result = run("validate", "--format", "json")
    assert result.exit_code == 0
    checks = json.loads(result.output)["checks"]
    assert checks and all(CHECK_KEYS <= set(c) for c in checks)
    assert not any(c["status"] == "fail" for c in checks)


def test_output_file_is_written_and_not_overwritten_without_force(tmp_path):
    target = tmp_path / "t.json"
    assert run("topology", "mesh:4x4", "--format", "json", "-o", str(target)).exit_code == 0
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask      # not mkstemp's 0600
    assert json.loads(target.read_text())["spec"] == "mesh:4x4"
    again = run("topology", "mesh:4x4", "-o", str(target))
    assert again.exit_code == 2 and "--force" in again.output
    assert run("topology", "mesh:4x4", "-o", str(target), "--force").exit_code == 0
    assert "mesh:4x4" in target.read_text()


@pytest.mark.parametrize("args", [
    ["topology", "torus:0x4"],
    ["topology", "slimfly:q=6"],
    ["topology", "nosuch:4"],
    ["topology", "torus:4x4", "--format", "yaml"],
    ["topology", "torus:4x4", "-o", "/nonexistent-dir/x.txt"],
    ["compare-topologies", "--endpoints", "0"],
    ["compare-topologies", "--endpoints", "abc"],
    ["compare-topologies", "--endpoints", "1000", "--families", "torus,nosuch"],
    ["compare-topologies", "--endpoints", "1000", "--torus-dims", "3,x"],
    ["compare-topologies", "--endpoints", "1e13"],
    ["compare-topologies"],
    ["compare-topologies", "--radix", "36", "--endpoints", "100"],
    ["topology", "hypercube:5000"],
    ["topology", "fattree:k=2,n=1100"],
    ["topology", "mesh:4x4", "-o", "report.html"],
    ["machine", "angara-36", "--set", "topology=torus:0x3"],
])
def test_bad_input_is_one_line_and_exit_status_2(args):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
