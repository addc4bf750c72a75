"""ChannelLoads (model.topology.torus.shifts), weighted shifts counted line by line, against
dor_traffic on the explicit messages (the oracle: every message routed, each repeated as
its weight says), on random shapes mixing rings and paths, both tie rules; and hand counts
on small rings."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.errors import InputError
from icnperf.model.topology.torus import dor_traffic
from icnperf.model.topology.torus.shifts import ChannelLoads

shapes = st.lists(st.integers(2, 7), min_size=1, max_size=4).filter(
    lambda k: math.prod(k) <= 300)


@settings(max_examples=150, deadline=None)
@given(st.data(), shapes, st.sampled_from(["plus", "split"]))
def test_weighted_shifts_equal_the_mapper(data, radices, ties):
    """Several shifts at once, each with its own weights (zeros included): the channel
    loads add across shifts, so this checks the sum channel by channel, not each shift."""
    wrap = data.draw(st.lists(st.booleans(), min_size=len(radices), max_size=len(radices)))
    total = math.prod(radices)
    counter = ChannelLoads(radices, ties, wrap)
    sources, destinations, counts = [], [], []
    for _ in range(data.draw(st.integers(1, 3))):
        offset = data.draw(st.integers(-2 * total, 2 * total))
        weights = np.array(data.draw(st.lists(st.integers(0, 3), min_size=total,
                                              max_size=total)))
        counter.add_shift(offset, weights)
        n = np.arange(total)
        sources.append(n)
        destinations.append((n + offset) % total)
        counts.append(weights)
    src, dst, count = (np.concatenate(x) for x in (sources, destinations, counts))
    moving = (count > 0) & (src != dst)
    expected = (dor_traffic(radices, src[moving], dst[moving], ties, wrap,
                            counts=count[moving]) if moving.any() else (0, 0))
    assert (counter.hops, counter.load) == expected


def test_hand_counts_on_small_rings():
    # 4-ring, endpoint 0 sends 3 messages two steps on: a tie, + under both rules: over
    # channels 0 -> 1 -> 2, load 3, 2 hops
    for ties in ("plus", "split"):
        counter = ChannelLoads((4,), ties)
        counter.add_shift(2, [3, 0, 0, 0])
        assert (counter.hops, counter.load) == (2, 3)
    # from the odd position 1: + (plus) over channels 1, 2; split sends it - over 1 -> 0 -> 3
    counter = ChannelLoads((4,), "split")
    counter.add_shift(2, [0, 2, 0, 0])
    counter.add_shift(-1, [0, 1, 0, 0])   # 1 -> 0 also on the - channel leaving 1
    assert (counter.hops, counter.load) == (2, 3)
    # 5-ring: 0 -> 1 and 4 -> 1 (two steps +) share the + channel 0 -> 1
    counter = ChannelLoads((5,))
    counter.add_shift(1, [1, 0, 0, 0, 0])
    counter.add_shift(2, [0, 0, 0, 0, 1])
    assert (counter.hops, counter.load) == (2, 2)
    # a path of 3: 2 -> 0 (shift by 1 wraps the index) goes back two steps
    counter = ChannelLoads((3,), wrap=False)
    counter.add_shift(1, [0, 0, 1])
    assert (counter.hops, counter.load) == (2, 1)
    # 3x4 torus, every endpoint + 3 = one step in dimension 1: 1 hop, one message a channel
    counter = ChannelLoads((3, 4))
    counter.add_shift(3, np.ones(12, dtype=int))
    assert (counter.hops, counter.load) == (1, 1)
    # and + 1: one step in dimension 0; from the last column (x0 = 2) it wraps to x0 = 0 and
    # carries one step in dimension 1, on the lines x0 = 0, whose + channels already carry
    # one message of the shift by 3 each: 2 hops, 2 messages on those channels
    counter.add_shift(1, np.ones(12, dtype=int))
    assert (counter.hops, counter.load) == (2, 2)


def test_nothing_sent_and_bad_input():
    counter = ChannelLoads((4, 4))
    counter.add_shift(0, np.ones(16, dtype=int))
    counter.add_shift(5, np.zeros(16, dtype=int))
    assert (counter.hops, counter.load) == (0, 0)
    with pytest.raises(InputError, match="one weight per endpoint"):
        counter.add_shift(1, np.ones(15, dtype=int))
    with pytest.raises(InputError, match="tie rule"):
        ChannelLoads((4,), "minus")
    with pytest.raises(InputError, match="radices"):
        ChannelLoads((1, 4))
