"""``icnperf calibrate``: the fit of machine parameters to benchmark output (computed by
icnperf.api.calibration) rendered as the report."""

from __future__ import annotations

from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, in_unit, json_text, number

PARAMETER_KEYS = ("parameter", "keys", "unit", "initial", "value", "stderr", "ci_low",
                  "ci_high")
PARAMETER_COLUMNS = (
    Column("parameter", "parameter"),
    Column("initial", "initial"),
    Column("value", "fitted"),
    Column("stderr", "std error"),
    Column("ci_low", "95% CI low"),
    Column("ci_high", "95% CI high"),
)
POINT_COLUMNS = (
    Column("point", "point", overflow="note", keep=True),
    Column("kind", "kind"),
    Column("bytes", "bytes", number()),
    Column("hops", "hops", number(3)),
    Column("api", "api"),
    Column("measured", "measured", number(4)),
    Column("predicted", "predicted", number(4)),
    Column("unit", "unit"),
    Column("relative_error", "rel. error", lambda e: f"{100 * e:+.2f} %"),
)


def calibrate_render(document: dict, fmt: str, wide: bool = False,
                     n_points: int | None = None, written: bool = False) -> str:
    """The ``calibrate`` report from its document (the API's fit: ``inputs``, assumptions,
    parameters, points; ``n_points`` the points fitted; ``wide``: tables and notes at full
    width; ``written``: the machine goes to the file ``inputs.output``, named under the
    report)."""
    if fmt == "json":
        return json_text(document)
    parameters = document["parameters"]
    if fmt == "csv":
        return csv_text(parameters, PARAMETER_KEYS)
    inputs = document["inputs"]
    output = inputs["output"]
    page = Page(wide)
    page.line(f"{inputs['machine']} calibrated from {inputs['data']} ({inputs['data_format']},"
              f" {n_points} points, rms relative error"
              f" {100 * document['rms_relative_error']:.2f} %)")
    page.blank()
    page.table([in_unit(r) for r in parameters], PARAMETER_COLUMNS)
    page.blank()
    page.table(document["points"], POINT_COLUMNS)
    page.blank()
    page.notes("assumptions", document["assumptions"])
    if written:
        page.blank()
        page.line(f"calibrated machine written to {output}")
    return page.text()
