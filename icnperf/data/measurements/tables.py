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

The pieces live beside this module: :mod:`.columns` (unit suffixes, messages),
:mod:`.table` (:class:`MeasurementTable`), :mod:`.sidecar` (the provenance TOML) and
:mod:`.csv_table` (CSV text -> table). This module loads files and bundled tables and is
the front door: ``from icnperf.data.measurements.tables import load_table, ...``.

Every problem with a file is a one-line :class:`~icnperf.errors.DataError` naming the file,
and where it can the line and the column. This module reads files; the model never imports
it.
"""

from __future__ import annotations

import os
import re
from importlib import resources
from pathlib import Path

from icnperf.data.files import looks_like_path, path_exists, printable, read_text_file
from icnperf.data.measurements.columns import DIMENSIONLESS, EXCLUDED, SUFFIX_UNITS, TEXT, error
from icnperf.data.measurements.csv_table import read_csv_text
from icnperf.data.measurements.sidecar import FORMAT_VERSION, METHODS, parse_sidecar
from icnperf.data.measurements.table import MeasurementTable
from icnperf.errors import DataError

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

_TABLE_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]*")


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
            raise error(f"icnperf/data/measurements/{name}.csv",
                        f"bundled table has no provenance sidecar ({name}.toml is missing)")
        meta = parse_sidecar(sidecar.read_text(encoding="utf-8"), origin)
        out.append((name, meta["title"]))
    return out


def _load_file(path: Path) -> MeasurementTable:
    """A measurement CSV file and, when present, its sidecar (same stem, ``.toml``)."""
    text = read_text_file(path, "measurement file")
    sidecar_path = path.with_suffix(".toml")
    sidecar = read_text_file(sidecar_path, "sidecar") if path_exists(sidecar_path) else None
    return read_csv_text(text, origin=printable(path), sidecar=sidecar,
                         sidecar_origin=printable(sidecar_path), name=printable(path.stem))


def load_table(name_or_path: str | os.PathLike) -> MeasurementTable:
    """A bundled table by name (``npb-is-gige-class-c``) or a CSV file by path.

    A ``PathLike`` is always a path (``Path("./npb-is-gige-class-c")`` is the file of that
    name, not the bundled table: ``Path`` drops the ``./``), and so is a string with a path
    separator or ending in ``.csv``; its sidecar, if any, is the ``.toml`` file of the same
    stem beside it. Files are read within the input limits of :mod:`icnperf.data.files`. A
    bundled table must have its sidecar. Raises :class:`DataError` for unknown names and
    invalid files.
    """
    if isinstance(name_or_path, os.PathLike):
        return _load_file(Path(name_or_path))
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        raise DataError("measurements: give a bundled table name or a path to a .csv file")
    name_or_path = name_or_path.strip()
    if looks_like_path(name_or_path):
        return _load_file(Path(name_or_path))
    names = _bundled_names()
    if not _TABLE_NAME_RE.fullmatch(name_or_path) or name_or_path not in names:
        raise DataError(f"unknown measurement table {name_or_path!r} (bundled: "
                        f"{', '.join(names) or 'none'}; or give a path to a .csv file)")
    csv_origin = f"icnperf/data/measurements/{name_or_path}.csv"
    sidecar_origin = f"icnperf/data/measurements/{name_or_path}.toml"
    directory = _bundled_dir()
    sidecar = directory.joinpath(f"{name_or_path}.toml")
    if not sidecar.is_file():
        raise error(csv_origin, f"bundled table has no provenance sidecar "
                    f"({name_or_path}.toml is missing)")
    return read_csv_text(
        directory.joinpath(f"{name_or_path}.csv").read_text(encoding="utf-8-sig"),
        origin=csv_origin,
        sidecar=sidecar.read_text(encoding="utf-8"),
        sidecar_origin=sidecar_origin,
        name=name_or_path,
    )
