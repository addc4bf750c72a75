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


def calibrate_app_text(machine_name: str, overrides: tuple[str, ...], app: str, data: str,
                       fit: str | None, fmt: str, output: str | None, force: bool,
                       wide: bool = False) -> str:
    """Fit, write the fitted skeleton to ``output`` (if given; ``-`` is standard output, the
    skeleton alone), return the report (``wide``: the full layout)."""
    from icnperf.data.files import is_standard_output, printable, write_atomically
    from icnperf.data.limits import skeleton_within_limits
    from icnperf.data.machine import load_machine
    from icnperf.data.skeleton import load_skeleton, skeleton_to_toml
    from icnperf.model.budget import fit_evaluation_seconds
    from icnperf.model.apps.fit import fit_coefficients
    from icnperf.reports.page import Page
    from icnperf.reports.text.predict import layouts_for

    machine = load_machine(machine_name).with_overrides(list(overrides))
    skeleton = load_skeleton(app)
    runs = read_runs(data, skeleton)
    names = None if fit is None else [n.strip() for n in fit.split(",") if n.strip()]
    fitted = len(names) if names is not None else len(skeleton.coefficients)
    skeleton_within_limits(skeleton, machine, sorted({run.nodes for run in runs}), None, None,
                           fmt, "calibrate --app",
                           fit_evaluation_seconds(len(runs), len(skeleton.phases), fitted))

    def layout_of(nodes: int):
        return layouts_for(machine.topology, str(nodes), None)[0]

    result = fit_coefficients(skeleton, machine, runs, layout_of, names=names)
    coefficients = [{"coefficient": n, "initial": a, "value": v, "stderr": e, "ci_low": lo,
                     "ci_high": hi} for n, a, v, e, lo, hi in zip(
                         result.names, result.initial, result.values, result.stderr,
                         result.low, result.high)]
    points = [{"nodes": run.nodes, **run.parameters, "measured_s": run.time_s,
               "predicted_s": p, "relative_error": r}
              for run, p, r in zip(runs, result.predicted, result.residuals)]
    if output is not None:
        header = (f"coefficients {', '.join(result.names)} calibrated by icnperf calibrate "
                  f"on {printable(data)} ({len(runs)} runs) on machine {machine.name}; rms "
                  f"relative error {100 * result.rms_relative_error:.2f} %",
                  *(f"{row['coefficient']} = {row['value']:.6g} (95% CI "
                    f"{row['ci_low']:.6g} .. {row['ci_high']:.6g})" for row in coefficients))
        write_atomically(output, skeleton_to_toml(result.skeleton, header), force=force)
    if fmt == "json":
        return json_text({"inputs": {"machine": machine.name, "app": app, "data": data,
                                     "fit": list(result.names), "output": output},
                          "dof": result.dof, "rms_relative_error": result.rms_relative_error,
                          "coefficients": coefficients, "runs": points})
    if fmt == "csv":
        return csv_text(coefficients, [c.key for c in COEFFICIENT_COLUMNS])
    run_columns = [Column("nodes", "nodes", number(), keep=True)]
    run_columns += [Column(p, p, number(6)) for p in skeleton.parameters
                    if any(p in run.parameters for run in runs)]
    run_columns += [Column("measured_s", "measured", _time),
                    Column("predicted_s", "predicted", _time),
                    Column("relative_error", "rel. error", lambda e: f"{100 * e:+.2f} %")]
    page = Page(wide)
    page.line(f"{skeleton.name} on {machine.name}: {', '.join(result.names)} fitted to "
              f"{len(runs)} runs of {data} ({result.dof} degrees of freedom, rms relative "
              f"error {100 * result.rms_relative_error:.2f} %)", hang="  ")
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
