"""torus.batch.dor_traffic_last_radix: one round on tori that differ in their last radix
equals routes.dor_traffic (the oracle) torus by torus, and a case worked out by hand."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.model.topology.torus.batch import dor_traffic_last_radix
from icnperf.model.topology.torus.routes import dor_traffic
from tests.model.drawn_rounds import draw_round


def test_last_ring_by_hand():
    # 2 x K tori, 6 endpoints 0..5 on rows 0..2; every endpoint sends to the one two
    # further on (4 messages: 0->2, 1->3, 2->4, 3->5): one step up the last ring each, no
    # move in dimension 0. On K = 3 and 4 the step is +1 (1 hop), each channel of rows
    # 0->1 and 1->2 carries one message per column: load 1.
    sources = np.arange(4)
    hops, load = dor_traffic_last_radix([2], [3, 4], sources, sources + 2)
    assert hops.tolist() == [1, 1] and load.tolist() == [1, 1]
    # 0 -> 4 (row 0 to row 2): on K = 3 one step down (-), on K = 4 a tie (half a ring):
    # plus takes +2 (2 hops), split takes + from an even row too
    hops, _ = dor_traffic_last_radix([2], [3, 4], [0], [4])
    assert hops.tolist() == [1, 2]


def test_split_ties_in_the_last_ring_by_hand():
    # a ring of 4 (no other dimension): 1 -> 3 is half a ring away. Under plus it goes
    # 1 -> 2 -> 3, sharing channel 1 -> 2 with the message 1 -> 2 (load 2); under split
    # an odd position sends - (1 -> 0 -> 3), and every channel carries one message. On a
    # ring of 5 there is no tie: 1 -> 3 goes + either way.
    for ties, loads in (("plus", [2, 2]), ("split", [1, 2])):
        hops, load = dor_traffic_last_radix([], [4, 5], [1, 1], [3, 2], ties)
        assert hops.tolist() == [2, 2] and load.tolist() == loads


def test_long_rings_by_hand():
    # a ring of K (no other dimension), 0 -> 2 and 3 -> 1: on K = 4 both are ties (plus:
    # + 2 each, 0 -> 1 -> 2 and 3 -> 0 -> 1 share channel 0 -> 1, load 2); from K = 5 on
    # both go straight, 0 -> 2 up and 3 -> 1 down, every channel one message, 2 hops
    hops, load = dor_traffic_last_radix([], [4, 5, 6, 9, 30], [0, 3], [2, 1])
    assert hops.tolist() == [2] * 5 and load.tolist() == [2, 1, 1, 1, 1]


def test_wrapping_moves_on_rings_of_one_pattern_by_hand():
    # a ring of K, 0 -> 3, 3 -> 0 and 1 -> 3 (plus ties). K = 4: 0 -> 3 goes - (0 -> 3,
    # wrapping), 3 -> 0 goes + (3 -> 0, wrapping), 1 -> 3 is a tie, + (1 -> 2 -> 3): every
    # channel one message, 2 hops. K = 5, the same directions: 0 -> 4 -> 3 and
    # 3 -> 4 -> 0 (the wrap zone 3 -> 4 -> 0 carries the one wrapping + move), load 1,
    # 2 hops. K = 6: both 3-away messages tie and go +, 0 -> 3 sharing 1 -> 2 -> 3 with
    # 1 -> 3: load 2, 3 hops. K = 7 and 8: 0 -> 3 and 1 -> 3 straight up (load 2 on
    # 1 -> 2, 2 -> 3), 3 -> 0 straight down, 3 hops.
    hops, load = dor_traffic_last_radix([], [4, 5, 6, 7, 8], [0, 3, 1], [3, 0, 3])
    assert hops.tolist() == [2, 2, 3, 3, 3] and load.tolist() == [1, 1, 2, 2, 2]


def test_no_messages():
    hops, load = dor_traffic_last_radix([3, 3], [4, 5], [], [])
    assert hops.tolist() == [0, 0] and load.tolist() == [0, 0]


@st.composite
def _rounds(draw):
    prefix = draw(st.lists(st.integers(2, 6), max_size=2))
    stride = math.prod(prefix)
    # radices up to 24: rings longer than twice every difference (moves the same on all
    # of them) next to shorter ones in one call
    last = draw(st.lists(st.integers(2, 24), min_size=1, max_size=6))
    n = draw(st.integers(1, stride * min(last)))
    sources, destinations = draw_round(draw, n)
    return prefix, last, sources, destinations, draw(st.sampled_from(["plus", "split"]))


@settings(max_examples=200, deadline=None)
@given(_rounds())
def test_equals_dor_traffic_torus_by_torus(case):
    prefix, last, sources, destinations, ties = case
    hops, load = dor_traffic_last_radix(prefix, last, sources, destinations, ties)
    for j, k in enumerate(last):
        assert (int(hops[j]), int(load[j])) == dor_traffic((*prefix, k), sources,
                                                           destinations, ties)
