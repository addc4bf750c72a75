"""What the validation page (``icnperf validate -o x.html``) and the report's validation
section show, worked out from the claims' results: the counts by kind and status, the
results grouped by paper with their summaries, each claim's accepted interval, and the
data of the paper figures the model redraws (icnperf.reports.paper_figures draws them).
"""

from __future__ import annotations

import math
import re


def paper_of(source: str) -> str:
    """A claim source's paper: the text up to its first closing parenthesis
    ("Angara collectives paper (Mukosey 2015), §3.1 ..." -> "Angara collectives paper
    (Mukosey 2015)")."""
    match = re.match(r"[^)]*\)", source)
    return match.group(0) if match else source


def by_paper(results: list[dict]) -> dict[str, list[dict]]:
    """Results grouped by paper, in registry order."""
    groups: dict[str, list[dict]] = {}
    for result in results:
        groups.setdefault(paper_of(result["source"]), []).append(result)
    return groups


def tolerance_interval(measured: float, tolerance: float, kind: str) -> tuple[float, float]:
    """The predicted values a claim accepts (registry.error_of's tolerance kinds)."""
    if kind == "relative":
        return measured - tolerance * abs(measured), measured + tolerance * abs(measured)
    if kind == "factor":
        return measured / tolerance, measured * tolerance
    if kind == "at-least":
        return measured - tolerance * abs(measured), math.inf
    return measured - tolerance, measured + tolerance


def tolerance_intervals(results: list[dict]) -> list[tuple[float, float] | None]:
    """Each result's accepted interval of predictions, None for a statement of order or a
    claim without two numbers (the scatter leaves those out)."""
    return [tolerance_interval(r["measured"], r["tolerance"], r["tolerance_kind"])
            if r["tolerance_kind"] != "ordering" and r["measured"] is not None
            and r["predicted"] is not None else None for r in results]


def _group(results: list[dict]) -> dict:
    """A group of results with its summary line and intervals."""
    from icnperf.validation.registry import summary_line

    return {"results": results, "summary": summary_line(results),
            "intervals": tolerance_intervals(results)}


def _paper(paper: str, group: list[dict]) -> dict:
    return {**_group(group), "paper": paper,
            "sources": list(dict.fromkeys(r["source"] for r in group)),
            "redraws": redraws(group)}


def validation_page(results: list[dict], simulation_run: bool = True) -> dict:
    """Everything the validation page shows of ``results`` (CheckResult dicts):
    ``summary`` (the counts line), ``kind_counts`` (status counts per claim kind),
    ``statuses``, ``paper_counts`` (per paper: claims, claims per kind, per status),
    ``papers`` (the closed-form and application claims by paper, each with its summary,
    intervals and redrawn figures' data) and ``simulated`` (the simulator's claims; None
    when ``simulation_run`` is false: they were not run)."""
    from icnperf.validation.registry import (CLAIM_KINDS, STATUSES, kind_counts,
                                             status_counts, summary_line)

    closed = [r for r in results if r["runs"] != "simulation"]
    simulated = [r for r in results if r["runs"] == "simulation"]
    paper_counts = [[paper, len(group), *[sum(r["kind"] == k for r in group)
                                          for k in CLAIM_KINDS],
                     *status_counts(group).values()]
                    for paper, group in by_paper(results).items()]
    return {"count": len(results), "summary": summary_line(results),
            "kind_counts": kind_counts(results), "kinds": list(CLAIM_KINDS),
            "statuses": list(STATUSES), "paper_counts": paper_counts,
            "papers": [_paper(paper, group) for paper, group in by_paper(closed).items()],
            "simulated": _group(simulated) if simulation_run else None}


# --- the published figures the model redraws ----------------------------------------------


def angara_fig7() -> dict:
    """Angara collectives paper (Mukosey 2015) Fig. 7: hardware-tree speedup over the
    point-to-point tree vs node count, broadcast and all-reduce of one 256-byte packet on
    balanced 3D and 4D tori (model: validation.claims.angara_collectives.sweep_ratios;
    points: the bundled table angara-collectives-fig7). ``curves``: per (operation, dims)
    the model's (nodes, shape, ratio) and the published rows."""
    from icnperf.data.measurements.tables import load_table
    from icnperf.validation.claims import angara_collectives as fig7

    published = load_table(fig7.TABLE).rows()
    curves = [{"operation": operation, "dims": dims,
               "model": fig7.sweep_ratios(operation, dims),
               "published": [(r["nodes"], r["speedup"]) for r in published
                             if r["operation"] == operation and r["dims"] == dims]}
              for operation in ("broadcast", "allreduce") for dims in (3, 4)]
    return {"figure": "angara-fig7",
            "nodes": [n for dims in fig7.SWEEP for n in fig7.SWEEP[dims]], "curves": curves}


def angara_fig9() -> dict:
    """Angara collectives paper (Mukosey 2015) Fig. 9: SpMV iteration time with the
    recursive-doubling all-gather over the hardware all-gather vs node count on a 4D torus
    (model: validation.claims.angara_spmv.gain over its SWEEP; point: the bundled table
    angara-spmv-fig9, the paper's largest gain, with the claim's tolerance)."""
    from icnperf.data.measurements.tables import load_table
    from icnperf.validation.claims import angara_spmv as fig9

    (row,) = load_table(fig9.TABLE).rows()
    return {"figure": "angara-fig9", "matrix_rows": row["matrix_rows"],
            "nonzeros_per_row": row["nonzeros_per_row"],
            "model": [(n, fig9.gain(n)) for n in fig9.SWEEP],
            "published": (row["nodes"], row["speedup"]), "tolerance": fig9.TOLERANCE}


def angara_fig10() -> dict:
    """Angara collectives paper (Mukosey 2015) Fig. 10: heat-equation step time with the
    point-to-point all-reduce over the hardware all-reduce vs node count on a 4D torus, one
    curve per grid (model: validation.claims.angara_heat.ratio over its SWEEP; points: the
    bundled table angara-heat-fig10, its onset rows left out)."""
    from icnperf.data.measurements.tables import load_table
    from icnperf.validation.claims import angara_heat as fig10

    rows = load_table(fig10.TABLE).rows()
    grids = list(dict.fromkeys(r["grid_cells"] for r in rows))
    return {"figure": "angara-fig10", "curves": [
        {"cells": cells, "model": [(n, fig10.ratio(n, cells)) for n in fig10.SWEEP],
         "published": [(r["nodes"], r["speedup"]) for r in rows
                       if r["grid_cells"] == cells and r["relation"] != "onset"]}
        for cells in grids]}


REDRAWS = (("angara-fig7-", angara_fig7), ("angara-fig9-", angara_fig9),
           ("angara-fig10-", angara_fig10))
"""(claim id prefix, the figure's data): a figure is redrawn when a group has such
claims."""


def redraws(results: list[dict]) -> list[dict]:
    """The data of the redrawn paper figures that illustrate some of these claim results."""
    ids = [r["id"] for r in results]
    return [build() for prefix, build in REDRAWS if any(i.startswith(prefix) for i in ids)]
