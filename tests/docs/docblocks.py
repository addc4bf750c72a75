"""The fenced code blocks of the README and docs/*.md, and the icnperf commands and Python
snippets in them, for the tests that run the documentation (test_docs_commands.py,
test_docs_python.py).

Conventions the docs follow so that their examples can be run as written:

* a command is a line of a plain code block (no language, or ``console``/``sh``) that
  starts with ``icnperf`` or ``$ icnperf``; a trailing ``# comment`` is for the reader;
* a command whose comment says ``(slow...`` is run only with the slow tests (CI runs them);
  one whose comment says it is ``refused``, or whose printed output is an ``icnperf...:
  error:`` line, must exit with status 2; every other command must exit 0;
* after a ``$ icnperf ...`` line, the lines up to the next ``$`` line or the end of the block
  are that command's output, compared with what it prints; ``...`` stands for text cut out;
* a block right after a line that is only a backquoted file name and a colon (`` `runs/x.csv`:``)
  is that file's content: the Python snippets of the page run in a folder where it exists;
* ``python`` blocks with ``>>>`` prompts are doctests; ``python`` blocks without are run
  as scripts; both in page order, sharing one namespace per page.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMAND_LANGUAGES = ("", "console", "sh", "shell", "bash", "text")
SLOW = re.compile(r"\(slow\b")
REFUSED = re.compile(r"\brefused\b")
ERROR_LINE = re.compile(r"^icnperf[\w -]*: error: ")
FILE_LABEL = re.compile(r"^`([\w.-]+(?:/[\w.-]+)*)`:$")


def doc_files() -> list[Path]:
    """README.md and every page under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Block:
    """One fenced code block: its page, the line of its first content line, its language
    (the fence's info string) and its lines; ``file`` is the file name it is the content
    of, when the line before it says so."""

    path: Path
    line: int
    language: str
    lines: tuple[str, ...]
    file: str | None


def blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    out, start, language, previous = [], None, "", ""
    for number, line in enumerate(lines, 1):
        fence = re.match(r"^ {0,3}(`{3,})\s*([\w+-]*)", line)
        if fence and start is None:
            start, language = number, fence.group(2)
            label = FILE_LABEL.match(previous.strip())
            file = label.group(1) if label else None
        elif fence and start is not None:
            out.append(Block(path, start + 1, language, tuple(lines[start:number - 1]), file))
            start, previous = None, ""
        elif start is None and line.strip():
            previous = line
    assert start is None, f"{path.name}: a code block opened on line {start} is not closed"
    return out


@dataclass(frozen=True)
class DocCommand:
    """An icnperf command of a page: the command line as written (no ``$``, no comment),
    its comment, the output the page prints for it (``$`` blocks; else None), the block it
    is in and its place there."""

    path: Path
    line: int
    text: str
    comment: str
    printed: tuple[str, ...] | None
    block: Block
    index: int

    @property
    def args(self) -> list[str]:
        return shlex.split(self.text)[1:]

    @property
    def slow(self) -> bool:
        return bool(SLOW.search(self.comment))

    @property
    def expected_exit(self) -> int:
        refused = REFUSED.search(self.comment) or (
            self.printed and ERROR_LINE.match(self.printed[0]))
        return 2 if refused else 0

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    def output_files(self) -> set[str]:
        """The files this command writes (-o / --output), by the name given."""
        args = self.args
        return {args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-o", "--output")}


def _split_comment(line: str) -> tuple[str, str]:
    """(the command, its trailing comment): a ``#`` after a space, outside quotes."""
    command = shlex.join(shlex.split(line, comments=True))
    comment = re.split(r"\s#\s?", line, maxsplit=1)
    return command, comment[1].strip() if len(comment) > 1 and "#" not in command else ""


def commands(path: Path) -> list[DocCommand]:
    out = []
    for block in blocks(path):
        if block.language not in COMMAND_LANGUAGES:
            continue
        found = []
        for offset, line in enumerate(block.lines):
            match = re.match(r"^(\$ )?(icnperf\s.*)$", line)
            if match:
                found.append((offset, bool(match.group(1)), match.group(2)))
        for i, (offset, dollar, text) in enumerate(found):
            printed = None
            if dollar:
                end = found[i + 1][0] if i + 1 < len(found) else len(block.lines)
                printed = list(block.lines[offset + 1:end])
                while printed and not printed[-1].strip():
                    printed.pop()
                printed = tuple(printed)
            command, comment = _split_comment(text)
            out.append(DocCommand(path, block.line + offset, command, comment, printed, block,
                                  i))
    return out


def all_commands() -> list[DocCommand]:
    return [c for path in doc_files() for c in commands(path)]


def line_pattern(printed: str) -> re.Pattern:
    """A printed output line as a pattern: runs of spaces match any run of spaces, ``...``
    any text (columns or words the page cut out)."""
    parts = [re.escape(p) for p in printed.strip().split("...")]
    pattern = ".*".join(parts)
    pattern = re.sub(r"(\\ )+", r"\\s+", pattern)
    return re.compile(r"\s*" + pattern + r"\s*")


def missing_lines(printed: tuple[str, ...], actual: str) -> list[str]:
    """The page's printed lines not found, in order, in the command's output. Rules of
    dashes are compared unless the block cut columns out (``...``)."""
    cut = any("..." in line for line in printed)
    wanted = [p for p in printed if p.strip() and p.strip() != "..."
              and not (cut and set(p.strip()) <= {"-", " "})]
    got = [line.rstrip() for line in actual.splitlines()]
    missing, at = [], 0
    for line in wanted:
        pattern = line_pattern(line)
        hit = next((j for j in range(at, len(got)) if pattern.fullmatch(got[j])), None)
        if hit is None:
            missing.append(line)
        else:
            at = hit + 1
    return missing
