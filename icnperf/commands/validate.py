"""``icnperf validate``: every registered claim evaluated, as a table, JSON or CSV."""

from __future__ import annotations

from icnperf.render import Column, aligned_table, csv_text, json_text, number

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


def validation_results() -> list[dict]:
    """Every claim in the registry, evaluated, as plain dicts."""
    from icnperf.validation.registry import all_claims, evaluate

    return [evaluate(claim).as_dict() for claim in all_claims()]


def validation_text(fmt: str) -> tuple[str, bool]:
    """The rendered results and whether any check failed."""
    results = validation_results()
    failed = any(r["status"] == "fail" for r in results)
    if fmt == "json":
        return json_text({"checks": results}), failed
    if fmt == "csv":
        return csv_text(results, [*RESULT_KEYS, "reason"]), failed
    counts = {s: sum(r["status"] == s for r in results)
              for s in ("pass", "known-discrepancy", "fail")}
    lines = [aligned_table(results, VALIDATION_COLUMNS), "", "known discrepancies:"]
    lines += [f"  - {r['id']}: {r['reason']}" for r in results
              if r["status"] == "known-discrepancy"] or ["  (none)"]
    lines += ["", ", ".join(f"{n} {s}" for s, n in counts.items())]
    return "\n".join(lines) + "\n", failed
