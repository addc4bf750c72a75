"""``icnperf calibrate``: fit machine parameters to benchmark output, print the fit, write TOML."""

from __future__ import annotations

from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text, number

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
UNIT_KINDS = {"s": "time", "B/s": "bandwidth"}


def _shown(row: dict) -> dict:
    """A parameter row with its numbers printed in their unit ("452 ns", "6.01 GB/s")."""
    import math

    from icnperf.units import format_quantity

    kind = UNIT_KINDS[row["unit"]]
    return {key: (format_quantity(value, kind, 4) if math.isfinite(value) else "-")
            if isinstance(value, float) else value for key, value in row.items()}
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


def _within_limits(data: str, fmt: str) -> None:
    """Refuse, before it is parsed, a data file whose rows (its lines, an upper bound) the
    budget says are too many to fit and list (bundled tables are small)."""
    from icnperf.data.files import path_exists, printable, read_text_file
    from icnperf.data.limits import within_limits
    from icnperf.model.budget import fit_estimate

    if not path_exists(data):
        return
    lines = read_text_file(data, "benchmark file").count("\n") + 1
    within_limits(fit_estimate(lines, printable(data)))


def calibrate_text(machine_name: str, overrides: tuple[str, ...], data: str,
                   data_format: str | None, fit: str, api: str, hops: float | None,
                   fmt: str, output: str | None, force: bool, wide: bool = False) -> str:
    """Fit, write the calibrated machine to ``output`` (if given), return the report
    (``wide``: tables and notes at full width)."""
    from icnperf.data.measurements.bench import load_bench
    from icnperf.data.calibrated import calibrate_machine, parameter_rows, point_rows
    from icnperf.data.files import is_standard_output
    from icnperf.data.machine import load_machine, write_machine

    machine = load_machine(machine_name).with_overrides(list(overrides))
    _within_limits(data, fmt)
    points = load_bench(data, data_format)
    result, calibrated = calibrate_machine(machine, points, fit, api, hops=hops)
    if output is not None:
        write_machine(calibrated, output, overwrite=force)
    parameters, fitted_points = parameter_rows(result), point_rows(result)
    if fmt == "json":
        return json_text({"inputs": {"machine": machine.name, "set": list(overrides),
                                     "data": data, "data_format": points.format, "fit": fit,
                                     "api": api, "hops": hops, "output": output},
                          "assumptions": list(result.assumptions),
                          "rms_relative_error": result.rms_relative_error,
                          "parameters": parameters, "points": fitted_points})
    if fmt == "csv":
        return csv_text(parameters, PARAMETER_KEYS)
    page = Page(wide)
    page.line(f"{machine.name} calibrated from {data} ({points.format}, {result.n_points}"
              f" points, rms relative error {100 * result.rms_relative_error:.2f} %)")
    page.blank()
    page.table([_shown(r) for r in parameters], PARAMETER_COLUMNS)
    page.blank()
    page.table(fitted_points, POINT_COLUMNS)
    page.blank()
    page.notes("assumptions", result.assumptions)
    if output and not is_standard_output(output):
        page.blank()
        page.line(f"calibrated machine written to {output}")
    return page.text()
