"""``icnperf explain collective`` and ``icnperf crossover collective``: the formula of a
collective with its elasticities, and where one algorithm overtakes another by a factor.

The model (``icnperf.model.explain``) returns records; this module shapes them into rows and
text. SymPy is imported (by the model) only when ``explain_text`` runs.
"""

from __future__ import annotations

import re

from icnperf.errors import InputError
from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text, number, require_finite

DEFAULT_BYTES = "256B"
"""Default message size: one full Angara packet (16 flits of 16 B), the size of the Angara
paper's Fig. 7 (Mukosey 2015 §3.1)."""

FORMULA_WIDTH = 88
"""The plain formula is broken between its terms to lines of about this many characters."""

_STRUCTURE_LABELS = {
    "endpoints": "endpoints (nodes)",
    "radices": "torus radices",
    "diameter": "diameter (hops)",
    "depth": "tree depth D",
    "ties": "equal-depth ties t",
    "span_hops": "switch aggregation path hops",
    "steps": "steps (rounds)",
    "distinct_steps": "distinct steps",
    "max_step_hops": "largest step hops",
    "max_step_load": "largest step channel load",
    "bytes": "message size m",
    "flit_size": "flit size f",
    "packet_max_flits": "flits per packet",
    "packet_header_flits": "header flits H",
    "store_and_forward": "p2p store-and-forward s",
    "collective_store_and_forward": "collective store-and-forward s_c",
    "collective_trees": "collective trees N_t",
}

ELASTICITY_KEYS = ("symbol", "parameter", "key", "kind", "value", "derivative", "elasticity",
                   "method", "note")

SCAN_KEYS = ("value", "layout", "time_faster_s", "time_slower_s", "ratio", "reaches_factor")


def _quantity(kind: str, digits: int = 3):
    from icnperf.units import format_quantity

    return lambda value: format_quantity(value, kind, digits)


def _parameter_value(row: dict) -> str:
    from icnperf.units import format_quantity

    if row["kind"] == "time":
        return format_quantity(row["value"], "time", 4)
    if row["kind"] == "bandwidth":
        return format_quantity(row["value"], "bandwidth", 4)
    return f"{row['value']:g} s/B"


ELASTICITY_COLUMNS = (
    Column("symbol", "symbol"),
    Column("key", "machine key"),
    Column("_value", "value"),
    Column("derivative", "dT/dx", number(4)),
    Column("elasticity", "elasticity", lambda e: f"{e:+.4f}"),
    Column("elasticity", "share", lambda e: f"{abs(e) * 100:.1f}%"),
    Column("method", "method"),
)


RANGE_KEYS = ("spread", "spread_kind", "range_contribution", "range_share")
"""``--uncertainty``: an input's spread as written, its kind, the relative half-width of T
it gives alone (first order) and its share of the prediction's range."""

RANGE_COLUMNS = ELASTICITY_COLUMNS[:-1] + (
    Column("spread", "spread"),
    Column("range_share", "range share", lambda s: f"{s * 100:.1f}%"),
    ELASTICITY_COLUMNS[-1],
)


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


# --- shared inputs ----------------------------------------------------------------------


def parse_shape(text: str) -> tuple[int, ...]:
    """``16x16x32`` -> (16, 16, 32); InputError unless every radix is a whole number >= 2."""
    parts = re.split(r"[x×X]", text.strip())
    if not all(p.strip().isdigit() for p in parts) or not all(int(p) >= 2 for p in parts):
        raise InputError(f"bad --shape {text!r}: write torus radices like 16x16x32 (each a "
                         "whole number >= 2)")
    return tuple(int(p) for p in parts)


def layout_for(topology: str, nodes: int | None, shape: str | None,
               system_nodes: int | None = None):
    """The layout of a collective: ``--shape`` if given (checked against ``--nodes``), else
    the machine's torus reshaped to ``--nodes`` (predict's layouts_for: balanced radices in
    its dimension count), or a job of ``--nodes`` on a fat tree or dragonfly as it is, else
    the machine's own job (``Layout.machine_job``: ``system_nodes`` of a larger network)."""
    from icnperf.model.collectives import Layout
    from icnperf.reports.text.predict import layouts_for

    if shape is not None:
        layout = Layout.torus(parse_shape(shape))
        if nodes is not None and nodes != layout.endpoints:
            raise InputError(f"--shape {shape} has {layout.endpoints} nodes, not --nodes "
                             f"{nodes}")
        return layout
    base = Layout.from_topology(topology)
    if nodes is None:
        return Layout.machine_job(topology, system_nodes)
    if nodes == base.endpoints:
        return base
    return layouts_for(topology, str(nodes), None)[0]


def _machine(machine_name: str, overrides):
    from icnperf.data.machine import load_machine

    return load_machine(machine_name).with_overrides(list(overrides))


def _size(text: str) -> float:
    from icnperf.units import parse_quantity

    size = parse_quantity(text, "size", default_unit="B")
    if size <= 0:
        raise InputError(f"--bytes must be > 0, not {text!r}")
    return size


# --- explain ----------------------------------------------------------------------------


def plain_formula(expression, width: int = FORMULA_WIDTH) -> str:
    """``T = a + b ...`` in SymPy's plain syntax, broken between top-level terms."""
    import sympy as sp

    terms = expression.as_ordered_terms() if isinstance(expression, sp.Add) else [expression]
    pieces = []
    for i, term in enumerate(terms):
        if i and term.could_extract_minus_sign():
            pieces.append("- " + sp.sstr(-term))
        else:
            pieces.append(("+ " if i else "") + sp.sstr(term))
    lines = ["T = " + pieces[0]]
    for piece in pieces[1:]:
        if len(lines[-1]) + 1 + len(piece) > width:
            lines.append("    " + piece)
        else:
            lines[-1] += " " + piece
    return "\n".join(lines)


def explanation_document(machine, explanation, inputs: dict) -> dict:
    """The JSON layout of ``icnperf explain collective``."""
    rows = [_elasticity_row(e) for e in explanation.elasticities]
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


def _elasticity_row(e) -> dict:
    return {"symbol": e.symbol, "parameter": e.parameter, "key": e.key, "kind": e.kind,
            "value": e.value, "derivative": e.derivative, "elasticity": e.elasticity,
            "method": e.method, "note": e.note}


def _structure_rows(structure: dict) -> list[dict]:
    from icnperf.units import format_quantity

    rows = []
    for key, value in structure.items():
        if key in ("bytes", "flit_size"):
            shown = format_quantity(value, "size", 4)
        elif key in ("store_and_forward", "collective_store_and_forward"):
            shown = f"{value:g} ({'store-and-forward' if value else 'cut-through'})"
        else:
            shown = value if isinstance(value, str) else number()(value)
        rows.append({"name": _STRUCTURE_LABELS.get(key, key), "value": shown})
    return rows


STRUCTURE_COLUMNS = (Column("name", "substituted"), Column("value", "value"))


def _auto(machine, operation: str, layout, size: float) -> tuple[str, str]:
    """(algorithm, rule) ``--algorithm auto`` picks on this layout (the MPI library's
    default, collectives.library_rules); InputError when it has no closed form."""
    from icnperf.model import collectives

    ranks = collectives.machine_layout(machine, layout).endpoints
    algorithm, rule, _ = collectives.machine_choice(machine, operation, size, ranks)
    if algorithm not in collectives.ALGORITHMS:
        raise InputError(f"auto picks {algorithm} ({rule}), which has no closed form to "
                         "explain; use predict collective --algorithm auto")
    return algorithm, rule


def explain_text(what: str, operation: str, algorithm: str, machine_name: str,
                 overrides: tuple[str, ...], nodes: int | None, shape: str | None,
                 bytes_text: str | None, latex: bool, fmt: str, api: str = "mpi",
                 all_symbols: bool = False, wide: bool = False,
                 uncertainty: bool = False) -> str:
    """The rendered ``icnperf explain collective`` output (``wide``: lines unwrapped).
    ``uncertainty``: each input's spread and its share of the range (:func:`range_rows`)."""
    from icnperf.data.limits import within_limits
    from icnperf.model.budget import explain_estimate
    from icnperf.model.collectives import operation_name
    from icnperf.model.explain import check_pair, explain

    if what != "collective":
        raise InputError(f"explain {what!r}: only 'collective' is explained so far")
    machine = _machine(machine_name, overrides)
    layout = layout_for(machine.topology, nodes, shape, machine.get("system.nodes"))
    size = _size(bytes_text or DEFAULT_BYTES)
    rule = None
    if algorithm == "auto":
        algorithm, rule = _auto(machine, operation, layout, size)
    check_pair(algorithm, operation)
    within_limits(explain_estimate(layout.ranks, algorithm, len(layout.radices or (0, 0, 0)),
                                   operation_name(operation),
                                   counted=layout.family in ("torus", "crossbar")))
    explanation = explain(machine, operation, algorithm, size, layout=layout, api=api,
                          symbolic_discrete=all_symbols)
    require_finite([{"time_s": explanation.time}], ["time_s"], "explain")
    require_finite([_elasticity_row(e) for e in explanation.elasticities],
                   ["value", "derivative", "elasticity"], "explain",
                   lambda row: f"for {row['key']}")
    inputs = {"what": what, "operation": operation,
              "algorithm": algorithm if rule is None else "auto",
              "machine": machine_name, "set": list(overrides), "nodes": nodes,
              "shape": shape, "bytes": bytes_text or DEFAULT_BYTES, "api": api,
              "all_symbols": all_symbols}
    if rule is not None:
        inputs["auto"] = {"algorithm": algorithm, "rule": rule}
    if uncertainty:
        inputs["uncertainty"] = True
    if fmt == "json":
        document = explanation_document(machine, explanation, inputs)
        if uncertainty:
            document["elasticities"] = range_rows(machine, document["elasticities"],
                                                  explanation.time)
        return json_text(document)
    rows = [_elasticity_row(e) for e in explanation.elasticities]
    if uncertainty:
        rows = range_rows(machine, rows, explanation.time)
    if fmt == "csv":
        return csv_text(rows, ELASTICITY_KEYS + (RANGE_KEYS if uncertainty else ()))
    from icnperf.units import format_quantity

    for row in rows:
        row["_value"] = _parameter_value(row)
    size_text = ("no data" if explanation.operation == "barrier"
                 else format_quantity(explanation.bytes, "size", 4))
    formula = ("T = " + explanation.latex) if latex else plain_formula(explanation.expression)
    title = (f"{machine.name} ({explanation.layout}): {explanation.operation} by "
             f"{explanation.algorithm}, {size_text}, api {api}")
    shares = ("elasticities, largest first (e_x = dT/dx * x / T; |e_x| is x's share of T; "
              f"the shares add up to {explanation.share_sum * 100:.1f}%):")
    page = Page(wide)
    page.line(title)
    if rule is not None:
        page.line(f"auto: {rule}", hang="  ")
    page.blank()
    page.line(formula, hang="        ")
    page.blank()
    page.table(_structure_rows(explanation.structure), STRUCTURE_COLUMNS, indent="  ")
    page.blank()
    page.line(f"T on the machine = {format_quantity(explanation.time, 'time', 4)}")
    page.blank()
    page.line(shares)
    page.table(rows, RANGE_COLUMNS if uncertainty else ELASTICITY_COLUMNS)
    if uncertainty:
        page.blank()
        page.line("range share: each input's |dT/dx| x its spread's half-width (ln F for a"
                  " factor F), over the sum over inputs: first order; a value solved from a"
                  " measured sum stands for the sum, the parts count at dT/dpart - dT/dx"
                  " (docs/machine-format.md, 'Uncertainty')", hang="  ")
    numeric = [r for r in rows if r["method"] != "symbolic"]
    if numeric:
        page.blank()
        for r in numeric:
            page.line(f"{r['symbol']}: {r['method']} derivative ({r['note']})", "  ", "  ")
    page.blank()
    page.notes("assumptions", explanation.assumptions)
    return page.text()


# --- crossover --------------------------------------------------------------------------


def _scan_row(point, factor: float) -> dict:
    return {"value": point.value, "layout": point.layout,
            "time_faster_s": point.time_faster, "time_slower_s": point.time_slower,
            "ratio": point.ratio, "reaches_factor": point.ratio >= factor}


def _where(point, variable: str) -> str:
    from icnperf.units import format_quantity

    if variable == "nodes":
        return f"{point.value:,} nodes ({point.layout})"
    if float(point.value).is_integer() and point.value >= 1024:
        return f"{point.value:,.0f} B ({format_quantity(point.value, 'size', 3)})"
    return format_quantity(point.value, "size", 6)


def _ratio(ratio: float, factor: float) -> str:
    """The ratio with enough digits to show on which side of the factor it lies."""
    for digits in range(3, 17):
        text = f"{ratio:.{digits}g}"
        if (float(text) >= factor) == (ratio >= factor):
            return text + "x"
    return f"{ratio!r}x"


def crossover_statement(record) -> str:
    """One or two sentences saying where (whether) the crossover is."""
    from icnperf.units import format_quantity

    f, s, k = record.faster, record.slower, f"{record.factor:g}x"
    scan = record.scan
    span = (f"{_where(scan[0], record.variable)} .. {_where(scan[-1], record.variable)}")
    if record.at is None:
        best = record.best
        return (f"{f} is never {k} faster than {s} within {span}; the largest ratio is "
                f"{_ratio(best.ratio, record.factor)} at {_where(best, record.variable)}.")
    at = record.at
    times = (f"{format_quantity(at.time_faster, 'time', 3)} against "
             f"{format_quantity(at.time_slower, 'time', 3)}")
    if record.below is None:
        text = (f"{f} is already {k} faster than {s} at the start of the range: "
                f"{_ratio(at.ratio, record.factor)} at {_where(at, record.variable)} ({times}); "
                "no crossover "
                "inside the range.")
    else:
        text = (f"{f} becomes {k} faster than {s} at {_where(at, record.variable)}: "
                f"{_ratio(at.ratio, record.factor)} ({times}); at "
                f"{_where(record.below, record.variable)} it is "
                f"{_ratio(record.below.ratio, record.factor)}.")
    if record.reverts is not None:
        text += (f" It falls below {k} again at {_where(record.reverts, record.variable)} "
                 f"({_ratio(record.reverts.ratio, record.factor)}).")
    else:
        text += f" It stays at least {k} over the rest of the scan."
    return text


def _point_document(point) -> dict | None:
    if point is None:
        return None
    return {"value": point.value, "layout": point.layout, "time_faster_s": point.time_faster,
            "time_slower_s": point.time_slower, "ratio": point.ratio}


def crossover_text(what: str, operation: str, machine_name: str, overrides: tuple[str, ...],
                   faster: str, slower: str, factor_text: str, vary: str, dims: int | None,
                   range_text: str | None, bytes_text: str | None, nodes: int | None,
                   shape: str | None, fmt: str, api: str = "mpi",
                    any_shape: bool = False, wide: bool = False) -> str:
    """The rendered ``icnperf crossover collective`` output (``wide``: lines unwrapped)."""
    from icnperf.data.limits import within_limits
    from icnperf.model.budget import crossover_estimate
    from icnperf.model.collectives import Layout, operation_name
    from icnperf.model.crossover import crossover
    from icnperf.units import format_quantity, parse_quantity, parse_range

    if what != "collective":
        raise InputError(f"crossover {what!r}: only 'collective' is solved so far")
    try:
        factor = parse_quantity(factor_text, "number")
    except InputError as error:
        raise InputError(f"--factor: {error}") from None
    if not factor > 1:
        raise InputError(f"--factor must be > 1 (how many times faster), not {factor_text!r}")
    machine = _machine(machine_name, overrides)
    scanned = (layout_for(machine.topology, nodes, shape, machine.get("system.nodes"))
               if vary == "bytes" else Layout.from_topology(machine.topology))
    torus_dims = (dims if vary == "nodes" and dims is not None
                  else len(scanned.radices or (0, 0, 0)))
    counted_bytes = scanned.family in ("torus", "crossbar")

    def budget(ranks, points=None):
        within_limits(crossover_estimate(ranks, [faster, slower],
                                         len(ranks) if points is None else points, fmt,
                                         "node count" if vary == "nodes" else "size",
                                         torus_dims, operation_name(operation),
                                         counted=vary == "nodes" or counted_bytes))

    if vary == "nodes":
        if nodes is not None or shape is not None:
            raise InputError("--nodes/--shape fix the torus when varying bytes; with --vary "
                             "nodes give --range and --dims")
        values = None if range_text is None else parse_range(range_text, "count")
        size = _size(bytes_text or DEFAULT_BYTES)
        record = crossover(machine, operation, faster, slower, factor, variable="nodes",
                           values=values, dims=dims, m=size, api=api,
                           max_aspect=None if any_shape else 2.0, budget=budget)
    elif vary == "bytes":
        if bytes_text is not None or dims is not None:
            raise InputError("--bytes and --dims apply when varying nodes; with --vary bytes "
                             "give the sizes as --range")
        values = (None if range_text is None
                  else parse_range(range_text, "size", default_unit="B"))
        record = crossover(machine, operation, faster, slower, factor, variable="bytes",
                           values=values, layout=layout_for(machine.topology, nodes, shape,
                                             machine.get("system.nodes")),
                           api=api, budget=lambda ranks: budget(
                               ranks, 27 if values is None else len(values)))
    else:
        raise InputError(f"unknown --vary {vary!r}; choose nodes or bytes")
    statement = crossover_statement(record)
    rows = [_scan_row(p, factor) for p in record.scan]
    require_finite(rows, ("value", "time_faster_s", "time_slower_s", "ratio"), "crossover",
                   lambda row: f"on {row['layout']}")
    if fmt == "csv":
        return csv_text(rows, SCAN_KEYS)
    if fmt == "json":
        return json_text({
            "inputs": {"what": what, "operation": operation, "machine": machine_name,
                       "set": list(overrides), "faster": faster, "slower": slower,
                       "factor": factor, "vary": vary, "dims": dims, "range": range_text,
                       "bytes": bytes_text, "nodes": nodes, "shape": shape, "api": api,
                       "any_shape": any_shape},
            "machine": machine.name,
            "crossover": {"status": record.status, "variable": record.variable,
                          "factor": record.factor, "at": _point_document(record.at),
                          "below": _point_document(record.below),
                          "reverts": _point_document(record.reverts),
                          "best": _point_document(record.best), "method": record.method,
                          "fixed": record.fixed, "skipped": list(record.skipped),
                          "evaluations": record.evaluations, "statement": statement},
            "rows": rows,
            "assumptions": list(record.assumptions),
        })
    value_column = (Column("value", "nodes", number(), keep=True) if vary == "nodes"
                    else Column("value", "size", _quantity("size", 4), keep=True))
    columns = (value_column, Column("layout", "layout"),
               Column("time_faster_s", faster, _quantity("time", 4)),
               Column("time_slower_s", slower, _quantity("time", 4)),
               Column("ratio", "ratio", lambda r: f"{r:.3f}"),
               Column("reaches_factor", f">= {factor:g}x", lambda b: "yes" if b else "no"))
    if vary == "nodes":
        fixed = (f"{format_quantity(record.fixed['bytes'], 'size', 4)}, "
                 f"{record.fixed['dims']}D tori of balanced radices")
    else:
        fixed = f"on {record.fixed['layout']}"
    title = (f"{machine.name}: {record.operation}, {faster} against {slower}, factor "
             f"{factor:g}, {fixed}, api {api}")
    page = Page(wide)
    page.line(title)
    page.blank()
    page.table(rows, columns)
    page.blank()
    page.line(statement)
    page.line(f"method: {record.method}.")
    if record.skipped:
        page.line("skipped (no such torus): " + ", ".join(f"{n:,}" for n in record.skipped))
    page.blank()
    page.notes("assumptions", record.assumptions)
    return page.text()
