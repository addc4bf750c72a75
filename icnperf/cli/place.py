"""``icnperf place``: rank a job's placements by predicted time."""

from __future__ import annotations

import click

from icnperf.cli.common import (FORMAT_OPTION, OUTPUT_OPTION, FORCE_OPTION, SET_OPTION,
                                WIDE_OPTION, emit)


@click.command()
@click.option("--app", "app_name", type=click.Choice(["npb-is"]), required=True,
              help="The application whose placements to rank.")
@click.option("--class", "klass", default="C", show_default=True, help="Problem class.")
@click.option("--procs", type=click.IntRange(min=1), required=True, help="Process count.")
@click.option("--machine", "machine_name", required=True, metavar="NAME|FILE",
              help="A machine with bundled NPB IS measurements (ib-qdr-cluster, gige-cluster).")
@SET_OPTION
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def place(app_name: str, klass: str, procs: int, machine_name: str,
          overrides: tuple[str, ...], fmt: str, output: str | None, force: bool,
          wide: bool) -> None:
    """Rank the placements (nodes x processes per node) of a job by predicted time."""
    from icnperf.api import place as place_job

    result = place_job(machine_name, app=app_name, class_=klass, procs=procs, set=overrides)
    emit(result.render(fmt, wide), output, force)
