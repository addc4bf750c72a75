"""``icnperf calibrate --data-format nccl-tests``: fit the keys the NCCL/RCCL closed forms
read to a run of nccl-tests or rccl-tests as printed (its out-of-place times), print the fit
and each row, write the calibrated machine."""

from __future__ import annotations

from icnperf.errors import InputError
from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text


def _quantity(kind: str, digits: int = 4):
    from icnperf.units import format_quantity

    return lambda value: format_quantity(value, kind, digits)


ROW_COLUMNS = (
    Column("bytes", "size", _quantity("size", 3)),
    Column("measured_s", "measured", _quantity("time", 4)),
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


def calibrate_nccl_text(machine_name: str, overrides: tuple[str, ...], data: str,
                        operation: str | None, fit: str | None, library: str, fmt: str,
                        output: str | None, force: bool, wide: bool = False) -> str:
    """Fit, write the calibrated machine to ``output`` (if given), return the report."""
    from icnperf.data.files import is_standard_output, printable, read_text_file
    from icnperf.data.machine import load_machine, write_machine
    from icnperf.data.measurements.nccl_tests import parse_nccl_tests
    from icnperf.model.calibrate.ccl_fit import fit_ccl
    from icnperf.model.collectives.nccl import operation_name
    from icnperf.units import format_quantity

    machine = load_machine(machine_name).with_overrides(list(overrides))
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
    if output is not None:
        write_machine(machine.with_values(result.values, source), output, overwrite=force)
    kind = {True: "time", False: "bandwidth"}
    parameters = [{"parameter": key,
                   "initial": format_quantity(result.initial[key],
                                              kind[key.endswith("latency")], 4),
                   "value": format_quantity(value, kind[key.endswith("latency")], 4),
                   "initial_si": result.initial[key], "value_si": value}
                  for key, value in result.values.items()]
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
    if fmt == "json":
        return json_text({"inputs": {"machine": machine.name, "set": list(overrides),
                                     "data": data, "operation": chosen, "api": library,
                                     "fit": list(result.values), "output": output},
                          "rms_relative_error": result.rms,
                          "parameters": [{"parameter": p["parameter"],
                                          "initial": p["initial_si"], "value": p["value_si"]}
                                         for p in parameters],
                          "rows": rows, "assumptions": notes})
    if fmt == "csv":
        return csv_text(rows, [*rows[0]])
    page = Page(wide)
    page.line(f"{machine.name} calibrated from {printable(data)} (nccl-tests, {library} "
              f"{chosen}, {len(run.rows)} rows, rms relative error of the fitted rows "
              f"{100 * result.rms:.2f} %)")
    page.blank()
    page.table(parameters, PARAMETER_COLUMNS)
    page.blank()
    page.table(rows, ROW_COLUMNS)
    page.blank()
    page.notes("assumptions", notes)
    if output and not is_standard_output(output):
        page.blank()
        page.line(f"calibrated machine written to {output}")
    return page.text()
