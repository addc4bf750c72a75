"""The rows, sentences and notes of a sizing study (``icnperf size``), built from the
model's Study record for its JSON, text and HTML forms: one row per evaluated design, one
per (design, term), the screen and taper summaries, the assumptions with the grouped
sizing notes (:func:`study_document`), and the plain values the text and HTML renderers
read (:func:`study_view`; reports/text/size.py, size_html.py)."""

from __future__ import annotations


def row_flags(result) -> list[str]:
    """Short row notes: NUDT-rule design, stand-ins, missing hardware collectives."""
    flags = []
    if result.design.canonical:
        flags.append("NUDT rule")
    notes = [n for t in result.terms for n in t.notes]
    if any("crossbar" in n for n in notes):
        flags.append("crossbar estimate, links derated")
    if any(n.startswith("hw-tree not available") for n in notes):
        flags.append("no hw-tree")
    return flags


def design_rows(study) -> list[dict]:
    """One row per evaluated design (fastest workload first), raw values in SI units / the
    cost unit."""
    from icnperf.model.sizing.study import REASONS

    rows = []
    for r in study.results:
        d = r.design
        links = r.links
        row = {
            "rank_time": r.rank_time, "rank_cost_time": r.rank_cost_time,
            "pareto": r.pareto, "family": d.family, "design": d.spec,
            "endpoints": d.endpoints, "routers": d.routers, "radix": d.radix,
            "ports": d.ports, "electrical_links": links["electrical"],
            "optical_links": links["optical"], "endpoint_links": links["endpoint"],
            "diameter": d.diameter, "average_distance": d.average_distance,
            "uniform_throughput": d.uniform_throughput,
            "cost": r.cost, "workload_s": r.workload_s,
            "cost_x_time": r.cost * r.workload_s, "proxy_s": r.proxy_s,
            "evaluated_because": REASONS[r.reason],
            "rule": d.rule, "notes": "; ".join(row_flags(r)),
        }
        for part, value in r.cost_parts.items():
            row[f"cost_{part.replace(' ', '_')}"] = value
        for t in r.terms:
            row[f"term:{t.name}"] = t.weighted_s
        rows.append(row)
    return rows


def term_rows(study) -> list[dict]:
    """One row per (design, term): seconds per run, weight, weighted seconds, algorithm."""
    return [{"design": r.design.spec, "term": t.name, "weight": t.weight,
             "time_s": t.time_s, "weighted_s": t.weighted_s, "algorithm": t.algorithm,
             "layout": t.layout, "notes": list(t.notes)}
            for r in study.results for t in r.terms]


def _designs_text(specs: list[str], by_family: dict[str, list[str]]) -> str:
    """Designs named compactly: "every design", whole families, or the specs
    (``by_family``: every evaluated design's spec per family, in the study's order)."""
    if len(specs) == sum(len(members) for members in by_family.values()):
        return "every design"
    parts = []
    named = set(specs)
    for family, members in by_family.items():
        chosen = [s for s in members if s in named]
        if len(chosen) == len(members):
            parts.append(f"every {family}")
        elif len(chosen) > 6:
            parts.append(f"{len(chosen)} {family} designs")
        else:
            parts.extend(chosen)
    return ", ".join(parts)


def grouped_notes(study) -> list[str]:
    """Each distinct sizing note once, with the terms and designs it applies to."""
    seen: dict[str, tuple[dict[str, None], dict[str, None]]] = {}
    for r in study.results:
        for t in r.terms:
            for note in t.notes:
                terms, designs = seen.setdefault(note, ({}, {}))
                terms[t.name] = None
                designs[r.design.spec] = None
    term_count = len(study.results[0].terms) if study.results else 0
    by_family: dict[str, list[str]] = {}
    for r in study.results:
        by_family.setdefault(r.design.family, []).append(r.design.spec)
    return [f"{note} [{'every term' if len(terms) == term_count else '; '.join(terms)};"
            f" {_designs_text(list(designs), by_family)}]"
            for note, (terms, designs) in seen.items()]


def _per_family(counts: dict) -> str:
    return ", ".join(f"{family} {count:,}" for family, count in counts.items())


def screen_line(study) -> str:
    """How many designs were screened and evaluated, and why the others could be dropped."""
    line = (f"Screened {study.screened_total:,} candidate designs ({_per_family(study.screened)};"
            f" endpoints {study.endpoints:,} to {study.slack:g}x, radix <= {study.radix_max}):"
            f" each costed exactly and bounded from below by the proxy.")
    dropped = study.screened_total - study.evaluated_total
    evaluated = (f" The full workload model evaluated {study.evaluated_total:,}"
                 f" ({_per_family(study.evaluated)})")
    if study.mode == "all":
        line += evaluated + ": every design (--shortlist all)."
    else:
        line += (evaluated + "; the other " f"{dropped:,} were dropped because an evaluated"
                 " design costs no more and its workload time is no more than their proxy,"
                 " a proven lower bound of their own time (model/sizing/proxy.py): none of"
                 " them can be on the Pareto front, so the front shown is that of every"
                 " screened design.")
        if study.mode not in ("safe", "all"):
            line += (f" --shortlist {study.mode} added designs in proxy order up to that"
                     " many.")
    return line + "".join(f" {note}." for note in study.narrowed)


def tightness_line(study) -> str:
    """The proxy's tightness per family over the evaluated designs."""
    parts = [f"{family} {low:.3f}-{high:.3f} (median {mid:.3f})"
             for family, (low, mid, high) in study.tightness().items()]
    return ("Proxy tightness, full model / proxy over the evaluated designs (1 = exact): "
            + "; ".join(parts))


def taper_line(study) -> str:
    """What tapering the top level of an xgft tree saves and costs in workload time, from
    the cheapest tree of each level count and taper (study.Study.taper_savings); empty
    without xgft."""
    from icnperf.reports.text.size import money_text, seconds_text

    rows = study.taper_savings()
    if not rows:
        return ""
    parts = []
    for levels in dict.fromkeys(row["levels"] for row in rows):
        mine = [row for row in rows if row["levels"] == levels]
        items = []
        for row in mine:
            saving = ("" if row["saving"] is None or row["taper"] == 1
                      else f", {row['saving']:.0%} less")
            items.append(f"{row['taper']}:1 {row['spec']} {money_text(row['cost'])}"
                         f"{saving}, {seconds_text(row['workload_s'])}")
        if mine[0]["taper"] != 1:
            items.insert(0, "no 1:1 tree within the radix")
        parts.append(f"{levels} levels: " + "; ".join(items))
    return ("Tapered trees (xgft; the cheapest tree of each top-level taper down:up, its"
            " cost, saving against 1:1 and workload time): " + ". ".join(parts))


def summary_lines(study) -> list[str]:
    """The screen, the Pareto front and the NUDT scalability conclusions, as sentences."""
    from icnperf.model.sizing.study import scalability_summary

    front = ", ".join(r.design.spec for r in study.front)
    lines = [screen_line(study), tightness_line(study),
             f"Pareto front in (cost, workload time), cheapest first: {front}"]
    if any("crossbar estimate, links derated" in row_flags(r) for r in study.front):
        lines[2] += (" (slim fly times are crossbar estimates with links derated to its"
                     " uniform throughput: see the notes)")
    summary = scalability_summary(study)
    for label, words in (("canonical", "designs by the NUDT sizing rules (Jiang et al.)"),
                         ("all", "all evaluated designs")):
        if label in summary:
            s = summary[label]
            lines.append(f"Among {words}: fewest routers {s['fewest_routers']['family']}"
                         f" ({s['fewest_routers']['spec']}, {s['fewest_routers']['value']:,}),"
                         f" lowest radix {s['lowest_radix']['family']}"
                         f" ({s['lowest_radix']['spec']}, {s['lowest_radix']['value']})")
    taper = taper_line(study)
    if taper:
        lines.append(taper)
    if study.missing:
        lines.append(f"No design within radix {study.radix_max}: {', '.join(study.missing)}")
    return lines


def assumption_lines(study, cost_model, workload, machine) -> list[str]:
    from icnperf.model.sizing.cost import LINK_KIND_RULES

    lines = [
        (f"machine: {machine.name} ({machine.description}); its network, node and software"
         " parameters are used with the topology replaced by each design"),
        f"cost model ({cost_model.unit}): {cost_model.description}",
        ("cost = routers x (base + radix x per port) + links by kind + endpoints x (cable +"
         " adapter); every router is built with exactly its design radix"),
    ]
    lines += [f"links, {family}: {LINK_KIND_RULES[family]}" for family in study.families
              if family in LINK_KIND_RULES]
    lines.append(f"workload: {workload.description}; time = sum of weight x time per run")
    lines.append(f"workload rationale: {workload.rationale}")
    lines.append(
        "proxy: a lower bound of each design's full-model time, term by term: the trees'"
        " closed forms exactly, point-to-point rounds at hop counts and channel loads no"
        " larger than the model's (counted from the messages between routers, groups and"
        " pods), compute exactly; hpcg's halos and all-reduces, and a skeleton's phases on"
        " auto or library algorithms, several processes per node, SHMEM or helpers, are not"
        " bounded and count 0 (model/sizing/bound.py, views.py, skeleton_terms.py)")
    lines.append("ranks (time, cost x time) and the front marks are over the evaluated designs")
    return lines


def study_document(study, cost_model, workload, machine, inputs: dict) -> dict:
    """The study's JSON layout: inputs, assumptions, designs, terms, front, screen and
    proxy."""
    from icnperf.model.sizing.study import scalability_summary

    return {
        "inputs": inputs, "cost_unit": cost_model.unit,
        "assumptions": assumption_lines(study, cost_model, workload, machine),
        "designs": design_rows(study), "terms": term_rows(study),
        "pareto_front": [r.design.spec for r in study.front],
        "scalability": scalability_summary(study),
        "screened": {"total": study.screened_total, "per_family": study.screened,
                     "evaluated": study.evaluated_total,
                     "evaluated_per_family": study.evaluated,
                     "dropped": study.screened_total - study.evaluated_total,
                     "mode": study.mode, "why_dropped": screen_line(study)},
        "proxy_tightness": {family: {"min": low, "median": mid, "max": high}
                            for family, (low, mid, high) in study.tightness().items()},
        "tapers": study.taper_savings(),
        "missing_families": list(study.missing)}


PRICE_KEYS = ("router.base", "router.per_port", "link.electrical", "link.optical",
              "link.endpoint", "adapter.per_endpoint")
"""The cost model's prices, in the order the HTML page lists them."""


def study_view(study, cost_model, workload, machine, rows: list[dict] | None = None,
               terms: list[dict] | None = None) -> dict:
    """What the study's tables and page show, as plain values (model values unrounded, as
    the model gives them): ``rows`` (:func:`design_rows`, fastest first) with each design's
    ``flags`` (:func:`row_flags`), ``shown`` (on the Pareto front or by the NUDT rule),
    ``term_seconds`` (weight x time per term, in the workload's order) and ``cost_parts``
    (in ``cost_part_names``' order, model.sizing.cost.COST_PARTS); the front's (cost,
    workload time) points cheapest first; the workload's term names; ``terms``
    (:func:`term_rows`); the summary sentences, assumptions and grouped notes; the cost
    model's unit, description and prices (value, source); the workload's description and
    rationale; the machine's name; the study's ``endpoints`` and ``radix_max``. ``rows``
    and ``terms``: design_rows(study) and term_rows(study) when the caller has them (the
    document's), else built here; the view's renderers read them only."""
    from icnperf.model.sizing.cost import COST_PARTS

    return {
        "endpoints": study.endpoints, "radix_max": study.radix_max,
        "rows": design_rows(study) if rows is None else rows,
        "flags": [row_flags(r) for r in study.results],
        "shown": [bool(r.pareto or r.design.canonical) for r in study.results],
        "term_seconds": [[t.weighted_s for t in r.terms] for r in study.results],
        "cost_part_names": list(COST_PARTS),
        "cost_parts": [[r.cost_parts[p] for p in COST_PARTS] for r in study.results],
        "front": [{"cost": r.cost, "workload_s": r.workload_s} for r in study.front],
        "term_names": [t.name for t in workload.terms],
        "terms": term_rows(study) if terms is None else terms,
        "summary": summary_lines(study),
        "assumptions": assumption_lines(study, cost_model, workload, machine),
        "notes": grouped_notes(study),
        "unit": cost_model.unit, "cost_description": cost_model.description,
        "prices": [[key, getattr(cost_model, key.replace(".", "_")),
                    cost_model.sources.get(key, "")] for key in PRICE_KEYS],
        "workload_description": workload.description,
        "workload_rationale": workload.rationale,
        "machine": machine.name,
    }
