"""Result tables as aligned text, CSV or JSON.

The model returns numbers; this module turns rows of plain values into text. A ``Column``
names a row key, its header and how its value prints in the aligned table; CSV and JSON
carry the raw values (SI units) instead.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from icnperf import __version__

FORMATS = ("table", "json", "csv")


@dataclass(frozen=True)
class Column:
    """One column: the row key, its header, and a formatter for the aligned table."""

    key: str
    header: str
    fmt: Callable[[Any], str] = str


def number(digits: int = 4) -> Callable[[Any], str]:
    """Formatter: a number with ``digits`` significant digits; integers print whole."""

    def fmt(value: Any) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "-"
        if isinstance(value, int) or (isinstance(value, float) and value.is_integer()
                                      and abs(value) < 1e15):
            return f"{int(value):,}"
        if 10**digits <= abs(value) < 1e15:
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"

    return fmt


def aligned_table(rows: Sequence[dict], columns: Sequence[Column]) -> str:
    """Rows as a text table, numbers right-aligned, text left-aligned."""
    cells = [[c.fmt(row.get(c.key)) for c in columns] for row in rows]
    widths = [max([len(c.header)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    numeric = [all(_looks_numeric(r[i]) for r in cells) for i in range(len(columns))]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if n else v.ljust(w) for v, w, n in zip(values, widths, numeric)]
        return "  ".join(parts).rstrip()

    out = [line([c.header for c in columns]), line(["-" * w for w in widths])]
    out.extend(line(r) for r in cells)
    return "\n".join(out)


def _looks_numeric(text: str) -> bool:
    return text == "-" or text.replace(",", "").replace(".", "").replace("e", "").replace(
        "+", "").replace("-", "").replace("%", "").isdigit()


def csv_text(rows: Sequence[dict], keys: Sequence[str]) -> str:
    """Rows as CSV with a header line; values raw (SI units)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(keys), extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _plain(row.get(k)) for k in keys})
    return buffer.getvalue()


def json_text(document: dict) -> str:
    """A JSON object stamped with ``icnperf_version``; NaN and inf become null."""
    stamped = {"icnperf_version": __version__, **document}
    return json.dumps(_plain(stamped), indent=2, allow_nan=False) + "\n"


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
