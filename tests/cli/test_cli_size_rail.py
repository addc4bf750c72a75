"""size --families rail on the command line: refused with one line on a machine without
GPUs; on a GPU machine the rail and plain twins share their cost (tests/model/sizing/
test_sizing_rail.py works the times out by hand)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from icnperf.cli import cli


def test_rail_needs_a_gpu_machine():
    result = CliRunner().invoke(cli, ["size", "--endpoints", "16", "--families", "rail"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "GPU machine" in result.output


def test_rail_twins_cost_the_same(tmp_path):
    """16 dgx-h100 nodes: 16 designs (2 NIC counts x 4 tapers x rail and plain); each rail
    tree's plain twin (join=1) has its switches, links and cost."""
    result = CliRunner().invoke(cli, ["size", "--endpoints", "16", "--families", "rail",
                                      "--machine", "dgx-h100", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["designs"]
    assert len(rows) == 16
    assert sum(r["design"].endswith(",join=1") for r in rows) == 8
    by_spec = {r["design"]: r for r in rows}
    for spec, row in by_spec.items():
        if spec.endswith(",join=2"):
            twin = by_spec[spec.replace(",join=2", ",join=1")]
            keys = ("cost", "routers", "radix", "electrical_links", "endpoint_links")
            assert [twin[k] for k in keys] == [row[k] for k in keys]


def test_the_table_fits_100_columns_in_panels_that_repeat_the_design():
    """16 dgx-h100 nodes: specs like rail:rails=8,m=16x32,w=1x16,join=2 (34 characters)
    made the one table 106 columns wide; split, each panel names the design again."""
    result = CliRunner().invoke(cli, ["size", "--endpoints", "16", "--families", "rail",
                                      "--machine", "dgx-h100"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 100
    headers = [line.split() for line in lines if line.startswith("rank  *  design")]
    assert len(headers) == 2
    assert {"endpoints", "routers", "radix"} <= set(headers[0])
    assert {"cost", "workload", "proxy"} <= set(headers[1])
    rows = [line for line in lines if line.lstrip()[:1].isdigit() and "rail:" in line]
    assert len(rows) == 2 * 16
