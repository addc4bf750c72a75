"""The validation results as sections: the counts by claim kind, per source the error
table and a measured vs predicted scatter (y = x, each claim's tolerance interval), the
paper figures the model redraws, and the simulator cross-checks; drawn from what
icnperf.api.validation_pages works out of the claims' results.

A claim's ``kind`` says how much its agreement means (predicted: held out; calibrated:
fitted to it; regression: the model's own value) and the page counts them apart, as
``icnperf validate`` does; its ``runs`` says what its check runs: the machine report keeps
to the fast closed-form ones and this page gives the simulator cross-checks a section of
their own.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from icnperf.reports.document import Section, Table, render_document
from icnperf.reports.figures import figure, label, spans_decades

STATUS_COLOURS = {"pass": "#2ca02c", "known-discrepancy": "#ff7f0e", "open": "#9467bd",
                  "fail": "#d62728"}
TABLE_COLUMNS = ["id", "kind", "quantity", "measured", "predicted", "unit", "error",
                 "tolerance", "tolerance kind", "status"]
KIND_MEANING = {
    "predicted": "held out: nothing in the model was fitted to them",
    "post-hoc": "the model's value was known when their bands were written: not evidence",
    "calibrated": "a parameter was fitted to each, so they pass by construction",
    "regression": "they pin the model's own value, with no independent expectation",
}


def results_table(results: list[dict], caption: str = "") -> Table:
    """The error table: one row per claim, status coloured by the page."""
    rows = [[r["id"], r["kind"], r["quantity"], r["measured"], r["predicted"], r["unit"],
             r["error"], r["tolerance"], r["tolerance_kind"], r["status"]] for r in results]
    return Table(TABLE_COLUMNS, rows, caption)


def scatter_figure(results: list[dict], intervals: list, title: str) -> go.Figure | None:
    """Measured vs predicted for the numeric claims (those with an interval, given one per
    result: None for orderings): the y = x line, each claim's accepted interval as a bar
    at x = measured, predictions coloured by status. None when no claim has an interval."""
    numeric = [r for r, interval in zip(results, intervals) if interval is not None]
    if not numeric:
        return None
    intervals = [interval for interval in intervals if interval is not None]
    values = [r["measured"] for r in numeric] + [r["predicted"] for r in numeric]
    values += [v for pair in intervals for v in pair if math.isfinite(v)]
    log = spans_decades(values) and min(values) > 0
    fig = figure(title, "published value (claim's unit)", "icnperf prediction (same unit)",
                 x_log=log, y_log=log)
    low, high = min(values), max(values)
    if log:
        ends = [low / 1.5, high * 1.5]
    else:
        pad = 0.1 * (high - low or abs(high) or 1.0)
        ends = [low - pad, high + pad]
    intervals = [(lo, min(hi, ends[1])) for lo, hi in intervals]     # at-least: open above
    fig.add_trace(go.Scatter(x=ends, y=ends, mode="lines", name="y = x",
                             line={"color": "#8a94a3", "dash": "dash"}, hoverinfo="skip"))
    fig.add_trace(go.Scatter(
        x=[r["measured"] for r in numeric], y=[r["measured"] for r in numeric],
        mode="markers", name="accepted range (tolerance)",
        marker={"symbol": "line-ew", "size": 10, "color": "#5b6b80",
                "line": {"width": 1, "color": "#5b6b80"}},
        error_y={"type": "data", "symmetric": False, "color": "#5b6b80", "thickness": 6,
                 "width": 0, "array": [hi - r["measured"] for r, (_, hi) in
                                       zip(numeric, intervals)],
                 "arrayminus": [r["measured"] - lo for r, (lo, _) in
                                zip(numeric, intervals)]},
        opacity=0.35, hoverinfo="skip"))
    for status, colour in STATUS_COLOURS.items():
        chosen = [r for r in numeric if r["status"] == status]
        if not chosen:
            continue
        fig.add_trace(go.Scatter(
            x=[r["measured"] for r in chosen], y=[r["predicted"] for r in chosen],
            mode="markers", name=status, marker={"color": colour, "size": 10},
            text=[label(f"{r['id']}: {r['quantity']} ({r['unit']})") for r in chosen],
            hovertemplate="%{text}<br>published %{x:.4g}<br>predicted %{y:.4g}"
                          "<extra></extra>"))
    return fig


def source_sections(papers: list[dict]) -> list[Section]:
    """One section per paper (``papers``: each paper's results, summary line, sources,
    intervals and redrawn figures' data): scatter, redrawn figures, table and reasons."""
    from icnperf.reports.paper_figures import draw

    sections = []
    for entry in papers:
        paper, group = entry["paper"], entry["results"]
        figs = [f for f in [scatter_figure(group, entry["intervals"],
                                           f"{paper}: published vs predicted")] if f]
        figs += draw(entry["redraws"])
        ordering = [r for r in group if r["tolerance_kind"] == "ordering"]
        intro = (f"{len(group)} claims: {entry['summary']}. Sources: "
                 + "; ".join(entry["sources"]) + ".")
        if ordering:
            intro += (f"\n\n{len(ordering)} claims are statements of order (1 = the stated"
                      " order holds, 0 = it does not); they appear in the table, not the"
                      " scatter.")
        notes = reason_notes(group)
        notes += ["error: relative |p - m| / |m|; absolute and percentage-points |p - m|;"
                  " factor max(p/m, m/p); ordering |p - m| (tolerance 0); at-least"
                  " max(0, m - p) / |m| (m a threshold)"]
        sections.append(Section(title=paper, intro=intro, figures=figs,
                                tables=[results_table(group)], notes=notes))
    return sections


def reason_notes(results: list[dict]) -> list[str]:
    """The reasons of known discrepancies and failures, what each calibrated claim was
    fitted to, and each distinct tolerance reason with the claims it covers."""
    notes = []
    for r in results:
        if r["status"] != "pass":
            reason = r.get("reason") or "no written reason: the prediction misses its tolerance"
            text = f"{r['id']}: {r['status'].replace('-', ' ')}: {reason}"
            if r.get("expected") is not None:
                within = (f", within {r['expected_tolerance']:.3g} "
                          f"({r['tolerance_kind']}): {r['expected_tolerance_reason']}"
                          if r.get("expected_tolerance_reason") else "")
                text += f" (the analysis expects {r['expected']:.4g} {r['unit']}{within})"
            notes.append(text)
    notes += [f"{r['id']}: calibrated: fitted {r['fitted']}" for r in results
              if r["kind"] == "calibrated"]
    reasons: dict[str, list[str]] = {}
    for r in results:
        reasons.setdefault(r["tolerance_reason"], []).append(r["id"])
    notes += [f"tolerance of {', '.join(ids)}: {reason}" for reason, ids in reasons.items()]
    return notes


def simulation_section(simulated: dict | None) -> Section:
    """The simulator cross-checks (``simulated``: their results, summary line and
    intervals), or why there are none (``None``: not run; ``icnperf validate
    --simulation`` runs them)."""
    results = simulated["results"] if simulated else None
    if not results:
        why = ("They were not run (icnperf validate --simulation -o FILE.html runs them)."
               if results is None else "The registry holds no simulator cross-check claims.")
        return Section(
            title="Simulator cross-checks",
            intro=why + " The closed forms can still be set beside the simulator with"
                        " 'icnperf simulate traffic' and 'icnperf simulate collective'.")
    figs = [f for f in [scatter_figure(results, simulated["intervals"],
                                       "Simulator vs closed form")] if f]
    return Section(title="Simulator cross-checks",
                   intro=(f"{len(results)} claims checked with the cycle-driven flit "
                          f"simulator: {simulated['summary']}."),
                   figures=figs, tables=[results_table(results)],
                   notes=reason_notes(results))


def summary_section(page: dict) -> Section:
    """The counts by claim kind and by paper, and what the kinds and statuses mean
    (``page``: icnperf.api.validation_pages.validation_page's counts)."""
    kind_rows = [[kind, KIND_MEANING[kind], sum(counts.values()), *counts.values()]
                 for kind, counts in page["kind_counts"].items()]
    return Section(
        title="Summary",
        intro=(f"{page['count']} claims checked against icnperf's models (published"
               f" measurements and statements, and the flit simulator's cross-checks): "
               f"{page['summary']}. Only the predicted claims are evidence: a"
               " calibrated claim had a parameter fitted to it, a regression claim pins the"
               " model's own value. A known discrepancy is a claim that misses its published"
               " tolerance for a written reason (the paper's statement does not follow from"
               " its own formulas or data, or the witness's noise) while agreeing with the"
               " value that reason derives. An open claim misses its tolerance for a reason"
               " not yet understood: it is shown with what was ruled out and what is"
               " suspected, and it is not a pass."),
        tables=[Table(["kind", "meaning", "claims", *page["statuses"]], kind_rows),
                Table(["paper", "claims", *page["kinds"], *page["statuses"]],
                      page["paper_counts"])])


PRODUCTION_COLUMNS = ["id", "kind", "preset", "unit", "measured", "--production point",
                      "point error", "range low", "range high", "inside", "width (high/low)"]


def production_section(production: dict) -> Section:
    """The production coverage (``production``: the validate document's, icnperf.validation.
    production): what it counts, the counts per claim kind with the claims not counted and
    why, and one row per counted claim (its point, range and whether the measurement is
    inside)."""
    from icnperf.reports.text.validate import production_heading, production_lines

    heading = production_heading(production)
    rows = [[c["id"], c["kind"], c["machine"], c["unit"], c["measured"], c["production"],
             c["point_error"], c["production_low"], c["production_high"],
             "yes" if c["inside"] else "no", c["width"]] for c in production["checks"]]
    return Section(
        title="Production ranges",
        intro=heading[0].upper() + heading[1:-1] + ". Each claim predicted on a preset"
              " whose machine carries [production] values (OS noise, background traffic) is"
              " re-predicted as predict --production would: the point is the median of the"
              " busy machine's distribution, the range its 5-95 % over draws of the inputs"
              " and of the noise. Not registered claims: a miss does not fail validate.",
        tables=[Table(PRODUCTION_COLUMNS, rows, "claims counted (predicted and post hoc)")]
        if rows else [],
        notes=production_lines(production))


def validation_page(page: dict, production: dict | None = None) -> str:
    """The whole validation page of ``page`` (icnperf.api.validation_pages.validation_page:
    counts, the results by paper, the simulator's claims or None when they were not run),
    with the production coverage of ``production`` (the validate document's; None: left
    out)."""
    sections = [summary_section(page), *source_sections(page["papers"]),
                simulation_section(page["simulated"])]
    if production is not None:
        sections.append(production_section(production))
    return render_document("icnperf validation", sections,
                           subtitle="Published measurements and claims vs icnperf's models")
