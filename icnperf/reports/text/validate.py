"""``icnperf validate``: the registered claims evaluated, as a table, JSON or CSV, or as an
HTML page (``-o FILE.html``, built by icnperf.reports.validation_page).

The default table fits 100 columns: one table per claim kind (predicted, post-hoc,
calibrated, regression), each row a claim's id, measured (or reference) value, prediction, error,
tolerance and status, with its quantity (and, for a calibrated claim, what was fitted to it)
on the lines under it; the reasons of known discrepancies, open misses and failures follow
as numbered, wrapped notes, then the counts, then the ranges' coverage and width over the
claims predicted on a preset (icnperf.validation.ranges; JSON: ``ranges``). ``wide`` gives
the full layout of one line per claim.

By default the flit simulator's cross-checks (``runs == "simulation"``, about a minute) are
left out; ``simulation=True`` runs them too.
"""

from __future__ import annotations

import textwrap

from icnperf.reports.render import Column, aligned_table, csv_text, json_text, number

WIDTH = 100
RESULT_KEYS = ("id", "source", "quantity", "measured", "predicted", "unit", "error",
               "tolerance", "tolerance_kind", "status", "passed", "kind", "runs",
               "tolerance_reason", "fitted", "expected", "expected_tolerance",
               "expected_tolerance_reason", "reason")

PRODUCTION_CSV = {"production": "production", "production_low": "production_low",
                  "production_high": "production_high", "production_inside": "inside",
                  "production_point_within": "point_within"}
"""The CSV's production columns (the column -> the production check's field; empty for a
claim not counted: icnperf.validation.production)."""

WIDE_COLUMNS = (
    Column("id", "id"),
    Column("kind", "kind"),
    Column("source", "source"),
    Column("quantity", "quantity"),
    Column("measured", "measured", number()),
    Column("predicted", "predicted", number()),
    Column("unit", "unit"),
    Column("error", "error", number(3)),
    Column("tolerance", "tolerance", number(3)),
    Column("tolerance_kind", "tolerance kind"),
    Column("status", "status"),
    Column("tolerance_reason", "tolerance reason"),
)

KIND_TITLES = {
    "predicted": "Predicted (held out: nothing in the model was fitted to these)",
    "post-hoc": "Post hoc (the model's value was known when the band was written: not evidence)",
    "calibrated": "Calibrated (a parameter was fitted to each: they pass by construction)",
    "regression": "Regression (pin the model's own value: no independent expectation)",
}
HEADERS = ("claim", "measured", "predicted", "error", "tolerance", "status")
NUMBER_WIDTHS = (10, 10, 9, 9, 10)
"""Widths of the columns after the claim's id (the id takes what is left of WIDTH)."""


# --- the outputs ---------------------------------------------------------------------------


def validation_render(document: dict, fmt: str, wide: bool, summary: str) -> str:
    """The validation results (``checks``, ``counts`` per claim kind, ``simulation``; the
    API runs them, and gives ``summary``, the counts line) in ``fmt``: JSON, CSV, or the
    100-column table (``wide``: at full width)."""
    if fmt == "json":
        return json_text(document)
    results = document["checks"]
    production = document.get("production")
    if fmt == "csv":
        if production is None:
            return csv_text(results, RESULT_KEYS)
        busy = {check["id"]: check for check in production["checks"]}
        return csv_text([{**r, **{key: busy.get(r["id"], {}).get(field)
                                  for key, field in PRODUCTION_CSV.items()}}
                         for r in results], RESULT_KEYS + tuple(PRODUCTION_CSV))
    text = (wide_text(results, summary) if wide
            else table_text(results, list(document["counts"]), summary))
    ranges = document.get("ranges", {})
    if ranges.get("checks"):
        text += coverage_text(ranges)
    if production is not None and _has_ranged(production):
        text += production_text(production)
    if not document["simulation"]:
        text += ("the flit simulator's cross-checks were not run (about a minute): "
                 "--simulation runs them\n")
    return text


def coverage_text(ranges: dict) -> str:
    """The coverage and width lines (issue #31) of the document's ``ranges`` (``sampling``:
    samples, seed, quantiles; ``coverage``: per counted kind, how many measurements lie
    inside their predicted range and the ranges' median high/low)."""
    sampling, counts = ranges["sampling"], ranges["coverage"]
    low, high = sampling["quantiles"]
    lines = ["", f"ranges of the real-machine claims ({low:.0%}-{high:.0%} "
             f"of {sampling['samples']} draws of each preset's inputs, seed "
             f"{sampling['seed']}):"]
    for kind, title in (("predicted", "predicted"), ("post-hoc", "post hoc")):
        count = counts[kind]
        if count["claims"]:
            lines.append(f"  {title + ':':10} {count['inside']} of {count['claims']} "
                         f"measurements inside their range; median width (high/low) "
                         f"{count['median_width']:.2f}")
    if counts["calibrated"]["claims"]:
        lines.append(f"  {counts['calibrated']['claims']} calibrated not counted (fitted to "
                     "the measurement)")
    return "\n".join(lines) + "\n"


def _has_ranged(production: dict) -> bool:
    """Whether any claim of the run is predicted on a preset (so production counts mean
    something)."""
    counts = production["coverage"]
    return bool(counts["calibrated"]["claims"] or production["unmodelled"]
                or any(counts[kind]["ranged"] for kind in ("predicted", "post-hoc")))


def _presets(counts: dict) -> str:
    return ", ".join(f"{name} {n}" for name, n in counts.items())


def production_text(production: dict) -> str:
    """The production coverage block of the table (:func:`production_heading` and
    :func:`production_lines`, wrapped to the table's width)."""
    out = ["", *textwrap.wrap(production_heading(production), WIDTH)]
    for sentence in production_lines(production):
        out += textwrap.wrap(sentence, WIDTH, initial_indent="  ",
                             subsequent_indent=" " * 13, break_on_hyphens=False)
    return "\n".join(out) + "\n"


def production_heading(production: dict) -> str:
    """What the production coverage counts, in one sentence (draws, seed, quantiles)."""
    sampling = production["sampling"]
    low, high = sampling["quantiles"]
    return (f"production ranges of the real-machine claims on presets with [production] "
            f"values (--uncertainty --production: {low:.0%}-{high:.0%} of "
            f"{sampling['samples']} draws of each preset's inputs and its OS noise, seed "
            f"{sampling['seed']}; the --production point is the median):")


def production_lines(production: dict) -> list[str]:
    """The production coverage (issue #31's goal) as sentences: per counted kind how many
    measurements on presets with ``[production]`` values fall inside their ``--uncertainty
    --production`` range, the ranges' median width (high/low) and how many
    ``--production`` points lie within the tolerance, and how many claims were not counted
    and why (their presets carry no ``[production]`` values); the calibrated claims left
    out."""
    counts = production["coverage"]
    tolerance = f"{100 * production['point_tolerance']:g} %"
    lines = []
    for kind, title in (("predicted", "predicted"), ("post-hoc", "post hoc")):
        count = counts[kind]
        if not count["ranged"]:
            continue
        apart = sum(count["without_production"].values())
        why = (f"no [production] values on their presets "
               f"({_presets(count['without_production'])})")
        if not count["claims"]:
            lines.append(f"{title + ':':10} 0 of {count['ranged']} counted: "
                         + (why if apart else "no production charge for their quantity"))
            continue
        text = (f"{title + ':':10} {count['inside']} of {count['claims']} measurements inside "
                f"their range; median width (high/low) {count['median_width']:.2f}; "
                f"{count['point_within']} of {count['claims']} points within {tolerance}")
        if apart:
            text += f"; {apart} of {count['ranged']} not counted: {why}"
        lines.append(text)
    if production["unmodelled"]:
        lines.append(f"{len(production['unmodelled'])} on presets with [production] values "
                     "not counted: their quantity has no production charge ("
                     + ", ".join(u["id"] for u in production["unmodelled"]) + ")")
    if counts["calibrated"]["claims"]:
        lines.append(f"{counts['calibrated']['claims']} calibrated not counted (fitted to "
                     "the measurement)")
    return lines


# --- the 100-column table ----------------------------------------------------------------


def tolerance_text(tolerance: float, kind: str) -> str:
    """A tolerance as it reads in the table ('±8.96 %', '±500', '×2', 'order', ...)."""
    if kind == "relative":
        return f"±{100 * tolerance:.3g} %"
    if kind == "percentage-points":
        return f"±{tolerance:g} pp"
    if kind == "absolute":
        return "exact" if tolerance == 0 else f"±{number(3)(tolerance)}"
    if kind == "factor":
        return f"×{tolerance:g}"
    if kind == "ordering":
        return "order"
    if kind == "inside":
        return "in range" if tolerance == 0 else f"{100 * tolerance:.3g} % out"
    return "at least" if tolerance == 0 else f"{100 * tolerance:.3g} % under"


def error_text(error: float | None, kind: str) -> str:
    """An error in its tolerance's terms (percent for relative, at-least and inside)."""
    if error is None:
        return "-"
    if kind in ("relative", "at-least", "inside"):
        return f"{100 * error:.3g} %"
    if kind == "percentage-points":
        return f"{error:.3g} pp"
    if kind == "factor":
        return f"×{error:.3g}"
    return number(3)(error)


def _status_text(result: dict, note: int | None) -> str:
    name = {"pass": "pass", "known-discrepancy": "known", "open": "open",
            "fail": "FAIL"}[result["status"]]
    return name if note is None else f"{name} [{note}]"


def _value_text(value) -> str:
    """A measured or predicted value in at most 10 characters (4 significant digits in
    exponent form when the whole number would be longer; --wide prints it whole)."""
    text = number()(value)
    return text if len(text) <= 10 else f"{value:.4g}"


def _row(result: dict, note: int | None) -> list[str]:
    kind = result["tolerance_kind"]
    return [result["id"], _value_text(result["measured"]), _value_text(result["predicted"]),
            error_text(result["error"], kind), tolerance_text(result["tolerance"], kind),
            _status_text(result, note)]


def _lines(cells: list[str], widths: list[int]) -> str:
    first = cells[0].ljust(widths[0])
    rest = [c.rjust(w) if i < 4 else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells[1:], widths[1:]))]
    return "  ".join([first, *rest]).rstrip()


def _detail(result: dict) -> list[str]:
    text = result["quantity"]
    if result["unit"] not in ("holds", "x"):
        text += f" [{result['unit']}]"
    if result.get("fitted"):
        text += f"; fitted: {result['fitted']}"
    return textwrap.wrap(text, WIDTH - 2, initial_indent="  ", subsequent_indent="  ")


def _note(number_: int, result: dict) -> list[str]:
    status = result["status"].replace("-", " ")
    reason = result.get("reason") or "no written reason: the prediction misses its tolerance"
    text = f"[{number_}] {result['id']} ({status}): {reason}"
    if result.get("expected") is not None:
        unit = "" if result["unit"] == "x" else f" {result['unit']}"
        kind = result["tolerance_kind"]
        least = "at least " if kind == "at-least" else ""
        text += (f". The analysis expects {least}{number()(result['expected'])}{unit}, the "
                 f"prediction is {number()(result['predicted'])}{unit}")
        if result.get("expected_tolerance_reason"):
            text += (f" (tolerance {tolerance_text(result['expected_tolerance'], kind)}: "
                     f"{result['expected_tolerance_reason']})")
        text += "."
    return textwrap.wrap(text, WIDTH, subsequent_indent="    ")


def table_text(results: list[dict], kinds: list[str], summary: str) -> str:
    """The default layout: one table per claim kind of ``kinds`` (in order), notes, the
    counts line ``summary`` (module docstring)."""
    rest = sum(NUMBER_WIDTHS) + 2 * len(NUMBER_WIDTHS)
    id_width = min(max([len(r["id"]) for r in results] + [len(HEADERS[0])]), WIDTH - rest)
    widths = [id_width, *NUMBER_WIDTHS]
    notes: list[dict] = []
    out = []
    for kind in kinds:
        group = [r for r in results if r["kind"] == kind]
        if not group:
            continue
        out += [KIND_TITLES[kind], _lines(list(HEADERS), widths),
                _lines(["-" * w for w in widths], widths)]
        for result in group:
            note = None
            if result["status"] != "pass":
                notes.append(result)
                note = len(notes)
            cells = _row(result, note)
            if len(cells[0]) > id_width:             # a long id gets a line of its own
                out.append(cells[0])
                cells[0] = ""
            out.append(_lines(cells, widths))
            out += _detail(result)
        out.append("")
    if notes:
        out.append("notes:")
        for i, result in enumerate(notes, 1):
            out += _note(i, result)
        out.append("")
    head, _, kinds_apart = summary.partition("; ")
    out += [summary] if len(summary) <= WIDTH else [head + ";", kinds_apart]
    return "\n".join(out) + "\n"


def wide_text(results: list[dict], summary: str) -> str:
    """One line per claim with every field (wider than a terminal), then the reasons and
    the counts line ``summary``."""
    lines = [aligned_table(results, WIDE_COLUMNS), "",
             "known discrepancies, open misses and failures:"]
    lines += [f"  - {r['id']} ({r['status']}): {r.get('reason') or 'no written reason'}"
              for r in results if r["status"] != "pass"] or ["  (none)"]
    lines += ["", summary]
    return "\n".join(lines) + "\n"
