"""The cost-performance Pareto front against a brute-force dominance check."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.errors import InputError
from icnperf.model.sizing.pareto import dominated_by, pareto_front

POINTS = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=30)


def dominates(a, b) -> bool:
    return a[0] <= b[0] and a[1] <= b[1] and (a[0] < b[0] or a[1] < b[1])


@settings(max_examples=200, deadline=None)
@given(POINTS)
def test_front_members_undominated_and_others_dominated_by_a_member(points):
    cost = [p[0] for p in points]
    time = [p[1] for p in points]
    front = pareto_front(cost, time)
    members = [points[i] for i in np.flatnonzero(front)]
    for i, point in enumerate(points):
        if front[i]:
            assert not any(dominates(other, point) for other in points)
            assert dominated_by(cost, time, i).size == 0
        else:
            assert any(dominates(member, point) for member in members)


def test_small_example():
    # (1, 5) and (3, 2) trade off; (4, 4) is dominated by (3, 2); equal points both stay.
    front = pareto_front([1, 3, 4, 3], [5, 2, 4, 2])
    assert front.tolist() == [True, True, False, True]


def test_bad_input():
    with pytest.raises(InputError, match="same length"):
        pareto_front([1, 2], [1])
    with pytest.raises(InputError, match="NaN"):
        pareto_front([1, float("nan")], [1, 2])
