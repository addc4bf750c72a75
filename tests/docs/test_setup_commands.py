"""The README's set-up block is two commands that work on a fresh machine, and CI runs what
it says plus the tests it leaves out: the README test command deselects the slow tests,
.ci/run runs them as a step of its own and fails when either step collects nothing."""

import configparser
import re
import shlex
import subprocess

from docblocks import ROOT, blocks

README = ROOT / "README.md"


def setup_block() -> list[str]:
    text = README.read_text(encoding="utf-8").splitlines()
    start = text.index("## Set up and run")
    first = next(b for b in blocks(README) if b.line > start + 1)
    return [line for line in first.lines if line.strip()]


def test_two_set_up_commands():
    install, tests = setup_block()
    assert install.startswith("pip install -e '.[test]' && icnperf ")
    args = shlex.split(tests)
    assert args[:3] == ["python", "-m", "pytest"]
    assert args[args.index("-m", 3) + 1] == "not slow"
    assert "-n" in args  # pytest-xdist: both cores


def test_the_test_extras_install_what_the_command_needs():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    extras = config["options.extras_require"]["test"].split()
    assert any(e.startswith("pytest-xdist") for e in extras)
    assert "slow:" in config["tool:pytest"]["markers"]


def test_ci_runs_the_readme_commands_and_the_slow_tests():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "## Set up and run" in ci and "${setup[0]}" in ci and "${setup[1]}" in ci
    assert 'run_tests "python -m pytest -q -n 2 -m slow"' in ci
    assert "$status == 5" in ci


def test_ci_reads_the_same_two_commands_as_the_readme_shows():
    """.ci/run's own reading of the README (its awk program, run here on README.md) gives
    the set-up block's two lines, in order: CI runs what a newcomer is told to run."""
    ci = (ROOT / ".ci" / "run").read_text()
    reader = re.search(r"mapfile -t setup < <\((awk .*?README\.md)\)", ci, re.S)
    assert reader, "CI no longer reads the set-up block with awk; update this test"
    out = subprocess.run(["bash", "-c", reader.group(1)], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert out.splitlines() == setup_block()
