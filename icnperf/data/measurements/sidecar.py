"""The provenance sidecar of a measurement table: a TOML file beside the CSV that says where
every number came from (citation, location, method) and what unit every column is in.

The format is described in ``docs/measurement-format.md``. Every problem is a one-line
:class:`~icnperf.errors.DataError` naming the sidecar and, where it can, the line and the
column.
"""

from __future__ import annotations

import math
import re
from typing import Any

from icnperf.data.files import TOMLProblem, load_toml
from icnperf.data.measurements.columns import NAME_RE, TEXT, error, unit_problem

__all__ = ["FORMAT_VERSION", "METHODS", "check_sidecar", "parse_sidecar"]

FORMAT_VERSION = 1
"""The sidecar format this module reads (``format = 1``)."""

METHODS = ("transcribed", "stated-in-text", "digitized", "measured")
"""Values of ``method.how`` in a sidecar: copied from a printed table; numbers stated in a
paper's prose; read off a figure; the user's own measurements."""

_TOP_KEYS = ("format", "title", "description", "notes", "source", "method", "columns",
             "exclusions", "row_notes")
_SOURCE_KEYS = ("citation", "location", "seed", "doi", "url")
_METHOD_KEYS = ("how", "details")
_COLUMN_KEYS = ("unit", "description", "integer", "choices", "minimum")
_ROW_NOTE_KEYS = ("where", "note")


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
        doc = load_toml(text)
    except TOMLProblem as err:
        raise error(origin, f"malformed TOML: {err}") from None
    return check_sidecar(doc, text, origin)


def check_sidecar(doc: dict[str, Any], text: str, origin: str) -> dict[str, Any]:
    """Check a parsed sidecar in place; ``text`` (may be empty) locates lines for messages."""

    def fail(problem: str, *names: str, column: str | None = None):
        return error(origin, problem, _toml_line(text, *names), column)

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
    if not NAME_RE.fullmatch(name):
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
    problem = unit_problem(name, unit)
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
