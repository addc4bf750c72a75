"""Every preset `icnperf machines` lists answers every everyday question (issue 26).

The preset list is read from `icnperf machines` itself, so a preset added later is checked
without editing this file. Each cell runs at a node count that fits the machine (at most 16
nodes, the machine's own size when smaller) with one or two message sizes, to stay fast;
the full-size default job is checked once per preset through its layout (test_default_job).
"""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.data.machine import load_machine
from icnperf.model.collectives import TABLE, Layout, machine_layout
from icnperf.model.topology.spec import parse_spec

SMALL_JOB = 16


def _presets() -> list[str]:
    result = CliRunner().invoke(cli, ["machines", "--format", "json"])
    assert result.exit_code == 0, result.output
    return [row["name"] for row in json.loads(result.output)["machines"]]


PRESETS = _presets()


def _run(*args: str) -> dict:
    result = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert result.exit_code == 0, f"icnperf {' '.join(args)}: {result.output}"
    return json.loads(result.output)


def _nodes(name: str) -> str:
    machine = load_machine(name)
    spec = parse_spec(machine.topology)
    size = machine.get("system.nodes") or spec.family.endpoints(spec.params)
    return str(min(SMALL_JOB, int(size)))


def _positive(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def _algorithms(operation: str) -> set[str]:
    return {a for a, op in TABLE if op == operation}


@pytest.mark.parametrize("name", PRESETS)
def test_predict_p2p(name):
    rows = _run("predict", "p2p", "--machine", name, "--bytes", "8,4KiB")["rows"]
    assert len(rows) == 2 and all(_positive(r["latency_s"]) for r in rows)
    assert rows[0]["latency_s"] < rows[1]["latency_s"]


@pytest.mark.parametrize("name", PRESETS)
def test_predict_allreduce_auto(name):
    doc = _run("predict", "collective", "allreduce", "--machine", name, "--nodes",
               _nodes(name), "--bytes", "8", "--algorithm", "auto")
    (row,) = doc["rows"]
    assert row["algorithm"].startswith("auto: ") and _positive(row["time_s"])
    assert row["rule_set"]


@pytest.mark.parametrize("operation", ["alltoall", "broadcast"])
@pytest.mark.parametrize("name", PRESETS)
def test_predict_all_shows_or_names_every_algorithm(name, operation):
    doc = _run("predict", "collective", operation, "--machine", name, "--nodes",
               _nodes(name), "--bytes", "8", "--algorithm", "all")
    shown = {row["algorithm"] for row in doc["rows"]}
    absent = {line.split(":", 1)[0] for line in doc["absent"]}
    assert shown and all(_positive(row["time_s"]) for row in doc["rows"])
    assert not shown & absent
    assert shown | absent == _algorithms(operation)


@pytest.mark.parametrize("app", ["spmv", "heat", "hpcg", "jacobi3d"])
@pytest.mark.parametrize("name", PRESETS)
def test_predict_app(name, app):
    doc = _run("predict", "app", app, "--machine", name, "--nodes", _nodes(name))
    (total,) = doc["totals"]
    assert total["nodes"] == int(_nodes(name)) and _positive(total["total_s"])
    rate_key = {"spmv": "node.spmv_rate", "heat": "node.stencil_rate"}.get(app)
    if rate_key is not None:
        derived = [n for n in doc["notes"] if n.startswith(f"{rate_key} derived")]
        assert len(derived) == (load_machine(name).get(rate_key) is None)


@pytest.mark.parametrize("name", PRESETS)
def test_explain_allreduce_auto(name):
    doc = _run("explain", "collective", "allreduce", "--machine", name, "--nodes",
               _nodes(name), "--bytes", "8", "--algorithm", "auto")
    assert doc["inputs"]["auto"]["algorithm"] == doc["algorithm"]
    assert _positive(doc["time_s"]) and doc["structure"]["endpoints"] == int(_nodes(name))


@pytest.mark.parametrize("name", PRESETS)
def test_default_job_is_the_machines_size(name):
    """Without --nodes a job is system.nodes on a larger fat tree or dragonfly, else the
    whole topology; every preset states its size with a source."""
    machine = load_machine(name)
    nodes = machine.get("system.nodes")
    assert nodes is not None and machine.source("system.nodes")
    spec = parse_spec(machine.topology)
    endpoints = spec.family.endpoints(spec.params)
    assert nodes <= endpoints
    job = machine_layout(machine)
    is_torus = spec.family.name in ("torus", "hypercube")
    assert job.endpoints == (endpoints if is_torus else nodes)
    assert job.network_endpoints == endpoints
    said = machine.size_note()
    assert (said == "") == (nodes == endpoints)


def test_summit_runs_its_4608_nodes_and_says_the_clos_holds_more():
    """Summit: 4,608 nodes on a radix-36 three-level Clos of 36^3 / 4 = 11,664 endpoints."""
    assert Layout.from_topology("clos:radix=36,levels=3").endpoints == 36 ** 3 // 4
    row = _run("predict", "collective", "barrier", "--machine", "summit", "--bytes", "8",
               "--algorithm", "recursive-doubling")["rows"][0]
    assert row["nodes"] == 4608
    result = CliRunner().invoke(cli, ["machine", "summit"])
    assert "holds 11,664 endpoints, more than the machine's 4,608 nodes" in \
        " ".join(result.output.split())


def test_frontier_alltoall_all_names_the_algorithms_past_their_limits():
    """The issue's example: on Frontier's 9,408 nodes (part of its 9,472-endpoint
    gdragonfly) all-to-all prints bruck and pairwise (its 9,407 steps counted per kind of
    group, dragonfly.general_partial) and names linear (flow-timed, at most 64 ranks for
    an all-to-all: 64 x 63 = 4,032 flows) as absent."""
    doc = _run("predict", "collective", "alltoall", "--machine", "frontier", "--bytes", "8",
               "--algorithm", "all")
    assert [row["algorithm"] for row in doc["rows"]] == ["bruck", "pairwise"]
    assert doc["rows"][0]["nodes"] == 9408
    assert sorted(doc["absent"]) == ["linear: beyond its 64-rank limit"]


def test_a_derived_rate_is_the_roofline_worked_by_hand():
    """lumi has no measured SpMV rate: 2 x EPYC 7763 node values of the preset,
    R = min(peak, eff x B x 20/132); the spmv phase on 16 nodes computes
    2 x 10 x 20,480,000 / 16 FLOP at R."""
    lumi = load_machine("lumi")
    peak, bandwidth, efficiency = (lumi.get(k) for k in (
        "node.peak_flops", "node.memory_bandwidth", "node.memory_efficiency"))
    rate = min(peak, efficiency * bandwidth * 20 / 132)
    doc = _run("predict", "app", "spmv", "--machine", "lumi", "--nodes", "16")
    (phase,) = [r for r in doc["rows"] if r["phase"] == "spmv"]
    assert phase["time_s"] == pytest.approx(2 * 10 * 20_480_000 / 16 / rate, rel=1e-12)


def test_explain_app_says_the_rate_is_derived_only_where_it_is():
    derived = _run("explain", "app", "spmv", "--machine", "lumi", "--nodes", "16")["notes"]
    assert sum(n.startswith("node.spmv_rate derived") for n in derived) == 1
    measured = _run("explain", "app", "spmv", "--machine", "angara-4d", "--nodes", "16")
    assert not any(n.startswith("node.spmv_rate derived") for n in measured["notes"])
