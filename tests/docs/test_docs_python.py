"""The Python snippets of the README and docs/*.md run: ``>>>`` blocks as doctests, blocks
without prompts as scripts, in page order in one namespace per page, in a folder holding
the files the page shows (tests/docs/docblocks.py states the conventions). A new page's
snippets are picked up without a change here."""

from __future__ import annotations

import doctest
import os
from pathlib import Path

import pytest

from docblocks import ROOT, blocks, doc_files

PAGES = [path for path in doc_files() if any(b.language == "python" for b in blocks(path))]


def test_the_python_pages_are_found():
    assert "measurement-format.md" in {p.name for p in PAGES}


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_python_snippets_run(page: Path, tmp_path):
    for block in blocks(page):
        if block.file:
            target = tmp_path / block.file
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("\n".join(block.lines) + "\n", encoding="utf-8")
    namespace: dict = {"__name__": f"docs_{page.stem.replace('-', '_')}"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        for block in (b for b in blocks(page) if b.language == "python"):
            text = "\n".join(block.lines) + "\n"
            where = f"{page.relative_to(ROOT)}:{block.line}"
            if ">>>" in text:
                test = parser.get_doctest(text, namespace, where, str(page), block.line - 1)
                runner.run(test, clear_globs=False)
                namespace.update(test.globs)  # DocTest works on a copy of the namespace
            else:
                exec(compile(text, where, "exec"), namespace)
    finally:
        os.chdir(old)
    results = runner.summarize(verbose=False)
    assert results.attempted > 0 or any(">>>" not in "\n".join(b.lines)
                                        for b in blocks(page) if b.language == "python")
    assert results.failed == 0, f"{page.name}: {results.failed} of {results.attempted} failed"
