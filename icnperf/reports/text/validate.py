"""``icnperf validate``: every registered claim evaluated, as a table, JSON or CSV, or as an
HTML page (``-o FILE.html``, built by icnperf.reports.validation_page)."""

from __future__ import annotations

from icnperf.reports.render import Column, aligned_table, csv_text, json_text, number

RESULT_KEYS = ("id", "source", "quantity", "measured", "predicted", "unit", "error",
               "tolerance", "tolerance_kind", "status", "passed")

VALIDATION_COLUMNS = (
    Column("id", "id"),
    Column("source", "source"),
    Column("quantity", "quantity"),
    Column("measured", "measured", number()),
    Column("predicted", "predicted", number()),
    Column("unit", "unit"),
    Column("error", "error", number(3)),
    Column("tolerance", "tolerance", number(3)),
    Column("tolerance_kind", "kind"),
    Column("status", "status"),
)


def claim_kinds(skip_simulation: bool) -> tuple[str, ...]:
    """The registry's claim kinds to check (the simulator's cross-checks left out on
    request)."""
    from icnperf.validation.registry import CLAIM_KINDS

    return tuple(k for k in CLAIM_KINDS if not (skip_simulation and k == "simulation"))


def validation_results(skip_simulation: bool = False) -> list[dict]:
    """Every claim in the registry (but the simulator's with ``skip_simulation``),
    evaluated, as plain dicts."""
    from icnperf.validation.registry import all_claims, evaluate

    return [evaluate(claim).as_dict()
            for claim in all_claims(kinds=claim_kinds(skip_simulation))]


def validation_text(fmt: str, skip_simulation: bool = False) -> tuple[str, bool]:
    """The rendered results and whether any check failed."""
    from icnperf.validation.registry import status_counts

    results = validation_results(skip_simulation)
    failed = any(r["status"] == "fail" for r in results)
    if fmt == "json":
        return json_text({"checks": results}), failed
    if fmt == "csv":
        return csv_text(results, [*RESULT_KEYS, "reason"]), failed
    counts = status_counts(results)
    lines = [aligned_table(results, VALIDATION_COLUMNS), "", "known discrepancies:"]
    lines += [f"  - {r['id']}: {r['reason']}" for r in results
              if r["status"] == "known-discrepancy"] or ["  (none)"]
    lines += ["", ", ".join(f"{n} {s}" for s, n in counts.items())]
    return "\n".join(lines) + "\n", failed


def write_validation_page(output: str, force: bool, skip_simulation: bool = False) -> bool:
    """The registry's results as an HTML page written atomically to ``output``; returns
    whether any check failed (the exit status is the same as for the text output)."""
    from icnperf.reports.text.report import check_target
    from icnperf.data.files import write_atomically
    from icnperf.reports.validation_page import validation_page

    check_target(output, force)
    page, failed = validation_page(claim_kinds(skip_simulation))
    write_atomically(output, page, force=force, html=True)
    return failed
