"""What every command shares: the output options, counts, one-line errors and printing.

Heavy modules (the model, NumPy) are imported inside the commands that need them, so
``icnperf --help`` starts fast.
"""

from __future__ import annotations

import click

from icnperf.errors import IcnperfError

FORMAT_OPTION = click.option(
    "--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
    show_default=True, help="Output format; JSON and CSV carry SI units.")
OUTPUT_OPTION = click.option(
    "-o", "--output", type=click.Path(dir_okay=False), default=None,
    help="Write to FILE instead of standard output (written atomically; '-' is standard "
         "output).")
FORCE_OPTION = click.option("--force", is_flag=True, help="Overwrite an existing -o FILE.")
MACHINE_OPTION = click.option(
    "--machine", "machine_name", required=True, metavar="NAME|FILE",
    help="A bundled preset (icnperf machines) or a machine TOML file.")
SET_OPTION = click.option(
    "--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
    help="Override a parameter (repeatable).")
WIDE_OPTION = click.option(
    "--wide", is_flag=True,
    help="Tables at full width with long text in its column, nothing wrapped [default: fit"
         " 100 columns, long text as numbered notes under the table].")


class Count(click.ParamType):
    """A whole number as units.py reads counts ("100000", "1e5")."""

    name = "count"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        from icnperf.units import parse_quantity

        try:
            return int(parse_quantity(value, "count"))
        except IcnperfError as error:
            self.fail(str(error), param, ctx)


class BadInput(click.ClickException):
    """A user error shown as one line, exit status 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        from icnperf.data.files import printable

        click.echo(f"icnperf: error: {printable(self.format_message())}", err=True, file=file)


def no_format_for_html(fmt: str, output: str) -> None:
    """An .html output is always a page: a --format other than the default is a mistake."""
    if fmt != "table":
        raise click.UsageError(f"--format {fmt} does not apply to an HTML page ({output});"
                               " drop --format or write another file type")


def emit(text, output: str | None, force: bool) -> None:
    """Print text (``output`` None or ``-``), or write it atomically to ``output``; ``text``
    is a string or an iterable of chunks (a long table streamed row by row).

    Printed text has control characters, bidirectional overrides and undecodable bytes
    escaped (a machine name or note cannot drive the terminal); a file gets the text as is.
    """
    from icnperf.data.files import is_standard_output, printable, write_atomically

    if output is None or is_standard_output(output):
        if not isinstance(text, str):
            for chunk in text:
                click.echo(printable(chunk, newlines=True), nl=False)
            return
        click.echo(printable(text, newlines=True), nl=not text.endswith("\n"))
        return
    write_atomically(output, text, force=force)
    click.echo(f"wrote {printable(output)}", err=True)


def uncertainty_options(command):
    """``--uncertainty`` with ``--samples`` and ``--seed``: each predicted quantity's 5-95 %
    range over draws of the machine's inputs within their stated uncertainty."""
    command = click.option(
        "--seed", type=click.IntRange(min=0), default=None,
        help="With --uncertainty: the seed of the draws [default: 0].")(command)
    command = click.option(
        "--samples", type=click.IntRange(min=1), default=None,
        help="With --uncertainty: draws of the inputs [default: 200].")(command)
    return click.option(
        "--uncertainty", is_flag=True,
        help="Add each predicted quantity's low and high end (5th-95th percentile over"
             " seeded draws of the inputs within their stated uncertainty;"
             " docs/machine-format.md, 'Uncertainty').")(command)
