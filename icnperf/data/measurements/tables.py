"""Published measurements as tables: a CSV of values plus a TOML provenance sidecar.

A measurement table is one CSV file (header line, then one row per measurement or claim,
values in SI units) and, beside it, a *sidecar* TOML file of the same stem that says where
every number came from and what unit every column is in. icnperf bundles the tables of its
source papers under ``icnperf/data/measurements/``; users may load their own CSV by path,
with or without a sidecar. The format is described in ``docs/measurement-format.md``.

Column names carry their unit as a suffix (``total_s`` seconds, ``message_bytes`` bytes,
see :data:`SUFFIX_UNITS`) or are dimensionless numbers (unit ``"1"``) or text (unit
``"text"``). A column named ``excluded`` holds, per row, an empty string (the row is used)
or a short reason why the row must be kept out of fits and checks (damaged in the source,
a copy of another row, inconsistent with itself).

Every problem with a file is a one-line :class:`~icnperf.errors.DataError` naming the file,
and where it can the line and the column. This module reads files; the model never imports
it.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from icnperf.data.files import looks_like_path, read_text_file
from icnperf.errors import DataError, InputError
from icnperf.units import parse_quantity

__all__ = [
    "DIMENSIONLESS",
    "EXCLUDED",
    "FORMAT_VERSION",
    "METHODS",
    "SUFFIX_UNITS",
    "TEXT",
    "MeasurementTable",
    "list_tables",
    "load_table",
    "parse_sidecar",
    "read_csv_text",
]

FORMAT_VERSION = 1
"""The sidecar format this module reads (``format = 1``)."""

TEXT = "text"
"""The unit of a text column."""

DIMENSIONLESS = "1"
"""The unit of a dimensionless numeric column (counts, ratios, fractions)."""

EXCLUDED = "excluded"
"""Name of the optional text column that marks rows to keep out of fits (empty = used)."""

SUFFIX_UNITS: dict[str, str] = {
    "_bytes_per_s": "B/s",
    "_flop_per_s": "FLOP/s",
    "_bytes": "B",
    "_hz": "Hz",
    "_s": "s",
}
"""Column-name suffix -> the SI unit its values are in (longest suffix wins). A column whose
whole name is a suffix without the underscore (``bytes``, ``s``) counts too."""

METHODS = ("transcribed", "stated-in-text", "digitized", "measured")
"""Values of ``method.how`` in a sidecar: copied from a printed table; numbers stated in a
paper's prose; read off a figure; the user's own measurements."""

_KIND_OF_UNIT = {"s": "time", "B": "size", "B/s": "bandwidth", "Hz": "frequency", "FLOP/s": "rate"}
_SI_UNITS = tuple(_KIND_OF_UNIT)
_ALLOWED_UNITS = (*_SI_UNITS, DIMENSIONLESS, TEXT)

_NAME_RE = re.compile(r"[a-z][a-z0-9_]*")
_TABLE_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]*")
_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NONFINITE_RE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_DECIMAL_COMMA_RE = re.compile(r"[+-]?[0-9]+,[0-9]+")
_MAX_EXACT_INTEGER = 2**53

_TOP_KEYS = ("format", "title", "description", "notes", "source", "method", "columns",
             "exclusions", "row_notes")
_SOURCE_KEYS = ("citation", "location", "seed", "doi", "url")
_METHOD_KEYS = ("how", "details")
_COLUMN_KEYS = ("unit", "description", "integer", "choices", "minimum")
_ROW_NOTE_KEYS = ("where", "note")


# ------------------------------------------------------------------------------ the table


@dataclass(frozen=True, eq=False)
class MeasurementTable:
    """One table of measurements, read-only.

    ``columns`` maps each column name (in file order) to a read-only float64 array (int64
    for columns declared ``integer``) or, for text columns, a tuple of str. ``units`` maps
    each column to its unit: an SI unit (``s``, ``B``, ``B/s``, ``Hz``, ``FLOP/s``), ``"1"``
    (dimensionless) or ``"text"``. ``provenance`` is the parsed sidecar (empty without one).
    ``lines`` gives each row's line number in the CSV file, for messages and audits.
    """

    name: str
    title: str
    columns: Mapping[str, Any]
    units: Mapping[str, str]
    provenance: Mapping[str, Any]
    origin: str = "<table>"
    lines: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        columns: dict[str, Any] = {}
        n_rows = None
        for key, values in self.columns.items():
            if isinstance(values, tuple):
                frozen: Any = tuple(str(v) for v in values)
            else:
                frozen = np.array(values, copy=True)
                frozen.setflags(write=False)
            if n_rows is None:
                n_rows = len(frozen)
            elif len(frozen) != n_rows:
                raise ValueError(f"column {key!r} has {len(frozen)} rows, expected {n_rows}")
            columns[key] = frozen
        if set(self.units) != set(columns):
            raise ValueError("units must name exactly the table's columns")
        lines = tuple(self.lines) or tuple(range(2, 2 + (n_rows or 0)))
        if len(lines) != (n_rows or 0):
            raise ValueError("lines must give one line number per row")
        object.__setattr__(self, "columns", MappingProxyType(columns))
        object.__setattr__(self, "units", MappingProxyType(dict(self.units)))
        object.__setattr__(self, "provenance", _freeze(dict(self.provenance)))
        object.__setattr__(self, "lines", lines)

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, column: str) -> Any:
        try:
            return self.columns[column]
        except KeyError:
            raise KeyError(
                f"table {self.name!r} has no column {column!r} (columns: {', '.join(self.columns)})"
            ) from None

    def __repr__(self) -> str:
        return (f"MeasurementTable(name={self.name!r}, rows={len(self)}, "
                f"columns={list(self.columns)!r})")

    @property
    def excluded_mask(self) -> np.ndarray:
        """True for each row whose ``excluded`` value is non-empty (all False without one)."""
        reasons = self.columns.get(EXCLUDED)
        if reasons is None:
            return np.zeros(len(self), dtype=bool)
        return np.array([bool(r) for r in reasons], dtype=bool)

    def included(self) -> MeasurementTable:
        """The rows not marked excluded, as a table with the same metadata."""
        return self._take(~self.excluded_mask)

    def excluded_rows(self) -> MeasurementTable:
        """The rows marked excluded (their reasons are in the ``excluded`` column)."""
        return self._take(self.excluded_mask)

    def rows(self) -> list[dict[str, Any]]:
        """Every row as a dict of plain Python values (float, int or str)."""
        out = []
        for i in range(len(self)):
            row = {}
            for key, values in self.columns.items():
                value = values[i]
                row[key] = value.item() if isinstance(value, np.generic) else value
            out.append(row)
        return out

    def _take(self, mask: np.ndarray) -> MeasurementTable:
        index = np.flatnonzero(mask)
        columns = {
            key: tuple(values[i] for i in index) if isinstance(values, tuple) else values[index]
            for key, values in self.columns.items()
        }
        return MeasurementTable(
            name=self.name,
            title=self.title,
            columns=columns,
            units=self.units,
            provenance=self.provenance,
            origin=self.origin,
            lines=tuple(self.lines[i] for i in index),
        )


def _freeze(value: Any) -> Any:
    """Read-only copy of parsed TOML: tables -> mappingproxy, arrays -> tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    """A mutable deep copy of (possibly frozen) parsed TOML."""
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw(v) for v in value]
    return value


# ------------------------------------------------------------------------------- messages


def _show(value: str) -> str:
    """A value quoted for a message: one line, not too long."""
    text = value if len(value) <= 40 else value[:37] + "..."
    return repr(text)


def _error(origin: str, problem: str, line: int | None = None, column: str | None = None):
    where = origin
    if line is not None:
        where += f", line {line}"
    if column is not None:
        where += f", column {column!r}"
    return DataError(" ".join(f"{where}: {problem}".split()))


# -------------------------------------------------------------------------------- sidecar


def _toml_line(text: str, *names: str) -> int | None:
    """The line that starts the TOML table or key for ``names`` (best effort)."""
    if not names:
        return None
    target = names[-1]
    quoted = rf"[\"']?{re.escape(target)}[\"']?"
    if len(names) >= 2:
        parent = rf"[\"']?{re.escape(names[-2])}[\"']?"
        patterns = [
            rf"^\s*\[\s*{parent}\s*\.\s*{quoted}\s*\]",
            rf"^\s*{parent}\s*\.\s*{quoted}\s*[.=]",
        ]
    else:
        patterns = [rf"^\s*\[+\s*{quoted}\s*[.\]]", rf"^\s*{quoted}\s*[.=]"]
    compiled = [re.compile(p) for p in patterns]
    for number, line in enumerate(text.splitlines(), 1):
        if any(p.match(line) for p in compiled):
            return number
    return None


def _unit_problem(name: str, unit: str) -> str | None:
    """Why ``unit`` cannot be the unit of column ``name`` (None when it can)."""
    expected = _suffix_unit(name)
    if unit not in _ALLOWED_UNITS:
        for kind_unit, kind in _KIND_OF_UNIT.items():
            try:
                factor = parse_quantity(f"1 {unit}", kind)
            except InputError:
                continue
            return (f"unit {unit!r} is not SI: store the values in {kind_unit} "
                    f"(1 {unit} = {factor:g} {kind_unit}) and declare unit = {kind_unit!r}")
        return (f"unknown unit {unit!r} (units: {', '.join(repr(u) for u in _ALLOWED_UNITS)})")
    if expected is not None and unit != expected:
        return f"the name's suffix says {expected!r} but the unit is declared {unit!r}"
    if expected is None and unit in _SI_UNITS:
        suffix = next(s for s, u in SUFFIX_UNITS.items() if u == unit)
        return (f"values in {unit} need a unit suffix in the column name "
                f"(e.g. '{name}{suffix}'); unsuffixed columns are dimensionless or text")
    if name == EXCLUDED and unit != TEXT:
        return f"the {EXCLUDED!r} column holds reasons and must be declared unit = 'text'"
    return None


def _suffix_unit(name: str) -> str | None:
    for suffix, unit in SUFFIX_UNITS.items():  # longest suffixes first
        if name.endswith(suffix) or name == suffix[1:]:
            return unit
    return None


def parse_sidecar(text: str, origin: str = "<sidecar>") -> dict[str, Any]:
    """Parse and check provenance sidecar TOML; returns the document as a dict.

    Required: ``title``, ``[source]`` with ``citation`` and ``location``, ``[method]`` with
    ``how`` (one of :data:`METHODS`) and ``details``, and ``[columns.NAME]`` with ``unit`` and
    ``description`` for every column. Optional: ``format`` (1), ``description``, ``notes``,
    ``source.seed``/``doi``/``url``, ``[exclusions]`` (short reason -> explanation),
    ``[[row_notes]]`` (``where`` = {column = value}, ``note``), and per column ``integer``,
    ``choices`` (text columns) and ``minimum`` (numeric columns).
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise _error(origin, f"malformed TOML: {err}") from None
    return _check_sidecar(doc, text, origin)


def _check_sidecar(doc: dict[str, Any], text: str, origin: str) -> dict[str, Any]:
    """Check a parsed sidecar in place; ``text`` (may be empty) locates lines for messages."""

    def fail(problem: str, *names: str, column: str | None = None):
        return _error(origin, problem, _toml_line(text, *names), column)

    for key in doc:
        if key not in _TOP_KEYS:
            raise fail(f"unknown key {key!r} (known: {', '.join(_TOP_KEYS)})", key)
    version = doc.get("format", FORMAT_VERSION)
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise fail(f"format {version!r} is not supported (this icnperf reads format "
                   f"{FORMAT_VERSION})", "format")
    if not isinstance(doc.get("title"), str) or not doc["title"].strip():
        raise fail("'title' must be non-empty text", "title")
    if not isinstance(doc.get("description", ""), str):
        raise fail("'description' must be text", "description")
    notes = doc.get("notes", [])
    if isinstance(notes, str):
        notes = [notes]
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise fail("'notes' must be text or a list of texts", "notes")
    doc["notes"] = notes

    _check_section(doc, "source", _SOURCE_KEYS, ("citation", "location"), fail)
    _check_section(doc, "method", _METHOD_KEYS, _METHOD_KEYS, fail)
    if doc["method"]["how"] not in METHODS:
        raise fail(f"method.how {doc['method']['how']!r} is not one of {', '.join(METHODS)}",
                   "method", "how")

    columns = doc.get("columns")
    if not isinstance(columns, dict) or not columns:
        raise fail("needs a [columns.NAME] table (unit, description) for every CSV column",
                   "columns")
    for name, spec in columns.items():
        _check_column_spec(name, spec, fail)

    exclusions = doc.get("exclusions", {})
    if not isinstance(exclusions, dict) or not all(
        isinstance(k, str) and k.strip() and isinstance(v, str) and v.strip()
        for k, v in exclusions.items()
    ):
        raise fail("[exclusions] must map each short reason to a non-empty explanation",
                   "exclusions")
    doc["exclusions"] = exclusions

    row_notes = doc.get("row_notes", [])
    if not isinstance(row_notes, list):
        raise fail("'row_notes' must be an array of tables ([[row_notes]])", "row_notes")
    for entry in row_notes:
        if not isinstance(entry, dict) or set(entry) != set(_ROW_NOTE_KEYS):
            raise fail("each [[row_notes]] needs exactly 'where' and 'note'", "row_notes")
        where = entry["where"]
        if not isinstance(entry["note"], str) or not entry["note"].strip():
            raise fail("a [[row_notes]] note must be non-empty text", "row_notes")
        if not isinstance(where, dict) or not where or not all(
            k in columns and isinstance(v, (str, int, float)) and not isinstance(v, bool)
            for k, v in where.items()
        ):
            raise fail("a [[row_notes]] 'where' must map declared columns to values",
                       "row_notes")
    doc["row_notes"] = row_notes
    return doc


def _check_section(doc, section, known, required, fail) -> None:
    table = doc.get(section)
    if not isinstance(table, dict):
        raise fail(f"needs a [{section}] table with {', '.join(required)}", section)
    for key, value in table.items():
        if key not in known:
            raise fail(f"unknown key {section}.{key} (known: {', '.join(known)})", section, key)
        if not isinstance(value, str):
            raise fail(f"{section}.{key} must be text", section, key)
    for key in required:
        if not table.get(key, "").strip():
            raise fail(f"[{section}] needs a non-empty {key!r}", section)


def _check_column_spec(name, spec, fail) -> None:
    if not _NAME_RE.fullmatch(name):
        raise fail("column names are lower-case letters, digits and '_', starting with a "
                   "letter", "columns", name, column=name)
    if not isinstance(spec, dict):
        raise fail("must be a table with 'unit' and 'description'", "columns", name,
                   column=name)
    for key in spec:
        if key not in _COLUMN_KEYS:
            raise fail(f"unknown key {key!r} (known: {', '.join(_COLUMN_KEYS)})",
                       "columns", name, column=name)
    unit = spec.get("unit")
    if not isinstance(unit, str):
        raise fail("no unit declared (unit = 's', 'B', '1', 'text', ...)", "columns", name,
                   column=name)
    problem = _unit_problem(name, unit)
    if problem:
        raise fail(problem, "columns", name, column=name)
    if not isinstance(spec.get("description"), str) or not spec["description"].strip():
        raise fail("needs a non-empty 'description'", "columns", name, column=name)
    if "integer" in spec and (not isinstance(spec["integer"], bool) or unit == TEXT):
        raise fail("'integer' must be true or false, on a numeric column", "columns", name,
                   column=name)
    if "choices" in spec:
        choices = spec["choices"]
        if unit != TEXT or not isinstance(choices, list) or not choices or not all(
            isinstance(c, str) for c in choices
        ):
            raise fail("'choices' must be a non-empty list of texts, on a text column",
                       "columns", name, column=name)
    if "minimum" in spec:
        minimum = spec["minimum"]
        if unit == TEXT or isinstance(minimum, bool) or not isinstance(minimum, (int, float)) \
                or not math.isfinite(minimum):
            raise fail("'minimum' must be a finite number, on a numeric column",
                       "columns", name, column=name)


# ------------------------------------------------------------------------------------ CSV


def _records(text: str, origin: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """(header, [(line, fields), ...]) with blank lines skipped; CSV syntax errors raised."""
    text = text.removeprefix("\ufeff")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    header_line = 0
    rows: list[tuple[int, list[str]]] = []
    previous = 0
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as err:
            raise _error(origin, f"CSV syntax error: {err}", previous + 1) from None
        start, previous = previous + 1, reader.line_num
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue
        if header is None:
            header, header_line = fields, start
        else:
            rows.append((start, fields))
    if header is None:
        raise _error(origin, "empty file: expected a header line naming the columns")
    if header_line != 1:
        raise _error(origin, "the header must be the first line", header_line)
    return header, rows


def _check_header(header: list[str], origin: str) -> list[str]:
    names = [h.strip() for h in header]
    seen: set[str] = set()
    for position, name in enumerate(names, 1):
        if not name:
            raise _error(origin, f"header column {position} has no name", 1)
        if not _NAME_RE.fullmatch(name):
            raise _error(origin, "column names are lower-case letters, digits and '_', "
                         "starting with a letter", 1, name)
        if name in seen:
            raise _error(origin, "duplicate header column", 1, name)
        seen.add(name)
    return names


def _infer_unit(name: str, values: list[str]) -> str:
    """Unit of a column when there is no sidecar: its suffix, else numeric or text by content."""
    suffix_unit = _suffix_unit(name)
    if suffix_unit is not None:
        return suffix_unit
    if name == EXCLUDED:
        return TEXT
    filled = [v.strip() for v in values if v.strip()]
    if filled and all(_NUMBER_RE.fullmatch(v) or _NONFINITE_RE.fullmatch(v) for v in filled):
        return DIMENSIONLESS
    return TEXT


def _parse_number(raw: str, unit: str, spec: Mapping[str, Any], origin, line, name) -> float:
    value = raw.strip()
    if not value:
        raise _error(origin, f"empty value in a numeric column (unit {unit!r})", line, name)
    if _NONFINITE_RE.fullmatch(value):
        raise _error(origin, f"{_show(value)} is not a finite number", line, name)
    if not _NUMBER_RE.fullmatch(value):
        hint = ""
        if _DECIMAL_COMMA_RE.fullmatch(value):
            hint = " (write the decimal separator as '.')"
        elif _suffix_unit(name) is not None and re.match(r"[+-]?[0-9.]", value):
            hint = f" (values are plain numbers in {unit}; no unit text)"
        raise _error(origin, f"{_show(value)} is not a number{hint}", line, name)
    number = float(value) + 0.0
    if not math.isfinite(number):
        raise _error(origin, f"{_show(value)} is not a finite number (too large)", line, name)
    if number < 0 and unit in _SI_UNITS:
        what = "time" if unit == "s" else f"value in {unit}"
        raise _error(origin, f"negative {what} {_show(value)}", line, name)
    minimum = spec.get("minimum")
    if minimum is not None and number < minimum:
        raise _error(origin, f"{_show(value)} is below the declared minimum {minimum:g}",
                     line, name)
    if spec.get("integer") and (not number.is_integer() or abs(number) > _MAX_EXACT_INTEGER):
        raise _error(origin, f"{_show(value)} is not a whole number", line, name)
    return number


def read_csv_text(
    text: str,
    origin: str = "<text>",
    sidecar: str | Mapping[str, Any] | None = None,
    sidecar_origin: str | None = None,
    name: str | None = None,
) -> MeasurementTable:
    """Parse measurement CSV text into a checked :class:`MeasurementTable`.

    ``sidecar`` is the provenance TOML text (or an already parsed sidecar); without one the
    units come from the column-name suffixes and unsuffixed columns are dimensionless when
    all their values are numbers, text otherwise. ``origin`` names the CSV in messages,
    ``sidecar_origin`` the sidecar. Raises :class:`DataError` (one line) for any problem.
    """
    if not isinstance(text, str):
        raise _error(origin, f"expected CSV text, got {type(text).__name__}")
    sidecar_origin = sidecar_origin or f"{origin} (sidecar)"
    if isinstance(sidecar, str):
        meta: dict[str, Any] | None = parse_sidecar(sidecar, sidecar_origin)
    elif isinstance(sidecar, Mapping):
        meta = _check_sidecar(_thaw(sidecar), "", sidecar_origin)
    elif sidecar is not None:
        raise TypeError(f"sidecar must be TOML text or a mapping, not {type(sidecar).__name__}")
    else:
        meta = None
    sidecar_name = Path(sidecar_origin).name

    header, records = _records(text, origin)
    names = _check_header(header, origin)
    width = len(names)
    for line, fields in records:
        if len(fields) != width:
            raise _error(origin, f"{len(fields)} values but the header has {width} columns",
                         line)
    if not records:
        raise _error(origin, "no data rows after the header")
    raw_columns = {n: [fields[i] for _, fields in records] for i, n in enumerate(names)}
    lines = tuple(line for line, _ in records)

    specs: dict[str, Mapping[str, Any]] = {}
    if meta is not None:
        declared = meta.get("columns", {})
        for column in names:
            if column not in declared:
                raise _error(origin, f"no unit declared: add [columns.{column}] with unit "
                             f"and description to {sidecar_name}", 1, column)
        for column in declared:
            if column not in names:
                raise _error(origin, f"column declared in {sidecar_name} is missing from "
                             "the header", 1, column)
        specs = {c: declared[c] for c in names}
        units = {c: specs[c]["unit"] for c in names}
    else:
        units = {c: _infer_unit(c, raw_columns[c]) for c in names}
        for column, unit in units.items():
            problem = _unit_problem(column, unit)
            if problem:  # pragma: no cover - inference only yields consistent units
                raise _error(origin, problem, 1, column)

    columns: dict[str, Any] = {}
    for column in names:
        unit, spec = units[column], specs.get(column, {})
        raw = raw_columns[column]
        if unit == TEXT:
            values = tuple(v.strip() for v in raw)
            choices = spec.get("choices")
            if choices is not None:
                for line, value in zip(lines, values):
                    if value not in choices:
                        raise _error(origin, f"{_show(value)} is not one of "
                                     f"{', '.join(map(repr, choices))}", line, column)
            columns[column] = values
        else:
            numbers = [_parse_number(v, unit, spec, origin, line, column)
                       for line, v in zip(lines, raw)]
            dtype = np.int64 if spec.get("integer") else np.float64
            columns[column] = np.array(numbers, dtype=np.float64).astype(dtype)

    if meta is not None:
        _check_exclusions(meta, columns, lines, origin, sidecar_origin)
        _check_row_notes(meta, columns, units, sidecar_origin)
    table_name = name or Path(origin).stem or origin
    return MeasurementTable(
        name=table_name,
        title=(meta or {}).get("title", table_name),
        columns=columns,
        units=units,
        provenance=meta or {},
        origin=origin,
        lines=lines,
    )


def _check_exclusions(meta, columns, lines, origin, sidecar_origin) -> None:
    explained = meta.get("exclusions", {})
    reasons = columns.get(EXCLUDED, ())
    for line, reason in zip(lines, reasons):
        if reason and reason not in explained:
            raise _error(origin, f"exclusion reason {_show(reason)} is not explained in "
                         f"[exclusions] of {Path(sidecar_origin).name}", line, EXCLUDED)
    used = set(reasons)
    for reason in explained:
        if reason not in used:
            raise _error(sidecar_origin, f"[exclusions] explains {_show(reason)} but no row "
                         "of the CSV gives that reason")


def _check_row_notes(meta, columns, units, sidecar_origin) -> None:
    for entry in meta.get("row_notes", []):
        mask = None
        for column, wanted in entry["where"].items():
            values = columns[column]
            if units[column] == TEXT:
                hits = np.array([v == str(wanted) for v in values], dtype=bool)
            elif isinstance(wanted, str):
                hits = np.zeros(len(values), dtype=bool)
            else:
                hits = np.asarray(values, dtype=np.float64) == float(wanted)
            mask = hits if mask is None else mask & hits
        if mask is None or not mask.any():
            raise _error(sidecar_origin, f"[[row_notes]] where = {dict(entry['where'])} "
                         "matches no row of the CSV")


# ---------------------------------------------------------------------------- loading files


def _bundled_dir():
    return resources.files("icnperf").joinpath("data", "measurements")


def _bundled_names() -> list[str]:
    directory = _bundled_dir()
    if not directory.is_dir():
        return []
    return sorted(e.name[: -len(".csv")] for e in directory.iterdir() if e.name.endswith(".csv"))


def list_tables() -> list[tuple[str, str]]:
    """(name, title) of every bundled measurement table, sorted by name."""
    out = []
    for name in _bundled_names():
        sidecar = _bundled_dir().joinpath(f"{name}.toml")
        origin = f"icnperf/data/measurements/{name}.toml"
        if not sidecar.is_file():
            raise _error(f"icnperf/data/measurements/{name}.csv",
                         f"bundled table has no provenance sidecar ({name}.toml is missing)")
        meta = parse_sidecar(sidecar.read_text(encoding="utf-8"), origin)
        out.append((name, meta["title"]))
    return out


def load_table(name_or_path: str | os.PathLike) -> MeasurementTable:
    """A bundled table by name (``npb-is-gige-class-c``) or a CSV file by path.

    Anything with a path separator or ending in ``.csv`` (or a ``PathLike``) is a path; its
    sidecar, if any, is the ``.toml`` file of the same stem beside it. A bundled table must
    have its sidecar. Raises :class:`DataError` for unknown names and invalid files.
    """
    if isinstance(name_or_path, os.PathLike):
        name_or_path = os.fspath(name_or_path)
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        raise DataError("measurements: give a bundled table name or a path to a .csv file")
    name_or_path = name_or_path.strip()
    if looks_like_path(name_or_path):
        path = Path(name_or_path)
        text = read_text_file(path, "measurement file")
        sidecar_path = path.with_suffix(".toml")
        sidecar = read_text_file(sidecar_path, "sidecar") if sidecar_path.is_file() else None
        return read_csv_text(text, origin=str(path), sidecar=sidecar,
                             sidecar_origin=str(sidecar_path), name=path.stem)
    names = _bundled_names()
    if not _TABLE_NAME_RE.fullmatch(name_or_path) or name_or_path not in names:
        raise DataError(f"unknown measurement table {name_or_path!r} (bundled: "
                        f"{', '.join(names) or 'none'}; or give a path to a .csv file)")
    csv_origin = f"icnperf/data/measurements/{name_or_path}.csv"
    sidecar_origin = f"icnperf/data/measurements/{name_or_path}.toml"
    directory = _bundled_dir()
    sidecar = directory.joinpath(f"{name_or_path}.toml")
    if not sidecar.is_file():
        raise _error(csv_origin, f"bundled table has no provenance sidecar "
                     f"({name_or_path}.toml is missing)")
    return read_csv_text(
        directory.joinpath(f"{name_or_path}.csv").read_text(encoding="utf-8-sig"),
        origin=csv_origin,
        sidecar=sidecar.read_text(encoding="utf-8"),
        sidecar_origin=sidecar_origin,
        name=name_or_path,
    )
