"""Shared figure styling: a small layout template, log axes when data spans decades,
escaped labels, and crossover points between curves.

Plotly renders a subset of HTML in titles, legends and hover text, so every label built from
user text (machine names, claim ids) goes through :func:`label` first.
"""

from __future__ import annotations

import html
import math
from typing import Iterable, Sequence

import plotly.graph_objects as go

DECADES_FOR_LOG = 1.5
"""Use a log axis when max / min of the positive data exceeds 10**1.5 (about 32x)."""

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")

_TEMPLATE = go.layout.Template(layout={
    "font": {"family": "system-ui, sans-serif", "size": 13, "color": "#1d2430"},
    "colorway": list(COLOURS),
    "paper_bgcolor": "white",
    "plot_bgcolor": "white",
    "xaxis": {"showgrid": True, "gridcolor": "#e3e7ed", "linecolor": "#8a94a3",
              "zeroline": False, "ticks": "outside"},
    "yaxis": {"showgrid": True, "gridcolor": "#e3e7ed", "linecolor": "#8a94a3",
              "zeroline": False, "ticks": "outside"},
    "legend": {"bgcolor": "rgba(255,255,255,0.8)"},
    "margin": {"l": 70, "r": 30, "t": 60, "b": 60},
    "hovermode": "closest",
})


def label(text: object) -> str:
    """User text made safe for Plotly's pseudo-HTML labels."""
    from icnperf.data.files import printable

    return html.escape(printable(text), quote=False)


def spans_decades(values: Iterable[float], decades: float = DECADES_FOR_LOG) -> bool:
    """Whether the positive finite values span more than ``decades`` powers of ten."""
    positive = [float(v) for v in values
                if v is not None and math.isfinite(float(v)) and float(v) > 0]
    if len(positive) < 2:
        return False
    return math.log10(max(positive) / min(positive)) > decades


def figure(title: str, x_title: str, y_title: str, *, x_values: Sequence[float] = (),
           y_values: Sequence[float] = (), x_log: bool | None = None,
           y_log: bool | None = None, x_type: str | None = None) -> go.Figure:
    """An empty figure with title and axis titles (units in the titles); an axis is
    logarithmic when asked or, by default, when its values span decades. ``x_type``
    ("category", "multicategory") makes the x axis categorical instead."""
    fig = go.Figure(layout={"template": _TEMPLATE, "title": {"text": label(title)}})
    x_log = spans_decades(x_values) if x_log is None else x_log
    y_log = spans_decades(y_values) if y_log is None else y_log
    fig.update_xaxes(title_text=label(x_title),
                     type=x_type or ("log" if x_log else "linear"))
    fig.update_yaxes(title_text=label(y_title), type="log" if y_log else "linear")
    return fig


def crossings(x: Sequence[float], a: Sequence[float], b: Sequence[float]):
    """Where curve a crosses curve b (their order flips): (x, y) pairs. Between neighbouring
    samples the point is interpolated linearly in log x and log y (both curves positive);
    when the curves are equal at samples in between, it is the last equal sample. Curves
    that only touch, or start equal and part, do not cross."""
    gaps = [math.log(p) - math.log(q) for p, q in zip(a, b)]
    signed = [i for i, gap in enumerate(gaps) if gap != 0]
    out = []
    for i, j in zip(signed, signed[1:]):
        if gaps[i] * gaps[j] > 0:
            continue
        if j > i + 1:
            out.append((x[j - 1], a[j - 1]))
            continue
        t = gaps[i] / (gaps[i] - gaps[j])
        lx = math.log(x[i]) + t * (math.log(x[j]) - math.log(x[i]))
        ly = math.log(a[i]) + t * (math.log(a[j]) - math.log(a[i]))
        out.append((math.exp(lx), math.exp(ly)))
    return out


def error_bars(values: Sequence[float], spans: Sequence[tuple[float, float]],
               scale: float = 1.0) -> dict:
    """Plotly's ``error_y`` of a trace drawn at ``values`` x ``scale`` whose (low, high)
    ends are ``spans`` (same units as ``values``): asymmetric bars reaching low x scale and
    high x scale."""
    return {"type": "data", "symmetric": False, "thickness": 1, "width": 3,
            "array": [float(high) * scale - float(v) * scale
                      for v, (_, high) in zip(values, spans)],
            "arrayminus": [float(v) * scale - float(low) * scale
                           for v, (low, _) in zip(values, spans)]}
