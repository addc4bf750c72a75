"""The safe search on made-up spaces (any lower bound, any costs): it keeps the whole
front, drops only dominated designs, and honours --shortlist."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.errors import InputError
from icnperf.model.sizing.pareto import pareto_front
from icnperf.model.sizing.screen import Screen, _dominated, parse_shortlist, search


def made_up(cost, full, slack, keys=None):
    """A Screen whose proxies are full / slack (slack >= 1, so lower bounds)."""
    n = len(cost)
    return Screen((), np.asarray(cost, float), np.asarray(full, float) / slack,
                  tuple(keys if keys is not None else range(n)), np.zeros(n, dtype=bool))


def evaluator(full, calls):
    def evaluate(indices):
        calls.extend(indices)
        return [full[i] for i in indices]
    return evaluate


spaces = st.integers(2, 60).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 12), min_size=n, max_size=n),
    st.lists(st.integers(1, 12), min_size=n, max_size=n),
    st.lists(st.floats(1.0, 3.0), min_size=n, max_size=n)))


@settings(max_examples=300, deadline=None)
@given(spaces, st.integers(1, 5))
def test_search_keeps_the_whole_front_and_drops_only_dominated_designs(space, batch):
    """Small integer costs and times make ties frequent."""
    cost, full, slack = (np.array(v, dtype=float) for v in space)
    calls = []
    found = search(made_up(cost, full, slack), evaluator(full, calls), "safe", batch)
    evaluated = np.array(sorted(found.evaluated))
    assert sorted(calls) == list(evaluated)                 # each at most once
    everything = pareto_front(cost, full)
    kept = np.zeros(len(cost), dtype=bool)
    kept[evaluated[pareto_front(cost[evaluated], full[evaluated])]] = True
    assert (kept == everything).all()
    for i in set(range(len(cost))) - set(evaluated.tolist()):
        assert ((cost[evaluated] <= cost[i]) & (full[evaluated] <= full[i] / slack[i])
                & ((cost[evaluated] < cost[i]) | (full[evaluated] < full[i] / slack[i]))).any()


def test_exact_proxies_evaluate_only_the_front():
    cost = np.array([1, 2, 3, 4, 5, 6.0])
    full = np.array([9, 7, 8, 5, 6, 1.0])
    calls = []
    found = search(made_up(cost, full, 1.0), evaluator(full, calls), "safe")
    assert sorted(found.evaluated) == [0, 1, 3, 5] == list(np.flatnonzero(pareto_front(cost,
                                                                                       full)))


def test_equal_keys_share_the_evaluated_time():
    """Designs 1 and 2 are equivalent to 0 (same key): once 0 is evaluated their proxy is
    its time, and the dearer ones are dropped without evaluation."""
    cost = np.array([1, 2, 3, 10.0])
    full = np.array([5, 5, 5, 1.0])
    calls = []
    found = search(made_up(cost, full, 100.0, keys=["a", "a", "a", "b"]),
                   evaluator(full, calls), "safe")
    assert sorted(found.evaluated) == [0, 3]
    assert found.proxy_s[1] == found.proxy_s[2] == 5


def test_all_and_top_up():
    cost = np.arange(1, 9, dtype=float)
    full = np.arange(8, 0, -1, dtype=float) ** 2
    calls = []
    assert len(search(made_up(cost, full, 1.5), evaluator(full, calls), "all").evaluated) == 8
    exact = made_up(cost, full[::-1] + 0, 1.0)          # cheapest is fastest: front of one
    safe = search(exact, evaluator(full[::-1], []), "safe")
    topped = search(exact, evaluator(full[::-1], []), 5)
    assert len(safe.evaluated) == 1 and len(topped.evaluated) == 5
    assert set(safe.evaluated) < set(topped.evaluated)
    assert {topped.reason[i] for i in topped.evaluated} == {"screen", "top-up"}


def test_dominated_against_brute_force():
    rng = np.random.default_rng(2)
    pc, pt = rng.integers(1, 6, 10).astype(float), rng.integers(1, 6, 10).astype(float)
    c, p = rng.integers(1, 6, 200).astype(float), rng.integers(1, 6, 200).astype(float)
    brute = [((pc <= ci) & (pt <= pi) & ((pc < ci) | (pt < pi))).any() for ci, pi in zip(c, p)]
    assert list(_dominated(c, p, pc, pt)) == brute
    assert not _dominated(c, p, [], []).any()


@pytest.mark.parametrize("text, value", [("safe", "safe"), (" ALL ", "all"), ("12", 12)])
def test_shortlist_words(text, value):
    assert parse_shortlist(text) == value


@pytest.mark.parametrize("text", ["0", "-3", "some", "1.5", ""])
def test_bad_shortlist(text):
    with pytest.raises(InputError, match="--shortlist"):
        parse_shortlist(text)


@settings(max_examples=150, deadline=None)
@given(spaces, st.integers(1, 5), st.integers(1, 7), st.data())
def test_a_small_search_window_chooses_what_the_whole_rest_chooses(space, batch, window,
                                                                   data):
    """screen.WINDOW only bounds how many designs each step examines: with a window of 1 to
    7 the search evaluates the same designs in the same order, with the same reasons and
    proxies, as with a window over the whole space (equal keys drawn too)."""
    import icnperf.model.sizing.screen as screen_module

    cost, full, slack = (np.array(v, dtype=float) for v in space)
    keys = data.draw(st.lists(st.integers(0, 3), min_size=len(cost), max_size=len(cost)))
    runs = []
    for size in (10**6, window):
        screen_module.WINDOW = size
        try:
            calls = []
            found = search(made_up(cost, full, slack, keys), evaluator(full, calls), "safe",
                           batch)
        finally:
            screen_module.WINDOW = 4096
        runs.append((calls, found.reason, found.proxy_s.tolist()))
    assert runs[0] == runs[1]
