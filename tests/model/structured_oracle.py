"""The oracle check of the pairwise steps counted in structure
(collectives.structured.shift_traffic, xor_traffic) against Layout.rank_traffic of the
explicit messages, shared by tests/model/test_collectives_structured.py and
test_collectives_structured_networks.py."""

import numpy as np
from hypothesis import strategies as st

from icnperf.model.collectives import structured


def assert_counted_like_the_mapper(data, layout, max_steps: int = 10) -> None:
    """The layout counts its steps in structure, and its shift (and, P a power of two, XOR)
    steps drawn by hypothesis (1 to ``max_steps``) equal the message-by-message mapper's
    Step traffic."""
    p = layout.ranks
    assert structured.counts_steps_in_structure(layout)
    steps = np.array(data.draw(st.lists(st.integers(1, p - 1), min_size=1,
                                        max_size=max_steps)))
    ranks = np.arange(p)
    assert structured.shift_traffic(layout, steps) == [
        layout.rank_traffic(ranks, (ranks + d) % p) for d in steps.tolist()]
    if p & (p - 1) == 0:
        assert structured.xor_traffic(layout, steps) == [
            layout.rank_traffic(ranks, ranks ^ i) for i in steps.tolist()]
