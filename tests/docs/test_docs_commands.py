"""Every icnperf command written in the README and docs/*.md runs as written: exit 0, or
exit 2 where the page says it is refused; where the page prints the command's output, the
command prints it (tests/docs/docblocks.py states the conventions). Commands the page marks
``(slow ...)`` run with the slow tests, which CI runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from docblocks import ROOT, DocCommand, all_commands, missing_lines
from icnperf.cli import cli

COMMANDS = all_commands()


def _param(command: DocCommand):
    marks = [pytest.mark.slow] if command.slow else []
    return pytest.param(command, id=command.id, marks=marks)


def _workdir(tmp_path: Path) -> Path:
    """A folder that sees the repository's files (commands name tests/data/..., icnperf/...)
    and takes the files the commands write (-o FILE), so the checkout stays clean."""
    for entry in ROOT.iterdir():
        if not entry.name.startswith("."):
            (tmp_path / entry.name).symlink_to(entry)
    return tmp_path


def _invoke(command: DocCommand, cwd: Path):
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, command.args, prog_name="icnperf")
    finally:
        os.chdir(old)


def test_the_docs_have_commands():
    pages = {c.path.name for c in COMMANDS}
    assert {"README.md", "skeleton-format.md", "mpi-algorithms.md"} <= pages
    assert sum(c.printed is not None for c in COMMANDS) >= 6
    assert any(c.expected_exit == 2 for c in COMMANDS)


@pytest.mark.parametrize("command", [_param(c) for c in COMMANDS])
def test_command_runs_as_written(command: DocCommand, tmp_path):
    cwd = _workdir(tmp_path)
    # the files this command reads that an earlier command of its block writes
    for earlier in (c for c in COMMANDS if c.block == command.block and c.index < command.index):
        if earlier.output_files() & set(command.args):
            assert _invoke(earlier, cwd).exit_code == 0, earlier.id
    result = _invoke(command, cwd)
    output = result.output
    assert result.exit_code == command.expected_exit, (
        f"{command.id}: exit {result.exit_code}, expected {command.expected_exit}:\n"
        f"{output[-2000:]}{result.exception!r}")
    if command.printed is not None:
        missing = missing_lines(command.printed, output)
        assert not missing, (f"{command.id}: lines the page prints that the command does not:\n"
                             + "\n".join(missing) + "\n--- the command printed:\n" + output)


def test_a_changed_figure_is_caught():
    """The comparison is of the figures: one changed digit, a missing row or a row out of
    order is reported; cut columns (``...``) and runs of spaces are not."""
    from docblocks import missing_lines

    out = ("title\n\nnodes  time     ratio\n-----  -------  -----\n"
           "   16  5.44 µs   2.33\n   32  6.1 µs    2.5\n")
    assert not missing_lines(("nodes  time     ratio", "   16  5.44 µs   2.33"), out)
    assert not missing_lines(("nodes  ...  ratio", "-----  -----", "   16  ...  2.33"), out)
    assert missing_lines(("   16  5.45 µs   2.33",), out) == ["   16  5.45 µs   2.33"]
    assert missing_lines(("   32  6.1 µs    2.5", "   16  5.44 µs   2.33"), out)
    assert missing_lines(("   64  7 µs  2.6",), out)
