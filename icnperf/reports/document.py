"""One self-contained HTML page from titled sections (Jinja2, autoescaped; plotly.js inline).

The page loads nothing from the network: plotly.js is embedded once, figures are Plotly divs
with inline scripts, formulas are MathML (rendered natively by browsers), and there are no
external fonts, stylesheets or links. User text (titles, intros, table cells, notes) is
escaped; only MathML snippets and Plotly's own figure markup are inserted as-is.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

from markupsafe import Markup

from icnperf import __version__

SVG_TRACE_TYPES = frozenset({"scatter", "bar"})
"""Trace types allowed in a figure: both render as SVG (no WebGL context is needed)."""

FIGURE_CONFIG = {"displaylogo": False, "showSendToCloud": False,
                 "responsive": True}
FIGURE_HEIGHT = "460px"
STATUS_WORDS = frozenset({"pass", "known-discrepancy", "open", "fail"})


@dataclass
class Table:
    """A table: header cells (units in the header text), rows of values and a caption."""

    columns: list[str]
    rows: list[list]
    caption: str = ""


@dataclass
class Section:
    """A titled part of a page: intro text, figures, tables, MathML formulas and notes."""

    title: str
    intro: str = ""
    figures: list = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    math: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def render_document(title: str, sections: list[Section], subtitle: str = "") -> str:
    """One self-contained HTML page (plotly.js embedded once, nothing fetched)."""
    figure_count = 0
    prepared = []
    for index, section in enumerate(sections):
        figures = []
        for figure in section.figures:
            figure_count += 1
            figures.append(_figure_html(figure, f"figure-{figure_count}"))
        prepared.append({
            "anchor": f"section-{index + 1}",
            "title": section.title,
            "paragraphs": _paragraphs(section.intro),
            "figures": figures,
            "tables": [_table_context(t) for t in section.tables],
            "math": [Markup(_math_element(m)) for m in section.math],
            "notes": section.notes,
        })
    template = _environment().get_template("document.html.j2")
    return template.render(
        title=title, subtitle=subtitle, sections=prepared, version=__version__,
        figure_count=figure_count,
        plotlyjs=Markup(_plotlyjs()) if figure_count else "")


@lru_cache(maxsize=1)
def _environment():
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(loader=PackageLoader("icnperf.reports", "templates"),
                       autoescape=True, undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True, finalize=_visible)


def _visible(value):
    """Every text a template prints, its control and bidirectional characters as visible
    escapes (autoescape then turns ``&<>"'`` into entities); markup icnperf built itself
    (MathML, Plotly's figures) as it is."""
    from icnperf.data.files import printable

    if isinstance(value, str) and not isinstance(value, Markup):
        return printable(value)
    return value


@lru_cache(maxsize=1)
def _plotlyjs() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def _figure_html(figure, div_id: str) -> Markup:
    """A Plotly figure as a div plus inline script; refuses trace types that need WebGL."""
    kinds = {trace.type for trace in figure.data}
    if not kinds <= SVG_TRACE_TYPES:
        raise ValueError(f"figure uses trace types {sorted(kinds - SVG_TRACE_TYPES)};"
                         f" only {sorted(SVG_TRACE_TYPES)} render as SVG")
    html = figure.to_html(full_html=False, include_plotlyjs=False, include_mathjax=False,
                          div_id=div_id, config=FIGURE_CONFIG, default_height=FIGURE_HEIGHT,
                          default_width="100%", validate=False)
    # labels are escaped already (figures.label); a bidirectional character in any other
    # string of the figure's JSON is written as a JavaScript escape
    return Markup(_INVISIBLE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", html))


_INVISIBLE_RE = re.compile("[\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069]")


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in text.split("\n\n") if p.strip()]


def _math_element(snippet: str) -> str:
    """A MathML snippet as a block ``<math>`` element (wrapped unless it already is one)."""
    text = snippet.strip()
    if text.startswith("<math"):
        return text
    return f'<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">{text}</math>'


def _table_context(table: Table) -> dict:
    rows = [[_cell(value) for value in row] for row in table.rows]
    return {"columns": table.columns, "rows": rows, "caption": table.caption}


def _cell(value) -> dict:
    """A table cell: its text, whether it is numeric (right-aligned) and a status class."""
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, bool) or value is None:
        return {"text": "-" if value is None else str(value).lower(), "numeric": False,
                "status": ""}
    if isinstance(value, int):
        return {"text": f"{value:,}", "numeric": True, "status": ""}
    if isinstance(value, float):
        return {"text": _format_float(value), "numeric": True, "status": ""}
    text = str(value)
    return {"text": text, "numeric": False,
            "status": text if text in STATUS_WORDS else ""}


def span_text(low: float | None, high: float | None) -> str:
    """A range as one table cell, "low–high", each end as a number cell shows it ("-" when
    an end is missing)."""
    if low is None or high is None:
        return "-"
    return f"{_format_float(float(low))}–{_format_float(float(high))}"


def _format_float(value: float) -> str:
    """Four significant digits; whole numbers with thousands separators; '-' for NaN."""
    if not math.isfinite(value):
        return "-" if math.isnan(value) else ("∞" if value > 0 else "-∞")
    if value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if 1e4 <= abs(value) < 1e15:
        return f"{value:,.0f}"
    return f"{value:.4g}"
