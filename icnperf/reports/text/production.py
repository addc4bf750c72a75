"""The lines that say what ``--production`` applied: under ``predict collective``'s table
(:func:`production_line`, from the machine's rows) and among ``predict p2p|app``'s
(:func:`values_line`, from the document's inputs). The production rows themselves are
computed in icnperf/api/production.py."""

from __future__ import annotations


def production_line(machine) -> str:
    """What ``--production`` applied, in one line."""
    parts = [f"{key} {text}" for section, key, _, text, _ in machine.rows()
             if section == "production"]
    return ("production: time is the median over OS noise and background traffic, the "
            "range its 5-95 %; " + ", ".join(parts) + " (docs/machine-format.md, "
            "'[production]'); ratios are the empty machine's")


def values_line(values: dict, quantity: str) -> str:
    """What ``--production`` applied to ``predict p2p|app``, in one line: the
    ``[production]`` values (SI, as in the document's inputs) and which ``quantity`` is the
    median with its range."""
    from icnperf.units import format_quantity

    kinds = {"noise_frequency": "frequency", "noise_duration": "time"}
    parts = [f"{key} {format_quantity(value, kinds[key]) if key in kinds else f'{value:g}'}"
             for key, value in values.items()]
    return (f"production: {quantity} is the median over OS noise and background traffic, "
            "the range its 5-95 %; " + ", ".join(parts)
            + " (docs/machine-format.md, '[production]')")
