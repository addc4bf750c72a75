"""``icnperf report``: a machine's self-contained HTML report."""

from __future__ import annotations

import click

from icnperf.cli.common import FORCE_OPTION, MACHINE_OPTION, uncertainty_options


@click.command()
@MACHINE_OPTION
@click.option("--compare", multiple=True, metavar="NAME|FILE",
              help="Another machine to overlay on the same figures (repeatable).")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter of --machine (repeatable).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="The HTML file to write (atomically).")
@FORCE_OPTION
@click.option("--no-validation", is_flag=True,
              help="Leave out the validation section (about a second of checks).")
@click.option("--app", "apps", multiple=True, metavar="FILE.toml|NAME",
              help="An application skeleton to plot against the node count: phase times"
                   " stacked, with parallel efficiency (repeatable).")
@uncertainty_options
@click.option("--production", is_flag=True,
              help="Predictions on the busy production machine: its [production] OS noise"
                   " and background traffic, the points the medians (with --uncertainty the"
                   " error bars their 5-95 % ranges); docs/machine-format.md.")
def report(machine_name: str, compare: tuple[str, ...], overrides: tuple[str, ...],
           output: str, force: bool, no_validation: bool, apps: tuple[str, ...],
           uncertainty: bool, samples: int | None, seed: int | None,
           production: bool) -> None:
    """A self-contained HTML report of a machine: parameters, topology, point-to-point,
    collectives, applications, validation and formulas (opens offline). --uncertainty adds
    error bars, 5-95 % cells and a tornado chart of each input's share of the range;
    --production predicts on the busy machine and says what it applied."""
    from icnperf.api import report as page_of
    from icnperf.data.files import check_target, is_html_path, printable, write_atomically
    from icnperf.errors import InputError

    if not is_html_path(output):
        raise InputError(f"-o {printable(output)}: the report is an HTML page; name the file"
                         " *.html")
    check_target(output, force)
    page = page_of(machine_name, compare=compare, set=overrides,
                   validation=not no_validation, app=apps, uncertainty=uncertainty,
                   samples=samples, seed=seed, production=production)
    write_atomically(output, page, force=force, html=True)
    click.echo(f"wrote {output}", err=True)
