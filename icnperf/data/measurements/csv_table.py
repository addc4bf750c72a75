"""Measurement CSV text -> a checked :class:`~.table.MeasurementTable`.

A measurement CSV has a header line naming the columns, then one row per measurement or
claim, values in SI units. With a sidecar (:mod:`.sidecar`) the units, integer columns,
choices, minimums, exclusion reasons and row notes are checked against it; without one the
units come from the column-name suffixes (:mod:`.columns`). Every problem is a one-line
:class:`~icnperf.errors.DataError` naming the file and, where it can, the line and column.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from icnperf.data.measurements.columns import (
    DIMENSIONLESS,
    EXCLUDED,
    NAME_RE,
    SI_UNITS,
    TEXT,
    error,
    show,
    suffix_unit,
    unit_problem,
)
from icnperf.data.measurements.sidecar import check_sidecar, parse_sidecar
from icnperf.data.measurements.table import MeasurementTable, thaw

__all__ = ["read_csv_text"]

_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NONFINITE_RE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_DECIMAL_COMMA_RE = re.compile(r"[+-]?[0-9]+,[0-9]+")
_MAX_EXACT_INTEGER = 2**53


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
            raise error(origin, f"CSV syntax error: {err}", previous + 1) from None
        start, previous = previous + 1, reader.line_num
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue
        if header is None:
            header, header_line = fields, start
        else:
            rows.append((start, fields))
    if header is None:
        raise error(origin, "empty file: expected a header line naming the columns")
    if header_line != 1:
        raise error(origin, "the header must be the first line", header_line)
    return header, rows


def _check_header(header: list[str], origin: str) -> list[str]:
    names = [h.strip() for h in header]
    seen: set[str] = set()
    for position, name in enumerate(names, 1):
        if not name:
            raise error(origin, f"header column {position} has no name", 1)
        if not NAME_RE.fullmatch(name):
            raise error(origin, "column names are lower-case letters, digits and '_', "
                        "starting with a letter", 1, name)
        if name in seen:
            raise error(origin, "duplicate header column", 1, name)
        seen.add(name)
    return names


def _infer_unit(name: str, values: list[str]) -> str:
    """Unit of a column when there is no sidecar: its suffix, else numeric or text by content."""
    by_suffix = suffix_unit(name)
    if by_suffix is not None:
        return by_suffix
    if name == EXCLUDED:
        return TEXT
    filled = [v.strip() for v in values if v.strip()]
    if filled and all(_NUMBER_RE.fullmatch(v) or _NONFINITE_RE.fullmatch(v) for v in filled):
        return DIMENSIONLESS
    return TEXT


def _parse_number(raw: str, unit: str, spec: Mapping[str, Any], origin, line, name) -> float:
    value = raw.strip()
    if not value:
        raise error(origin, f"empty value in a numeric column (unit {unit!r})", line, name)
    if _NONFINITE_RE.fullmatch(value):
        raise error(origin, f"{show(value)} is not a finite number", line, name)
    if not _NUMBER_RE.fullmatch(value):
        hint = ""
        if _DECIMAL_COMMA_RE.fullmatch(value):
            hint = " (write the decimal separator as '.')"
        elif suffix_unit(name) is not None and re.match(r"[+-]?[0-9.]", value):
            hint = f" (values are plain numbers in {unit}; no unit text)"
        raise error(origin, f"{show(value)} is not a number{hint}", line, name)
    number = float(value) + 0.0
    if not math.isfinite(number):
        raise error(origin, f"{show(value)} is not a finite number (too large)", line, name)
    if number < 0 and unit in SI_UNITS:
        what = "time" if unit == "s" else f"value in {unit}"
        raise error(origin, f"negative {what} {show(value)}", line, name)
    minimum = spec.get("minimum")
    if minimum is not None and number < minimum:
        raise error(origin, f"{show(value)} is below the declared minimum {minimum:g}",
                    line, name)
    if spec.get("integer") and (not number.is_integer() or abs(number) > _MAX_EXACT_INTEGER):
        raise error(origin, f"{show(value)} is not a whole number", line, name)
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
        raise error(origin, f"expected CSV text, got {type(text).__name__}")
    sidecar_origin = sidecar_origin or f"{origin} (sidecar)"
    if isinstance(sidecar, str):
        meta: dict[str, Any] | None = parse_sidecar(sidecar, sidecar_origin)
    elif isinstance(sidecar, Mapping):
        meta = check_sidecar(thaw(sidecar), "", sidecar_origin)
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
            raise error(origin, f"{len(fields)} values but the header has {width} columns",
                        line)
    if not records:
        raise error(origin, "no data rows after the header")
    raw_columns = {n: [fields[i] for _, fields in records] for i, n in enumerate(names)}
    lines = tuple(line for line, _ in records)

    specs: dict[str, Mapping[str, Any]] = {}
    if meta is not None:
        declared = meta.get("columns", {})
        for column in names:
            if column not in declared:
                raise error(origin, f"no unit declared: add [columns.{column}] with unit "
                            f"and description to {sidecar_name}", 1, column)
        for column in declared:
            if column not in names:
                raise error(origin, f"column declared in {sidecar_name} is missing from "
                            "the header", 1, column)
        specs = {c: declared[c] for c in names}
        units = {c: specs[c]["unit"] for c in names}
    else:
        units = {c: _infer_unit(c, raw_columns[c]) for c in names}
        for column, unit in units.items():
            problem = unit_problem(column, unit)
            if problem:  # pragma: no cover - inference only yields consistent units
                raise error(origin, problem, 1, column)

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
                        raise error(origin, f"{show(value)} is not one of "
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
            raise error(origin, f"exclusion reason {show(reason)} is not explained in "
                        f"[exclusions] of {Path(sidecar_origin).name}", line, EXCLUDED)
    used = set(reasons)
    for reason in explained:
        if reason not in used:
            raise error(sidecar_origin, f"[exclusions] explains {show(reason)} but no row "
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
            raise error(sidecar_origin, f"[[row_notes]] where = {dict(entry['where'])} "
                        "matches no row of the CSV")
