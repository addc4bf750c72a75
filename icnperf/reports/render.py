"""Result tables as aligned text, CSV or JSON.

The model returns numbers; this module turns rows of plain values into text. A ``Column``
names a row key, its header and how its value prints in the aligned table; CSV and JSON
carry the raw values (SI units) instead. ``aligned_table`` is a table at its natural width;
``icnperf.reports.page`` fits tables and the text around them into a terminal.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from icnperf import __version__
from icnperf.errors import InputError

FORMATS = ("table", "json", "csv")

OVERFLOWS = ("", "note", "wrap")


@dataclass(frozen=True)
class Column:
    """One column: the row key, its header, and a formatter for the aligned table.

    ``overflow`` says what gives way when a fitted table is too wide (page.fit_table):
    ``"note"`` moves the column's text under the table as numbered notes, the cell keeping
    the number (long sources, reasons); ``"wrap"`` wraps the text inside the column
    (descriptions); ``""`` keeps the cell whole. ``keep``: repeated in every panel when
    the table is split into panels (the row's name, e.g. the offered rate);
    ``with_previous``: never split from the column before it (a range beside its mean).
    """

    key: str
    header: str
    fmt: Callable[[Any], str] = str
    overflow: str = ""
    keep: bool = False
    with_previous: bool = False

    def __post_init__(self) -> None:
        if self.overflow not in OVERFLOWS:
            raise ValueError(f"Column overflow {self.overflow!r}: choose one of {OVERFLOWS}")


def quantity(kind: str, digits: int = 3) -> Callable[[Any], str]:
    """Formatter: a value of ``kind`` (time in s, size in B, bandwidth in B/s, ...) with
    its unit scaled, ``digits`` significant digits (units.format_quantity)."""
    from icnperf.units import format_quantity

    return lambda value: format_quantity(value, kind, digits)


def in_unit(row: dict, digits: int = 4) -> dict:
    """A row with its float numbers printed in the row's ``unit`` (an SI unit of
    units.SI_UNITS: "452 ns", "6.01 GB/s"), ``digits`` significant digits, non-finite ones
    (no interval) as ``-``; other values as they are. Calibrate's parameter rows."""
    from icnperf.units import SI_UNITS, format_quantity

    kind = next(kind for kind, unit in SI_UNITS.items() if unit == row["unit"])
    return {key: (format_quantity(value, kind, digits) if math.isfinite(value) else "-")
            if isinstance(value, float) else value for key, value in row.items()}


def number(digits: int = 4) -> Callable[[Any], str]:
    """Formatter: a number with ``digits`` significant digits; integers print whole; None,
    NaN and infinities (no value: not applicable, or a queue past saturation) print as
    ``-``."""

    def fmt(value: Any) -> str:
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            return "-"
        if isinstance(value, int) or (isinstance(value, float) and value.is_integer()
                                      and abs(value) < 1e15):
            return f"{int(value):,}"
        if 10**digits <= abs(value) < 1e15:
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"

    return fmt


@dataclass(eq=False)
class Cells:
    """One column as laid out: its header lines and each row's lines of text."""

    column: Column
    header: list[str]
    rows: list[list[str]]
    numeric: bool = field(default=False)

    @property
    def width(self) -> int:
        return max(len(text) for text in self.header + [t for lines in self.rows for t in lines])


def column_cells(rows: Sequence[dict], columns: Sequence[Column]) -> list[Cells]:
    """Every column's formatted cells, one line each; numbers right-aligned."""
    out = []
    for column in columns:
        texts = [column.fmt(row.get(column.key)) for row in rows]
        out.append(Cells(column, [column.header], [[t] for t in texts],
                         all(looks_numeric(t) for t in texts)))
    return out


def table_width(cells: Sequence[Cells]) -> int:
    """Characters of the widest line of ``cells`` laid side by side."""
    return sum(c.width for c in cells) + 2 * max(len(cells) - 1, 0)


def table_lines(cells: Sequence[Cells]) -> list[str]:
    """Header lines (bottom-aligned), a rule, then each row's lines; two spaces between."""
    widths = [c.width for c in cells]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if c.numeric else v.ljust(w)
                 for v, w, c in zip(values, widths, cells)]
        return "  ".join(parts).rstrip()

    depth = max(len(c.header) for c in cells)
    headers = [[""] * (depth - len(c.header)) + c.header for c in cells]
    out = [line([h[i] for h in headers]) for i in range(depth)]
    out.append(line(["-" * w for w in widths]))
    for r in range(len(cells[0].rows) if cells else 0):
        height = max(len(c.rows[r]) for c in cells)
        out.extend(line([c.rows[r][i] if i < len(c.rows[r]) else "" for c in cells])
                   for i in range(height))
    return out


def aligned_table(rows: Sequence[dict], columns: Sequence[Column]) -> str:
    """Rows as a text table at its natural width, numbers right-aligned, text left-aligned."""
    return "\n".join(table_lines(column_cells(rows, columns)))


def looks_numeric(text: str) -> bool:
    """Whether a cell reads as a number (right-aligned): digits, separators, sign, %, '-'."""
    return text == "-" or text.replace(",", "").replace(".", "").replace("e", "").replace(
        "+", "").replace("-", "").replace("%", "").isdigit()


def require_finite(rows: Sequence[dict], keys: Sequence[str], what: str,
                   where: Callable[[dict], str] | None = None) -> None:
    """InputError naming the first value under ``keys`` that is an infinite or NaN number
    (None, "not applicable", is allowed): a published result must be a number. ``what``
    names the command, ``where`` describes a row ("at 1e+20 B")."""
    for row in rows:
        for key in keys:
            value = row.get(key)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if not math.isfinite(value):
                at = f" {where(row)}" if where is not None else ""
                raise InputError(f"{what}: {key} is not a finite number{at} (the inputs give"
                                 " a result beyond floating point: check the --set values"
                                 " and the sizes)")


def csv_text(rows: Sequence[dict], keys: Sequence[str]) -> str:
    """Rows as CSV with a header line; values raw (SI units)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(keys), extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(row.get(k)) for k in keys})
    return buffer.getvalue()


def csv_chunks(rows: Iterable[dict], keys: Sequence[str]) -> Iterator[str]:
    """:func:`csv_text` a line at a time: the header, then each row as it is produced
    (nothing but the current row is held)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(keys), extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    yield buffer.getvalue()
    for row in rows:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow({k: _cell(row.get(k)) for k in keys})
        yield buffer.getvalue()


_ROWS_MARK = "\x00icnperf-rows\x00"


def json_chunks(document: dict, key: str, rows: Iterable[dict]) -> Iterator[str]:
    """:func:`json_text` of ``document`` with ``rows`` as its list ``key``, byte for byte,
    produced a row at a time: the document around the list first, then each row indented
    as json.dumps(indent=2) places it (nothing but the current row is held)."""
    head, tail = json_text({**document, key: _ROWS_MARK}).split(
        json.dumps(_ROWS_MARK), 1)
    yield head
    first = True
    for row in rows:
        body = flat_json(row)
        if body is None:
            body = json.dumps(_plain(row), indent=2, allow_nan=False)
        yield ("[\n    " if first else ",\n    ") + body.replace("\n", "\n    ")
        first = False
    yield ("[]" if first else "\n  ]") + tail


def json_float_column(values: np.ndarray) -> np.ndarray | str:
    """A column of finite floats for :func:`json_column_chunks`: one JSON text when every
    value is the same; the floats themselves (a float array) when most differ; else an
    object array of each value's text, shared among equal values (a float's repr, what json
    writes, costs more than the look-up). Arrays, not lists: the chunks turn a slice at a
    time into Python objects, so a million rows never sit in memory as a million floats."""
    values = np.asarray(values, dtype=float)
    if values.size and np.all(values == values[0]) and np.all(
            np.signbit(values) == np.signbit(values[0])):
        return repr(float(values[0]))
    distinct, index = np.unique(values, return_inverse=True)
    if 4 * len(distinct) > len(values) or np.any(distinct == 0):
        return values
    return np.array(list(map(repr, distinct.tolist())), dtype=object)[index.ravel()]


def json_column_chunks(document: dict, key: str, columns: dict[str, Sequence | str],
                       count: int, chunk: int = 4096) -> Iterator[str]:
    """:func:`json_chunks` of rows given by column: the same bytes as rows of those keys
    and values, produced ``chunk`` rows at a time with one %-format per row, without a
    dict or an encoder call per row. ``count`` rows; a column is a list or NumPy array of
    ``count`` values, each a finite float or an int (Python's str of it is JSON's) or JSON
    text given as a str (``"null"``), or one str: the JSON text of every row's value.
    Chunks of a few thousand rows keep each piece small enough for the allocator to reuse
    its memory rather than map fresh pages for every piece."""
    head, tail = json_text({**document, key: _ROWS_MARK}).split(
        json.dumps(_ROWS_MARK), 1)
    yield head
    names = list(columns)
    lists = [name for name in names if not isinstance(columns[name], str)]
    if count == 0:
        yield "[]" + tail
        return
    row = "{\n      " + ",\n      ".join(
        json.dumps(name).replace("%", "%%") + ": "
        + ("%s" if name in lists else columns[name].replace("%", "%%"))
        for name in names) + "\n    }"
    for start in range(0, count, chunk):
        rows = min(chunk, count - start)
        values = (zip(*(_python_values(columns[name][start:start + chunk]) for name in lists))
                  if lists else [()] * rows)
        yield (("[\n    " if start == 0 else ",\n    ")
               + ",\n    ".join([row % v for v in values]))
    yield "\n  ]" + tail


def _python_values(piece) -> list:
    """A slice of a column as Python objects (a NumPy slice through ``tolist``)."""
    return piece.tolist() if isinstance(piece, np.ndarray) else piece


_SCALARS = frozenset({type(None), bool, int, float, str})


def flat_json(row: dict) -> str | None:
    """``json.dumps(_plain(row), indent=2)`` byte for byte for a dict of plain scalars
    (None, bool, int, finite float, str), written by json's C encoder (the indenting one is
    pure Python and is what a streamed table of a million rows spends its time in): with
    no indent the separators carry the newlines and the braces get theirs around. None
    when a value is anything else or a float is not finite (the caller falls back)."""
    if not row:
        return "{}"
    if not _SCALARS.issuperset(map(type, row.values())) or not all(
            isinstance(k, str) for k in row):
        return None
    try:
        text = json.dumps(row, separators=(",\n  ", ": "), allow_nan=False)
    except ValueError:
        return None
    return "{\n  " + text[1:-1] + "\n}"


def json_document(document: dict) -> dict:
    """``document`` as :func:`json_text` writes it: stamped with ``icnperf_version`` (kept
    when it is there), NumPy numbers as Python ones, NaN and inf as None."""
    return _plain({"icnperf_version": __version__, **document})


def json_text(document: dict) -> str:
    """A JSON object stamped with ``icnperf_version``; NaN and inf become null."""
    return json.dumps(json_document(document), indent=2, allow_nan=False) + "\n"


def _cell(value: Any) -> Any:
    """A CSV cell: text escaped for it (data/names.csv_cell), other values as _plain."""
    from icnperf.data.names import csv_cell

    return csv_cell(value) if isinstance(value, str) else _plain(value)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
