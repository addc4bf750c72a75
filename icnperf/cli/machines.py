"""``icnperf machines`` and ``icnperf machine``."""

from __future__ import annotations

import click

from icnperf.cli.common import FORMAT_OPTION, OUTPUT_OPTION, FORCE_OPTION, WIDE_OPTION, emit


@click.command()
@FORMAT_OPTION
@WIDE_OPTION
def machines(fmt: str, wide: bool) -> None:
    """List the bundled machine presets."""
    from icnperf.api import machines as presets

    click.echo(presets().render(fmt, wide), nl=False)


@click.command()
@click.argument("name")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a parameter, e.g. network.link_latency=60ns (repeatable).")
@click.option("--uncertainty", is_flag=True,
              help="Add each value's kind and spread (docs/machine-format.md,"
                   " 'Uncertainty').")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def machine(name: str, overrides: tuple[str, ...], uncertainty: bool, fmt: str,
            output: str | None, force: bool, wide: bool) -> None:
    """Show one machine (preset NAME or TOML file) with units and sources."""
    from icnperf.api import machine as load

    emit(load(name, set=overrides, uncertainty=uncertainty).render(fmt, wide), output, force)
