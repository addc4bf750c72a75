"""Validation page pieces: simulation claims, paper grouping, tolerance intervals, the
measured-vs-predicted scatter and the empty simulator section. The full page evaluates
every registered claim (seconds) and is exercised by test_browser.py and test_cli_report.py.
"""

from __future__ import annotations

import pytest

from icnperf.api.validation_pages import (paper_of, redraws, tolerance_interval,
                                          tolerance_intervals, validation_page as page_of)
from icnperf.reports.document import Section, render_document
from icnperf.reports.paper_figures import angara_fig7, angara_fig9, draw
from icnperf.reports.validation_page import (reason_notes, results_table, scatter_figure,
                                             simulation_section, source_sections,
                                             summary_section, validation_page)
from icnperf.validation.registry import all_claims, error_of


def _result(id_, measured, predicted, kind="relative", tolerance=0.1, status="pass",
            source="Paper A (Smith 2001), Table 1", claim_kind="predicted",
            runs="closed-form"):
    return {"id": id_, "source": source, "quantity": f"q {id_}", "measured": measured,
            "predicted": predicted, "unit": "s", "error": error_of(measured, predicted, kind)
            if kind != "ordering" else 0.0, "tolerance": tolerance, "tolerance_kind": kind,
            "status": status, "passed": status != "fail", "reason": None,
            "kind": claim_kind, "runs": runs, "tolerance_reason": f"reason of {id_}",
            "fitted": "x.y" if claim_kind == "calibrated" else None, "expected": None}


def test_summary_counts_predicted_post_hoc_calibrated_and_regression_apart():
    results = [_result("a", 1.0, 1.0), _result("b", 1.0, 3.0, status="fail"),
               _result("c", 1.0, 1.0, claim_kind="calibrated"),
               _result("d", 1.0, 1.0, claim_kind="regression",
                       source="Paper B (Jones 2002), Fig. 1"),
               _result("e", 1.0, 1.5, status="open", claim_kind="post-hoc")]
    section = summary_section(page_of(results, simulation_run=False))
    assert ("2 predicted: 1 pass, 0 known discrepancy, 0 open, 1 fail; 1 post-hoc (1 open);"
            " 1 calibrated; 1 regression" in section.intro)
    by_kind, by_paper = section.tables
    assert [row[0] for row in by_kind.rows] == ["predicted", "post-hoc", "calibrated",
                                                "regression"]
    assert [row[2:] for row in by_kind.rows] == [[2, 1, 0, 0, 1], [1, 0, 0, 1, 0],
                                                 [1, 1, 0, 0, 0], [1, 1, 0, 0, 0]]
    assert by_paper.rows == [["Paper A (Smith 2001)", 4, 2, 1, 1, 0, 2, 0, 1, 1],
                             ["Paper B (Jones 2002)", 1, 0, 0, 0, 1, 1, 0, 0, 0]]
    page = validation_page(page_of(results, simulation_run=False))
    assert "They were not run" in page


def test_notes_give_reasons_fits_and_tolerance_reasons():
    results = [_result("a", 1.0, 1.0), _result("b", 1.0, 3.0, status="known-discrepancy"),
               _result("c", 1.0, 1.0, claim_kind="calibrated")]
    results[1].update(reason="r", expected=2.9)
    notes = reason_notes(results)
    assert notes[0] == "b: known discrepancy: r (the analysis expects 2.9 s)"
    assert notes[1] == "c: calibrated: fitted x.y"
    assert "tolerance of a: reason of a" in notes
    assert results_table(results).rows[2][1] == "calibrated"


def test_paper_of_cuts_after_the_first_parenthesis():
    assert paper_of("Angara collectives paper (Mukosey 2015), §3.1 text under Fig. 7") == \
        "Angara collectives paper (Mukosey 2015)"
    assert paper_of("no parenthesis here") == "no parenthesis here"


@pytest.mark.parametrize("kind, tolerance, interval", [
    ("relative", 0.1, (9.0, 11.0)),
    ("absolute", 2.0, (8.0, 12.0)),
    ("percentage-points", 2.0, (8.0, 12.0)),
    ("factor", 2.0, (5.0, 20.0)),
])
def test_tolerance_interval_matches_error_of(kind, tolerance, interval):
    """The interval's ends are exactly where registry.error_of reaches the tolerance."""
    low, high = tolerance_interval(10.0, tolerance, kind)
    assert (low, high) == pytest.approx(interval)
    assert error_of(10.0, low, kind) == pytest.approx(tolerance)
    assert error_of(10.0, high, kind) == pytest.approx(tolerance)


def test_at_least_interval_is_open_above():
    """at-least 0.8 with 2 %: any prediction from 0.784 up passes (error_of is 0 above)."""
    low, high = tolerance_interval(0.8, 0.02, "at-least")
    assert low == pytest.approx(0.784) and high == float("inf")
    assert error_of(0.8, low, "at-least") == pytest.approx(0.02)
    assert error_of(0.8, 100.0, "at-least") == 0
    results = [_result("s", 0.8, 0.79, kind="at-least", tolerance=0.02)]
    fig = scatter_figure(results, tolerance_intervals(results), "t")
    bars = next(t for t in fig.data if t.name == "accepted range (tolerance)")
    assert bars.error_y.arrayminus[0] == pytest.approx(0.016)
    assert 0 < bars.error_y.array[0] < float("inf")


def test_scatter_has_identity_line_tolerance_bars_and_status_traces():
    results = [_result("a", 1e-6, 1.05e-6), _result("b", 1e-3, 2e-3, status="fail"),
               _result("c", 1.0, 1.0, kind="ordering", tolerance=0.0)]
    fig = scatter_figure(results, tolerance_intervals(results), "t")
    names = [trace.name for trace in fig.data]
    assert names == ["y = x", "accepted range (tolerance)", "pass", "fail"]
    band = fig.data[1]
    assert list(band.x) == [1e-6, 1e-3]  # the ordering claim is not plotted
    assert list(band.error_y.array) == pytest.approx([1e-7, 1e-4])
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert {t.type for t in fig.data} == {"scatter"}


def test_scatter_none_without_numeric_claims():
    results = [_result("c", 1.0, 1.0, kind="ordering", tolerance=0.0)]
    assert tolerance_intervals(results) == [None]
    assert scatter_figure(results, [None], "t") is None


def test_status_cells_coloured_and_reasons_listed():
    results = [_result("a", 1.0, 1.0), _result("b", 1.0, 3.0, status="known-discrepancy")]
    results[1]["reason"] = "the paper's <b>own</b> numbers say otherwise"
    sections = source_sections(page_of(results)["papers"])
    assert [s.title for s in sections] == ["Paper A (Smith 2001)"]
    page = render_document("v", sections)
    assert '<td class="text status-known-discrepancy">known-discrepancy</td>' in page
    assert '<td class="text status-pass">pass</td>' in page
    assert "b: known discrepancy: the paper&#39;s &lt;b&gt;own&lt;/b&gt; numbers" in page
    assert "1 pass, 1 known discrepancy, 0 open, 0 fail" in sections[0].intro
    assert results_table(results).rows[1][-1] == "known-discrepancy"


def test_empty_simulator_section_says_so():
    section = simulation_section(page_of([])["simulated"])
    assert isinstance(section, Section)
    assert section.figures == [] and section.tables == []
    assert "holds no simulator cross-check claims" in section.intro
    skipped = simulation_section(None)
    assert "--simulation" in skipped.intro and skipped.figures == []


def test_fig7_redraw_passes_through_the_claims_predictions():
    """The redrawn Fig. 7 curve at 8192 nodes is the value the registry checks, and the
    published points are the bundled table's (6.97 on 16x16x32, 6.18 on 8x8x8x16)."""
    from icnperf.api.validation_pages import angara_fig7 as fig7_data
    from icnperf.validation.registry import evaluate

    fig = angara_fig7(fig7_data())
    traces = {trace.name: trace for trace in fig.data}
    claims = {c.id: c for c in all_claims()}
    for dims in (3, 4):
        curve = traces[f"model: broadcast, {dims}D torus"]
        at_8192 = dict(zip(curve.x, curve.y))[8192]
        predicted = evaluate(claims[f"angara-fig7-broadcast-{dims}d-8192"]).predicted
        assert at_8192 == pytest.approx(predicted, rel=1e-12)
    published = traces["published: broadcast, 3D"]
    assert dict(zip(published.x, published.y)) == {8: 2.39, 8192: 6.97}
    assert dict(zip(traces["published: broadcast, 4D"].x,
                    traces["published: broadcast, 4D"].y)) == {8192: 6.18}
    assert redraws([{"id": "nudt-sf-radix"}]) == []


def test_fig9_redraw_passes_through_the_claims_predictions():
    """The redrawn Fig. 9 curve at 2048 nodes is the value the registry checks; the
    published point is the bundled 1.28 with the claim's ±0.10 bar."""
    from icnperf.api.validation_pages import angara_fig9 as fig9_data
    from icnperf.validation.registry import evaluate

    traces = {trace.name: trace for trace in angara_fig9(fig9_data()).data}
    (curve,) = [t for name, t in traces.items() if name.startswith("model:")]
    claim = next(c for c in all_claims() if c.id == "angara-fig9-spmv-gain-4d-2048")
    assert dict(zip(curve.x, curve.y))[2048] == pytest.approx(evaluate(claim).predicted,
                                                              rel=1e-12)
    point = traces["published: largest gain"]
    assert (tuple(point.x), tuple(point.y), point.error_y.value) == ((2048,), (1.28,), 0.10)
    assert len(draw(redraws([{"id": "angara-fig9-spmv-grows-4d"}]))) == 1
