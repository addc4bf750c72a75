"""The column conventions of a measurement table, and its one-line messages.

Column names carry their unit as a suffix (``total_s`` seconds, ``message_bytes`` bytes,
see :data:`SUFFIX_UNITS`) or are dimensionless numbers (unit ``"1"``) or text (unit
``"text"``). A column named ``excluded`` holds, per row, an empty string (the row is used)
or a short reason why the row must be kept out of fits and checks. The sidecar checks
(:mod:`.sidecar`) and the CSV reader (:mod:`.csv_table`) share these rules.
"""

from __future__ import annotations

import re

from icnperf.errors import DataError, InputError
from icnperf.units import parse_quantity

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

KIND_OF_UNIT = {"s": "time", "B": "size", "B/s": "bandwidth", "Hz": "frequency", "FLOP/s": "rate"}
"""Each SI unit a column may be in -> its units.py kind (for converting a non-SI unit)."""
SI_UNITS = tuple(KIND_OF_UNIT)
ALLOWED_UNITS = (*SI_UNITS, DIMENSIONLESS, TEXT)
"""Every unit a column may declare."""

NAME_RE = re.compile(r"[a-z][a-z0-9_]*")
"""A column name: lower-case letters, digits and '_', starting with a letter."""


# ------------------------------------------------------------------------------- messages


def show(value: str) -> str:
    """A value quoted for a message: one line, not too long."""
    text = value if len(value) <= 40 else value[:37] + "..."
    return repr(text)


def error(origin: str, problem: str, line: int | None = None,
          column: str | None = None) -> DataError:
    """A one-line DataError: ``origin[, line N][, column 'C']: problem``."""
    where = origin
    if line is not None:
        where += f", line {line}"
    if column is not None:
        where += f", column {column!r}"
    return DataError(" ".join(f"{where}: {problem}".split()))


# ---------------------------------------------------------------------------------- units


def unit_problem(name: str, unit: str) -> str | None:
    """Why ``unit`` cannot be the unit of column ``name`` (None when it can)."""
    expected = suffix_unit(name)
    if unit not in ALLOWED_UNITS:
        for kind_unit, kind in KIND_OF_UNIT.items():
            try:
                factor = parse_quantity(f"1 {unit}", kind)
            except InputError:
                continue
            return (f"unit {unit!r} is not SI: store the values in {kind_unit} "
                    f"(1 {unit} = {factor:g} {kind_unit}) and declare unit = {kind_unit!r}")
        return (f"unknown unit {unit!r} (units: {', '.join(repr(u) for u in ALLOWED_UNITS)})")
    if expected is not None and unit != expected:
        return f"the name's suffix says {expected!r} but the unit is declared {unit!r}"
    if expected is None and unit in SI_UNITS:
        suffix = next(s for s, u in SUFFIX_UNITS.items() if u == unit)
        return (f"values in {unit} need a unit suffix in the column name "
                f"(e.g. '{name}{suffix}'); unsuffixed columns are dimensionless or text")
    if name == EXCLUDED and unit != TEXT:
        return f"the {EXCLUDED!r} column holds reasons and must be declared unit = 'text'"
    return None


def suffix_unit(name: str) -> str | None:
    """The SI unit a column name's suffix implies (None without a unit suffix)."""
    for suffix, unit in SUFFIX_UNITS.items():  # longest suffixes first
        if name.endswith(suffix) or name == suffix[1:]:
            return unit
    return None
