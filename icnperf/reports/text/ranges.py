"""``--uncertainty`` in the predict tables, rendered: the rows the API hands over carry each
ranged field's low and high ends (``<field>_low``, ``<field>_high``); a "low–high" column
after each headline column, and the line saying how they were drawn."""

from __future__ import annotations

from typing import Sequence

from icnperf.reports.render import Column


def cell_text(row: dict, key: str, fmt) -> str:
    """"low–high" of ``key`` in ``row``, each end as ``fmt`` writes it; "-" when absent."""
    low, high = row.get(f"{key}_low"), row.get(f"{key}_high")
    if low is None or high is None:
        return "-"
    return f"{fmt(low)}–{fmt(high)}"


def add_cells(rows: Sequence[dict], fields: Sequence[str], columns: Sequence[Column]) -> list:
    """Rows for the table: each ranged field's "low–high" text under ``<field>_range``."""
    formats = {c.key: c.fmt for c in columns}
    return [{**row, **{f"{f}_range": cell_text(row, f, formats[f]) for f in fields}}
            for row in rows]


def table_columns(columns: Sequence[Column], fields: Sequence[str]) -> tuple[Column, ...]:
    """``columns`` with a "low–high" column (``<field>_range``, already text) after each of
    ``fields``, kept beside it when the table is split into panels."""
    out = []
    for column in columns:
        out.append(column)
        if column.key in fields:
            out.append(Column(f"{column.key}_range", "5-95 %", with_previous=True))
    return tuple(out)


def sampling_line(record: dict) -> str:
    """What the ranges are, in one line: ``record`` the JSON's ``inputs.uncertainty``
    (data.machine.sampling.Sampling.as_dict: samples, seed)."""
    return (f"ranges: 5th-95th percentile over {record['samples']} draws of the inputs within"
            f" their stated uncertainty (seed {record['seed']}; docs/machine-format.md,"
            " 'Uncertainty')")
