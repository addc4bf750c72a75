"""``icnperf size``: a procurement sizing study as a table, CSV or JSON, from the document
and the plain view the API hands over (api/sizing.py runs the study, api/study_rows.py
builds its rows, sentences and notes; the HTML page is size_html.py). The default table
fits 100 columns: flags and assumptions are numbered notes under it, and a table too wide
(a rail design's long spec) is split into panels that repeat the rank and design; ``wide``
gives every column with the notes inline.
"""

from __future__ import annotations

import textwrap

from icnperf.reports.page import fit_table
from icnperf.reports.render import Column, aligned_table, csv_text, json_text, number

WIDTH = 100
"""Columns the default text fits in."""


def seconds_text(value) -> str:
    """A time in seconds as text with its unit, 3 significant digits."""
    from icnperf.units import format_quantity

    return format_quantity(value, "time", 3)


def money_text(value) -> str:
    """A cost in the cost model's unit, whole, with thousands separators."""
    return f"{value:,.0f}"


def _wrapped(number_: int, text: str) -> str:
    head = f"[{number_}] "
    return textwrap.fill(text, WIDTH, initial_indent=head,
                         subsequent_indent=" " * len(head), break_on_hyphens=False)


def _fitted(rows: list[dict], columns) -> str:
    """A table within WIDTH columns: at its natural width where it fits, else split into
    panels that each repeat the rank and design (reports.page.fit_table; a rail design's
    spec is up to 37 characters)."""
    lines, _, _ = fit_table(rows, columns, WIDTH)
    return "\n".join(lines)


def _narrow_text(view: dict) -> str:
    """The default layout: every line within WIDTH columns, notes numbered under tables."""
    flags: list[str] = []
    rows = [dict(row) for row in view["rows"]]
    for row, row_flags in zip(rows, view["flags"]):
        refs = []
        for flag in row_flags:
            if flag not in flags:
                flags.append(flag)
            refs.append(flags.index(flag))
        row["refs"] = " ".join("abcdefgh"[k] for k in sorted(refs))
    columns = (Column("rank_time", "rank", keep=True),
               Column("pareto", "*", lambda v: "*" if v else "", keep=True),
               Column("design", "design", keep=True), Column("endpoints", "endpoints", number()),
               Column("routers", "routers", number()), Column("radix", "radix", number()),
               Column("cost", "cost", money_text), Column("workload_s", "workload", seconds_text),
               Column("proxy_s", "proxy", seconds_text), Column("refs", "notes"))
    header = textwrap.fill(
        f"Sizing study: {view['endpoints']:,} endpoints, routers of at most"
        f" {view['radix_max']} ports; cost in {view['unit']}; evaluated designs ranked by"
        " workload time (* = Pareto front; proxy: the screen's lower bound; --wide for every"
        " column)", WIDTH)
    flag_notes = "\n".join(f"({'abcdefgh'[i]}) {f}" for i, f in enumerate(flags))
    summary = "\n".join(textwrap.fill(line, WIDTH) for line in view["summary"])
    term_columns = [Column("design", "design", keep=True)] + [
        Column(f"t{i + 1}", f"t{i + 1}", seconds_text) for i in range(len(view["term_names"]))]
    terms = [{"design": row["design"], **{f"t{i + 1}": seconds
                                          for i, seconds in enumerate(term_seconds)}}
             for row, term_seconds, shown in zip(view["rows"], view["term_seconds"],
                                                 view["shown"]) if shown]
    legend = "\n".join(textwrap.fill(f"t{i + 1} = {name}", WIDTH, subsequent_indent="  ")
                       for i, name in enumerate(view["term_names"]))
    notes = view["assumptions"] + view["notes"]
    numbered = "\n".join(_wrapped(i + 1, line) for i, line in enumerate(notes))
    return (f"{header}\n\n{_fitted(rows, columns)}\n"
            + (f"\n{flag_notes}\n" if flags else "") + f"\n{summary}\n\n"
            + textwrap.fill("Workload terms of the Pareto-front and NUDT-rule designs (weight x"
                            " time per run; --wide: every design):", WIDTH)
            + f"\n{_fitted(terms, term_columns)}\n{legend}\n\n"
            f"Assumptions and notes:\n{numbered}\n")


def _wide_text(view: dict) -> str:
    """The full layout: every column, flags inline, notes unwrapped."""
    columns = (
        Column("rank_time", "rank"), Column("rank_cost_time", "rank c*t"),
        Column("pareto", "front", lambda v: "*" if v else ""), Column("design", "design"),
        Column("endpoints", "endpoints", number()), Column("routers", "routers", number()),
        Column("radix", "radix", number()),
        Column("electrical_links", "elec. links", number()),
        Column("optical_links", "opt. links", number()), Column("cost", "cost", money_text),
        Column("workload_s", "workload", seconds_text), Column("proxy_s", "proxy", seconds_text),
        Column("evaluated_because", "evaluated because"), Column("notes", "notes"))
    header = (f"Sizing study: {view['endpoints']:,} endpoints, routers of at most"
              f" {view['radix_max']} ports; cost in {view['unit']}; ranked by workload time"
              " (rank c*t: by cost x time; * = Pareto front; proxy: the screen's lower bound)")
    terms = [{"design": row["design"], **dict(zip(view["term_names"], term_seconds))}
             for row, term_seconds in zip(view["rows"], view["term_seconds"])]
    term_columns = [Column("design", "design")] + [
        Column(name, name, seconds_text) for name in view["term_names"]]
    notes = "\n".join(f"  - {line}" for line in view["assumptions"] + view["notes"])
    summary = "\n".join(view["summary"])
    return (f"{header}\n\n{aligned_table(view['rows'], columns)}\n\n{summary}\n\n"
            f"workload terms (weight x time per run):\n{aligned_table(terms, term_columns)}\n\n"
            f"assumptions:\n{notes}\n")


def study_render(document: dict, view: dict | None, fmt: str, wide: bool = False) -> str:
    """The study rendered: its document as JSON, the designs as CSV, or the tables (from
    ``view``, api.study_rows.study_view's plain values, which the API hands over beside
    the document; None for JSON, which needs only the document)."""
    if fmt == "json":
        return json_text(document)
    if fmt == "csv":
        rows = view["rows"]
        return csv_text(rows, list(rows[0]))
    if wide:
        return _wide_text(view)
    return _narrow_text(view)
