"""``icnperf validate``: the registered claims against the model."""

from __future__ import annotations

import sys

import click

from icnperf.cli.common import FORMAT_OPTION, OUTPUT_OPTION, FORCE_OPTION, emit, no_format_for_html


@click.command()
@click.option("--skip-simulation", is_flag=True,
              help="Leave out the flit simulator's cross-checks (the slowest part).")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
def validate(skip_simulation: bool, fmt: str, output: str | None, force: bool) -> None:
    """Check every registered published claim and the flit simulator's cross-checks; exit 1
    if any check fails. With -o FILE.html the results are an HTML page (plots, error
    table, simulator cross-checks)."""
    from icnperf.data.files import is_html_path

    if is_html_path(output):
        from icnperf.reports.text.validate import write_validation_page

        no_format_for_html(fmt, output)
        failed = write_validation_page(output, force, skip_simulation)
        click.echo(f"wrote {output}", err=True)
    else:
        from icnperf.reports.text.validate import validation_text

        text, failed = validation_text(fmt, skip_simulation)
        emit(text, output, force)
    if failed:
        sys.exit(1)
