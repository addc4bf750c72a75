"""``icnperf explain collective`` and ``icnperf crossover collective``: the formula of a
collective with its elasticities, and where one algorithm overtakes another by a factor.

The model (``icnperf.model.explain``, ``model.crossover``) returns records, the API turns
them into documents (icnperf.api.explain_documents, icnperf.api.crossover_records), and
this module renders those.
"""

from __future__ import annotations

from icnperf.reports.page import Page
from icnperf.reports.render import Column, csv_text, json_text, number, quantity

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


# --- explain ----------------------------------------------------------------------------


def plain_formula(pieces: list[str], width: int = FORMULA_WIDTH) -> str:
    """``T = a + b ...`` from the formula's top-level terms in SymPy's plain syntax, each
    after the first with its sign (``+ b``, ``- c``; the API's
    explain_documents.formula_pieces), broken between terms."""
    lines = ["T = " + pieces[0]]
    for piece in pieces[1:]:
        if len(lines[-1]) + 1 + len(piece) > width:
            lines.append("    " + piece)
        else:
            lines[-1] += " " + piece
    return "\n".join(lines)


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


def explain_render(document: dict, fmt: str, wide: bool = False,
                   pieces: list[str] | None = None, latex: bool = False) -> str:
    """``icnperf explain collective`` rendered from its document (the API builds it; with
    ``inputs.uncertainty`` each input's spread and range share); ``pieces`` the formula's
    top-level terms (:func:`plain_formula` breaks the table's formula between them),
    ``latex``: the formula as LaTeX instead (``wide``: lines unwrapped)."""
    if fmt == "json":
        return json_text(document)
    rows = [dict(row) for row in document["elasticities"]]
    inputs = document["inputs"]
    uncertainty = inputs.get("uncertainty", False)
    if fmt == "csv":
        return csv_text(rows, ELASTICITY_KEYS + (RANGE_KEYS if uncertainty else ()))
    from icnperf.units import format_quantity

    rule = inputs["auto"]["rule"] if "auto" in inputs else None
    for row in rows:
        row["_value"] = _parameter_value(row)
    size_text = ("no data" if document["operation"] == "barrier"
                 else format_quantity(document["bytes"], "size", 4))
    formula = ("T = " + document["formula"]["latex"]) if latex else plain_formula(pieces)
    title = (f"{document['machine']} ({document['layout']}): {document['operation']} by "
             f"{document['algorithm']}, {size_text}, api {inputs['api']}")
    shares = ("elasticities, largest first (e_x = dT/dx * x / T; |e_x| is x's share of T; "
              f"the shares add up to {document['share_sum'] * 100:.1f}%):")
    page = Page(wide)
    page.line(title)
    if rule is not None:
        page.line(f"auto: {rule}", hang="  ")
    page.blank()
    page.line(formula, hang="        ")
    page.blank()
    page.table(_structure_rows(document["structure"]), STRUCTURE_COLUMNS, indent="  ")
    page.blank()
    page.line(f"T on the machine = {format_quantity(document['time_s'], 'time', 4)}")
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
    page.notes("assumptions", document["assumptions"])
    return page.text()


# --- crossover --------------------------------------------------------------------------


def crossover_render(document: dict, fmt: str, wide: bool = False,
                     operation: str = "") -> str:
    """``icnperf crossover collective`` rendered from its document (:func:`crossover_document`;
    ``operation`` the operation's name, ``wide``: lines unwrapped)."""
    from icnperf.units import format_quantity

    rows = document["rows"]
    if fmt == "csv":
        return csv_text(rows, SCAN_KEYS)
    if fmt == "json":
        return json_text(document)
    inputs, record = document["inputs"], document["crossover"]
    vary, faster, slower, factor = (inputs["vary"], inputs["faster"], inputs["slower"],
                                    inputs["factor"])
    value_column = (Column("value", "nodes", number(), keep=True) if vary == "nodes"
                    else Column("value", "size", quantity("size", 4), keep=True))
    columns = (value_column, Column("layout", "layout"),
               Column("time_faster_s", faster, quantity("time", 4)),
               Column("time_slower_s", slower, quantity("time", 4)),
               Column("ratio", "ratio", lambda r: f"{r:.3f}"),
               Column("reaches_factor", f">= {factor:g}x", lambda b: "yes" if b else "no"))
    if vary == "nodes":
        fixed = (f"{format_quantity(record['fixed']['bytes'], 'size', 4)}, "
                 f"{record['fixed']['dims']}D tori of balanced radices")
    else:
        fixed = f"on {record['fixed']['layout']}"
    title = (f"{document['machine']}: {operation}, {faster} against {slower},"
             f" factor {factor:g}, {fixed}, api {inputs['api']}")
    page = Page(wide)
    page.line(title)
    page.blank()
    page.table(rows, columns)
    page.blank()
    page.line(record["statement"])
    page.line(f"method: {record['method']}.")
    if record["skipped"]:
        page.line("skipped (no such torus): "
                  + ", ".join(f"{n:,}" for n in record["skipped"]))
    page.blank()
    page.notes("assumptions", document["assumptions"])
    return page.text()
