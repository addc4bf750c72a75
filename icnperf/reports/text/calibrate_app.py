"""``icnperf calibrate --app FILE``: fit a skeleton's [coefficients] to measured run times
(model/apps/fit.py), print the coefficients with their 95 % intervals and the runs (fitted to
100 columns by reports/page.Page), write the fitted skeleton (``-o -``: the skeleton alone on
standard output; the CLI then prints the report on standard error)."""

from __future__ import annotations

from icnperf.errors import InputError
from icnperf.reports.render import Column, csv_text, json_text, number

TIME_COLUMNS = ("total_s", "time_s")
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


def _runs_source(data: str):
    """What ``--data`` names: a bundled measurement table when it is one's name, else a file
    by path, the name of a file in the current folder included (``runs.txt``: it has no
    path separator and does not end in .csv, yet it is that file)."""
    import os

    from icnperf.data.files import looks_like_path
    from icnperf.data.measurements.tables import list_tables

    if looks_like_path(data) or data in dict(list_tables()):
        return data
    # load_table reads a name with a path separator as a path
    return os.path.join(os.curdir, data) if os.path.isfile(data) else data


def read_runs(data: str, skeleton):
    """The runs of a measurement CSV (docs/measurement-format.md): a ``nodes`` column, a
    time column (``total_s`` or ``time_s``, seconds) and any of the skeleton's parameters;
    rows marked excluded are left out. InputError for other columns."""
    from icnperf.data.measurements.tables import load_table
    from icnperf.errors import DataError
    from icnperf.model.apps.fit import Run

    try:
        table = load_table(_runs_source(data)).included()
    except DataError as error:
        raise InputError(str(error)) from None
    columns = list(table.columns)
    time_column = next((c for c in TIME_COLUMNS if c in columns), None)
    if "nodes" not in columns or time_column is None:
        raise InputError(f"{data}: runs need a 'nodes' column and a time column "
                         f"({' or '.join(TIME_COLUMNS)}, seconds)")
    stray = [c for c in columns if c not in ("nodes", time_column, "excluded")
             and c not in skeleton.parameters]
    if stray:
        raise InputError(f"{data}: column(s) {', '.join(stray)} are not parameters of "
                         f"{skeleton.name} (its parameters: "
                         f"{', '.join(skeleton.parameters) or 'none'})")
    runs = []
    for row, line in zip(table.rows(), table.lines):
        nodes = row["nodes"]
        if not (isinstance(nodes, (int, float)) and nodes >= 1 and float(nodes).is_integer()):
            raise InputError(f"{data}, line {line}: nodes must be a whole number >= 1")
        params = {c: row[c] for c in columns if c in skeleton.parameters}
        runs.append(Run(int(nodes), params, float(row[time_column])))
    if not runs:
        raise InputError(f"{data}: no runs (every row is excluded)")
    return runs


def calibrate_app_render(document: dict, fmt: str, wide: bool = False,
                         skeleton_name: str = "", run_parameters=()) -> str:
    """The ``calibrate --app`` report from its document (the API's fit: inputs, dof, rms
    error, coefficients, runs); ``skeleton_name`` titles it, ``run_parameters`` are the
    skeleton's parameters the runs set (a column each); ``wide``: the full layout."""
    from icnperf.data.files import is_standard_output
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
    if output is not None and not is_standard_output(output):
        page.blank()
        page.line(f"fitted skeleton written to {output}")
    return page.text()
