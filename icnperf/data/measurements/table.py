"""The measurement table: named columns (float64, int64 or text) with their units, the
parsed provenance sidecar and each row's line in the CSV, read-only; rows marked
``excluded`` are kept apart by :meth:`MeasurementTable.included`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from icnperf.data.measurements.columns import EXCLUDED

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
        object.__setattr__(self, "provenance", freeze(dict(self.provenance)))
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


def freeze(value: Any) -> Any:
    """Read-only copy of parsed TOML: tables -> mappingproxy, arrays -> tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """A mutable deep copy of (possibly frozen) parsed TOML."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value
