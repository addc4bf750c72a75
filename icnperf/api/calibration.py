"""``icnperf.calibrate``: machine parameters fitted to benchmark output, or a skeleton's
coefficients fitted to measured run times (``icnperf calibrate``). Nothing is written:
the result holds the calibrated machine (or the fitted skeleton's TOML), and its
``write`` puts it in a file when the caller asks."""

from __future__ import annotations

from typing import Any

from icnperf.api import options, values
from icnperf.api.guard import quiet
from icnperf.api.results import Result
from icnperf.errors import InputError

DEFAULT_FIT = "software.mpi_overhead,network.link_bandwidth"
"""The machine keys fitted unless ``fit`` names others (``calibrate --fit``'s default)."""



def _within_limits(data: str) -> None:
    """Refuse, before it is parsed, a data file whose rows (its lines, an upper bound) the
    budget says are too many to fit and list (bundled tables are small)."""
    from icnperf.data.files import path_exists, printable, read_text_file
    from icnperf.data.limits import within_limits
    from icnperf.model.budget import fit_estimate

    if not path_exists(data):
        return
    lines = read_text_file(data, "benchmark file").count("\n") + 1
    within_limits(fit_estimate(lines, printable(data)))


def _written(output: str | None) -> bool:
    """Whether the report names ``output`` as the file written: a path, not standard
    output (``-``) and not empty."""
    from icnperf.data.files import is_standard_output

    return bool(output) and not is_standard_output(output)


class CalibrationResult(Result):
    """``calibrate``: the fitted parameters (``rows``) with their intervals, every point's
    measured and predicted value (``points``), and the calibrated machine (``machine``,
    what the other functions take; ``write(path)`` saves it as TOML)."""

    command = "calibrate"
    rows_key = "parameters"

    def __init__(self, document: dict, machine, n_points: int) -> None:
        super().__init__(document)
        self.machine = machine
        self._n_points = n_points

    @property
    def points(self) -> list[dict]:
        return self.to_dict()["points"]

    def write(self, path: str, force: bool = False) -> None:
        """The calibrated machine written to ``path`` as TOML (atomically; an existing file
        only with ``force``)."""
        from icnperf.data.machine import write_machine

        write_machine(self.machine, path, overwrite=force)

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.calibrate import calibrate_render

        return calibrate_render(self._document, fmt, wide, self._n_points,
                                _written(self._document["inputs"]["output"]))

    def figure(self):
        from icnperf.reports.result_figures import calibration_figure

        return calibration_figure(self._document)


class AppCalibrationResult(Result):
    """``calibrate --app``: the fitted coefficients (``rows``) with their intervals, each
    run measured and predicted (``runs``), and the fitted skeleton as TOML
    (``skeleton_toml``; ``write(path)`` saves it)."""

    command = "calibrate --app"
    rows_key = "coefficients"

    def __init__(self, document: dict, skeleton_toml: str, skeleton_name: str,
                 run_parameters) -> None:
        super().__init__(document)
        self.skeleton_toml = skeleton_toml
        self._context = (skeleton_name, tuple(run_parameters))

    def write(self, path: str, force: bool = False) -> None:
        """The fitted skeleton written to ``path`` (atomically; ``-`` is standard output)."""
        from icnperf.data.files import write_atomically

        write_atomically(path, self.skeleton_toml, force=force)

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.calibrate_app import calibrate_app_render

        from icnperf.data.files import is_standard_output

        output = self._document["inputs"]["output"]
        return calibrate_app_render(self._document, fmt, wide, *self._context,
                                    output is not None and not is_standard_output(output))

    def figure(self):
        from icnperf.reports.result_figures import app_calibration_figure

        return app_calibration_figure(self._document)


@quiet
def calibrate(machine: Any, data: str, *, set: Any = None, app: str | None = None,
              data_format: str | None = None, fit: Any = None, api: str = "mpi",
              hops: Any = None, output: str | None = None, operation: str | None = None,
              budget_format: str = "json"):
    """What ``icnperf calibrate`` fits. ``data``: OSU or IMB output as printed, or a
    measurement CSV (a path or a bundled table's name). ``fit``: the machine keys (or
    LogGP aliases) to fit, ``"o,G"`` or a list [default: software.mpi_overhead and
    network.link_bandwidth]; ``api``: mpi or shmem; ``hops``: the hops the benchmark's
    messages took [default: the topology's average]; ``data_format``: osu, imb or csv
    [default: detected]. With ``app`` (a skeleton), the skeleton's coefficients are fitted
    to the run times in ``data`` instead (``fit`` names coefficients). ``output``: the file
    the caller writes the result to (``result.write(output)``), recorded in ``inputs`` and
    named in the table; nothing is written here. With ``data_format="nccl-tests"`` the
    keys the NCCL/RCCL closed forms read are fitted to a run of nccl-tests or rccl-tests as
    printed (``api`` nccl or rccl, default nccl; ``operation`` the collective when the run
    does not name it; ``fit`` default: the bandwidth that bounds the run)."""
    fit_text = values.sequence_of_text(fit, "--fit")
    if data_format == "nccl-tests" and app is None:
        if hops is not None:
            raise InputError("--hops does not apply with --data-format nccl-tests")
        library = options.choice("nccl" if api == "mpi" else api, options.CCL_APIS, "--api")
        return _calibrate_nccl(machine, set, data, operation, fit_text, library, output)
    if operation is not None or api in options.CCL_APIS:
        raise InputError("--operation and --api nccl|rccl go with --data-format nccl-tests")
    machine, overrides = values.machine(machine, set)
    if app is not None:
        return _calibrate_app(machine, app, data, fit_text, output, budget_format)
    from icnperf.data.calibrated import calibrate_machine, parameter_rows, point_rows
    from icnperf.data.measurements.bench import load_bench

    data_format = options.optional_choice(data_format, options.DATA_FORMATS, "--data-format")
    api = options.choice(api, options.CALIBRATION_APIS, "--api")
    hops = options.optional_real(hops, "--hops", low=0)
    fit_text = DEFAULT_FIT if fit_text is None else fit_text
    _within_limits(data)
    points = load_bench(data, data_format)
    result, calibrated = calibrate_machine(machine, points, fit_text, api, hops=hops)
    document = {"inputs": {"machine": machine.name, "set": overrides, "data": data,
                           "data_format": points.format, "fit": fit_text, "api": api,
                           "hops": hops, "output": output},
                "assumptions": list(result.assumptions),
                "rms_relative_error": result.rms_relative_error,
                "parameters": parameter_rows(result), "points": point_rows(result)}
    return CalibrationResult(document, calibrated, result.n_points)


class NcclCalibrationResult(CalibrationResult):
    """``calibrate --data-format nccl-tests``: the fitted keys (``rows``: the document's
    ``parameters``, SI), each run row's error before and after (``points``: its
    ``rows``), the calibrated machine (``machine``; ``write(path)``)."""

    def __init__(self, document: dict, machine, data_name: str) -> None:
        Result.__init__(self, document)
        self.machine = machine
        self._data_name = data_name

    @property
    def points(self) -> list[dict]:
        return self.to_dict()["rows"]

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.calibrate_nccl import calibrate_nccl_render

        return calibrate_nccl_render(self._document, fmt, wide, self._data_name,
                                     _written(self._document["inputs"]["output"]))

    def figure(self):
        raise TypeError(f"{self.command} results of nccl-tests data have no figure; plot"
                        " .points yourself")


def _calibrate_nccl(machine, overrides, data: str, operation: str | None, fit: str | None,
                    library: str, output: str | None) -> NcclCalibrationResult:
    """The fit of ``calibrate --data-format nccl-tests`` (model/calibrate/ccl_fit.py) on the
    run's out-of-place times."""
    from icnperf.data.files import printable, read_text_file
    from icnperf.data.measurements.nccl_tests import parse_nccl_tests
    from icnperf.model.calibrate.ccl_fit import fit_ccl
    from icnperf.model.collectives.nccl import operation_name

    machine, overrides = values.machine(machine, overrides)
    run = parse_nccl_tests(read_text_file(data, "nccl-tests output"), printable(data))
    if len(run.rows) > 4096:
        raise InputError(f"{printable(data)}: {len(run.rows)} rows; give at most 4096")
    if run.operation is None and operation is None:
        raise InputError(f"{printable(data)} does not name its collective (no 'Collective "
                         "test starting' line): give --operation")
    chosen = operation_name(operation) if operation else run.operation
    if run.operation is not None and chosen != run.operation:
        raise InputError(f"--operation {chosen}: {printable(data)} is a {run.operation} run")
    keys = None if not fit else tuple(k.strip() for k in fit.split(",") if k.strip())
    gpn = run.ranks // run.nodes
    result = fit_ccl(machine, library, chosen, run.nodes, gpn,
                     [r.size for r in run.rows], [r.time_s for r in run.rows], keys)
    source = (f"calibrated: fitted to {printable(data)} ({library} {chosen}, {run.ranks} "
              f"GPUs on {run.nodes} node(s), out-of-place times of "
              f"{int(result.fitted.sum())} rows of at least 1 MiB; icnperf's cost of the "
              "library's pick)")
    rows = [{"bytes": r.size, "measured_s": r.time_s,
             "before_error": float(result.errors_before[i]),
             "after_error": float(result.errors_after[i]), "fitted": bool(result.fitted[i]),
             "pick": result.picks[i]} for i, r in enumerate(run.rows)]
    notes = [f"{run.ranks} ranks on {run.nodes} node(s) from the run's '# Rank' lines; "
             "the out-of-place time of each row (nccl-tests' first time column)",
             "model: icnperf's time of the algorithm the library picks (--algorithm auto); "
             "errors are model / measured - 1",
             "fitted: rows of at least 1 MiB, where the bandwidth term dominates; the "
             "library's stated latencies are not fitted"]
    document = {"inputs": {"machine": machine.name, "set": overrides, "data": data,
                           "operation": chosen, "api": library,
                           "fit": list(result.values), "output": output},
                "rms_relative_error": result.rms,
                "parameters": [{"parameter": key, "unit": _si_unit(key),
                                "initial": result.initial[key], "value": value}
                               for key, value in result.values.items()],
                "rows": rows, "assumptions": notes}
    return NcclCalibrationResult(document, machine.with_values(result.values, source),
                                 printable(data))


def _si_unit(path: str) -> str:
    """The SI unit of machine key ``path``'s values, from its kind in the machine schema
    ("s" for a latency, "B/s" for a bandwidth)."""
    from icnperf.data.machine.schema import key_for_path
    from icnperf.units import SI_UNITS

    return SI_UNITS[key_for_path(path, "calibrate").kind]


def _calibrate_app(machine, app: str, data: str, fit: str | None, output: str | None,
                   budget_format: str) -> AppCalibrationResult:
    from icnperf.data.files import printable
    from icnperf.data.limits import skeleton_within_limits
    from icnperf.data.skeleton import load_skeleton, skeleton_to_toml
    from icnperf.model.apps.fit import fit_coefficients
    from icnperf.model.budget import fit_evaluation_seconds
    from icnperf.api.layouts import layouts_for

    skeleton = load_skeleton(app)
    runs = read_runs(data, skeleton)
    names = None if fit is None else [n.strip() for n in fit.split(",") if n.strip()]
    fitted = len(names) if names is not None else len(skeleton.coefficients)
    skeleton_within_limits(skeleton, machine, sorted({run.nodes for run in runs}), None, None,
                           budget_format, "calibrate --app",
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
    header = (f"coefficients {', '.join(result.names)} calibrated by icnperf calibrate "
              f"on {printable(data)} ({len(runs)} runs) on machine {machine.name}; rms "
              f"relative error {100 * result.rms_relative_error:.2f} %",
              *(f"{row['coefficient']} = {row['value']:.6g} (95% CI "
                f"{row['ci_low']:.6g} .. {row['ci_high']:.6g})" for row in coefficients))
    document = {"inputs": {"machine": machine.name, "app": app, "data": data,
                           "fit": list(result.names), "output": output},
                "dof": result.dof, "rms_relative_error": result.rms_relative_error,
                "coefficients": coefficients, "runs": points}
    run_parameters = [p for p in skeleton.parameters
                      if any(p in run.parameters for run in runs)]
    return AppCalibrationResult(document, skeleton_to_toml(result.skeleton, header),
                                skeleton.name, run_parameters)


TIME_COLUMNS = ("total_s", "time_s")


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
