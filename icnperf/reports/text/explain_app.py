"""``icnperf explain app``: each phase of an application skeleton in closed form at one node
count (model/apps/closed_form.py), as text, JSON or CSV.

The text is a :class:`icnperf.reports.page.Page`: every line fits 100 columns, formulas
broken between their terms (after ``+``, ``-`` and ``,``) and, where one term is longer than
a line, after a ``*`` or ``/``; ``--wide`` gives each formula one line. The skeleton's own
description and notes close the page as numbered notes.
"""

from __future__ import annotations

import re

from icnperf.reports.render import csv_text, json_text

LABEL = 14
"""Characters of the label column (``memory_bytes``); the text starts at column LABEL + 2."""

_OPERATOR_BREAK = re.compile(r"(?<=[^*]\*)(?!\*)|(?<=[/,])")
"""Where a term too long for a line may break: after a product's ``*`` (never inside a
power's ``**``), a ``/`` or a ``,``."""


def _spaced(text: str, outermost: bool) -> list[str]:
    """``text`` split at its spaces (only those outside parentheses when ``outermost``), a
    lone ``=`` kept with the word after it and a lone ``+`` or ``-`` with the word before,
    so a line breaks after a sum's operator and before an equals sign."""
    words, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if char == " " and (depth == 0 or not outermost):
            words.append(text[start:i])
            start = i + 1
    words.append(text[start:])
    merged: list[str] = []
    for word in words:
        if merged and (merged[-1] == "=" or word in ("+", "-")):
            merged[-1] += " " + word
        else:
            merged.append(word)
    return [w for w in merged if w]


def _pieces(text: str, room: int) -> list[tuple[str, str]]:
    """(piece, what joins it to the piece before) with every piece at most ``room`` long
    where it can be: broken at outer spaces, then at inner ones, then after operators."""
    out: list[tuple[str, str]] = []
    for unit in _spaced(text, outermost=True):
        if len(unit) <= room:
            out.append((unit, " "))
            continue
        for word in _spaced(unit, outermost=False):
            if len(word) <= room:
                out.append((word, " "))
                continue
            parts = [p for p in _OPERATOR_BREAK.split(word) if p]
            out += [(part, " " if i == 0 else "") for i, part in enumerate(parts)]
    return out


def fitted_lines(text: str, width: int | None, first: str, rest: str) -> list[str]:
    """``text`` in lines of at most ``width`` characters (None: one line), the first
    starting with ``first``, the others with ``rest``: broken between the terms of a formula
    (after ``+`` and ``-``, before ``=``, outside parentheses first) or between words, and
    for a term longer than a whole line after its operators (:data:`_OPERATOR_BREAK`). A
    name longer than a line stays whole."""
    if width is None or len(first) + len(text) <= width:
        return [first + text]
    lines, line, fresh = [], first, True
    for piece, joint in _pieces(text, width - len(rest)):
        candidate = line + ("" if fresh else joint) + piece
        if fresh or len(candidate) <= width:
            line, fresh = candidate, False
            continue
        lines.append(line.rstrip())
        line = rest + piece
    lines.append(line.rstrip())
    return lines


def _labelled(page, label: str, text: str, formula: bool = False) -> None:
    """``text`` after ``label``, continued under the text: a ``formula`` broken between
    its terms (:func:`fitted_lines`), words wrapped between words."""
    from icnperf.reports.page import wrap

    head = f"  {label:<{LABEL}}" if len(label) < LABEL else f"  {label} "
    rest = " " * (LABEL + 2)
    page.lines += (fitted_lines if formula else wrap)(text, page.width, head, rest)


def _number(value) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:.6g}"


def _shown(term, unit: str = "") -> str:
    """A term as written, with the definitions substituted, and its value (bytes with
    thousands separators)."""
    from icnperf.units import byte_count

    number = (byte_count(term["value"]) if unit == "B" else _number(term["value"])) + \
        (f" {unit}" if unit else "")
    if term["written"].replace(".", "", 1).isdigit():
        return number
    formula = term['written'] + (f" = {term['expanded']}" if term['expanded'] else "")
    return f"{formula} = {number}"


def _communication(page, form: dict) -> None:
    """One communication of a phase: its bytes, what it takes, its formula and time."""
    from icnperf.units import format_quantity

    if form["bytes"] is not None:
        _labelled(page, "bytes", _shown(form["bytes"], "B") + " per rank" +
                  (" (call buffer)" if form["kind"] == "collective" else ""), formula=True)
    _labelled(page, form["kind"], form["detail"])
    if form["kind"] == "collective" and form["structure"]:
        s = form["structure"]
        parts = [f"{k} {s[k]}" for k in ("radices", "depth", "ties", "steps",
                                           "max_step_hops", "max_step_load") if k in s]
        _labelled(page, "", "takes: " + ", ".join(parts).replace("max_step_", "largest "))
    elif form["messages"]:
        _labelled(page, "", f"takes: {form['messages']} message(s) per rank at once, largest "
                  f"{form['hops']} hop(s), channel load {form['load']}"
                  + (f", {form['host']} messages through one adapter"
                     if form["host"] and form["host"] > 1 else "")
                  + (", some within a node" if form["intra"] else ""))
    if form["formula"]:
        _labelled(page, "T =", form["formula"], formula=True)
    _labelled(page, "", f"= {format_quantity(form['time_s'], 'time', 4)} per repeat")


def explanation_page(form: dict, machine_name: str, notes, wide: bool = False) -> str:
    """The text of ``explain app`` from the closed form ``form`` as plain data (the
    document's app, nodes, phases, ...): per phase its terms, compute and communication,
    the symbols, then ``notes`` (the skeleton's description and notes)."""
    from icnperf.reports.page import Page
    from icnperf.units import format_quantity

    page = Page(wide)
    page.line(f"{form['app']} on {machine_name} at {form['nodes']:,} nodes ({form['layout']}), "
              f"{form['ppn']} process(es) per node, P = {form['ranks']:,} ranks; total "
              f"{format_quantity(form['total_s'], 'time', 4)} per run", hang="  ")
    page.blank()
    params = ", ".join(f"{k} = {_number(v)}" for k, v in form['parameters'].items())
    _labelled(page, "parameters", params or "none")
    for term in form["definitions"]:
        _labelled(page, term["key"], _shown(term), formula=True)
    symbols = {}
    for i, phase in enumerate(form["phases"], 1):
        page.blank()
        page.line(f"phase {i}: {phase['name']}: {format_quantity(phase['time_s'], 'time', 4)} "
                  f"per run, {100 * phase['share']:.1f} % of the total"
                  + (" (compute and communication overlap: the larger counts)"
                     if phase["overlap"] else ""), hang="  ")
        _labelled(page, "repeat", _shown(phase["repeat"]), formula=True)
        for term in phase["compute"]:
            _labelled(page, term["key"], _shown(term), formula=True)
        if phase["compute_formula"]:
            _labelled(page, "compute", phase["compute_formula"], formula=True)
            bound = f" ({phase['bound']} bound)" if phase['bound'] != "fixed" else ""
            _labelled(page, "", f"= {format_quantity(phase['compute_s'], 'time', 4)} per "
                      f"repeat{bound}")
        for comm in phase["communication"]:
            _communication(page, comm)
            symbols.update(comm["symbols"])
    if symbols:
        page.blank()
        page.line("symbols:")
        page.line("; ".join(f"{k}={v}" for k, v in sorted(symbols.items())), indent="  ")
    if notes:
        page.blank()
        page.notes("notes", notes)
    return page.text()


def explain_app_render(document: dict, fmt: str, wide: bool = False) -> str:
    """``explain app`` rendered from its document (``inputs``, ``notes`` and the closed form
    of model.apps.closed_form.explain_skeleton as plain data; the API builds it)."""
    if fmt == "json":
        return json_text(document)
    if fmt == "csv":
        rows = [{"phase": p["name"], "time_s": p["time_s"], "share": p["share"],
                 "compute_s": p["compute_s"], "communication_s": p["communication_s"],
                 "repeat": p["repeat"]["value"]} for p in document["phases"]]
        return csv_text(rows, ["phase", "time_s", "share", "repeat", "compute_s",
                               "communication_s"])
    return explanation_page(document, document["inputs"]["machine"], document["notes"], wide)
