"""``icnperf validate``: the registered claims against the model."""

from __future__ import annotations

import sys

import click

from icnperf.cli.common import FORMAT_OPTION, OUTPUT_OPTION, FORCE_OPTION, emit, no_format_for_html


@click.command()
@click.option("--simulation", is_flag=True,
              help="Also run the flit simulator's cross-checks (about a minute; left out by "
                   "default).")
@click.option("--skip-simulation", is_flag=True,
              help="Leave the simulator's cross-checks out (the default; kept for scripts).")
@click.option("--only", "only", metavar="PATTERN", default=None,
              help="Only the claims whose id matches PATTERN: a glob when it has * ? or [, "
                   "else a substring.")
@click.option("--wide", is_flag=True,
              help="One line per claim with every field (wider than 100 columns).")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def validate(simulation: bool, skip_simulation: bool, only: str | None, wide: bool, fmt: str,
             output: str | None, force: bool) -> None:
    """Check the registered published claims; exit 1 if any check fails.

    By default the closed-form and application claims run (a few seconds); --simulation
    adds the flit simulator's cross-checks. The table shows predicted, post-hoc, calibrated
    and regression claims apart, with the reasons of known discrepancies as notes under it,
    then how many real-machine measurements fall inside their predicted 5-95 % range
    (200 seeded draws of the inputs) and the ranges' median width, and the same on the busy
    machine for the claims on presets with [production] values (--uncertainty --production
    ranges, --production points within 30 %).
    With -o FILE.html the results are an HTML page (plots, error tables)."""
    from icnperf.api import validate as validated
    from icnperf.data.files import is_html_path

    if simulation and skip_simulation:
        raise click.UsageError("--simulation and --skip-simulation contradict each other")
    if is_html_path(output):
        from icnperf.data.files import check_target, write_atomically

        no_format_for_html(fmt, output)
        check_target(output, force)
        result = validated(only=only, simulation=simulation, progress=None, ranges=False)
        write_atomically(output, result.html(), force=force, html=True)
        click.echo(f"wrote {output}", err=True)
    else:
        result = validated(only=only, simulation=simulation, progress=None,
                           ranges=fmt != "csv")
        emit(result.render(fmt, wide), output, force)
    failed = result.failed
    if failed:
        sys.exit(1)
