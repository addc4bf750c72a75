"""``icnperf calibrate``: fit machine keys to measurements."""

from __future__ import annotations

import click

from icnperf.api.options import CALIBRATION_APIS, CCL_APIS, DATA_FORMATS
from icnperf.cli.common import FORMAT_OPTION, FORCE_OPTION, WIDE_OPTION, emit


@click.command()
@click.option("--machine", "machine_name", required=True, metavar="NAME|FILE",
              help="The machine to start from (preset or TOML file).")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter before fitting (repeatable).")
@click.option("--data", required=True, metavar="FILE|TABLE",
              help="OSU or IMB output, a measurement CSV, or a bundled table name; with"
                   " --app, runs: nodes, skeleton parameters, total_s.")
@click.option("--app", default=None, metavar="FILE.toml|NAME",
              help="Fit this skeleton's [coefficients] to measured run times instead of"
                   " machine keys (--fit then names coefficients; default all).")
@click.option("--data-format", type=click.Choice(DATA_FORMATS + ("nccl-tests",)),
              default=None,
              help="Format of --data [default: detected from its content; nccl-tests (and"
                   " rccl-tests) output is named: its out-of-place times fit the keys the"
                   " --api nccl|rccl forms read, docs/nccl.md].")
@click.option("--operation", default=None,
              help="With nccl-tests data: the collective, when the output does not name it.")
@click.option("--fit", default="software.mpi_overhead,network.link_bandwidth",
              show_default=True,
              help="Comma-separated machine keys to fit; LogGP names o, g, G, L accepted."
                   " With nccl-tests data [default: the bandwidth that bounds the run].")
@click.option("--api", type=click.Choice(CALIBRATION_APIS + CCL_APIS), default="mpi",
              show_default=True,
              help="Interface of points that do not name theirs (and of o, g); with"
                   " nccl-tests data the library (mpi there means nccl).")
@click.option("--hops", type=click.FloatRange(min=0), default=None,
              help="Router hops of points that do not say [default: 1, neighbours].")
@FORMAT_OPTION
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the calibrated machine as TOML (usable with --machine); with --app,"
                   " the fitted skeleton ('-': standard output, the report then goes to"
                   " standard error).")
@FORCE_OPTION
@WIDE_OPTION
@click.pass_context
def calibrate(ctx: click.Context, machine_name: str, overrides: tuple[str, ...], data: str,
              app: str | None, data_format: str | None, operation: str | None, fit: str,
              api: str, hops: float | None, fmt: str, output: str | None, force: bool,
              wide: bool) -> None:
    """Fit machine parameters to measured latencies or bandwidths, or a skeleton's
    coefficients to measured run times (--app), by least squares."""
    from click.core import ParameterSource

    if data_format == "nccl-tests" and app is None:
        from icnperf.api import calibrate as calibrated

        if hops is not None:
            raise click.UsageError("--hops does not apply with --data-format nccl-tests")
        given_fit = ctx.get_parameter_source("fit") == ParameterSource.COMMANDLINE
        result = calibrated(machine_name, data, set=overrides, data_format=data_format,
                            fit=fit if given_fit else None, operation=operation,
                            api="rccl" if api == "rccl" else "nccl", output=output)
        if output is not None:
            result.write(output, force)
        emit(result.render(fmt, wide), None, False)
        return
    if operation is not None or api in ("nccl", "rccl"):
        raise click.UsageError("--operation and --api nccl|rccl go with --data-format "
                               "nccl-tests")
    if app is not None:
        from icnperf.data.files import is_standard_output, printable
        from icnperf.api import calibrate as calibrated

        def given(name: str) -> bool:
            return ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE

        stray = [flag for name, flag in (("data_format", "--data-format"), ("api", "--api"),
                                         ("hops", "--hops")) if given(name)]
        if stray:
            raise click.UsageError(f"{', '.join(stray)} does not apply with --app (--data is "
                                   "then a measurement CSV of runs)")
        result = calibrated(machine_name, data, set=overrides, app=app,
                            fit=fit if given("fit") else None, output=output,
                            budget_format=fmt)
        if output is not None:
            result.write(output, force)
        report = result.render(fmt, wide)
        if is_standard_output(output):  # standard output carries the fitted skeleton alone
            click.echo(printable(report, newlines=True), err=True, nl=False)
        else:
            emit(report, None, False)
        return
    from icnperf.api import calibrate as calibrated

    result = calibrated(machine_name, data, set=overrides, data_format=data_format, fit=fit,
                        api=api, hops=hops, output=output, budget_format=fmt)
    if output is not None:
        result.write(output, force)
    emit(result.render(fmt, wide), None, False)
