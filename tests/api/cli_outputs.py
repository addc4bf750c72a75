"""The command line's JSON for a list of arguments, through Click's CliRunner (the test
helper of the API's equality tests)."""

import json

from click.testing import CliRunner

from icnperf.cli import cli


def cli_json(*args: str) -> dict:
    result = CliRunner().invoke(cli, [*args, "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def cli_error(*args: str) -> str:
    """The one-line message the command line prints for bad input, after 'error: '."""
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line, line
    return line.split("error: ", 1)[1]
