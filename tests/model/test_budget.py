"""The work budget (icnperf/model/budget.py, icnperf/data/limits.py): refusals, counts
against brute force, and the limits read from the environment."""

from __future__ import annotations

import itertools
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.data.limits import limits, within_limits
from icnperf.errors import InputError
from icnperf.model import budget
from icnperf.model.sizing import design_budget
from icnperf.model.budget import DEFAULT_LIMITS, Estimate, Limits, check


def test_check_names_the_estimate_the_limit_and_both_ways_out():
    small = Limits(memory=1e9, seconds=60)
    fits = Estimate("work", 5e8, 30, "ask for less")
    assert check(fits, small) is fits
    with pytest.raises(InputError) as memory:
        check(Estimate("predict p2p: 9 sizes", 3.2e9, 1, "ask for fewer --bytes values"), small)
    text = str(memory.value)
    assert "\n" not in text
    assert "predict p2p: 9 sizes" in text and "3.2 GB" in text and "limit of 1 GB" in text
    assert "ask for fewer --bytes values" in text and "ICNPERF_MAX_MEMORY" in text
    with pytest.raises(InputError) as slow:
        check(Estimate("work", 1e6, 7200, "ask for less"), small)
    assert "2 h" in str(slow.value) and "limit of 1 min" in str(slow.value)
    assert "ICNPERF_MAX_SECONDS" in str(slow.value)
    with pytest.raises(InputError, match="memory"):
        check(Estimate("work", math.inf, 1, "ask for less"), small)
    with pytest.raises(InputError, match="memory"):  # NaN is never "within" a limit
        check(Estimate("work", math.nan, 1, "ask for less"), small)


def test_limits_from_the_environment(monkeypatch):
    monkeypatch.delenv("ICNPERF_MAX_MEMORY", raising=False)
    monkeypatch.delenv("ICNPERF_MAX_SECONDS", raising=False)
    assert limits().memory == DEFAULT_LIMITS.memory == 2e9
    assert limits().seconds == DEFAULT_LIMITS.seconds == 180
    monkeypatch.setenv("ICNPERF_MAX_MEMORY", "8GiB")
    monkeypatch.setenv("ICNPERF_MAX_SECONDS", "10 min")
    assert limits().memory == 8 * 2**30 and limits().seconds == 600
    monkeypatch.setenv("ICNPERF_MAX_MEMORY", "4000000000")  # bare: bytes
    monkeypatch.setenv("ICNPERF_MAX_SECONDS", "90")         # bare: seconds
    assert limits().memory == 4e9 and limits().seconds == 90
    within_limits(Estimate("work", 3.9e9, 89, "ask for less"))
    with pytest.raises(InputError, match="limit of 4 GB"):
        within_limits(Estimate("work", 4.1e9, 1, "ask for less"))
    for bad in ("lots", "-1GB", "0", "10 s"):
        monkeypatch.setenv("ICNPERF_MAX_MEMORY", bad)
        with pytest.raises(InputError, match="ICNPERF_MAX_MEMORY"):
            limits()


def test_dragonfly_count_is_the_space_counted_by_brute_force():
    """DF(p, a, h) with N <= a p (a h + 1) <= slack N and p + a + h - 1 <= radix, listed
    one by one."""
    for endpoints, slack, radix in ((1000, 1.5, 24), (200, 3.0, 16), (5000, 1.2, 40)):
        limit = math.floor(slack * endpoints)
        brute = sum(1 for p, a, h in itertools.product(range(1, radix + 1), repeat=3)
                    if p + a + h - 1 <= radix and endpoints <= a * p * (a * h + 1) <= limit)
        counted = design_budget.design_counts(endpoints, ("dragonfly",), (), radix, slack)
        assert counted["dragonfly"] == brute


def test_torus_count_is_near_the_listed_space_and_above_it():
    """Against the shapes the sizing space lists (model/sizing/space.py)."""
    from icnperf.model.sizing.space import torus_shapes

    for endpoints, dims in ((100_000, 3), (100_000, 6), (5_000, 2), (1_000, 4)):
        listed = len(torus_shapes(endpoints, dims, int(1.5 * endpoints))[0])
        estimate = design_budget.design_counts(endpoints, ("torus",), (dims,), 128, 1.5)["torus"]
        assert listed <= estimate <= 3 * listed + 10


def test_slimfly_count_bounds_the_listed_space():
    from icnperf.model.sizing.space import enumerate_space

    for endpoints, radix in ((100_000, 128), (2_000, 64)):
        listed = sum(len(b) for b in enumerate_space(endpoints, ("slimfly",), (3,), radix))
        assert listed <= design_budget.design_counts(endpoints, ("slimfly",), (), radix,
                                              1.5)["slimfly"] + 1  # + the NUDT-rule design


def test_estimates_grow_with_the_work():
    assert budget.p2p_estimate(10**6, "table").memory > 2e9 > budget.p2p_estimate(10**4,
                                                                               "table").memory
    # JSON and CSV stream: 10^6 rows hold only the model's columns
    assert budget.p2p_estimate(10**6, "json").memory < 1e9
    one = budget.collective_estimate([2**21], 1, ["ring"], 1, "table")
    every = budget.collective_estimate([2**21], 1, ["all"], 7, "table")
    assert every.seconds > one.seconds and every.memory >= one.memory
    trees = budget.collective_estimate([2**21], 1, ["hw-tree"], 1, "table")
    assert trees.seconds < 1  # closed forms: nothing mapped per rank
    sweep = budget.collective_estimate([2**k for k in range(3, 22)], 1, ["all"], 7, "table")
    assert sweep.seconds > every.seconds
    short = budget.simulation_estimate(1, 256, 20_000, 1e6)
    long = budget.simulation_estimate(1, 256, 10**8, 1e6)
    assert long.seconds > 1000 * short.seconds / 2
    assert budget.simulation_estimate(10, 64, 1000, 1e8, parallel=4).memory == pytest.approx(
        4 * (budget.BASE_MEMORY + 1e8) + budget.rows_cost(10, "table")[0])


def test_the_latency_log_is_in_the_simulators_memory_estimate():
    """Reproducer 9: 10^8 measured cycles at 0.3 on a 16x16 torus tag 7.7e9 packets; their
    latencies are kept as a histogram (one count per latency value, at most one per cycle
    of the run), 24 bytes per cycle with its growth and a chunk's bincount."""
    from icnperf.sim import RouterConfig, estimate_memory, network_from_spec

    network = network_from_spec("torus:16x16")
    router = RouterConfig()
    state = estimate_memory(network, router)
    logged = estimate_memory(network, router, 10**8)
    assert logged - state == 24 * 10**8
    with pytest.raises(InputError, match="100,000,000 cycles"):
        from icnperf.sim import simulate

        simulate(network, "uniform", 0.3, router, warmup=0, measure=10**8, drain=0)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 5000), min_size=1, max_size=400),
       st.sampled_from([0, 1, 50, 90, 99, 99.9, 100]))
def test_latency_histogram_gives_numpys_mean_and_percentile(latencies, q):
    """The simulator's statistics from its histogram are NumPy's of the listed latencies,
    bit for bit (the linear percentile, both interpolation branches)."""
    import numpy as np

    from icnperf.sim.runs import histogram_mean, histogram_percentile

    values = np.array(latencies, dtype=np.int64)
    counts = np.bincount(values)
    assert histogram_mean(counts) == float(values.mean())
    assert histogram_percentile(counts, q) == float(np.percentile(values, q))


def test_xgft_count_is_the_listed_space():
    from icnperf.model.sizing.space import XGFT_LEVELS, xgft_space

    for endpoints, slack, radix in ((1000, 1.5, 64), (100_000, 1.5, 128), (5000, 2.0, 40),
                                    (10**6, 1.2, 1024)):
        limit = math.floor(slack * endpoints)
        listed = sum(len(xgft_space(endpoints, limit, radix, levels)["taper"])
                     for levels in XGFT_LEVELS)
        assert design_budget.design_counts(endpoints, ("xgft",), (), radix, slack)["xgft"] == listed


def test_pairwise_allgather_is_charged_its_quadratic_steps():
    """The pairwise all-gather maps P - 1 different steps of P messages; offered up to
    4,096 ranks (model.collectives.fluid), so the charge stops there."""
    plain = budget.mapping_cost([4096], ["all"])[1]
    gather = budget.mapping_cost([4096], ["all"], operation="allgather")[1]
    assert gather - plain == pytest.approx(budget.PAIRWISE_STEP_SECONDS * 4096 * 4095)
    assert budget.mapping_cost([8192], ["all"], operation="allgather")[1] == \
        budget.mapping_cost([8192], ["all"])[1]
    assert budget.mapping_cost([4096], ["ring"], operation="allgather")[1] == \
        budget.mapping_cost([4096], ["ring"])[1]


def test_pairwise_counted_in_structure_is_charged_per_step():
    """Where the layout counts them in structure (a whole torus, crossbar, gdragonfly or
    dfplus, linear placement) the pairwise steps are counted: P - 1 steps, not P (P - 1) message mappings, for the
    all-gather and the all-to-all alike."""
    plain = budget.mapping_cost([4096], ["all"])[1]
    for operation in ("allgather", "alltoall"):
        counted = budget.mapping_cost([4096], ["all"], operation=operation, counted=True)[1]
        assert counted - plain == pytest.approx(budget.STRUCTURED_STEP_SECONDS * 4095)
        mapped = budget.mapping_cost([4096], ["all"], operation=operation)[1]
        assert mapped - plain == pytest.approx(budget.PAIRWISE_STEP_SECONDS * 4096 * 4095)
    # a random placement maps every message, counted or not
    assert budget.mapping_cost([4096], ["all"], True, operation="alltoall", counted=True)[1] \
        == budget.mapping_cost([4096], ["all"], True, operation="alltoall")[1]


def test_steps_on_part_of_a_gdragonfly_are_charged_by_group_size(monkeypatch):
    """A step counted on part of a gdragonfly costs more the more endpoints a group has
    (general_partial counts one group of each kind): Frontier's groups of 4 x 32 = 128
    endpoints, its 9,408-node job's 9,407 pairwise steps charged 2 + 2 x 128 us each, about
    2.4 s more than the 2 us of a step on a whole network (the command runs in about 1 s,
    the budget's table), so a 2 s limit refuses it and the estimate names the all-to-all."""
    from icnperf.api import predict_collective
    from icnperf.model.collectives import structured
    from icnperf.model.collectives.api import machine_layout
    from icnperf.data.machine import load_machine
    from icnperf.model.collectives.layout import Layout

    frontier = load_machine("frontier")
    job = machine_layout(frontier, Layout.machine_job(frontier.topology, 9408))
    assert structured.partial_group_endpoints(job) == 128
    assert structured.partial_group_endpoints(Layout.from_topology("torus:4x4")) == 0
    step = budget.counted_step_seconds(128)
    assert step == pytest.approx(2e-6 + 2e-6 * 128)
    plain = budget.mapping_cost([9408], ["all"])[1]
    counted = budget.mapping_cost([9408], ["all"], operation="alltoall", counted=True,
                                  step_seconds=step)[1]
    assert counted - plain == pytest.approx(step * 9407)
    monkeypatch.setenv("ICNPERF_MAX_SECONDS", "2")
    with pytest.raises(InputError, match="over the limit of 2 s"):
        predict_collective("frontier", "alltoall", bytes="8", algorithm="pairwise")


@pytest.mark.parametrize("call", [
    lambda: __import__("icnperf.api", fromlist=["x"]).predict_app(
        "angara-3d", "spmv", nodes="4096", placement="random", budget_format="csv"),
    lambda: __import__("icnperf.api", fromlist=["x"]).explain_app(
        "frontier", "spmv", nodes=4096, ppn=1, budget_format="table"),
    lambda: __import__("icnperf.api", fromlist=["x"]).predict_collective(
        "angara-3d", "allgather", nodes="4096", bytes="8KiB", algorithm="ring",
        placement="random", budget_format="table"),
])
def test_skeletons_and_collectives_refuse_the_quadratic_allgather(call, monkeypatch):
    """spmv's all-gather is 'auto', so every algorithm runs, the pairwise one on 4,096 ranks
    too; placed at random (or on part of a dragonfly: 4,096 of Frontier's nodes) its P - 1
    steps are mapped message by message (about 40 s measured): refused at once under a
    10 s limit."""
    import time

    monkeypatch.setenv("ICNPERF_MAX_SECONDS", "10")
    start = time.perf_counter()
    with pytest.raises(InputError, match="over the limit of 10 s"):
        call()
    assert time.perf_counter() - start < 5


def test_report_app_counts_the_skeleton(tmp_path, monkeypatch):
    from icnperf.api import report

    # on a fat tree (4,096 endpoints) with d mod k up ports spmv's all-gather maps the
    # pairwise steps message by message (about 40 s at 4,096 ranks; under random up ports
    # they are counted in structure)
    monkeypatch.setenv("ICNPERF_MAX_SECONDS", "20")
    with pytest.raises(InputError, match="report --app spmv"):
        report("angara-3d", set=["topology=xgft:m=64x64,w=1x64",
                                 "network.tree_routing=dmodk"], validation=False,
               app=("spmv",))


def test_crossover_refinement_bound_covers_what_it_evaluates():
    """refinement_evaluations is at least the counts _refine_nodes evaluates, for brackets
    where the ratio never reaches the factor inside (the most work)."""
    from icnperf.model.crossover import ScanPoint, _refine_nodes, refinement_evaluations

    for low, high in ((8, 16), (1000, 1003), (64, 4096), (16384, 32768)):
        seen = []

        def point(n):
            seen.append(n)
            return ScanPoint(n, "t", 1.0, 1.0, 1.0 if n < high else 3.0)

        _refine_nodes(ScanPoint(low, "t", 1, 1, 1), ScanPoint(high, "t", 1, 3, 3), 2.0, point)
        assert len(seen) <= refinement_evaluations(low, high)


def test_streamed_json_and_csv_are_the_whole_texts_byte_for_byte():
    """predict p2p streams JSON and CSV a row at a time; the chunks join to exactly what
    json_text / csv_text make of the same rows (empty, one and many rows; None, inf and
    non-ASCII values)."""
    from icnperf.reports.render import csv_chunks, csv_text, json_chunks, json_text

    rows = [{"a": 1.5, "b": None, "c": "x\ny", "d": math.inf},
            {"a": 2, "b": {"z": [1, 2]}, "c": "é", "d": -0.0}]
    for some in ([], rows[:1], rows * 3):
        document = {"inputs": {"m": "q", "set": []}, "rows": None, "notes": ["n"]}
        assert "".join(json_chunks(document, "rows", iter(some))) == \
            json_text({**document, "rows": some})
        assert "".join(csv_chunks(iter(some), ["a", "b", "c", "d"])) == \
            csv_text(some, ["a", "b", "c", "d"])


def test_predict_p2p_streams_the_same_file(tmp_path):
    from icnperf.data.files import write_atomically
    from icnperf.api import predict_p2p

    result = predict_p2p("angara-36", bytes="0..5000:3", load=0.3)
    for fmt in ("json", "csv"):
        out = result.render(fmt)
        assert not isinstance(out, str)
        target = tmp_path / f"p2p.{fmt}"
        write_atomically(target, out)
        whole = "".join(result.render(fmt))
        assert target.read_text() == whole and whole.count("\n") > 1600


def test_a_stream_that_fails_leaves_no_file(tmp_path):
    from icnperf.data.files import write_atomically

    def chunks():
        yield "first row\n"
        raise InputError("a later row is not finite")

    target = tmp_path / "out.csv"
    with pytest.raises(InputError, match="not finite"):
        write_atomically(target, chunks())
    assert list(tmp_path.iterdir()) == []


def test_size_charges_the_full_model_where_the_shortlist_asks_for_it(monkeypatch):
    """--shortlist all evaluates every design with the full model (5,517 designs for 1,000
    endpoints took 38 s): 100,000 endpoints' million designs are refused, safe is not."""
    from icnperf.api.sizing import check_budget as _within_limits

    monkeypatch.delenv("ICNPERF_MAX_SECONDS", raising=False)
    monkeypatch.delenv("ICNPERF_MAX_MEMORY", raising=False)
    _within_limits(100_000, None, "3,6", 128, 1.5, "safe")
    _within_limits(100_000, None, "3,6", 128, 1.5, "100")
    with pytest.raises(InputError, match="by the full model.*--shortlist"):
        _within_limits(100_000, None, "3,6", 128, 1.5, "all")
    safe = design_budget.design_space_estimate(1000, ("torus",), (3,), 128, 1.5)
    every = design_budget.design_space_estimate(1000, ("torus",), (3,), 128, 1.5, "all")
    halves = design_budget.design_space_estimate(1000, ("torus",), (3,), 128, 1.5, "all", parallel=2)
    assert every.seconds > safe.seconds and halves.seconds < every.seconds


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8),
                    st.floats(allow_nan=True, allow_infinity=True))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=6), SCALARS, max_size=12))
def test_flat_json_is_json_dumps_indent_2_byte_for_byte(row):
    """render.flat_json (json's C encoder with newline separators) writes what
    json.dumps(indent=2) writes of the same plain row, or hands a non-finite float back
    (None) for the caller's fallback."""
    from icnperf.reports.render import _plain, flat_json

    text = flat_json(row)
    if text is None:
        assert any(isinstance(v, float) and not math.isfinite(v) for v in row.values())
    else:
        assert text == json.dumps(_plain(row), indent=2, allow_nan=False)



def test_explain_and_crossover_tell_the_budget_when_steps_are_counted(monkeypatch):
    """explain and crossover pass mapping_cost's ``counted``
    (structured.counts_steps_in_structure of the machine's layout) as predict collective
    does: True on a torus and on a fat tree with random up ports, False on one with d mod
    k up ports."""
    from icnperf.api import crossover, explain_collective

    seen = []
    real = budget.mapping_cost

    def spy(*args, **kwargs):
        seen.append(kwargs.get("counted", False))
        return real(*args, **kwargs)

    monkeypatch.setattr(budget, "mapping_cost", spy)
    for settings, counted in ((("topology=torus:8x8x8",), True),
                              (("topology=fattree:k=4,n=3",), True),
                              (("topology=fattree:k=4,n=3", "network.tree_routing=dmodk"),
                               False)):
        seen.clear()
        explain_collective("angara-3d", "allgather", algorithm="bruck", set=settings,
                           bytes="1KiB")
        assert seen == [counted]
        seen.clear()
        crossover("angara-3d", "allgather", set=settings, faster="bruck",
                  slower="ring", factor="2", vary="bytes", range="8..64KiB:x8")
        assert seen and set(seen) == {counted}
