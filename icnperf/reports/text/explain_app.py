"""``icnperf explain app``: each phase of an application skeleton in closed form at one node
count (model/apps/closed_form.py), as wrapped text, JSON or CSV."""

from __future__ import annotations

from icnperf.errors import InputError
from icnperf.reports.render import csv_text, json_text
from icnperf.reports.text.apps import TABLE_WIDTH, resolve_skeleton


def _wrapped(label: str, text: str, width: int = TABLE_WIDTH) -> list[str]:
    import textwrap

    head = f"  {label:<14}" if len(label) < 14 else f"  {label} "
    return textwrap.wrap(text, width, initial_indent=head, subsequent_indent=" " * 16,
                         break_on_hyphens=False, break_long_words=True) or [head]


def _shown(term) -> str:
    value = term.value
    number_text = f"{value:,}" if isinstance(value, int) else f"{value:.6g}"
    if term.written.replace(".", "", 1).isdigit():
        return number_text
    formula = term.written + (f" = {term.expanded}" if term.expanded else "")
    return f"{formula} = {number_text}"


def _communication_lines(form) -> list[str]:
    from icnperf.units import format_quantity

    lines = []
    if form.bytes is not None:
        lines += _wrapped("bytes", _shown(form.bytes) + " B per rank" +
                          (" (call buffer)" if form.kind == "collective" else ""))
    lines += _wrapped(form.kind, form.detail)
    if form.kind == "collective" and form.structure:
        s = form.structure
        parts = [f"{k} {s[k]}" for k in ("radices", "depth", "ties", "steps",
                                           "max_step_hops", "max_step_load") if k in s]
        lines += _wrapped("", "takes: " + ", ".join(parts).replace("max_step_", "largest "))
    elif form.messages:
        lines += _wrapped("", f"takes: {form.messages} message(s) per rank at once, largest "
                          f"{form.hops} hop(s), channel load {form.load}"
                          + (f", {form.host} messages through one adapter"
                             if form.host and form.host > 1 else "")
                          + (", some within a node" if form.intra else ""))
    if form.formula:
        lines += _wrapped("T =", form.formula)
    lines += _wrapped("", f"= {format_quantity(form.time_s, 'time', 4)} per repeat")
    return lines


def explanation_lines(form, machine_name: str) -> list[str]:
    """The text of ``explain app``: per phase its terms, compute and communication."""
    from icnperf.units import format_quantity

    import textwrap

    lines = textwrap.wrap(f"{form.app} on {machine_name} at {form.nodes:,} nodes "
                          f"({form.layout}), {form.ppn} process(es) per node, P = "
                          f"{form.ranks:,} ranks; total "
                          f"{format_quantity(form.total_s, 'time', 4)} per run",
                          TABLE_WIDTH) + [""]
    params = ", ".join(f"{k} = {v:,}" if isinstance(v, int) else f"{k} = {v:g}"
                       for k, v in form.parameters.items())
    lines += _wrapped("parameters", params or "none")
    for term in form.definitions:
        lines += _wrapped(term.key, _shown(term))
    symbols = {}
    for i, phase in enumerate(form.phases, 1):
        lines += ["", f"phase {i}: {phase.name}: {format_quantity(phase.time_s, 'time', 4)} "
                      f"per run, {100 * phase.share:.1f} % of the total"
                      + (" (compute and communication overlap: the larger counts)"
                         if phase.overlap else "")]
        lines += _wrapped("repeat", _shown(phase.repeat))
        for term in phase.compute:
            lines += _wrapped(term.key, _shown(term))
        if phase.compute_formula:
            lines += _wrapped("compute", phase.compute_formula)
            lines += _wrapped("", f"= {format_quantity(phase.compute_s, 'time', 4)} per "
                              f"repeat ({phase.bound} bound)" if phase.bound != "fixed" else
                              f"= {format_quantity(phase.compute_s, 'time', 4)} per repeat")
        for comm in phase.communication:
            lines += _communication_lines(comm)
            symbols.update(comm.symbols)
    if symbols:
        lines += ["", "symbols:"]
        lines += textwrap.wrap("; ".join(f"{k}={v}" for k, v in sorted(symbols.items())),
                               TABLE_WIDTH, initial_indent="  ", subsequent_indent="  ")
    return lines


def explain_app_text(app: str, machine_name: str, overrides: tuple[str, ...],
                     nodes: int | None, shape: str | None, algorithm: str | None,
                     params: tuple[str, ...], ppn: int | None, fmt: str) -> str:
    """The rendered ``explain app``: each phase's closed form at one node count."""
    from dataclasses import asdict

    from icnperf.data.limits import skeleton_within_limits
    from icnperf.data.machine import load_machine
    from icnperf.model.apps.closed_form import explain_skeleton
    from icnperf.model.budget import SYMBOLIC_SECONDS
    from icnperf.reports.text.predict import layouts_for

    if app == "npb-is":
        raise InputError("npb-is is a Python model (placement tables), not a skeleton; "
                         "explain app takes a skeleton file or a bundled skeleton")
    machine = load_machine(machine_name).with_overrides(list(overrides))
    skeleton, _ = resolve_skeleton(app, {}, params)
    layouts = layouts_for(machine.topology, None if nodes is None else str(nodes), shape)
    skeleton_within_limits(skeleton, machine, [layouts[0].endpoints], ppn, algorithm, fmt,
                           "explain app", SYMBOLIC_SECONDS)
    form = explain_skeleton(skeleton, machine, layouts[0], ppn=ppn, algorithm=algorithm)
    if fmt == "json":
        return json_text({"inputs": {"app": app, "machine": machine.name, "nodes": nodes,
                                     "shape": shape, "algorithm": algorithm},
                          **asdict(form)})
    if fmt == "csv":
        rows = [{"phase": p.name, "time_s": p.time_s, "share": p.share,
                 "compute_s": p.compute_s, "communication_s": p.communication_s,
                 "repeat": p.repeat.value} for p in form.phases]
        return csv_text(rows, ["phase", "time_s", "share", "repeat", "compute_s",
                               "communication_s"])
    return "\n".join(explanation_lines(form, machine.name)) + "\n"
