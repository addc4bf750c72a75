"""A command's text output fitted to a terminal: tables, paragraphs and numbered notes.

By default every line fits ``TERMINAL_WIDTH`` columns. A table too wide for it gives way in
this order, stopping as soon as it fits (``fit_table``):

1. columns marked ``overflow="note"`` (sources, reasons), widest first, move under the table
   as numbered notes: each cell keeps its note's number (``[3]``; equal texts share one), or,
   when every cell starts with the same long text (a file name), the header carries one
   note holding that text and the cells keep the rest;
2. columns marked ``overflow="wrap"`` (descriptions) wrap inside the column;
3. headers wrap between words;
4. the columns are split into panels one under another, each repeating the ``keep``
   columns (the first column when none is marked); a ``with_previous`` column stays in the
   panel of the column before it.

Paragraphs wrap between words, and note lists ("assumptions:", "notes:") become numbered
notes, wrapped, numbered on from the table's. ``wide=True`` (the command line's ``--wide``)
gives the full layout instead: tables at their natural width, notes as "- text" lines,
nothing wrapped. Numbers are formatted by the columns either way; only the layout changes.
"""

from __future__ import annotations

import itertools
import os
import textwrap
import unicodedata
from typing import Iterable, Sequence

from icnperf.reports.render import (Cells, Column, column_cells, looks_numeric, table_lines,
                                    table_width)

TERMINAL_WIDTH = 100
"""Columns every line of a command's default text output fits in."""

SHARED_PREFIX_MIN = 10
"""Characters a note column's shared leading text needs before it becomes one note."""
SHARED_PREFIX_REST = 20
"""Longest cell, once the shared leading text is cut, for that one note to be used."""


def wrap(text: str, width: int | None, first: str = "", rest: str | None = None) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken between words only (a word
    longer than the line stays whole); the first line starts with ``first``, the others
    with ``rest`` (default: ``first``). ``width`` None: one line, as given. Control and
    bidirectional characters are escaped first (data.files.printable), so the escapes are
    counted in the width (escaped after wrapping, they pushed lines past it)."""
    from icnperf.data.files import printable

    text = printable(text, newlines=True)
    if width is None or display_width(first + text) <= width:
        return [first + text]
    rest = first if rest is None else rest
    if display_width(text) != len(text):
        return _wrap_wide(text, width, first, rest)
    return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or [first]


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: East Asian wide and full-width characters take two
    (Unicode's East_Asian_Width W and F), every other character one."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _wrap_wide(text: str, width: int, first: str, rest: str) -> list[str]:
    """:func:`wrap` for text with wide characters: words fill lines by display width, and a
    run of wide characters (written without spaces) may break between any two of them."""
    lines, line = [], first
    for word in text.split():
        pieces = [word] if display_width(word) == len(word) else list(word)
        for i, piece in enumerate(pieces):
            glue = " " if (i == 0 and line.strip()) else ""
            if line.strip() and display_width(line + glue + piece) > width:
                lines.append(line)
                line, glue = rest, ""
            line += glue + piece
    lines.append(line)
    return lines


def _shared_prefix(texts: Sequence[str]) -> str:
    """The leading text every cell shares, cut after its last ", ", space or "/" (so what
    is left of each cell starts a word); "" when it is short, leaves long cells, or the
    cells do not differ."""
    if len(set(texts)) < 2:
        return ""
    prefix = os.path.commonprefix(list(texts))
    for separator in (", ", " ", "/"):
        cut = prefix.rfind(separator)
        if cut > 0:
            prefix = prefix[:cut + len(separator)]
            break
    else:
        return ""
    if len(prefix) < SHARED_PREFIX_MIN or max(len(t) - len(prefix) for t in texts) > \
            SHARED_PREFIX_REST:
        return ""
    return prefix


def _to_notes(cells: Cells, first: int) -> tuple[list[tuple[int, str]], int]:
    """Move a one-line-per-cell column's text into notes numbered from ``first``; returns
    the notes and the next free number."""
    texts = [lines[0] for lines in cells.rows]
    prefix = _shared_prefix(texts)
    if prefix:
        cells.header = [f"{cells.column.header} [{first}]"]
        cells.rows = [[t[len(prefix):]] for t in texts]
        cells.numeric = all(looks_numeric(t[len(prefix):]) for t in texts)
        return [(first, f"every value in this column begins '{prefix.rstrip()}'")], first + 1
    numbers: dict[str, int] = {}
    for text in texts:
        if len(text) > len(f"[{first + len(numbers)}]") and text not in numbers:
            numbers[text] = first + len(numbers)
    cells.rows = [[f"[{numbers[t]}]" if t in numbers else t] for t in texts]
    cells.numeric = False
    return [(n, t) for t, n in numbers.items()], first + len(numbers)


def _longest_word(texts: Iterable[str]) -> int:
    return max((len(w) for t in texts for w in t.split()), default=0)


def _wrap_columns(cells: list[Cells], width: int) -> None:
    """Wrap the ``overflow="wrap"`` columns into the room the others leave (never narrower
    than their longest word)."""
    wrapping = [c for c in cells if c.column.overflow == "wrap"]
    if not wrapping:
        return
    fixed = sum(c.width for c in cells if c not in wrapping) + 2 * (len(cells) - 1)
    room = (width - fixed) // len(wrapping)
    for c in wrapping:
        texts = [" ".join(lines) for lines in c.rows]
        target = max(room, _longest_word(texts + c.header))
        if target < c.width:
            c.rows = [wrap(t, target) for t in texts]


def _wrap_header(cells: Cells) -> None:
    """Break a header wider than its cells between words."""
    body = max((len(t) for lines in cells.rows for t in lines), default=0)
    text = " ".join(cells.header)
    target = max(body, _longest_word([text]))
    if len(text) > target:
        cells.header = wrap(text, target)


def _panels(cells: list[Cells], width: int) -> list[list[Cells]]:
    """The columns in as few panels of at most ``width`` as first-fit needs, each repeating
    the ``keep`` columns, split where the widest panel is narrowest (columns marked
    ``with_previous`` stay with the one before)."""
    kept = [c for c in cells if c.column.keep] or cells[:1]
    units: list[list[Cells]] = []
    for c in cells:
        if c not in kept:
            if units and c.column.with_previous:
                units[-1].append(c)
            else:
                units.append([c])
    count, used = 1, []
    for unit in units:
        if used and table_width(kept + used + unit) > width:
            count, used = count + 1, []
        used = used + unit
    best: tuple[int, list[list[Cells]]] | None = None
    for cuts in itertools.combinations(range(1, len(units)), count - 1):
        bounds = zip((0, *cuts), (*cuts, len(units)))
        groups = [[c for unit in units[a:b] for c in unit] for a, b in bounds]
        widest = max(table_width(kept + group) for group in groups)
        if best is None or widest < best[0]:
            best = (widest, groups)
    return [[c for c in cells if c in kept or c in group] for group in best[1]]


def fit_table(rows: Sequence[dict], columns: Sequence[Column], width: int | None,
              first: int = 1) -> tuple[list[str], list[tuple[str, list[tuple[int, str]]]], int]:
    """A table in lines of at most ``width`` (None: natural width), with the notes its
    columns gave way to as (column header, [(number, text)]), numbered from ``first``, and
    the next free number. See the module docstring for the order things give way in."""
    cells = column_cells(rows, columns)
    groups = []
    if width is not None and table_width(cells) > width:
        for c in sorted((c for c in cells if c.column.overflow == "note"),
                        key=lambda c: -c.width):
            if table_width(cells) <= width:
                break
            notes, first = _to_notes(c, first)
            if notes:
                groups.append((c.column.header, notes))
        if table_width(cells) > width:
            _wrap_columns(cells, width)
        if table_width(cells) > width:
            for c in cells:
                _wrap_header(c)
    if width is None or table_width(cells) <= width:
        return table_lines(cells), groups, first
    lines: list[str] = []
    for panel in _panels(cells, width):
        lines += ([""] if lines else []) + table_lines(panel)
    return lines, groups, first


class Page:
    """One command's text output, built top to bottom and fitted to ``TERMINAL_WIDTH``, or at
    full width with ``wide``. ``text()`` joins the lines, ending with a newline."""

    def __init__(self, wide: bool = False) -> None:
        self.width = None if wide else TERMINAL_WIDTH
        self.lines: list[str] = []
        self._next_note = 1

    def blank(self) -> None:
        self.lines.append("")

    def line(self, text: str = "", indent: str = "", hang: str = "") -> None:
        """A paragraph (each of its lines): wrapped between words, later lines indented by
        ``hang`` more than the first."""
        for part in text.split("\n"):
            self.lines += wrap(part, self.width, indent, indent + hang)

    def table(self, rows: Sequence[dict], columns: Sequence[Column], indent: str = "") -> None:
        """A table, followed by the notes its columns gave way to (one list per column,
        titled by its header)."""
        width = None if self.width is None else self.width - len(indent)
        lines, groups, self._next_note = fit_table(rows, columns, width, self._next_note)
        self.lines += [(indent + line).rstrip() if line else "" for line in lines]
        for header, notes in groups:
            self.blank()
            self.lines.append(f"{header}:")
            self._numbered(notes)

    def notes(self, title: str, items: Sequence[str]) -> None:
        """``title:`` then the items: numbered and wrapped, or ``  - item`` when wide."""
        self.lines.append(f"{title}:")
        if self.width is None:
            self.lines += [f"  - {item}" for item in items]
            return
        numbered = [(self._next_note + i, item) for i, item in enumerate(items)]
        self._next_note += len(items)
        self._numbered(numbered)

    def _numbered(self, notes: Sequence[tuple[int, str]]) -> None:
        marks = [f"  [{number}]" for number, _ in notes]
        size = max(map(len, marks), default=0) + 1
        for mark, (_, text) in zip(marks, notes):
            self.lines += wrap(text, self.width, mark.ljust(size), " " * size)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"
