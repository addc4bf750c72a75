"""``icnperf calibrate --data-format nccl-tests``: the fit of the keys the NCCL/RCCL closed
forms read to a run of nccl-tests or rccl-tests (icnperf.api.calibration) and each row,
rendered."""

from __future__ import annotations

from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, in_unit, json_text, quantity


ROW_COLUMNS = (
    Column("bytes", "size", quantity("size", 3)),
    Column("measured_s", "measured", quantity("time", 4)),
    Column("before_error", "before", lambda e: f"{100 * e:+.1f} %"),
    Column("after_error", "after", lambda e: f"{100 * e:+.1f} %"),
    Column("fitted", "fitted", lambda f: "yes" if f else "no"),
    Column("pick", "pick (after)"),
)
PARAMETER_COLUMNS = (
    Column("parameter", "parameter"),
    Column("initial", "initial"),
    Column("value", "fitted"),
)


def calibrate_nccl_render(document: dict, fmt: str, wide: bool = False,
                          data_name: str = "", written: bool = False) -> str:
    """``calibrate --data-format nccl-tests`` rendered from its document (``inputs``,
    ``rms_relative_error``, ``parameters`` in SI with their ``unit``, ``rows``,
    ``assumptions``; the API builds it): the fit and each row. ``data_name``: the data as
    the page names it; ``written``: the machine goes to the file ``inputs.output``, named
    under the report."""
    if fmt == "json":
        return json_text(document)
    rows = document["rows"]
    if fmt == "csv":
        return csv_text(rows, [*rows[0]])
    inputs = document["inputs"]
    output = inputs["output"]
    page = Page(wide)
    page.line(f"{inputs['machine']} calibrated from {data_name} (nccl-tests, "
              f"{inputs['api']} {inputs['operation']}, {len(rows)} rows, rms relative error"
              f" of the fitted rows {100 * document['rms_relative_error']:.2f} %)")
    page.blank()
    page.table([in_unit(p) for p in document["parameters"]], PARAMETER_COLUMNS)
    page.blank()
    page.table(rows, ROW_COLUMNS)
    page.blank()
    page.notes("assumptions", document["assumptions"])
    if written:
        page.blank()
        page.line(f"calibrated machine written to {output}")
    return page.text()
