"""docs/python-api.md's worked example runs as written (doctest), and so does its script
under examples/; the two print the same comparison lines."""

import doctest
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_page_is_doctested(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    failures, tried = doctest.testfile(
        str(ROOT / "docs" / "python-api.md"), module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert tried >= 15 and failures == 0


def test_the_example_script_runs_and_writes_its_figure(tmp_path):
    target = tmp_path / "allreduce.html"
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "allreduce_sweep.py"),
                          str(target)], capture_output=True, text=True, check=True,
                         cwd=tmp_path)
    lines = run.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["16", "128", "1024"]
    page = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    assert all(line in page for line in lines)
    assert target.stat().st_size > 100_000 and "recursive-doubling" in target.read_text()
