"""The batched full model (sizing/batched.py) against the per-design one: equal to the
last bit, step schedules and whole workloads, on hypothesis-drawn steps and designs."""

from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icnperf.data.machine import load_machine
from icnperf.model.collectives import Step, collective_parameters, schedule_time
from icnperf.model.sizing.batched import predict_designs, schedule_times
from icnperf.model.sizing.designs import candidate
from icnperf.model.sizing.workload import predict_workload, workload_from_dict

MACHINE = load_machine("angara-3d")

traffic = st.tuples(st.integers(0, 12), st.integers(0, 9), st.integers(0, 3), st.booleans())


@st.composite
def steps(draw):
    blocks = draw(st.sampled_from([0, 0, 4, 8, 16]))
    if blocks:
        fraction = Fraction(draw(st.integers(1, blocks)), blocks)
    else:
        fraction = draw(st.sampled_from([Fraction(0), Fraction(1), Fraction(1, 3),
                                         Fraction(5, 16)]))
    hops, load, host, intra = draw(traffic)
    last = draw(st.one_of(st.none(), traffic)) if blocks else None
    return Step(draw(st.integers(1, 40)), fraction, hops, load, draw(st.booleans()), host,
                intra, blocks, last)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(steps(), max_size=6), min_size=1, max_size=8),
       st.sampled_from([np.array([8.0]), np.array([1048576.0]), np.array([0.0]), 65536, 7,
                        np.array([100003.0])]),
       st.sampled_from([0.0, 2e-10]), st.sampled_from([None, 1e-6]),
       st.sampled_from([0, 1]))
def test_schedule_times_equal_schedule_time(schedules, m, combine, step_overhead, saf):
    """Every schedule's time over arrays is bit for bit the scalar schedule_time's: hops,
    loads, shared adapters (host 0..3), intra-node copies, combining, whole-element splits
    with and without the last block's own traffic, a per-step overhead, store-and-forward."""
    params = collective_parameters(MACHINE, "mpi", combine_time=combine)
    if step_overhead is not None:
        params["step_overhead"] = step_overhead
    params["store_and_forward"] = saf
    from icnperf.model import network

    bound = network.bind(schedule_time, params)
    expected = [float(np.asarray(schedule_time(m, s, **bound)).reshape(-1)[0])
                for s in schedules]
    assert schedule_times(m, schedules, params).tolist() == expected


def _workload(nodes):
    best = {"algorithm": "best", "nodes": nodes}
    return workload_from_dict({
        "collective": [
            {"name": "ar", "weight": 10, "operation": "allreduce", "bytes": "8 B", **best},
            {"name": "ar big", "weight": 2, "operation": "allreduce", "bytes": "1 MiB",
             "algorithm": ["hw-tree", "rabenseifner"], "nodes": nodes},
            {"name": "ag", "weight": 3, "operation": "allgather", "bytes": "64 KiB",
             "algorithm": ["hw-tree", "recursive-doubling", "ring"]},
            {"name": "bc", "weight": 1, "operation": "broadcast", "bytes": "1 KiB", **best},
            {"name": "a2a", "weight": 1, "operation": "alltoall", "bytes": "4 KiB", **best},
            {"name": "bar", "weight": 5, "operation": "barrier", **best},
        ],
        "app": [
            {"name": "heat", "weight": 1, "app": "heat", "algorithm": "best", "nodes": nodes,
             "problem": {"cells": 1_002_001, "steps": 7}},
            {"name": "spmv", "weight": 1, "app": "spmv",
             "algorithm": ["hw-tree", "recursive-doubling", "ring"],
             "problem": {"rows": 100_000, "iterations": 3}},
        ]}, "w.toml")


designs = st.one_of(
    st.builds(lambda p, a, h: ("dragonfly", {"p": p, "a": a, "h": h}),
              st.integers(1, 4), st.integers(2, 6), st.integers(1, 3)),
    st.builds(lambda r: ("torus", {"radices": tuple(r)}),
              st.lists(st.integers(2, 7), min_size=2, max_size=3)),
    st.builds(lambda k, n: ("fattree", {"k": k, "n": n}), st.integers(2, 4), st.just(3)),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(designs, min_size=1, max_size=6), st.integers(4, 40), st.integers(2, 40))
def test_predict_designs_equal_predict_workload(drawn, n_endpoints, nodes):
    """Designs timed together give, term by term, the per-design model's time, algorithm,
    layout and notes exactly (jobs cut to fewer nodes than the designs hold, partitions
    and linear placement on tori, trees and their contenders, flow-timed broadcasts)."""
    built = [candidate(family, params) for family, params in drawn]
    built = [d for d in built if d.endpoints >= n_endpoints]
    workload = _workload(min(nodes, n_endpoints))
    together = predict_designs(workload, MACHINE, built, n_endpoints, {}, fewest=1)
    for design, results in zip(built, together):
        alone = predict_workload(workload, MACHINE, design, n_endpoints, {})
        assert [(r.name, r.weight, r.time_s, r.algorithm, r.layout, r.notes)
                for r in results] == [(r.name, r.weight, r.time_s, r.algorithm, r.layout,
                                       r.notes) for r in alone]


def test_hpcg_goes_design_by_design():
    """A workload with hpcg is not batched: the per-design model's results, notes of the
    application model included."""
    workload = workload_from_dict({"app": [{"name": "hpcg", "weight": 1, "app": "hpcg",
                                            "algorithm": "recursive-doubling"}]}, "w.toml")
    designs = [candidate("dragonfly", {"p": 2, "a": 4, "h": h}) for h in (2, 3)]
    results = predict_designs(workload, MACHINE, designs, 16, {}, fewest=1)
    assert results == [predict_workload(workload, MACHINE, d, 16, {}) for d in designs]
    assert results[0][0].model_notes


def test_a_batched_app_term_has_no_model_notes():
    """Batched, heat's time is the per-design model's; its notes (per-design hop counts and
    loads, rendered nowhere) are left out; below ``fewest`` designs they are there."""
    workload = workload_from_dict({"app": [{"name": "h", "weight": 1, "app": "heat",
                                            "algorithm": "recursive-doubling",
                                            "problem": {"cells": 65536, "steps": 3}}]},
                                  "w.toml")
    designs = [candidate("dragonfly", {"p": 2, "a": 4, "h": h}) for h in (2, 3)]
    batched = predict_designs(workload, MACHINE, designs, 16, {}, fewest=1)
    alone = predict_designs(workload, MACHINE, designs, 16, {}, fewest=3)
    assert [r[0].time_s for r in batched] == [r[0].time_s for r in alone]
    assert batched[0][0].model_notes == () and alone[0][0].model_notes


def test_tori_a_job_does_not_fill_are_mapped_together_exactly():
    """41 nodes (a prime: no 3D box of them fits) on the first endpoints of 3 x 5 x K tori,
    K = 3..7, and 2D 7 x K tori: the rounds counted once for the first radices
    (torus/batch.py) give every term the per-design model's time and algorithm."""
    from icnperf.model.sizing.batched import _shared
    from icnperf.model.sizing.workload import job_layout

    designs = [candidate("torus", {"radices": (3, 5, k)}) for k in range(3, 8)]
    designs += [candidate("torus", {"radices": (7, k)}) for k in (6, 7, 9)]
    workload = _workload(41)
    assert all(_shared(job_layout(d, 41)[0].routed("plus")) is not None for d in designs)
    together = predict_designs(workload, MACHINE, designs, 41, {}, fewest=1)
    for design, results in zip(designs, together):
        alone = predict_workload(workload, MACHINE, design, 41, {})
        assert [(r.time_s, r.algorithm, r.notes) for r in results] == [
            (r.time_s, r.algorithm, r.notes) for r in alone]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(2, 9), min_size=1, max_size=4).map(tuple), min_size=1,
                max_size=8),
       st.integers(1, 400))
def test_farthest_ranks_of_many_tori_equal_one_at_a_time(radix_lists, nodes):
    # _Timings.add_farthest groups the job layouts by dimension and rank count: each row
    # must be what views.farthest_rank gives for that layout alone
    from icnperf.model.collectives import Layout
    from icnperf.model.sizing.batched import _Timings
    from icnperf.model.sizing.views import farthest_rank

    layouts = [Layout(min(nodes, int(np.prod(r))), r) for r in radix_lists]
    timings = _Timings({}, {})
    timings.add_farthest(layouts)
    for layout in layouts:
        alone = farthest_rank(layout.radices, layout.ranks)
        assert timings.farthest[(layout.radices, layout.ranks)] == int(alone[0])


def test_designs_with_alike_rounds_share_their_merged_steps():
    """batched._alike_designs groups designs whose every round (and carrier) has the same
    hops and load; _merged merges a design's rounds as collectives.schedule merges them:
    rounds 1 and 3 equal on design 0 become one Step of count 2 + 5."""
    import numpy as np
    from fractions import Fraction

    from icnperf.model.collectives.schedules import Step
    from icnperf.model.sizing.batched import _alike_designs, _merged

    hops = np.array([2, 3, 2]), np.array([1, 1, 1])
    rounds = [(2, 0, True, 1, (hops[0], np.array([4, 4, 4]), 1, False), None),
              (1, 1, False, 1, (hops[1], np.array([1, 2, 1]), 1, False), None),
              (5, 0, True, 1, (hops[0], np.array([4, 4, 4]), 1, False), None)]
    first, kind = _alike_designs(rounds, 3)
    assert kind[0] == kind[2] != kind[1]
    assert sorted(first.tolist()) == [0, 1] and first[kind[1]] == 1
    values = [Fraction(1, 2), Fraction(1)]
    assert _merged(rounds, 0, values) == (Step(7, Fraction(1, 2), 2, 4, True, 1, False, 1),
                                          Step(1, Fraction(1), 1, 1, False, 1, False, 1))
