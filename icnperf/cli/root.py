"""The ``icnperf`` command line: parse, call the model or validation, print. Nothing else.

Heavy modules (the model, NumPy) are imported inside the commands that need them, so
``icnperf --help`` starts fast. Every ``IcnperfError`` becomes a one-line message and exit
status 2 here, and only here.
"""

from __future__ import annotations

import sys
import warnings

import click

from icnperf import __version__
from icnperf.cli import (calibrate, explain, machines, place, predict, report, simulate, size,
                         topology, validate)
from icnperf.cli.common import BadInput
from icnperf.cli.process import prepare
from icnperf.errors import IcnperfError


class IcnperfGroup(click.Group):
    """The command group: IcnperfError and Click's usage errors become one line, status 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except IcnperfError as error:
            raise BadInput(str(error)) from None

    def main(self, *args, **kwargs):
        kwargs.pop("standalone_mode", None)
        # NumPy/SciPy's overflow and invalid-value warnings would print before the one-line
        # result or error; every command refuses a result that is not finite instead
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except MemoryError:
            click.echo("icnperf: error: out of memory: the request needs more memory than"
                       " this machine allows; ask for less (fewer points, nodes or runs)",
                       err=True)
            sys.exit(2)
        except click.UsageError as error:
            from icnperf.data.files import printable

            where = error.ctx.command_path if error.ctx else "icnperf"
            click.echo(f"{where}: error: {printable(error.format_message())}", err=True)
            sys.exit(2)
        except click.ClickException as error:
            error.show()
            sys.exit(error.exit_code)
        except click.Abort:
            click.echo("icnperf: aborted", err=True)
            sys.exit(1)


@click.group(cls=IcnperfGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="icnperf")
def cli() -> None:
    """Closed-form performance models of HPC interconnects and their applications."""


for command in (topology.topology, topology.compare_topologies, size.size, machines.machines,
                machines.machine, predict.predict, place.place, calibrate.calibrate,
                validate.validate, report.report, explain.explain, explain.crossover,
                simulate.simulate):
    cli.add_command(command)


def main() -> None:
    """Console-script entry point: the process prepared for a command (cli.process),
    then the command."""
    prepare()
    cli(prog_name="icnperf")
