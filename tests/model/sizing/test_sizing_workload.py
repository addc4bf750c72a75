"""Workload parsing and prediction: terms on small designs against direct model calls."""

import math
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.errors import InputError
from icnperf.data.machine import load_machine
from icnperf.model.apps import heat
from icnperf.model.collectives import Layout, collective_time
from icnperf.model.sizing.designs import candidate
from icnperf.model.sizing.workload import (
    CollectiveTerm,
    job_layout,
    predict_workload,
    workload_from_dict,
)
from icnperf.model.topology.spec import parse_spec

MACHINE = load_machine("angara-3d")


def workload(*collectives, apps=()):
    return workload_from_dict({"collective": list(collectives), "app": list(apps)}, "w.toml")


def test_collective_term_equals_the_model_on_the_jobs_endpoints():
    """8 nodes of FT(2, 3) (16 endpoints) are endpoints 0..7: the same time as
    collective_time on Layout(8, network=("fattree", 2, 3))."""
    w = workload({"name": "ar", "weight": 10, "operation": "allreduce", "bytes": "64 B",
                  "algorithm": "recursive-doubling", "nodes": 8})
    design = candidate("fattree", {"k": 2, "n": 3})
    [result] = predict_workload(w, MACHINE, design, 16)
    expected = collective_time(MACHINE, "allreduce", "recursive-doubling", [64],
                               layout=Layout(8, None, ("fattree", 2, 3))).time[0]
    assert result.time_s == pytest.approx(expected)
    assert result.weighted_s == pytest.approx(10 * expected)
    assert result.algorithm == "recursive-doubling"


def test_best_is_the_minimum_over_algorithms():
    w = workload({"name": "bc", "weight": 1, "operation": "broadcast", "bytes": "4 KiB",
                  "nodes": "all"})
    design = candidate("torus", {"radices": (4, 4)})
    [result] = predict_workload(w, MACHINE, design, 16)
    times = {a: collective_time(MACHINE, "broadcast", a, [4096],
                                layout=Layout.torus((4, 4))).time[0]
             for a in ("hw-tree", "p2p-tree", "binomial", "ring")}
    assert result.time_s == pytest.approx(min(times.values()))
    assert result.algorithm == min(times, key=times.get)


def test_hw_tree_off_a_torus_is_noted_and_replaced():
    w = workload({"name": "ar", "weight": 1, "operation": "allreduce", "bytes": "8 B",
                  "algorithm": "hw-tree", "nodes": "all"})
    [result] = predict_workload(w, MACHINE, candidate("megafly", {"k": 2}), 20)
    assert result.algorithm != "hw-tree"
    assert any("hw-tree not available" in n and "best available" in n for n in result.notes)
    assert result.time_s > 0


def test_slimfly_uses_a_derated_crossbar_and_says_so():
    """A 1 MiB all-gather is bandwidth-bound: on slimfly:q=5 with p = 20 endpoints per
    router (oversubscribed) the crossbar's links keep the uniform saturation estimate of
    their bandwidth (below Θ = min(1, 1/γ_uniform): the machine's routers), so it is slower
    than on the balanced p = 4 one."""
    from icnperf.model.topology.saturation import machine_router, saturation_of

    w = workload({"name": "ag", "weight": 1, "operation": "allgather", "bytes": "1 MiB",
                  "algorithm": "ring", "nodes": 16})
    results = {}
    for p in (4, 20):
        spec = f"slimfly:q=5,p={p}"
        [results[p]] = predict_workload(w, MACHINE, candidate("slimfly", {"q": 5, "p": p}),
                                        30)
        parsed = parse_spec(spec)
        bound = float(parsed.evaluate().throughput["uniform"])
        theta = float(saturation_of("slimfly", parsed.params, parsed.evaluate(), "uniform",
                                    machine_router(MACHINE))["saturation_estimate"])
        assert 0 < theta < bound
        derated = MACHINE.with_values(
            {"network.link_bandwidth": MACHINE.require("network.link_bandwidth") * theta},
            "test")
        expected = collective_time(derated, "allgather", "ring", [2**20],
                                   layout=Layout.crossbar(16)).time[0]
        assert results[p].layout == "crossbar:16"
        assert any("derated" in n for n in results[p].notes)
        assert results[p].time_s == pytest.approx(expected)
    assert results[20].time_s > results[4].time_s


def test_torus_job_is_the_most_balanced_partition_that_fits():
    """64 nodes of 8x8x8: the balanced 4x4x4. 10,000 nodes of 2x2x2500: 20x20x25 does not
    fit, 2x2x2500 does (the whole torus). 499 (prime) nodes of 8x8x8 and 10,000 of 22x22x22
    (no box of 10,000 nodes with sides <= 22): the first n endpoints of the whole torus."""
    layout, notes = job_layout(candidate("torus", {"radices": (8, 8, 8)}), 64)
    assert layout.radices == (4, 4, 4) and layout.endpoints == 64
    layout, notes = job_layout(candidate("torus", {"radices": (2, 2, 2500)}), 10_000)
    assert layout.radices == (2, 2, 2500) and "whole torus" in notes[0]
    for radices, nodes in (((8, 8, 8), 499), ((22, 22, 22), 10_000)):
        layout, notes = job_layout(candidate("torus", {"radices": radices}), nodes)
        assert layout.radices == radices and layout.endpoints == nodes
        assert "no 3D box" in notes[0] and f"endpoints 0..{nodes - 1}" in notes[0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(2, 12), min_size=2, max_size=4).map(tuple),
                min_size=1, max_size=12), st.integers(2, 300))
def test_partitions_of_many_designs_are_each_designs_own(designs, nodes):
    """partition.partitions over a list of tori of mixed dimensions (those holding the job)
    gives what partition finds one design at a time, None where no box fits."""
    from icnperf.model.sizing.partition import partition, partitions

    holding = [radices for radices in designs if nodes <= math.prod(radices)]
    assert partitions(holding, nodes) == [partition(r, nodes) for r in holding]


def test_skipping_algorithms_that_cannot_win_changes_no_time():
    """On tori the point-to-point algorithms whose lower bound exceeds a tree algorithm's
    time are not mapped; the term's time and algorithm equal the plain minimum."""
    from icnperf.model.collectives import compare
    from icnperf.model.sizing.workload import _contenders

    for radices, nodes in (((8, 8, 8), 64), ((4, 6, 9), 200), ((2, 2, 40), 160)):
        layout, _ = job_layout(candidate("torus", {"radices": radices}), nodes)
        for operation, size, names in (
                ("allreduce", 8.0, ["hw-tree", "p2p-tree", "recursive-doubling", "binomial"]),
                ("allreduce", 2.0**20, ["hw-tree", "rabenseifner", "ring"]),
                ("allgather", 2.0**16, ["hw-tree", "recursive-doubling", "ring", "bruck"])):
            results = compare(MACHINE, operation, [size], layout=layout, algorithms=names)
            best = min(results, key=lambda a: float(results[a].time[0]))
            kept = _contenders(names, operation, size, layout, MACHINE)
            assert best in kept and len(kept) <= len(names)


def test_app_term_equals_the_app_model():
    w = workload(apps=[{"name": "h", "weight": 2, "app": "heat",
                        "algorithm": "recursive-doubling", "nodes": 16,
                        "problem": {"cells": 65536, "steps": 3}}])
    design = candidate("dragonfly", {"p": 2, "a": 4, "h": 2})
    [result] = predict_workload(w, MACHINE, design, 16)
    layout = Layout(16, None, ("dragonfly", 2, 4, 2))
    expected = heat.predict(MACHINE, layout, algorithm="recursive-doubling", cells=65536,
                            steps=3).total_s
    assert result.time_s == pytest.approx(expected)
    assert result.weighted_s == pytest.approx(2 * expected)
    assert result.model_notes


def test_clos_jobs_reuse_the_fat_tree_layout():
    """clos:radix=4,levels=3 is FT(2, 3): the same time for the same job."""
    w = workload({"name": "ag", "weight": 1, "operation": "allgather", "bytes": "1 KiB",
                  "algorithm": "ring", "nodes": 8})
    clos = predict_workload(w, MACHINE, candidate("clos", {"radix": 4, "levels": 3}), 16)
    tree = predict_workload(w, MACHINE, candidate("fattree", {"k": 2, "n": 3}), 16)
    assert clos[0].time_s == tree[0].time_s


def test_bundled_default_workload_parses():
    path = Path(__file__).parents[3] / "icnperf" / "data" / "workloads" / "default.toml"
    w = workload_from_dict(tomllib.loads(path.read_text()), str(path))
    assert w.rationale and len(w.terms) >= 4
    assert any(isinstance(t, CollectiveTerm) for t in w.terms)


GOOD = {"name": "t", "weight": 1, "operation": "allreduce", "bytes": "8 B"}


@pytest.mark.parametrize("change, message", [
    ({"colour": 1}, "unknown key 'colour'"),
    ({"weight": -1}, "weight"),
    ({"weight": "many"}, "weight"),
    ({"operation": "scan"}, "scan"),
    ({"bytes": "8 parsecs"}, "parsecs"),
    ({"bytes": 0}, "bytes must be > 0"),
    ({"algorithm": "magic"}, "unknown algorithm 'magic'"),
    ({"algorithm": "bruck"}, "does not define allreduce"),
    ({"algorithm": []}, "empty"),
    ({"nodes": 1}, "nodes"),
    ({"nodes": "most"}, "nodes"),
])
def test_malformed_collective_terms(change, message):
    with pytest.raises(InputError, match=message):
        workload({**GOOD, **change})


@pytest.mark.parametrize("app, message", [
    ({"weight": 1, "app": "lammps"}, "unknown app 'lammps'"),
    ({"weight": 1, "app": "heat", "problem": {"rows": 5}}, "unknown problem key 'rows'"),
    ({"weight": 1, "app": "hpcg", "algorithm": "hw-tree"}, "MPI all-reduces"),
    ({"app": "heat"}, "missing weight"),
])
def test_malformed_app_terms(app, message):
    with pytest.raises(InputError, match=message):
        workload(apps=[app])


def test_empty_and_duplicate_workloads():
    with pytest.raises(InputError, match="no \\[\\[collective\\]\\]"):
        workload_from_dict({"description": "nothing"}, "w.toml")
    with pytest.raises(InputError, match="used twice"):
        workload(GOOD, GOOD)
    with pytest.raises(InputError, match="unknown key 'job'"):
        workload_from_dict({"job": []}, "w.toml")


def test_workload_errors_name_the_file_and_term():
    with pytest.raises(InputError, match="w.toml: collective 1: unknown collective operation"):
        workload_from_dict({"collective": [{"name": "x", "weight": 1, "operation": "gather",
                                            "bytes": "8 B"}]}, "w.toml")
    with pytest.raises(InputError, match="w.toml: description must be text"):
        workload_from_dict({"description": 5, "collective": [
            {"name": "x", "weight": 1, "operation": "allreduce", "bytes": "8 B"}]}, "w.toml")
    bad_app = workload_from_dict({"app": [{"name": "h", "weight": 1, "app": "heat",
                                           "problem": {"cells": -3}}]}, "w.toml")
    with pytest.raises(InputError, match="term 'h' on torus:4x4x4: cells must be"):
        predict_workload(bad_app, MACHINE, candidate("torus", {"radices": (4, 4, 4)}), 64)
