"""``icnperf predict p2p`` and ``predict collective`` rendered (:func:`p2p_json`,
:func:`p2p_render`, :func:`collective_render`) from what the API computes
(icnperf.api.point_to_point; icnperf.api.collective_prediction with the rows of
icnperf.api.collective_table)."""

from __future__ import annotations

import numpy as np

from icnperf.reports.page import Page
from icnperf.reports.render import (Column, csv_chunks, csv_text, json_column_chunks,
                                    json_float_column, json_text, number, quantity)


P2P_COLUMNS = (
    Column("bytes", "size", quantity("size"), keep=True),
    Column("hops", "hops", number(3)),
    Column("packets", "packets", number()),
    Column("latency_s", "latency", quantity("time")),
    Column("hardware_latency_s", "hardware part", quantity("time")),
    Column("queueing_delay_s", "queueing", quantity("time")),
    Column("bandwidth_Bps", "ping-pong bw", quantity("bandwidth")),
    Column("streaming_bandwidth_Bps", "streaming bw", quantity("bandwidth")),
    Column("message_rate_per_s", "msg rate (1/s)", number(3)),
    Column("rate_bound_per_s", "V/L bound (1/s)", number(3)),
)

RENDEZVOUS_COLUMN = Column("rendezvous_s", "rendezvous", quantity("time"))
"""Shown after the hardware part when a row pays a rendezvous (model/network/rendezvous.py):
the latency's other term beside the software overhead."""

P2P_RANGE_SHOWN = ("latency_s", "bandwidth_Bps")
"""The ranged quantities the table shows the range of (JSON and CSV carry all)."""


def p2p_json(document: dict, columns: dict, spans: dict | None = None):
    """``predict p2p --format json`` by column (render.json_column_chunks): ``document``
    (``inputs`` and ``assumptions``) with the model's ``columns`` (NumPy arrays, SI units)
    as its rows, a 0-byte row's ``rate_bound_per_s`` null; the same bytes as json.dumps of
    the rows, chunk by chunk. ``spans`` (--uncertainty): name -> (low, high) arrays, written
    as ``<name>_low``/``<name>_high`` columns (null where a draw has no value)."""
    names = list(columns)
    count = len(columns["bytes"])
    empty = np.flatnonzero(columns["bytes"] == 0).tolist()
    texts = {name: json_float_column(columns[name]) for name in names}
    if empty:
        texts["rate_bound_per_s"] = _with_nulls(columns["rate_bound_per_s"], empty)
    for name, (low, high) in (spans or {}).items():
        for end, values in (("low", low), ("high", high)):
            texts[f"{name}_{end}"] = _range_column(
                values, empty if name == "rate_bound_per_s" else [])
    return json_column_chunks(document, "rows", texts, count)


def p2p_render(document: dict, rows, names, fmt: str, wide: bool = False):
    """``predict p2p`` rendered from what the API hands over: ``document`` (``inputs`` and
    ``assumptions``), ``rows`` an iterable of row dicts (SI units) in column order
    ``names``: CSV as an iterator of chunks (the rows streamed, never all held), the table
    as one string (JSON: :func:`p2p_json`)."""
    if fmt == "csv":
        return csv_chunks(rows, names)
    inputs = document["inputs"]
    gpu = inputs["buffers"] == "gpu"
    where = ("both GPUs in one scale-up domain" if gpu else
             "both ranks on one node (shared memory)")
    page = Page(wide)
    page.line(f"{inputs['machine']} ({inputs['topology']}), "
              + (where if inputs["same_node"] else f"api {inputs['api']}")
              + (", GPU buffers" if gpu else ""))
    page.blank()
    rows = list(rows)
    columns = _p2p_columns(rows)
    if "uncertainty" not in inputs and "production" not in inputs:
        page.table(rows, columns)
    else:
        from icnperf.reports.text.production import values_line
        from icnperf.reports.text.ranges import add_cells, sampling_line, table_columns

        page.table(add_cells(rows, P2P_RANGE_SHOWN, columns),
                   table_columns(columns, P2P_RANGE_SHOWN))
        page.blank()
        for line in ([sampling_line(inputs["uncertainty"])] if "uncertainty" in inputs
                     else []) + ([values_line(inputs["production"], "latency")]
                                 if "production" in inputs else []):
            page.line(line)
    page.blank()
    page.notes("assumptions", document["assumptions"])
    return page.text()


def _p2p_columns(rows: list[dict]) -> tuple:
    """The table's columns: :data:`P2P_COLUMNS`, with :data:`RENDEZVOUS_COLUMN` after the
    hardware part when a row pays a rendezvous."""
    if not any(row.get("rendezvous_s") for row in rows):
        return P2P_COLUMNS
    at = [c.key for c in P2P_COLUMNS].index("hardware_latency_s") + 1
    return P2P_COLUMNS[:at] + (RENDEZVOUS_COLUMN,) + P2P_COLUMNS[at:]


def _range_column(values: np.ndarray, empty: list[int]) -> list | str:
    """A range end as a JSON column: ``null`` where the draws gave no value (NaN) and at
    the rows ``empty`` (no payload: no V/L bound)."""
    values = np.asarray(values, dtype=float)
    missing = ~np.isfinite(values)
    missing[empty] = True
    if not missing.any():
        return json_float_column(values)
    return _with_nulls(values, missing)


def _with_nulls(values: np.ndarray, missing) -> np.ndarray:
    """``values`` as an object array whose entries at ``missing`` (indices or a mask) are
    the JSON text ``null``."""
    out = np.asarray(values, dtype=float).astype(object)
    out[missing] = "null"
    return out


def _shared_then_own(assumptions: dict[str, tuple[str, ...]]) -> list[str]:
    """Assumption lines: those every algorithm shares once, then each algorithm's own."""
    lists = list(assumptions.values())
    shared = [n for n in lists[0] if all(n in other for other in lists[1:])] if lists else []
    own = [f"[{a}] {n}" for a, ns in assumptions.items() for n in ns if n not in shared]
    return shared + own


COLLECTIVE_COLUMNS = (
    Column("nodes", "nodes", number()),
    Column("shape", "shape"),
    Column("bytes", "size", quantity("size")),
    Column("algorithm", "algorithm"),
    Column("time_s", "time", quantity("time")),
    Column("ratio_to_best_p2p", "best p2p / time", number(3)),
    Column("ratio_to_p2p_tree", "p2p-tree / time", number(3)),
)


AUTO_COLUMNS = COLLECTIVE_COLUMNS + (Column("rule", "rule", overflow="note"),)
"""``--algorithm auto``: the rule each row's algorithm follows, as notes when too wide."""


def collective_render(document: dict, fmt: str, wide: bool = False,
                      mpi_library: str | None = None,
                      production_line: str | None = None) -> str:
    """``predict collective`` rendered from its document (``inputs``, ``assumptions`` per
    algorithm, ``rows``; the API builds it). ``mpi_library``: the machine's
    software.mpi_library, named in the note of ``--algorithm auto``; ``production_line``:
    what ``--production`` applied (api.production.production_line)."""
    if fmt == "json":
        return json_text(document)
    rows = document["rows"]
    if fmt == "csv":
        return csv_text(rows, [*rows[0]] if rows else ["nodes"])
    inputs = document["inputs"]
    ppn, placement, mode = (inputs["processes_per_node"], inputs["placement"],
                            inputs["hierarchy"])
    algorithm = inputs["algorithm"]
    placed = ("" if ppn == 1 and placement == "linear" else
              f", {ppn} processes per node, {placement} placement")
    if ppn > 1:
        placed += (", hierarchy node (node-local phases in shared memory, the algorithm"
                   " among one leader per node)" if mode == "node" else
                   ", hierarchy flat (the algorithm over every rank)")
    page = Page(wide)
    placed += ", GPU buffers" if inputs["buffers"] == "gpu" else ""
    page.line(f"{inputs['operation']} on {inputs['machine']}, api {inputs['api']}{placed};"
              " ratios are the best point-to-point algorithm's and the point-to-point tree's"
              " time over this one's")
    page.blank()
    columns = AUTO_COLUMNS if algorithm == "auto" else COLLECTIVE_COLUMNS
    if mode == "node" and ppn > 1:
        columns = (*columns[:5], Column("node_local_s", "in node", quantity("time")),
                   *columns[5:])
    if "uncertainty" not in inputs and "production" not in inputs:
        page.table(rows, columns)
    else:
        from icnperf.reports.text.ranges import add_cells, sampling_line, table_columns

        page.table(add_cells(rows, ("time_s",), columns), table_columns(columns, ("time_s",)))
        page.blank()
        if "production" in inputs:
            page.line(production_line)
        if "uncertainty" in inputs:
            page.line(sampling_line(inputs["uncertainty"]))
    page.blank()
    lines = _shared_then_own(document["assumptions"])
    if algorithm == "auto" and rows:
        chosen = (f"the MPI library's default choice, software.mpi_library {mpi_library} "
                  f"({rows[0]['rule_set']})" if mpi_library else rows[0]["rule_set"])
        lines = [f"auto: {chosen}; element counts with {inputs['element_bytes']:g}-byte "
                 "elements (--element-size)"] + lines
    if document["absent"]:
        page.notes("not in the table", document["absent"])
        page.blank()
    page.notes("assumptions", lines)
    return page.text()
