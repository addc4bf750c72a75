"""render.json_column_chunks (rows given by column, json_float_column's encodings) writes
the same bytes as render.json_chunks over the same rows as dicts (the oracle, json's own
encoder)."""

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.reports.render import json_chunks, json_column_chunks, json_float_column

finite = st.floats(allow_nan=False, allow_infinity=False)
column = st.one_of(
    st.lists(finite, min_size=1, max_size=40),
    st.lists(st.sampled_from([0.0, -0.0, 1.5, 3e-9, 1e300, 7.0]), min_size=1, max_size=40),
    st.tuples(finite, st.integers(1, 40)).map(lambda vc: [vc[0]] * vc[1]))


@settings(max_examples=150, deadline=None)
@given(st.lists(column, min_size=1, max_size=5), st.integers(1, 7), st.data())
def test_columns_write_the_rows_bytes(columns, chunk, data):
    count = min(len(c) for c in columns)
    names = [f"c{i}%" if i == 1 else f"c{i}" for i in range(len(columns))]
    arrays = {name: np.array(c[:count]) for name, c in zip(names, columns)}
    nulls = data.draw(st.lists(st.integers(0, count - 1), max_size=3))
    rows = [{name: float(arrays[name][i]) for name in names} for i in range(count)]
    texts = {name: json_float_column(arrays[name]) for name in names}
    if nulls:
        texts[names[0]] = arrays[names[0]].tolist()
        for i in nulls:
            rows[i][names[0]] = None
            texts[names[0]][i] = "null"
    document = {"inputs": {"a": 1}}
    expected = "".join(json_chunks(document, "rows", rows))
    got = "".join(json_column_chunks(document, "rows", texts, count, chunk=chunk))
    assert got == expected
    json.loads(got)


def test_no_rows_is_an_empty_list():
    got = "".join(json_column_chunks({"x": 1}, "rows", {"a": [], "b": []}, 0))
    assert got == "".join(json_chunks({"x": 1}, "rows", []))
