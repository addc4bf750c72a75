"""``icnperf calibrate --app FILE``: fit a skeleton's [coefficients] to measured run times
(model/apps/fit.py), print the coefficients with their 95 % intervals and the runs (fitted to
100 columns by reports/page.Page), write the fitted skeleton (``-o -``: the skeleton alone on
standard output; the CLI then prints the report on standard error)."""

from __future__ import annotations

from icnperf.reports.render import Column, csv_text, json_text, number

COEFFICIENT_COLUMNS = (
    Column("coefficient", "coefficient", keep=True),
    Column("initial", "initial", number(6)),
    Column("value", "fitted", number(6)),
    Column("stderr", "std error", number(3)),
    Column("ci_low", "95% CI low", number(6)),
    Column("ci_high", "95% CI high", number(6)),
)


def _time(value: float) -> str:
    from icnperf.units import format_quantity

    return format_quantity(value, "time", 4)


def calibrate_app_render(document: dict, fmt: str, wide: bool = False,
                         skeleton_name: str = "", run_parameters=(),
                         written: bool = False) -> str:
    """The ``calibrate --app`` report from its document (the API's fit: inputs, dof, rms
    error, coefficients, runs); ``skeleton_name`` titles it, ``run_parameters`` are the
    skeleton's parameters the runs set (a column each); ``wide``: the full layout;
    ``written``: the skeleton goes to the file ``inputs.output``, named under the report."""
    from icnperf.reports.page import Page

    if fmt == "json":
        return json_text(document)
    coefficients, points = document["coefficients"], document["runs"]
    if fmt == "csv":
        return csv_text(coefficients, [c.key for c in COEFFICIENT_COLUMNS])
    inputs = document["inputs"]
    output = inputs["output"]
    run_columns = [Column("nodes", "nodes", number(), keep=True)]
    run_columns += [Column(p, p, number(6)) for p in run_parameters]
    run_columns += [Column("measured_s", "measured", _time),
                    Column("predicted_s", "predicted", _time),
                    Column("relative_error", "rel. error", lambda e: f"{100 * e:+.2f} %")]
    page = Page(wide)
    page.line(f"{skeleton_name} on {inputs['machine']}: {', '.join(inputs['fit'])} fitted to "
              f"{len(points)} runs of {inputs['data']} ({document['dof']} degrees of freedom,"
              f" rms relative error {100 * document['rms_relative_error']:.2f} %)",
              hang="  ")
    page.blank()
    page.table(coefficients, COEFFICIENT_COLUMNS)
    page.blank()
    page.table(points, run_columns)
    page.blank()
    page.notes("notes", [
        "least squares on relative residuals (predicted - measured) / measured; the network "
        "and node terms stay the machine's model, only the coefficients move",
        "95 % intervals: Student's t on the linearized covariance s^2 (J^T J)^-1"])
    if written:
        page.blank()
        page.line(f"fitted skeleton written to {output}")
    return page.text()
