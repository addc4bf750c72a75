"""The document of ``icnperf.crossover`` (:func:`crossover_document`): the crossover record
(icnperf.model.crossover) with its statement in words (:func:`crossover_statement`) and one
row per point of its scan (:func:`scan_rows`)."""

from __future__ import annotations


def _scan_row(point, factor: float) -> dict:
    return {"value": point.value, "layout": point.layout,
            "time_faster_s": point.time_faster, "time_slower_s": point.time_slower,
            "ratio": point.ratio, "reaches_factor": point.ratio >= factor}


def _where(point, variable: str) -> str:
    """Where a scan point lies, in words: its node count and layout, or its size."""
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


def crossover_document(record, rows, inputs: dict, machine_name: str) -> dict:
    """The JSON layout of ``icnperf crossover collective``: the crossover ``record``
    (model.crossover) with its statement, the scan ``rows``, the assumptions."""
    return {
        "inputs": inputs,
        "machine": machine_name,
        "crossover": {"status": record.status, "variable": record.variable,
                      "factor": record.factor, "at": _point_document(record.at),
                      "below": _point_document(record.below),
                      "reverts": _point_document(record.reverts),
                      "best": _point_document(record.best), "method": record.method,
                      "fixed": record.fixed, "skipped": list(record.skipped),
                      "evaluations": record.evaluations,
                      "statement": crossover_statement(record)},
        "rows": rows,
        "assumptions": list(record.assumptions),
    }


def scan_rows(record, factor: float) -> list[dict]:
    """One row per point of the crossover's scan."""
    return [_scan_row(p, factor) for p in record.scan]
