"""The closed forms of model.topology.torus.patterns against dor_traffic on the explicit
messages (the oracle: every message routed), on random shapes mixing rings and paths,
both tie rules."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.errors import InputError
from icnperf.model.topology.torus import dor_traffic
from icnperf.model.topology.torus.patterns import (alltoall_traffic, shift_pair_traffic,
                                                   shift_traffic, xor_traffic)

shapes = st.lists(st.integers(2, 7), min_size=1, max_size=4).filter(
    lambda k: math.prod(k) <= 400)
power_shapes = st.lists(st.sampled_from([2, 4, 8]), min_size=1, max_size=4).filter(
    lambda k: math.prod(k) <= 512)
ties = st.sampled_from(["plus", "split"])


def _wraps(draw, n):
    return draw(st.lists(st.booleans(), min_size=n, max_size=n))


@settings(max_examples=60, deadline=None)
@given(st.data(), shapes, ties)
def test_shift_equals_the_mapper(data, radices, tie):
    wrap = _wraps(data.draw, len(radices))
    total = math.prod(radices)
    shifts = np.arange(1, total)
    hops, load = shift_traffic(radices, shifts, tie, wrap)
    r = np.arange(total)
    for d in shifts.tolist():
        assert (hops[d - 1], load[d - 1]) == dor_traffic(radices, r, (r + d) % total, tie,
                                                         wrap), d


@settings(max_examples=40, deadline=None)
@given(st.data(), power_shapes, ties)
def test_xor_equals_the_mapper(data, radices, tie):
    wrap = _wraps(data.draw, len(radices))
    total = math.prod(radices)
    masks = np.arange(1, total)
    hops, load = xor_traffic(radices, masks, tie, wrap)
    r = np.arange(total)
    for i in masks.tolist():
        assert (hops[i - 1], load[i - 1]) == dor_traffic(radices, r, r ^ i, tie, wrap), i


@settings(max_examples=60, deadline=None)
@given(st.data(), shapes, ties)
def test_alltoall_equals_the_mapper(data, radices, tie):
    wrap = _wraps(data.draw, len(radices))
    total = math.prod(radices)
    r = np.arange(total)
    src, dst = np.repeat(r, total), np.tile(r, total)
    keep = src != dst
    assert alltoall_traffic(radices, tie, wrap) == dor_traffic(radices, src[keep], dst[keep],
                                                               tie, wrap)


def test_hand_worked_values():
    # ring of 8, all-to-all: moves of 1..3 load each + channel 1+2+3 = 6, the ties (4
    # steps, all +) 4 more
    assert alltoall_traffic([8], "plus") == (4, 10)
    # split ties: even sources + 4, odd - 4: at most ceil(8/4) = 2 of one parity per channel
    assert alltoall_traffic([8], "split") == (4, 8)
    # 4x5, ring x path: a 4-ring's all-to-all loads a + channel 1 + 2 (tie) = 3, with
    # 20/4 = 5 copies per line; the path of 5 carries 2 x 3 = 6 on its middle channels,
    # 20/5 = 4 copies; hops 2 + 4
    assert alltoall_traffic([4, 5], "plus", [True, False]) == (2 + 4, max(5 * 3, 4 * 6))
    # shift by 1 on a ring of 6 is one hop for every message, load 1; by 3 a tie
    assert [tuple(x) for x in zip(*shift_traffic([6], [1, 3, 5]))] == [(1, 1), (3, 3), (1, 1)]


def test_bad_arguments_are_input_errors():
    with pytest.raises(InputError):
        shift_traffic([4, 4], [16])
    with pytest.raises(InputError):
        xor_traffic([3, 4], [1])


@settings(max_examples=80, deadline=None)
@given(st.data(), shapes, ties)
def test_repeated_messages_as_counts(data, radices, tie):
    """dor_traffic with ``counts`` equals dor_traffic of the pairs repeated that often."""
    wrap = _wraps(data.draw, len(radices))
    total = math.prod(radices)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, total - 1), st.integers(0, total - 1),
                                         st.integers(1, 5)), min_size=1, max_size=60))
    src, dst, counts = (np.array(column) for column in zip(*pairs))
    expected = dor_traffic(radices, np.repeat(src, counts), np.repeat(dst, counts), tie, wrap)
    assert dor_traffic(radices, src, dst, tie, wrap, counts=counts) == expected


@settings(max_examples=80, deadline=None)
@given(st.data(), shapes, ties)
def test_shift_pair_equals_the_mapper(data, radices, tie):
    """Every endpoint sending ``near`` messages by d and ``far`` by d + 1 (a rank shift with
    several ranks a node), on rings: dor_traffic of every message, a move onto the
    endpoint itself left out."""
    total = math.prod(radices)
    d = data.draw(st.integers(0, total - 1))
    near, far = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4))
    n = np.arange(total)
    src = np.concatenate([np.repeat(n, near), np.repeat(n, far)])
    dst = np.concatenate([np.repeat((n + d) % total, near),
                          np.repeat((n + d + 1) % total, far)])
    moving = src != dst
    expected = dor_traffic(radices, src[moving], dst[moving], tie) if moving.any() else (0, 0)
    hops, load = shift_pair_traffic(radices, [d], [near], [far], tie)
    assert (int(hops[0]), int(load[0])) == expected


def test_shift_pair_hand_worked():
    # ring of 6, every router sends 2 messages 1 step + and 1 message 2 steps +: each +
    # channel carries 2 x 1 + 1 x 2 = 4; the farthest message 2 hops
    assert [x.tolist() for x in shift_pair_traffic((6,), [1], [2], [1])] == [[2], [4]]
    # ring of 4, shift 1 weight 1 and shift 2 (the tie) weight 3, ties split: + channels
    # 1 + 3 x ceil(4/4) = 4, - channels 3 x 1 = 3; with ties + the tie loads + with 2 each
    assert [x.tolist() for x in shift_pair_traffic((4,), [1], [1], [3], "split")] == [[2], [4]]
    assert [x.tolist() for x in shift_pair_traffic((4,), [1], [1], [3], "plus")] == [[2], [7]]
    # d = N - 1 with far: the far move lands on the endpoint itself and is no message
    assert [x.tolist() for x in shift_pair_traffic((5,), [4], [0], [3])] == [[0], [0]]
