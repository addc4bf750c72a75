"""``icnperf report --production``: the report's predictions on the busy machine, computed
as ``predict p2p|collective|app --production`` computes them (api/production.py,
production_p2p.py, production_app.py), and
which production mechanisms were applied with their sources.

* point-to-point: the background utilisation as the offered load of uniform traffic, each
  message one synchronising step on its two ranks (api.production_p2p.p2p_point, p2p_ranged);
* collectives: the algorithms with a step schedule, each step waiting the background's
  M/D/1 delay and delayed by one detour when a rank is hit (api.production.production_rows,
  production_ranged_rows); those without one (hardware trees, the point-to-point tree) are
  left out, each said;
* application skeletons (``--app``): api.production_app.app_tables;
* the spmv and heat sweeps (the Angara papers' own models) and the formulas and tornado
  charts stay the empty machine's, said on the page.

Without ``--uncertainty`` the report shows the production points (the medians) only; with
it, the error bars and 5-95 % cells are the ``--uncertainty --production`` ranges.
"""

from __future__ import annotations

PLACEMENT = ("each job as the report lays it out (on a torus a balanced torus of its node"
             " count, elsewhere the machine's own job), placed linearly; a batch"
             " scheduler's placement needs production.node_occupancy")
"""What the report says of placement on a machine without ``node_occupancy``."""

SCHEDULED = ("on a fat tree or dragonfly a job's nodes are the first free nodes of a machine"
             " whose other jobs hold this share of its nodes, scattered (the median and"
             " range over 16 placement draws): the collectives', the point-to-point curves'"
             " two nodes and the --app skeletons' (linear for a skeleton with a helper"
             " phase, which puts ranks on consecutive nodes)")
"""What the report says of a busy scheduler's placement (model/scheduled_placement.py)."""

MECHANISMS = (("background traffic", ("background_utilization",),
               "the busiest channel's utilisation by other jobs, as the offered load of the"
               " M/D/1 queueing behind predict p2p --load; absent: an empty network"),
              ("OS noise", ("noise_frequency", "noise_duration"),
               "detours per second on each rank and their length; a synchronising step on"
               " P ranks waits one detour with probability 1 - exp(-P f t); absent: no"
               " noise"))
"""The ``[production]`` mechanisms: name, keys, what applying them means."""


def require_production(machines, names) -> None:
    """InputError (one line) when a machine of the report has no ``[production]`` values
    (model.production.require_values), naming it as the report labels it."""
    from icnperf.errors import InputError
    from icnperf.model.production import require_values

    for machine, name in zip(machines, names):
        try:
            require_values(machine)
        except InputError as error:
            if name == machine.name:
                raise
            raise InputError(f"{error} (report label {name!r})") from None


def mechanisms(machine, name: str) -> list[list[str]]:
    """Per production mechanism of ``machine``: [machine label, mechanism, applied or not,
    the values as written, their sources]; placement first (applied to the collectives
    with ``node_occupancy``, else linear)."""
    rows = {key: (shown, source) for section, key, _, shown, source in machine.rows()
            if section == "production"}
    if "node_occupancy" in rows:
        shown, source = rows["node_occupancy"]
        out = [[name, "placement", "applied",
                f"node_occupancy {shown} ({SCHEDULED})", f"node_occupancy: {source}"]]
    else:
        out = [[name, "placement", "not applied", PLACEMENT, "-"]]
    for mechanism, keys, meaning in MECHANISMS:
        given = [key for key in keys if key in rows]
        if not given:
            out.append([name, mechanism, "not applied", meaning, "no value in [production]"])
            continue
        out.append([name, mechanism, "applied",
                    "; ".join(f"{key} {rows[key][0]}" for key in given) + f" ({meaning})",
                    " | ".join(f"{key}: {rows[key][1]}" for key in given)])
    return out


def p2p_columns(machine, sizes, api: str, sampling=None):
    """(columns, spans) of the report's point-to-point curves on the busy machine: the
    columns of predict p2p --production (latency_s the median over the noise) and, with
    ``sampling``, the spans of its --uncertainty ranges (None without)."""
    from icnperf.api import production_p2p as busy
    from icnperf.api.report_ranges import P2P_SHOWN
    from icnperf.model.network import p2p_table

    def table_of(drawn, load, hops=None):
        return p2p_table(drawn, sizes, hops, api, offered_load=load)

    if sampling is None:
        columns, _, _, _ = busy.p2p_point(machine, table_of, "uniform", True)
        return columns, None
    columns, spans, _, _ = busy.p2p_ranged(machine, table_of, "uniform", sampling, P2P_SHOWN,
                                           True)
    return columns, spans


def collective_rows(machine, rows, operation: str, layouts, api: str, sampling=None):
    """(rows, left out) of a collective sweep on the busy machine: ``rows``
    (collective_table.collective_rows') without the algorithms that have no step schedule,
    each row's ``time_s`` the production median, with ``sampling`` its ``time_s_low`` /
    ``time_s_high`` the --uncertainty --production range; the algorithms left out."""
    from icnperf.api.production import (production_ranged_rows, production_rows,
                                        unscheduled)

    left = unscheduled(rows, operation)
    rows = [row for row in rows if row["algorithm"] not in left]
    if not rows:
        return [], left
    if sampling is None:
        return production_rows(machine, rows, operation, layouts, api), left
    return production_ranged_rows(machine, lambda drawn: drawn, rows, operation, layouts,
                                  api, sampling), left


def skeleton_tables(skeleton, machine, layouts, sampling=None):
    """(phase rows, total rows) of a skeleton on the busy machine (predict app
    --production's, api.production_app.app_tables); without ``sampling`` the points only (the
    noise's 5-95 % left out, as the report draws error bars only with --uncertainty)."""
    from icnperf.api.app_runs import skeleton_results, skeleton_rows
    from icnperf.api.production_app import app_tables

    def runs_on(drawn, on):
        return [(None, skeleton_results(skeleton, drawn, on, None, None))]

    ((_, phases, totals),) = app_tables(
        machine, runs_on, lambda results, label: skeleton_rows(results, skeleton.scaling,
                                                               label),
        skeleton, layouts, sampling)
    if sampling is None:
        phases, totals = _points(phases), _points(totals)
    return phases, totals


def _points(rows: list[dict]) -> list[dict]:
    return [{key: value for key, value in row.items()
             if not key.endswith(("_low", "_high"))} for row in rows]

