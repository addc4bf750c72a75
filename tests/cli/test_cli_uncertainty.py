"""``--uncertainty`` on predict p2p|collective|app through Click's CliRunner."""

import json

import pytest
from click.testing import CliRunner

from icnperf.cli import cli


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _json(*args):
    result = run(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_lumi_zero_hop_latency_range_is_the_measurement_band():
    """On one switch the 8-byte MPI latency is overhead + 2 NICs + 1 switch + 5.12 ns of
    serialization, and the overhead (645 ns) is solved from LUMI's 1.8 us (-0.2/+0.2): the
    sum overhead + NICs + switch (645 + 800 + 350 = 1795 ns) is uniform on 1795 +- 200 ns
    whatever the placeholders draw, so its 5th and 95th percentiles are 1615 and 1975 ns,
    and the latency's 5.12 ns more."""
    doc = _json("predict", "p2p", "--machine", "lumi", "--bytes", "8", "--hops", "0",
                "--uncertainty", "--samples", "2000")
    row = doc["rows"][0]
    assert row["latency_s"] == pytest.approx(1.80012e-6)
    assert row["latency_s_low"] == pytest.approx(1.62012e-6, rel=5e-3)
    assert row["latency_s_high"] == pytest.approx(1.98012e-6, rel=5e-3)
    # the hardware part alone is far less sure than the sum
    assert row["hardware_latency_s_high"] / row["hardware_latency_s_low"] > 1.3
    assert doc["inputs"]["uncertainty"] == {"samples": 2000, "seed": 0,
                                            "quantiles": [0.05, 0.95], "unstated": []}


def test_seeded_and_default_unchanged():
    args = ("predict", "p2p", "--machine", "summit", "--bytes", "8,64KiB")
    one = _json(*args, "--uncertainty", "--samples", "30", "--seed", "5")
    assert one == _json(*args, "--uncertainty", "--samples", "30", "--seed", "5")
    other = _json(*args, "--uncertainty", "--samples", "30", "--seed", "6")
    assert one["rows"][0]["latency_s_low"] != other["rows"][0]["latency_s_low"]
    plain = _json(*args)
    assert not any(key.endswith(("_low", "_high")) for key in plain["rows"][0])
    assert "uncertainty" not in plain["inputs"]
    # the point values are the same with and without ranges
    assert all(one["rows"][0][k] == v for k, v in plain["rows"][0].items())


def test_exact_set_value_narrows_the_range():
    """Summit's MPI overhead is a placeholder (x2): set exactly, the 8-byte range shrinks."""
    args = ("predict", "p2p", "--machine", "summit", "--bytes", "8", "--uncertainty",
            "--samples", "100")
    wide = _json(*args)["rows"][0]
    narrow = _json(*args, "--set", "software.mpi_overhead=500ns")["rows"][0]
    assert (narrow["latency_s_high"] - narrow["latency_s_low"]) < \
        0.7 * (wide["latency_s_high"] - wide["latency_s_low"])


def test_samples_without_uncertainty_is_a_usage_error():
    result = CliRunner().invoke(cli, ["predict", "p2p", "--machine", "lumi", "--samples",
                                      "5"])
    assert result.exit_code == 2
    assert "--uncertainty" in result.output


def test_tables_fit_100_columns_and_say_how_ranges_were_drawn():
    for args in (("predict", "p2p", "--machine", "frontier"),
                 ("predict", "collective", "allreduce", "--machine", "piz-daint",
                  "--nodes", "16", "--bytes", "8"),
                 ("predict", "app", "hpcg", "--machine", "fugaku", "--nodes", "8")):
        result = run(*args, "--uncertainty", "--samples", "10")
        assert result.exit_code == 0, result.output
        assert max(len(line) for line in result.output.splitlines()) <= 100
        assert "5-95 %" in result.output and "over 10 draws" in result.output
        assert "seed 0" in result.output


def test_collective_and_app_json_ranges():
    doc = _json("predict", "collective", "allreduce", "--machine", "piz-daint", "--nodes",
                "16", "--bytes", "8", "--algorithm", "recursive-doubling", "--uncertainty",
                "--samples", "20")
    row = doc["rows"][0]
    assert row["time_s_low"] <= row["time_s"] <= row["time_s_high"]
    assert row["time_s_low"] < row["time_s_high"]
    doc = _json("predict", "app", "hpcg", "--machine", "fugaku", "--nodes", "8",
                "--uncertainty", "--samples", "20")
    total = doc["totals"][0]
    assert total["gflops_low"] < total["gflops"] < total["gflops_high"]
    assert total["total_s_low"] < total["total_s"] < total["total_s_high"]
    assert all("time_s_low" in row for row in doc["rows"])


def test_explain_range_shares_follow_the_correlation_rule():
    """Ring all-reduce of 8 B on 16 LUMI nodes: 30 steps, each charged overhead + NICs +
    one switch, which the overhead is solved to keep at LUMI's measured sum (+-0.2 us).
    So the range is the measurement's alone: 30 x 0.2 us over T, and the NIC placeholders
    and the switch, moving the overhead against them, give nothing."""
    doc = _json("explain", "collective", "allreduce", "--machine", "lumi", "--nodes", "16",
                "--algorithm", "ring", "--bytes", "8", "--uncertainty")
    rows = {row["key"]: row for row in doc["elasticities"]}
    overhead = rows["software.mpi_overhead"]
    assert overhead["range_contribution"] == pytest.approx(30 * 0.2e-6 / doc["time_s"])
    for key in ("network.injection_latency", "network.ejection_latency",
                "network.router_latency"):
        assert rows[key]["range_contribution"] == pytest.approx(0.0, abs=1e-12)
    assert sum(row["range_share"] for row in rows.values()) == pytest.approx(1.0)
    assert overhead["range_share"] > 0.99
    # the sampled range agrees: uniform +-11.1 % gives a 5-95 % range of +-10 %
    pred = _json("predict", "collective", "allreduce", "--machine", "lumi", "--nodes", "16",
                 "--bytes", "8", "--algorithm", "ring", "--uncertainty", "--samples", "400")
    row = pred["rows"][0]
    half = 0.9 * overhead["range_contribution"]
    assert row["time_s_low"] == pytest.approx(row["time_s"] * (1 - half), rel=0.01)
    assert row["time_s_high"] == pytest.approx(row["time_s"] * (1 + half), rel=0.01)


def test_explain_placeholders_dominate_where_nothing_is_calibrated():
    """Summit: the MPI overhead (500 ns) and both adapters (300 ns) are placeholders or
    derived; an 8-byte binomial broadcast's range comes mostly from the overhead (x2:
    half-width 500 ns x ln 2 per message)."""
    doc = _json("explain", "collective", "broadcast", "--machine", "summit", "--nodes", "16",
                "--algorithm", "binomial", "--bytes", "8", "--uncertainty")
    rows = {row["key"]: row for row in doc["elasticities"]}
    overhead = rows["software.mpi_overhead"]
    assert overhead["spread"] == "x2"
    expected = abs(overhead["derivative"]) * 500e-9 * 0.6931471805599453 / doc["time_s"]
    assert overhead["range_contribution"] == pytest.approx(expected)
    assert max(rows.values(), key=lambda r: r["range_share"])["key"] == "software.mpi_overhead"


def test_machine_shows_kinds_and_spreads_on_request():
    doc = _json("machine", "lumi", "--uncertainty")
    rows = {f"{r['section']}.{r['key']}": r for r in doc["parameters"]}
    assert rows["software.mpi_overhead"]["kind"] == "calibrated"
    assert rows["software.mpi_overhead"]["spread"] == "±0.2 us"
    assert rows["network.injection_latency"]["spread"] == "x2"
    assert rows["node.cores"]["spread"] == "exact"
    plain = _json("machine", "lumi")
    assert "kind" not in plain["parameters"][0]
    result = run("machine", "frontier", "--uncertainty")
    assert result.exit_code == 0
    assert max(len(line) for line in result.output.splitlines()) <= 100
