"""Look-ups the claim modules share: one row of a measurement table, and a preset by name
or a machine object (the registry skips this module: its name starts with "_")."""
from __future__ import annotations


def table_row(name: str, **where) -> dict:
    """The one included row of measurement table ``name`` whose columns equal ``where``;
    ValueError when none or several match (a claim's reference must be unambiguous)."""
    from icnperf.data.measurements.tables import load_table

    rows = [r for r in load_table(name).included().rows()
            if all(r[k] == v for k, v in where.items())]
    if len(rows) != 1:
        raise ValueError(f"table {name}: {len(rows)} rows match {where}")
    return rows[0]


def as_machine(machine):
    """A preset by name, or the machine object itself (a drawn copy, say)."""
    from icnperf.data.machine import load_machine

    return load_machine(machine) if isinstance(machine, str) else machine
