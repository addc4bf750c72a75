"""The document of ``icnperf.explain_collective`` (:func:`explanation_document`): the
model's explanation (icnperf.model.explain) as the command's JSON, with ``--uncertainty``'s
range shares (:func:`range_rows`), ``--algorithm auto``'s pick (:func:`auto_algorithm`)
and the size read from ``--bytes`` (:func:`message_size`)."""

from __future__ import annotations

from icnperf.errors import InputError

DEFAULT_BYTES = "256B"
"""Default message size: one full Angara packet (16 flits of 16 B), the size of the Angara
paper's Fig. 7 (Mukosey 2015 §3.1)."""


def message_size(text: str) -> float:
    """``--bytes``: one size in bytes > 0 (InputError otherwise)."""
    from icnperf.units import parse_quantity

    size = parse_quantity(text, "size", default_unit="B")
    if size <= 0:
        raise InputError(f"--bytes must be > 0, not {text!r}")
    return size


def auto_algorithm(machine, operation: str, layout, size: float) -> tuple[str, str]:
    """(algorithm, rule) ``--algorithm auto`` picks on this layout (the MPI library's
    default, collectives.library_rules); InputError when it has no closed form."""
    from icnperf.model import collectives

    ranks = collectives.machine_layout(machine, layout).endpoints
    algorithm, rule, _ = collectives.machine_choice(machine, operation, size, ranks)
    if algorithm not in collectives.ALGORITHMS:
        raise InputError(f"auto picks {algorithm} ({rule}), which has no closed form to "
                         "explain; use predict collective --algorithm auto")
    return algorithm, rule


def formula_pieces(expression) -> list[str]:
    """The top-level terms of a SymPy ``expression`` in SymPy's plain syntax, each after
    the first with its sign (``+ b``, ``- c``): what the table breaks the formula between."""
    import sympy as sp

    terms = expression.as_ordered_terms() if isinstance(expression, sp.Add) else [expression]
    pieces = []
    for i, term in enumerate(terms):
        if i and term.could_extract_minus_sign():
            pieces.append("- " + sp.sstr(-term))
        else:
            pieces.append(("+ " if i else "") + sp.sstr(term))
    return pieces


def explanation_document(machine, explanation, inputs: dict) -> dict:
    """The JSON layout of ``icnperf explain collective``."""
    rows = [elasticity_row(e) for e in explanation.elasticities]
    return {
        "inputs": inputs,
        "machine": machine.name,
        "layout": explanation.layout,
        "operation": explanation.operation,
        "algorithm": explanation.algorithm,
        "bytes": explanation.bytes,
        "formula": {"text": explanation.text, "latex": explanation.latex,
                    "symbols": explanation.symbols},
        "time_s": explanation.time,
        "structure": explanation.structure,
        "share_sum": explanation.share_sum,
        "elasticities": rows,
        "assumptions": list(explanation.assumptions),
    }


def elasticity_row(e) -> dict:
    """One elasticity (model.explain) as a row of the document."""
    return {"symbol": e.symbol, "parameter": e.parameter, "key": e.key, "kind": e.kind,
            "value": e.value, "derivative": e.derivative, "elasticity": e.elasticity,
            "method": e.method, "note": e.note}


def range_rows(machine, rows: list[dict], time: float) -> list[dict]:
    """The elasticity rows with each input's spread (``spread``, ``spread_kind``), the
    relative half-width of T it gives alone and its share of the range
    (model.uncertainty.range_shares). First order, with the correlation rule: a value
    solved from a measured sum stands for the sum (its row counts the measurement's spread
    at dT/dx), and each part it was solved with counts at dT/dpart - dT/dx, since the
    solved value moves against the part. A value with no stated spread counts as exact."""
    from icnperf.model.uncertainty import range_shares

    derivative = {row["key"]: row["derivative"] for row in rows}
    effective = dict(derivative)
    spreads = [machine.spread(row["key"]) if "." in row["key"] else None for row in rows]
    for row, spread in zip(rows, spreads):
        for part in spread.solved_with if spread is not None else ():
            if part in effective:
                effective[part] -= derivative[row["key"]]
    halves = []
    for row, spread in zip(rows, spreads):
        value = row["value"]
        if spread is not None and spread.solved_with:
            value += sum(float(machine.get_path(p)) for p in spread.solved_with)
        halves.append(_half_width(value, spread))
    parts = [abs(effective[row["key"]]) * half / time if time else 0.0
             for row, half in zip(rows, halves)]
    shares = range_shares([1.0] * len(parts), parts)
    return [{**row, "spread": "-" if spread is None else spread.text(),
             "spread_kind": None if spread is None else spread.kind,
             "range_contribution": part, "range_share": share}
            for row, spread, part, share in zip(rows, spreads, parts, shares)]


def _half_width(value: float, spread) -> float:
    """A spread as an absolute half-width around ``value`` (SI; ln F of it for a factor)."""
    from icnperf.model.uncertainty import relative_width

    if spread is None or spread.form in ("exact", "alternatives"):
        return 0.0
    if spread.form == "absolute":
        return float(spread.amount)
    return abs(value) * relative_width(value, spread.form, spread.amount)
