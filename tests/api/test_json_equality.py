"""Every API result's to_dict() equals the command line's --format json for the same
arguments given as the same text (json.dumps(result.to_dict()) parsed, against the CLI's
output parsed), on several presets and arguments; drawn by hypothesis where that fits."""

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import icnperf
from cli_outputs import cli_error, cli_json

SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def same(result, *args):
    assert json.loads(json.dumps(result.to_dict())) == cli_json(*args)


def same_or_refused(call, *args):
    """The same JSON, or the same one-line refusal (a preset without a key the request
    needs)."""
    try:
        result = call()
    except icnperf.errors.InputError as error:
        assert cli_error(*args) == str(error)
        return
    same(result, *args)


@pytest.mark.parametrize("machine,extra", [
    ("angara-36", {}),
    ("lumi", {"set": ("network.link_latency=60ns",)}),
    ("summit", {"ppn": 4, "load": 0.3}),
    ("piz-daint", {"from_": "0", "to": "100"}),
    ("angara-4d", {"from_": "0,0,0,0", "to": "1,2,3,1", "api": "shmem"}),
    ("lumi", {"same_node": True, "bytes": "8,64,4KiB"}),
])
def test_predict_p2p(machine, extra):
    args = ["predict", "p2p", "--machine", machine]
    flags = {"set": "--set", "ppn": "--ppn", "load": "--load", "from_": "--from", "to": "--to",
             "api": "--api", "bytes": "--bytes"}
    for key, value in extra.items():
        if key == "same_node":
            args.append("--same-node")
        elif key == "set":
            for item in value:
                args += ["--set", item]
        else:
            args += [flags[key], str(value)]
    same(icnperf.predict_p2p(machine, **extra), *args)


@SETTINGS
@given(machine=st.sampled_from(["angara-36", "angara-3d", "lumi", "summit", "frontier"]),
       sizes=st.lists(st.sampled_from(["0", "8", "100", "4KiB", "1MiB", "3MB"]), min_size=1,
                      max_size=3, unique=True),
       hops=st.one_of(st.none(), st.sampled_from(["0", "1", "2.5"])),
       api=st.sampled_from(["mpi", "shmem", "none"]))
def test_predict_p2p_drawn(machine, sizes, hops, api):
    text = ",".join(sizes)
    args = ["predict", "p2p", "--machine", machine, "--bytes", text, "--api", api]
    if hops is not None:
        args += ["--hops", hops]
    same_or_refused(lambda: icnperf.predict_p2p(machine, bytes=text, hops=hops, api=api),
                    *args)


@pytest.mark.parametrize("machine,operation,extra", [
    ("angara-4d", "allreduce", {"algorithm": "all"}),
    ("lumi", "allreduce", {"nodes": "16,64", "bytes": "8,1MiB"}),
    ("lumi", "allreduce", {"nodes": "4", "ppn": "8", "bytes": "8,1MiB"}),
    ("summit", "allgather", {"nodes": "8", "algorithm": "ring"}),
    ("piz-daint", "alltoall", {"nodes": "16", "algorithm": "auto"}),
    ("fugaku", "broadcast", {"nodes": "16"}),
    ("angara-3d", "bcast", {"shape": "2x2x4", "algorithm": "hw-tree",
                            "placement": "random"}),
])
def test_predict_collective(machine, operation, extra):
    args = ["predict", "collective", operation, "--machine", machine]
    for key, value in extra.items():
        args += [f"--{key}", value]
    same(icnperf.predict_collective(machine, operation, **extra), *args)


@SETTINGS
@given(machine=st.sampled_from(["angara-3d", "lumi", "summit", "piz-daint", "sequoia"]),
       operation=st.sampled_from(["broadcast", "allreduce", "allgather", "barrier"]),
       nodes=st.sampled_from(["8", "16", "8,32"]),
       sizes=st.sampled_from(["8", "256B", "8,64KiB"]),
       algorithm=st.sampled_from(["binomial", "ring", "recursive-doubling", "auto"]))
def test_predict_collective_drawn(machine, operation, nodes, sizes, algorithm):
    args = ["predict", "collective", operation, "--machine", machine, "--nodes", nodes,
            "--bytes", sizes, "--algorithm", algorithm]
    same_or_refused(lambda: icnperf.predict_collective(machine, operation, nodes=nodes,
                                                       bytes=sizes, algorithm=algorithm),
                    *args)


@pytest.mark.parametrize("machine,app,extra", [
    ("angara-4d", "jacobi3d", {"nodes": "16..256:x4", "param": ("n=2048",)}),
    ("angara-36", "hpcg", {"variant": "optimized"}),
    ("angara-4d", "heat", {"nodes": "64,512", "algorithm": "all"}),
    ("lumi", "jacobi3d", {"nodes": "16,64"}),
    ("angara-4d", "spmv", {"nodes": "16,64", "algorithm": "recursive-doubling",
                           "rows": "100000", "iterations": "5"}),
    ("ib-qdr-cluster", "npb-is", {"class_": "C", "nodes": "4", "ppn": "4"}),
])
def test_predict_app(machine, app, extra):
    args = ["predict", "app", app, "--machine", machine]
    for key, value in extra.items():
        flag = "--" + key.rstrip("_").replace("_", "-")
        for item in (value if isinstance(value, tuple) else (value,)):
            args += [flag, item]
    same(icnperf.predict_app(machine, app, **extra), *args)


def test_place():
    same(icnperf.place("ib-qdr-cluster", class_="C", procs=16),
         "place", "--app", "npb-is", "--class", "C", "--procs", "16",
         "--machine", "ib-qdr-cluster")


def test_machines_machine_topology():
    same(icnperf.machines(), "machines")
    same(icnperf.machine("summit"), "machine", "summit")
    same(icnperf.machine("angara-4d", set={"network.link_latency": "60ns"}),
         "machine", "angara-4d", "--set", "network.link_latency=60ns")
    same(icnperf.topology("dragonfly:p=4,a=8,h=4"), "topology", "dragonfly:p=4,a=8,h=4")
    same(icnperf.topology("fattree:k=4,n=3", tree_routing="dmodk"),
         "topology", "fattree:k=4,n=3", "--tree-routing", "dmodk")
    same(icnperf.compare_topologies(endpoints="1000"), "compare-topologies",
         "--endpoints", "1000")
    same(icnperf.compare_topologies(radix="36,64"), "compare-topologies", "--radix", "36,64")


@pytest.mark.parametrize("machine,operation,extra", [
    ("angara-4d", "broadcast", {"algorithm": "hw-tree"}),
    ("lumi", "allreduce", {"algorithm": "ring"}),
    ("lumi", "allreduce", {"algorithm": "auto", "nodes": "16", "bytes": "1MiB"}),
    ("angara-4d", "allreduce", {"algorithm": "ring", "nodes": "64",
                                "set": "network.link_latency=60ns"}),
])
def test_explain_collective(machine, operation, extra):
    args = ["explain", "collective", operation, "--machine", machine]
    for key, value in extra.items():
        args += [f"--{key}", value]
    same(icnperf.explain_collective(machine, operation, **extra), *args)


@pytest.mark.parametrize("machine,app,extra", [
    ("angara-4d", "jacobi3d", {"nodes": "4096"}),
    ("angara-36", "hpcg", {}),
    ("angara-4d", "heat", {"nodes": "512", "param": "cells=1e6"}),
])
def test_explain_app(machine, app, extra):
    args = ["explain", "app", app, "--machine", machine]
    for key, value in extra.items():
        args += [f"--{key}", value]
    same(icnperf.explain_app(machine, app, **extra), *args)


@pytest.mark.parametrize("extra", [
    {"operation": "broadcast", "machine": "angara-3d", "faster": "hw-tree",
     "slower": "p2p-tree", "factor": "4"},
    {"operation": "allreduce", "machine": "angara-36", "faster": "hw-tree",
     "slower": "ring", "factor": "2", "vary": "bytes"},
])
def test_crossover(extra):
    extra = dict(extra)
    operation, machine = extra.pop("operation"), extra.pop("machine")
    args = ["crossover", "collective", operation, "--machine", machine]
    for key, value in extra.items():
        args += [f"--{key}", value]
    same(icnperf.crossover(machine, operation, **extra), *args)


def _without_wall_times(document):
    """The document without the simulator's wall_seconds (it changes from run to run)."""
    if isinstance(document, dict):
        return {k: _without_wall_times(v) for k, v in document.items()
                if k != "wall_seconds"}
    if isinstance(document, list):
        return [_without_wall_times(v) for v in document]
    return document


@pytest.mark.parametrize("extra", [
    {"topology": "torus:4x4", "rates": "0.1,0.3", "warmup": "200", "measure": "200",
     "drain": "200"},
    {"topology": "dragonfly:p=1,a=2,h=1", "routing": "ugal", "vcs": "3", "rates": "0.2",
     "warmup": "100", "measure": "100", "drain": "100", "seeds": "2"},
    {"topology": "mesh:4x4", "router": "booksim", "traffic": "hotspot",
     "hotspot-nodes": "1", "rates": "0.1", "warmup": "100", "measure": "100",
     "drain": "100"},
])
def test_simulate_traffic(extra):
    args = ["simulate", "traffic"]
    for key, value in extra.items():
        args += [f"--{key}", value]
    result = icnperf.simulate_traffic(**{k.replace("-", "_"): v for k, v in extra.items()})
    document = result.to_dict()
    assert all(row["wall_seconds"] > 0 for row in document["rows"])
    assert _without_wall_times(json.loads(json.dumps(document))) == \
        _without_wall_times(cli_json(*args))


def test_simulate_collective():
    result = icnperf.simulate_collective("angara-3d", "allgather", nodes="8")
    args = ["simulate", "collective", "allgather", "--machine", "angara-3d", "--nodes", "8"]
    assert _without_wall_times(result.to_dict()) == _without_wall_times(cli_json(*args))
    assert result.rows[0]["simulated_s"] > 0


def test_calibrate():
    data = str(pytest.importorskip("pathlib").Path(__file__).parents[1] / "data" / "bench"
               / "osu_latency.txt")
    result = icnperf.calibrate("angara-36", data, fit="o,G")
    same(result, "calibrate", "--machine", "angara-36", "--data", data, "--fit", "o,G")
    # the calibrated machine carries the fitted values and is what the other functions take
    for row in result.rows:
        assert result.machine.get(row["keys"]) == pytest.approx(row["value"], rel=1e-12)
    by_result = icnperf.predict_p2p(result.machine, bytes=[8, 65536]).rows
    by_set = icnperf.predict_p2p("angara-36", bytes=[8, 65536],
                                 set={row["keys"]: row["value"] for row in result.rows}).rows
    assert by_result == by_set
    assert by_set != icnperf.predict_p2p("angara-36", bytes=[8, 65536]).rows


def test_validate_and_size():
    same(icnperf.validate(only="nudt"), "validate", "--only", "nudt")
    same(icnperf.size(endpoints=1000, families="fattree,dragonfly"), "size", "--endpoints",
         "1000", "--families", "fattree,dragonfly")


def test_report_is_the_page_the_command_writes(tmp_path):
    from click.testing import CliRunner

    from icnperf.cli import cli

    target = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", "--machine", "angara-36", "--compare",
                                      "angara-3d", "--no-validation", "-o", str(target)])
    assert result.exit_code == 0, result.output
    page = icnperf.report("angara-36", compare="angara-3d", validation=False)
    assert page == target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") or page.lower().startswith("<!doctype html>")


def test_what_main_added_since_the_api_began():
    """topology --machine, explain saturation, predict app --compute gpu --buffers gpu."""
    same(icnperf.topology("torus:8x8", machine="angara-4d"), "topology", "torus:8x8",
         "--machine", "angara-4d")
    same(icnperf.explain_saturation("torus:8x8", machine="angara-4d"), "explain",
         "saturation", "torus:8x8", "--machine", "angara-4d")
    same(icnperf.predict_app("lumi-g", "jacobi3d", nodes="16", compute="gpu", buffers="gpu"),
         "predict", "app", "jacobi3d", "--machine", "lumi-g", "--nodes", "16", "--compute",
         "gpu", "--buffers", "gpu")
