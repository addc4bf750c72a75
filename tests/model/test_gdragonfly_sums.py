"""The per-key sums of the gdragonfly channel counter (dragonfly/general_routes._sums):
counted in bins indexed by the key where the keys are few and small, sorted first where
they are not; both give the same keys and the same sums (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from icnperf.model.topology.dragonfly import general_routes as R


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5000), st.integers(0, 7)), min_size=1, max_size=60),
       st.booleans())
def test_binned_and_sorted_sums_agree(pairs, floats):
    keys = np.array([k for k, _ in pairs], dtype=np.int64)
    amounts = np.array([w for _, w in pairs], dtype=float if floats else np.int64)
    distinct, sums = R._sums(keys, amounts, keys_too=True)
    expected_keys = sorted(set(keys.tolist()))
    assert distinct.tolist() == expected_keys
    assert sums.tolist() == [amounts[keys == k].sum() for k in expected_keys]
    assert sums.dtype.kind == ("f" if floats else "i")
