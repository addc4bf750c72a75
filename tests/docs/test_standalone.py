"""The repository stands alone: no tracked file names a path outside it or a folder of the
project's development notes (the reference-run and source-paper folders kept beside the
checkout), so a fresh clone reads and tests the same as the developers' tree."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FORBIDDEN = re.compile("|".join([
    r"\.\./shared",                        # the development folder beside the checkout
    r"(?<![\w.-])shared/(reference|seeds)",  # its reference runs and source papers
    r"seeds/\d{3}",                        # a source paper by its folder, not by author
    r"\b\d{3}_[0-9a-f]{16}\.txt\b.*seeds",   # a source paper's archive file under seeds/
    r"(?<![\w.])/work/",                   # the development machine's absolute paths
    r"\b(DESIGN|SEEDS|STYLE|BRIEF)\.md\b",   # the development notes, not in the repository
]))
"""What a tracked file must not contain (this file's own patterns aside)."""


def tracked_files() -> list[Path]:
    """The files git tracks; outside a git checkout (an unpacked source archive) every file
    under the root except caches and build output."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True,
                             capture_output=True).stdout
        names = [n for n in out.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()
                 and not any(part.startswith(".") or part == "__pycache__"
                             or part.endswith(".egg-info") for part in p.relative_to(ROOT).parts)]
    return [ROOT / n for n in names]


def offending_lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, FileNotFoundError):
        return []
    return [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}"
            for number, line in enumerate(text.splitlines(), 1) if FORBIDDEN.search(line)]


def test_the_patterns_catch_what_they_are_for():
    for bad in ("see ../shared/reference/booksim/", "(seeds/002), Fig. 5",
                "path = '/work/shared/x'", "shared/reference/simgrid README",
                "the target is DESIGN.md", "004_17c4801674b2d80a.txt under seeds"):
        assert FORBIDDEN.search(bad), bad
    for good in ("--seeds 5", "seed = 0", "shared memory", "node.shared_memory_latency",
                 "Mukosey 2015 §3", "docs/measurement-format.md", "a/work/b", "data/work/x"):
        assert not FORBIDDEN.search(good), good


def test_no_tracked_file_names_a_path_outside_the_repository():
    files = tracked_files()
    assert len(files) > 100 and any(f.name == "README.md" for f in files)
    this = Path(__file__).resolve()
    bad = [line for f in files if f.resolve() != this for line in offending_lines(f)]
    assert not bad, "\n".join(bad)
