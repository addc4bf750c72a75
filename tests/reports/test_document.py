"""render_document: one self-contained, escaped page with every figure embedded once."""

from __future__ import annotations

import re

import plotly.graph_objects as go
import pytest

from icnperf.reports.document import Section, Table, render_document


def _figure(name: str = "a") -> go.Figure:
    return go.Figure(go.Scatter(x=[1, 10, 100], y=[2, 3, 5], name=name),
                     layout={"title": {"text": "t"}})


def test_plotly_embedded_once_and_each_figure_once(network_loads, tag_count):
    page = render_document("Title", [
        Section("One", figures=[_figure(), _figure()]),
        Section("Two", figures=[_figure()], tables=[Table(["x (s)"], [[1.5]])]),
    ])
    # One script element for plotly.js, one per figure; plotly.js's banner appears once.
    assert tag_count(page, "script") == 1 + 3
    assert page.count("plotly.js v") == 1
    assert len(re.findall(r'<div id="figure-\d+" class="plotly-graph-div"', page)) == 3
    assert page.count("Plotly.newPlot(") == 3
    assert network_loads(page) == []


def test_no_figures_means_no_plotlyjs():
    page = render_document("Plain", [Section("Only text", intro="hello")])
    assert "<script" not in page
    assert "<p>hello</p>" in page


def test_user_text_is_escaped_but_mathml_is_not():
    """The text appears 9 times: <title>, <h1>, subtitle, <h2>, intro, column, cell, caption,
    note (one section, so no table of contents)."""
    evil = '<script>alert("x")</script>'
    page = render_document(evil, [Section(
        title=evil, intro=evil, notes=[evil],
        tables=[Table([evil], [[evil, 2.0]], caption=evil)],
        math=["<mi>x</mi><mo>=</mo><mn>1</mn>"])], subtitle=evil)
    assert evil not in page
    assert page.count("&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") == 9
    assert ('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">'
            "<mi>x</mi><mo>=</mo><mn>1</mn></math>") in page


def test_table_cells_formatted_and_status_coloured():
    page = render_document("T", [Section("S", tables=[Table(
        ["value", "status"],
        [[1234567.891, "pass"], [0.000123456, "fail"], [float("nan"), "known-discrepancy"],
         [42, "other"]])])])
    assert '<td class="num">1,234,568</td>' in page
    assert '<td class="num">0.0001235</td>' in page
    assert '<td class="num">-</td>' in page
    assert '<td class="num">42</td>' in page
    assert '<td class="text status-fail">fail</td>' in page
    assert '<td class="text status-known-discrepancy">known-discrepancy</td>' in page
    assert '<td class="text">other</td>' in page


def test_webgl_trace_types_are_refused():
    figure = go.Figure(go.Scattergl(x=[1], y=[1]))
    with pytest.raises(ValueError, match="scattergl"):
        render_document("T", [Section("S", figures=[figure])])
