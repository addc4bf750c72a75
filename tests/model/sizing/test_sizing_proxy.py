"""The proxy is a lower bound of the full model (property test on random designs and
workloads), and the safe screen's Pareto front equals the exhaustive front design for
design on small studies."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icnperf.data.machine import load_machine
from icnperf.data.sizing_inputs import load_cost_model, load_workload
from icnperf.model.sizing.designs import candidate
from icnperf.model.sizing.proxy import Proxy
from icnperf.model.sizing.space import Block, _evaluate, link_kinds
from icnperf.model.sizing.study import run_study
from icnperf.model.sizing.workload import predict_workload, workload_from_dict
from icnperf.model.topology.spec import FAMILIES, checked_spec

ANGARA = load_machine("angara-3d")
MACHINES = (
    ANGARA,
    ANGARA.with_values({"network.switching": "store-and-forward",
                        "network.ring_ties": "plus"}, "test: store-and-forward, + ties"),
    ANGARA.with_values({"network.collective_trees": 0}, "test: no hardware collectives"),
    load_machine("angara-36"),
)
ALGORITHMS = {
    "allreduce": ["best", "recursive-doubling", "rabenseifner", "ring", "binomial", "hw-tree",
                  "p2p-tree"],
    "allgather": ["best", "recursive-doubling", "ring", "bruck", "hw-tree"],
    "broadcast": ["best", "binomial", "ring", "hw-tree", "p2p-tree"],
    "reduce": ["best", "binomial", "rabenseifner", "hw-tree", "p2p-tree"],
    "alltoall": ["best", "bruck"],
    "barrier": ["best", "recursive-doubling", "bruck", "hw-tree", "p2p-tree"],
}

designs = st.one_of(
    st.tuples(st.just("torus"), st.lists(st.integers(2, 9), min_size=1, max_size=4)
              .map(lambda r: {"radices": tuple(sorted(r))})),
    st.tuples(st.just("dragonfly"), st.fixed_dictionaries(
        {"p": st.integers(1, 9), "a": st.integers(1, 8), "h": st.integers(1, 5)})),
    st.tuples(st.just("megafly"), st.fixed_dictionaries({"k": st.integers(1, 5)})),
    st.tuples(st.just("fattree"), st.fixed_dictionaries(
        {"k": st.integers(1, 8), "n": st.integers(1, 4)})),
    st.tuples(st.just("clos"), st.sampled_from([{"radix": 4, "levels": 3},
                                                {"radix": 8, "levels": 2}])),
    st.tuples(st.just("xgft"), st.sampled_from([
        {"m": (4, 6), "w": (1, 4)}, {"m": (6, 5), "w": (1, 2)}, {"m": (8, 8), "w": (1, 2)},
        {"m": (3, 7), "w": (1, 1)}, {"m": (4, 4, 5), "w": (1, 4, 2)},
        {"m": (3, 3, 6), "w": (1, 3, 1)}, {"m": (4, 4, 8), "w": (1, 4, 4)},
        {"m": (6, 6, 3), "w": (1, 6, 2)}])),
    st.tuples(st.just("slimfly"), st.sampled_from([{"q": 5, "p": 3}, {"q": 5, "p": 7},
                                                   {"q": 7, "p": 4}, {"q": 4, "p": 2}])),
)


@st.composite
def collectives(draw):
    operation = draw(st.sampled_from(sorted(ALGORITHMS)))
    term = {"name": "c", "weight": draw(st.integers(1, 100)), "operation": operation,
            "algorithm": draw(st.sampled_from(ALGORITHMS[operation]))}
    if operation != "barrier":
        term["bytes"] = f"{draw(st.integers(1, 4_000_000))} B"
    return term


def one_block(family: str, params: dict) -> Block:
    arrays = {k: np.array([v]) for k, v in params.items()}
    metrics = _evaluate(family, arrays)
    electrical, optical = link_kinds(family, arrays, metrics)
    return Block(family, arrays, np.array([False]), metrics, electrical, optical)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(designs, collectives(), st.integers(2, 600), st.floats(0.05, 1.0), st.booleans(),
       st.integers(0, len(MACHINES) - 1))
def test_proxy_is_below_the_full_model(design, term, nodes, fraction, apps, which):
    family, params = design
    spec = checked_spec(FAMILIES[family], params)
    n_endpoints = max(2, int(spec.family.endpoints(spec.params) * fraction))
    term["nodes"] = max(2, min(nodes, n_endpoints))
    machine = MACHINES[which]
    data = {"collective": [term]}
    if apps and machine.get("node.stencil_rate"):
        data["app"] = [
            {"name": "h", "weight": 1, "app": "heat", "nodes": term["nodes"],
             "problem": {"cells": 1_000_000, "steps": 2}},
            {"name": "s", "weight": 1, "app": "spmv", "nodes": term["nodes"],
             "problem": {"rows": 100_000, "iterations": 2}}]
    workload = workload_from_dict(data, "random workload")
    full = sum(t.weighted_s for t in predict_workload(
        workload, machine, candidate(family, spec.params), n_endpoints))
    block = one_block(family, spec.params)
    lower = float(Proxy(workload, machine, n_endpoints, [block]).block_proxy(block)[0])
    assert lower <= full * (1 + 1e-12)


def test_hpcg_counts_its_compute_only():
    workload = workload_from_dict({"app": [{"name": "hpcg", "weight": 1, "app": "hpcg",
                                            "nodes": 16, "problem": {"iterations": 3}}]}, "w")
    block = one_block("dragonfly", {"p": 2, "a": 4, "h": 2})
    lower = float(Proxy(workload, ANGARA, 16, [block]).block_proxy(block)[0])
    [term] = predict_workload(workload, ANGARA, candidate("dragonfly",
                                                          {"p": 2, "a": 4, "h": 2}), 16)
    from icnperf.model.apps import hpcg

    compute = hpcg.predict(ANGARA, 1, iterations=1).compute_s
    assert lower == pytest.approx(3 * compute)
    assert lower < term.time_s


COLLECTIVE_MIX = {
    "description": "collectives", "rationale": "test",
    "collective": [
        {"name": "ar", "weight": 1000, "operation": "allreduce", "bytes": "8 B"},
        {"name": "ag", "weight": 10, "operation": "allgather", "bytes": "256 KiB",
         "algorithm": ["recursive-doubling", "ring", "bruck"]},
        {"name": "a2a", "weight": 5, "operation": "alltoall", "bytes": "64 KiB"},
        {"name": "bc", "weight": 20, "operation": "broadcast", "bytes": "1 MiB",
         "nodes": 40}]}


def fronts(n_endpoints, families, dims, workload, machine):
    cost = load_cost_model()
    safe = run_study(n_endpoints, families, dims, 128, cost, workload, machine)
    every = run_study(n_endpoints, families, dims, 128, cost, workload, machine,
                      shortlist="all")
    assert every.evaluated_total == every.screened_total
    assert safe.evaluated_total < safe.screened_total
    return ([(r.design.spec, r.cost, r.workload_s) for r in safe.front],
            [(r.design.spec, r.cost, r.workload_s) for r in every.front])


ALL = ("torus", "fattree", "clos", "xgft", "dragonfly", "megafly", "slimfly")


@pytest.mark.slow
@pytest.mark.parametrize("n_endpoints, families, dims, machine", [
    (64, ALL, (2, 3, 6), 0),
    (100, ALL, (2, 3), 0),
])
def test_safe_front_is_the_exhaustive_front(n_endpoints, families, dims, machine):
    safe, every = fronts(n_endpoints, families, dims, load_workload(), MACHINES[machine])
    assert safe == every


@pytest.mark.slow
@pytest.mark.parametrize("n_endpoints, families, dims, machine", [
    (300, ALL, (2, 3), 0),
    (200, ALL, (2, 3), 1),
    (400, ("dragonfly", "megafly", "fattree", "clos", "slimfly"), (3,), 2),
])
def test_safe_front_is_the_exhaustive_front_on_larger_studies(n_endpoints, families, dims,
                                                             machine):
    workload = (load_workload() if machine != 2
                else workload_from_dict(COLLECTIVE_MIX, "collective mix"))
    safe, every = fronts(n_endpoints, families, dims, workload, MACHINES[machine])
    assert safe == every
