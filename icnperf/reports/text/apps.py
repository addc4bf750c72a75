"""``icnperf predict app`` and ``icnperf place``: application models per node count.

``predict app`` (computed by :mod:`icnperf.api.application`) shows each phase's time per
run and its share of the total, fitted to 100 columns by
:class:`icnperf.reports.page.Page` (``--wide``: the full layout): :func:`app_render`.
``--algorithm all`` runs the skeleton twice, every collective phase on the hardware tree and
then on its point-to-point algorithm, and sets the totals side by side with their ratio
p2p / hw-tree (the quantity of the Angara papers' Figs. 9 and 10). NPB IS's placements
ranked by its Python model: :func:`placement_render`. The rows and notes come built from
the API (icnperf.api.app_runs).
"""

from __future__ import annotations

from icnperf.reports.page import Page
from icnperf.reports.render import Column, column_cells, csv_text, json_text, number, \
    table_width


def _time(value: float) -> str:
    from icnperf.units import format_quantity

    return format_quantity(value, "time", 3)


ALL = "all"
"""``--algorithm all``: the hardware tree and each phase's point-to-point algorithm."""


def _share(value) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _phase_columns(phase_rows, total_rows, names, with_layout: bool):
    """A column per phase (its time and share): (rows, columns)."""
    by_nodes = {}
    for row in phase_rows:
        by_nodes.setdefault(row["nodes"], {})[row["phase"]] = row
    rows = []
    for total in total_rows:
        row = {"nodes": total["nodes"], "layout": total["layout"],
               "total_s": total["total_s"], "gflops": total["gflops"],
               "efficiency": total["efficiency"], "total_range": _range(total, "total_s")}
        for i, name in enumerate(names):
            cell = by_nodes[total["nodes"]][name]
            row[f"p{i}"] = f"{_time(cell['time_s'])} {_share(cell['share'])}"
        rows.append(row)
    columns = [Column("nodes", "nodes", number(), keep=True)]
    if with_layout:
        columns.append(Column("layout", "layout", keep=True))
    columns += [Column(f"p{i}", name) for i, name in enumerate(names)]
    columns += [Column("total_s", "total", _time)]
    if "total_s_low" in total_rows[0]:
        columns.append(Column("total_range", "5-95 %", with_previous=True))
    columns += [Column("gflops", "GFLOP/s", number(4)),
                Column("efficiency", "efficiency", number(3))]
    return rows, columns


def _range(row: dict, key: str) -> str:
    """"low–high" of ``key`` (times) when the row has its range, else ""."""
    if f"{key}_low" not in row:
        return ""
    from icnperf.reports.text.ranges import cell_text

    return cell_text(row, key, _time)


def _phase_rows(phase_rows, total_rows):
    """A row per phase and one total row per node count: (rows, columns)."""
    rows = []
    for total in total_rows:
        first = True
        for row in phase_rows:
            if row["nodes"] != total["nodes"]:
                continue
            rows.append({**row, "nodes": row["nodes"] if first else None,
                         "layout": row["layout"] if first else "",
                         "shown": _share(row["share"]), "range": _range(row, "time_s")})
            first = False
        rows.append({"phase": "total", "time_s": total["total_s"], "shown": "",
                     "gflops": total["gflops"], "efficiency": total["efficiency"],
                     "layout": "", "range": _range(total, "total_s")})
    ranged = "total_s_low" in total_rows[0]
    columns = (Column("nodes", "nodes", lambda v: "" if v is None else f"{v:,}"),
               Column("layout", "layout"), Column("phase", "phase", overflow="wrap"),
               Column("time_s", "time", _time),
               *((Column("range", "5-95 %", with_previous=True),) if ranged else ()),
               Column("shown", "share"),
               Column("gflops", "GFLOP/s", lambda v: "" if v is None else number(4)(v)),
               Column("efficiency", "efficiency",
                      lambda v: "" if v is None else number(3)(v)))
    return rows, columns


def phase_table(page, phase_rows, total_rows, names) -> None:
    """The table on ``page``: a column per phase (its time and share) when that fits the
    page (with the layout if it fits too; always at full width), else one row per phase."""
    if page.width is not None:
        for with_layout in (True, False):
            rows, columns = _phase_columns(phase_rows, total_rows, names, with_layout)
            if table_width(column_cells(rows, columns)) <= page.width:
                page.table(rows, columns)
                return
        page.table(*_phase_rows(phase_rows, total_rows))
        return
    page.table(*_phase_columns(phase_rows, total_rows, names, True))


def _comparison_rows(hw_totals, p2p_totals) -> list[dict]:
    """Per node count the total with each algorithm and p2p / hw-tree."""
    return [{"nodes": hw["nodes"], "layout": hw["layout"], "hw": hw["total_s"],
             "p2p": p2p["total_s"], "hw_gain": hw["hw_gain"]}
            for hw, p2p in zip(hw_totals, p2p_totals)]


def app_render(document: dict, fmt: str, wide: bool = False) -> str:
    """``predict app`` rendered from its document (``inputs``, ``notes``, phase ``rows``
    and ``totals``, each naming the algorithm of its run; the API builds it)."""
    if fmt == "json":
        return json_text(document)
    labels = list(dict.fromkeys(total["algorithm"] for total in document["totals"]))
    tables = [(label, [r for r in document["rows"] if r["algorithm"] == label],
               [t for t in document["totals"] if t["algorithm"] == label])
              for label in labels]
    if fmt == "csv":
        rows = []
        for _, own, totals in tables:
            for total in totals:
                rows += [row for row in own if row["nodes"] == total["nodes"]]
                rows.append({**total, "phase": "total", "time_s": total["total_s"],
                             "share": 1.0})
        return csv_text(rows, ["nodes", "layout", "algorithm", "phase", "time_s", "share",
                               "gflops", "efficiency", "hw_gain"])
    inputs = document["inputs"]
    comparison = _comparison_rows(tables[0][2], tables[1][2]) \
        if inputs["algorithm"] == ALL else []
    placement = inputs["placement"]
    placed = ("" if placement == "linear" else f", {placement} placement") + (
        ", GPU buffers" if inputs["buffers"] == "gpu" else "")
    first_rows, first_totals = tables[0][1], tables[0][2]
    names = [row["phase"] for row in first_rows[:len(first_rows) // len(first_totals)]]
    return _app_page(inputs["skeleton"], f"{inputs['machine']}{placed}",
                     inputs["processes_per_node"], labels, tables, comparison,
                     document["notes"], names, wide, inputs.get("uncertainty"))


def _app_page(skeleton_name, machine_name, ppn, labels, tables, comparison, notes, names,
              wide, sampling=None) -> str:
    page = Page(wide)
    what = "time per run of each phase and its share of the total"
    if comparison:
        what += (", with every collective phase on the hardware tree, then on its "
                 "point-to-point algorithm")
    page.line(f"{skeleton_name} on {machine_name}, {ppn} process(es) per node; {what}",
              hang="  ")
    for label, phase_rows, total_rows in tables:
        page.blank()
        if comparison:
            side = ("every collective phase on the hardware tree (hw-tree)"
                    if label == labels[0] else
                    f"every collective phase on its point-to-point algorithm ({label})")
            page.line(f"{side}:")
        phase_table(page, phase_rows, total_rows, names)
    if comparison:
        page.blank()
        page.line("total time per run:")
        page.table(comparison, (
            Column("nodes", "nodes", number(), keep=True), Column("layout", "layout"),
            Column("hw", labels[0], _time), Column("p2p", labels[1], _time),
            Column("hw_gain", "p2p / hw-tree", number(3))))
    if sampling is not None:
        from icnperf.reports.text.ranges import sampling_line

        page.blank()
        page.line(sampling_line(sampling))
    page.blank()
    page.notes("notes", notes)
    return page.text()


def placement_render(document: dict, fmt: str, wide: bool = False) -> str:
    """NPB IS placements (``place``, ``predict app npb-is``) rendered from their document
    (``inputs``, ``notes``, ``placements`` ranked fastest first; ``wide``: notes
    unwrapped)."""
    if fmt == "json":
        return json_text(document)
    rows = document["placements"]
    if fmt == "csv":
        return csv_text(rows, list(rows[0]) if rows else ["rank"])
    columns = (Column("rank", "rank"), Column("nodes", "nodes"),
               Column("processes_per_node", "per node"), Column("processes", "processes"),
               Column("total_s", "predicted total", _time))
    page = Page(wide)
    page.line(f"NPB IS class {document['inputs']['class']} on {document['inputs']['machine']},"
              " fastest first")
    page.blank()
    page.table(rows, columns)
    page.blank()
    page.notes("notes", document["notes"])
    return page.text()
