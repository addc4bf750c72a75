"""The line that says what ``--production`` applied among ``predict p2p|app``'s
(:func:`values_line`, from the document's inputs). The production rows themselves, and
``predict collective``'s line (from the machine's rows), are computed in
icnperf/api/production.py, production_p2p.py and production_app.py."""

from __future__ import annotations


def values_line(values: dict, quantity: str, ranged: bool = True) -> str:
    """What ``--production`` applied to ``predict p2p|app``, in one line: the
    ``[production]`` values (SI, as in the document's inputs) and which ``quantity`` is the
    median, with its range (``ranged``; the report without --uncertainty shows none)."""
    from icnperf.units import format_quantity

    kinds = {"noise_frequency": "frequency", "noise_duration": "time"}
    parts = [f"{key} {format_quantity(value, kinds[key]) if key in kinds else f'{value:g}'}"
             for key, value in values.items()]
    return (f"production: {quantity} is the median over OS noise and background traffic"
            + (", the range its 5-95 %; " if ranged else "; ") + ", ".join(parts)
            + " (docs/machine-format.md, '[production]')")
