"""``--production`` on ``predict collective``: the machine's ``[production]`` values
(background traffic, OS noise, a busy scheduler's placement; model/production.py) applied
to the command's rows. The same on ``predict p2p`` is api/production_p2p.py, on ``predict
app`` api/production_app.py.

Each row's collective steps, each with a message that leaves its node waiting the
background's M/D/1 delay, and each delayed by one detour with probability 1 - exp(-P f t),
P the ranks it waits for: every rank in a flat algorithm's steps and in the node-local
rounds of a hierarchical one, the node leaders in its leaders' steps
(model/production.collective_production, any processes per node, placement and
hierarchy). With ``uncertainty`` the machine's inputs (the production values among them)
are drawn as for any range and each draw also draws its noise, seeded by the same seed;
the point is then the median over those draws.
"""

from __future__ import annotations

import numpy as np


def _run_algorithm(row: dict) -> str:
    """The algorithm a collective row ran: its name, without the ``auto: `` of the MPI
    library's pick (api/collective_table.py)."""
    return row["algorithm"].removeprefix("auto: ")


def unscheduled(rows, operation: str) -> list[str]:
    """The algorithms of ``rows`` (in their order) that have no step schedule for
    ``operation`` (collectives.schedules.TABLE: hardware trees, the point-to-point tree):
    ``--production`` counts the background's queueing and the OS noise per step, so under
    ``--algorithm all`` these leave the table, said under it, instead of refusing the whole
    command."""
    from icnperf.model.collectives.schedules import TABLE

    names = dict.fromkeys(row["algorithm"] for row in rows)
    return [name for name in names
            if (name, operation) not in TABLE or TABLE[(name, operation)].steps is None]


def _layout_options(processes_per_node: int, placement: str, hierarchy: str | None,
                    element_size: float) -> dict:
    """collective_production's keywords for the command's layout options."""
    return {"processes_per_node": processes_per_node, "placement": placement,
            "hierarchy": hierarchy, "element_size": element_size}


def _row_algorithm(machine, row: dict, operation: str, layout, element_size: float) -> str:
    """The algorithm of ``row`` to charge (:func:`_run_algorithm`); on one node under node
    leaders ('auto: node-local only') no leaders' step runs, and the algorithm the MPI
    library picks among the one leader stands in (the time does not depend on it)."""
    from icnperf.api.collective_table import auto_choices

    name = _run_algorithm(row)
    if name != "node-local only":
        return name
    ((chosen, _),), _ = auto_choices(machine, operation, layout, [row["bytes"]], 1,
                                     element_size)
    return chosen


def production_rows(machine, rows, operation: str, layouts, api: str, *,
                    processes_per_node: int = 1, placement: str = "linear",
                    hierarchy: str | None = None, element_size: float = 8.0) -> list[dict]:
    """The rows of ``predict collective --production``: ``time_s`` the median of the
    production distribution (model/production.collective_production, with the command's
    processes per node, placement and hierarchy), ``time_s_low`` / ``time_s_high`` its
    5th and 95th percentiles, ``empty_time_s`` the empty machine's; ``production_steps``
    the synchronising steps (node-local rounds and leaders' steps together under node
    leaders), ``noise_hit_probability`` a step's chance of a detour (the mean over the
    steps), ``background_waiting_steps`` the steps that wait the background's
    ``background_wait_per_step_s`` (those with a message leaving its node); the ratio
    columns stay the empty machine's. InputError when the machine has no ``[production]``
    values, or for an algorithm without a step schedule."""
    from icnperf.model.production import collective_production, require_values

    require_values(machine)
    by_shape = _by_job(layouts)
    layout_options = _layout_options(processes_per_node, placement, hierarchy, element_size)
    out = []
    for row in rows:
        layout = by_shape[row["nodes"], row["shape"]]
        result = collective_production(
            machine, operation, _row_algorithm(machine, row, operation, layout, element_size),
            row["bytes"], layout, api, **layout_options)
        low, median, high = result["production_time_s"]
        out.append({**row, "empty_time_s": row["time_s"], "time_s": median,
                    "time_s_low": low, "time_s_high": high,
                    "production_steps": result["steps"],
                    "noise_hit_probability": result["noise_hit_probability"],
                    "background_offered_load": result["offered_load"],
                    "background_wait_per_step_s": result["queueing_per_step_s"],
                    "background_waiting_steps": result["waiting_steps"],
                    **_scheduled_fields(result)})
    return out


def _by_job(layouts) -> dict:
    """The job layouts by (nodes, shape), as a collective row names its job: a fat tree or
    dragonfly keeps its shape whatever the node count, so the shape alone is not enough."""
    return {(layout.endpoints, layout.text): layout for layout in layouts}


def _scheduled_fields(result: dict) -> dict:
    """The busy scheduler's placement in a row (none without one): the mean over the
    placement draws of the groups or leaf switches the job spans
    (``placement_units_spanned``), and the draws' count."""
    spans = result.get("groups_spanned")
    if not spans:
        return {}
    return {"placement_units_spanned": sum(spans) / len(spans),
            "placement_draws": len(spans)}


def production_ranged_rows(base, drawn_machine, rows, operation: str, layouts, api: str,
                           sampling, *, processes_per_node: int = 1,
                           placement: str = "linear", hierarchy: str | None = None,
                           element_size: float = 8.0) -> list[dict]:
    """The rows of ``predict collective --production --uncertainty``: the inputs, the
    production values among them, are drawn, and each draw draws its count of delayed
    steps in each noise group, seeded by the same seed; ``drawn_machine(machine)`` is the
    machine each draw runs on (the buffers applied)."""
    from icnperf.data.machine.sampling import sample_machines
    from icnperf.model.production import collective_production, grouped_draws

    layout_options = _layout_options(processes_per_node, placement, hierarchy, element_size)
    rows = production_rows(drawn_machine(base), rows, operation, layouts, api,
                           **layout_options)
    by_shape = _by_job(layouts)
    machines = [drawn_machine(m) for m in sample_machines(base, sampling.samples,
                                                          sampling.seed)]
    out = []
    for row in rows:
        layout = by_shape[row["nodes"], row["shape"]]
        algorithm = _row_algorithm(machines[0], row, operation, layout, element_size)
        # under a busy scheduler each draw of the inputs draws one placement (seed: its
        # index), model/production.collective_production
        parts = [collective_production(m, operation, algorithm, row["bytes"], layout, api,
                                       quantiles=(), placement_draws=1, placement_seed=i,
                                       **layout_options) for i, m in enumerate(machines)]
        groups = [(g.steps, g.ranks, [p["groups"][i].length for p in parts])
                  for i, g in enumerate(parts[0]["groups"])]
        totals = grouped_draws(
            [p["time_s"] for p in parts], groups, waiting_steps=parts[0]["waiting_steps"],
            queueing_per_step=[p["queueing_per_step_s"] for p in parts],
            frequency=[m.production.get("noise_frequency", 0.0) for m in machines],
            duration=[m.production.get("noise_duration", 0.0) for m in machines],
            rng=np.random.default_rng(sampling.seed))
        low, median, high = np.quantile(totals, [sampling.low, 0.5, sampling.high])
        out.append({**row, "time_s": float(median), "time_s_low": float(low),
                    "time_s_high": float(high)})
    return out


def production_line(machine) -> str:
    """What ``--production`` applied to ``predict collective``, in one line (the machine's
    ``[production]`` rows as written)."""
    parts = [f"{key} {text}" for section, key, _, text, _ in machine.rows()
             if section == "production"]
    from icnperf.model.production import PLACEMENT_DRAWS

    placement = (f" and a busy scheduler's placement ({PLACEMENT_DRAWS} draws on a fat tree "
                 "or dragonfly placed linearly)" if "node_occupancy" in machine.production
                 else "")
    return ("production: time is the median over OS noise and background traffic"
            + placement + ", the "
            "range its 5-95 %; " + ", ".join(parts) + " (docs/machine-format.md, "
            "'[production]'); ratios are the empty machine's")
