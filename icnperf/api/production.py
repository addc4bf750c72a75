"""``--production`` on ``predict p2p|collective|app``: the machine's ``[production]``
values (background traffic, OS noise; model/production.py) applied to each command's rows.

* **collective** (:func:`production_rows`, :func:`production_ranged_rows`): the
  collective's steps, each with a message that leaves its node waiting the background's
  M/D/1 delay, and each delayed by one detour with probability 1 - exp(-P f t), P the ranks
  it waits for: every rank in a flat algorithm's steps and in the node-local rounds of a
  hierarchical one, the node leaders in its leaders' steps
  (model/production.collective_production, any processes per node, placement and
  hierarchy).
* **p2p.** The background utilisation becomes the offered load of the M/D/1 queueing
  behind ``--load`` (model/production.background_load, for the ``--pattern`` asked), so
  every column is the busy network's; the noise delays a message (one synchronising step
  on its two ranks) by one detour with probability 1 - exp(-2 f t)
  (model/production.message_noise_quantiles). ``latency_s`` is the median of that
  distribution, ``latency_s_low``/``_high`` its 5th and 95th percentiles, and the ping-pong
  bandwidth follows the latency (bytes / latency); ``empty_latency_s`` keeps the latency
  under the background alone. Streaming bandwidth and message rate keep the background's
  queueing only (a stream does not wait for its receiver step by step).
* **app.** Every phase's repeats are bulk-synchronous steps over the job's ranks, each
  waiting the M/D/1 delay of one message at the background load
  (model/production.queueing_per_message), with the steps of its collective added as the
  collective's own rule gives them (model/production.collective_steps, as for ``predict
  collective``: its steps wait for the ranks it runs on, ppn per node or one a node, and
  only those with a message leaving a node wait the background;
  model/production.phase_steps); a step is delayed by one detour when any rank it waits
  for is hit (model/production.skeleton_production_draws). The production distribution of each
  phase and of the total is drawn (:data:`DRAWS` draws, seeded); the point is its median,
  the range its 5-95 %. Shares, GFLOP/s and efficiency stay the empty machine's.

With ``uncertainty`` the machine's inputs (the production values among them) are drawn as
for any range and each draw also draws its noise, seeded by the same seed; the point is
then the median over those draws.
"""

from __future__ import annotations

import numpy as np

from icnperf.errors import InputError

DRAWS = 1000
"""Draws of the noise per prediction of ``predict app --production`` without
``--uncertainty`` (seed 0): the median of 1000 draws of a sum of binomial delays moves by
well under one detour between seeds."""


APP_NOTE = ("production: every repeat of a phase is one bulk-synchronous step over the"
            " job's ranks, waiting one message's M/D/1 delay at the background load, plus"
            " its collective's steps as predict collective --production counts them; a step"
            " waits one OS detour when any rank it waits for is hit; shares, GFLOP/s and"
            " efficiency are the empty machine's")
"""The note ``predict app --production`` adds (module docstring)."""


def p2p_point(machine, table_of, pattern: str, scheduled: bool = False):
    """(columns, spans, table, placement) of ``predict p2p --production`` without
    ``uncertainty``: ``table_of(machine, load[, hops])`` the model's table at an offered
    load (and hops; without: the command's). ``scheduled`` (no hops, endpoints or same node given):
    on a machine with ``production.node_occupancy`` the two ranks are a two-node job as a
    busy scheduler places it, one table per placement draw (:func:`_pair_placement`);
    placement None otherwise (module docstring)."""
    from icnperf.model.network import pingpong_bandwidth
    from icnperf.model.production import message_mixture_quantiles, require_values

    require_values(machine)
    columns, drawn, table, placement = _placed_columns(machine, table_of, pattern, scheduled)
    low, median, high = message_mixture_quantiles(
        [c["latency_s"] for c in drawn], float(machine.production.get("noise_frequency", 0.0)),
        float(machine.production.get("noise_duration", 0.0)))
    columns, spans = _with_latency(columns, low, median, high, pingpong_bandwidth)
    return columns, spans, table, placement


def _placed_columns(machine, table_of, pattern: str, scheduled: bool):
    """(columns, each placement draw's columns, a table, placement) of the machine's
    point-to-point table under its background (:func:`p2p_point`): with placement draws,
    a column is their mean where the draws differ."""
    from icnperf.model.production import background_load

    load = background_load(machine, pattern)
    hops, placement = _pair_placement(machine, scheduled)
    by_hops = {h: table_of(machine, load, *([] if h is None else [h]))
               for h in dict.fromkeys(hops)}
    drawn = [_float_columns(by_hops[h]) for h in hops]
    columns = {}
    for name in drawn[0]:
        stack = np.array([c[name] for c in drawn])
        columns[name] = np.where(np.ptp(stack, axis=0) == 0, stack[0], stack.mean(axis=0))
    return columns, drawn, by_hops[hops[0]], placement


def _float_columns(table) -> dict:
    return {name: np.asarray(table.columns[name], dtype=float) for name in table.columns}


def _pair_placement(machine, scheduled: bool, draw: int | None = None):
    """(hops per placement draw, the placement as the output records it) of ``predict p2p
    --production``: the command's hops ((None,), None) unless ``scheduled`` and the machine
    has ``production.node_occupancy`` on a fat tree or dragonfly; then the two ranks' nodes
    are the first two free nodes of a busy machine, :data:`PLACEMENT_DRAWS` draws
    (model/production.scheduled_pair_hops), or draw ``draw`` alone (a draw of the inputs)."""
    from icnperf.model.production import PLACEMENT_DRAWS, scheduled_pair_hops

    if not scheduled:
        return (None,), None
    drawn = scheduled_pair_hops(machine) if draw is None else \
        scheduled_pair_hops(machine, 1, draw % PLACEMENT_DRAWS)
    if drawn is None:
        return (None,), None
    return drawn, {"scheduled": True, "node_occupancy": machine.production["node_occupancy"],
                   "draws": len(drawn), "hops": list(drawn)}


def pair_placement_note(placement: dict) -> str:
    """The placement assumption of ``predict p2p --production`` on a busy scheduler's
    placement (:func:`_pair_placement`)."""
    counts = {}
    for h in placement["hops"]:
        counts[h] = counts.get(h, 0) + 1
    spread = ", ".join(f"{h} hop{'s' if h != 1 else ''} in {n}"
                       for h, n in sorted(counts.items()))
    return (f"placement: the two ranks are a two-node job as a busy scheduler places it, the "
            f"first two free nodes at node occupancy {placement['node_occupancy']:g} "
            f"(model/scheduled_placement.py), {placement['draws']} draws: {spread}; the "
            "latency's median and range are over the draws' mixture, the other columns "
            "their mean")


def _with_latency(columns, low, median, high, pingpong_bandwidth):
    m = columns["bytes"]
    out = {**columns, "empty_latency_s": columns["latency_s"], "latency_s": median,
           "bandwidth_Bps": np.asarray(pingpong_bandwidth(m, median), dtype=float)}
    spans = {"latency_s": (low, high),
             "bandwidth_Bps": (np.asarray(pingpong_bandwidth(m, high), dtype=float),
                               np.asarray(pingpong_bandwidth(m, low), dtype=float))}
    return out, spans


def p2p_ranged(machine, table_of, pattern: str, sampling, ranged_names,
               scheduled: bool = False):
    """(columns, spans, table, placement) of ``predict p2p --production --uncertainty``:
    each draw of the inputs runs at its own background load, on its own placement draw
    (draw i: placement i mod 16, with ``scheduled`` on a machine with node occupancy:
    :func:`p2p_point`) and draws its noise (module docstring); the spans of the other
    ``ranged_names`` are their 5-95 % over the draws."""
    from icnperf.data.machine.sampling import sample_machines
    from icnperf.model.network import pingpong_bandwidth
    from icnperf.model.production import background_load, message_noise_draws, \
        require_values
    from icnperf.model.uncertainty import quantiles

    require_values(machine)
    columns, _, nominal, placement = _placed_columns(machine, table_of, pattern, scheduled)
    machines = sample_machines(machine, sampling.samples, sampling.seed)
    tables = [table_of(m, background_load(m, pattern),
                       *[h for h in _pair_placement(m, scheduled, i)[0] if h is not None])
              .columns for i, m in enumerate(machines)]
    rng = np.random.default_rng(sampling.seed)
    latency = message_noise_draws(
        np.array([t["latency_s"] for t in tables], dtype=float),
        [m.production.get("noise_frequency", 0.0) for m in machines],
        [m.production.get("noise_duration", 0.0) for m in machines], rng)
    spans = {name: quantiles(np.array([t[name] for t in tables], dtype=float),
                             sampling.low, sampling.high)
             for name in ranged_names if name not in ("latency_s", "bandwidth_Bps")}
    low, median, high = (np.quantile(latency, q, axis=0)
                         for q in (sampling.low, 0.5, sampling.high))
    columns, latency_spans = _with_latency(columns, low, median, high, pingpong_bandwidth)
    return columns, {**spans, **latency_spans}, nominal, placement


def app_tables(machine, runs_on, rows_of, skeleton, layouts, sampling=None):
    """The phase and total rows of ``predict app --production`` (module docstring):
    ``runs_on(machine, layouts)`` the runs [(label, [SkeletonResult per layout])] on
    ``layouts``, ``rows_of(results, label)`` their (phase rows, total rows). The rows' empty
    machine is ``layouts`` as given; on a machine with ``production.node_occupancy`` the
    production draws run on a busy scheduler's placements (:func:`scheduled_layouts`): draw
    i of the noise (or of the inputs) on placement i mod 16, at the machine's own occupancy
    (a drawn occupancy is not carried into the placement: each draw's own would re-map
    the skeleton's messages for every draw of the inputs). Returns [(label, phases,
    totals)], each total with ``placement_units_spanned`` and ``placement_draws`` when
    placed so."""
    from icnperf.data.machine.sampling import sample_machines
    from icnperf.model.production import PLACEMENT_DRAWS, queueing_per_message, \
        require_values

    require_values(machine)
    runs = runs_on(machine, layouts)
    if not placeable(skeleton):
        layouts_of = lambda m, k: None  # noqa: E731 (helpers keep consecutive nodes)
    else:
        layouts_of = lambda m, k: scheduled_layouts(m, layouts, k)  # noqa: E731
    if sampling is None:
        placed = [layouts_of(machine, k) for k in range(PLACEMENT_DRAWS)]
        per_machine = [(machine, queueing_per_message(machine), runs if p is None
                        else runs_on(machine, p)) for p in placed[:1 if placed[0] is None
                                                                  else None]]
        seed = 0
    else:
        machines, seed = sample_machines(machine, sampling.samples, sampling.seed), \
            sampling.seed
        # the nominal occupancy's placements, draw i on placement i mod 16: a skeleton
        # re-mapped on every draw's own placement took 30 times as long
        nominal = [layouts_of(machine, k) for k in range(PLACEMENT_DRAWS)]
        placed = [nominal[i % PLACEMENT_DRAWS] for i in range(len(machines))]
        per_machine = [(m, queueing_per_message(m), runs_on(m, layouts if p is None else p))
                       for m, p in zip(machines, placed)]
    spans = _units_spanned(placed)
    low_q, high_q = (0.05, 0.95) if sampling is None else (sampling.low, sampling.high)
    out = []
    for index, (label, results) in enumerate(runs):
        phases, totals = rows_of(results, label)
        phase_iter = iter(phases)
        new_phases, new_totals = [], []
        for position, (result, total) in enumerate(zip(results, totals)):
            draws = _run_draws(skeleton, layouts[position], per_machine, index,
                               position, np.random.default_rng(seed),
                               DRAWS if sampling is None else len(per_machine))
            for phase_draws in draws:
                row = next(phase_iter)
                new_phases.append({**row, **_point(phase_draws, "time_s", low_q, high_q),
                                   "empty_time_s": row["time_s"]})
            new_totals.append({**total, **_point(draws.sum(axis=0), "total_s", low_q, high_q),
                               "empty_total_s": total["total_s"],
                               **({} if spans is None else spans[position])})
        out.append((label, new_phases, new_totals))
    return out


def placeable(skeleton) -> bool:
    """Whether a busy scheduler's placement applies to ``skeleton``: not when a phase runs
    a helper, which puts ranks on consecutive nodes (model/apps/timing.py)."""
    return not any(phase.helper is not None for phase in skeleton.phases)


def app_placement_note(machine, skeleton) -> str | None:
    """What ``predict app --production`` did with a busy scheduler's placement (None on a
    machine without ``production.node_occupancy``)."""
    from icnperf.model.production import PLACEMENT_DRAWS

    if "node_occupancy" not in machine.production:
        return None
    if not placeable(skeleton):
        return ("placement: linear, not a busy scheduler's: a helper phase of this skeleton "
                "puts ranks on consecutive nodes")
    return (f"placement: on a fat tree or dragonfly the job's nodes are the first free nodes "
            f"at node occupancy {machine.production['node_occupancy']:g}, "
            f"{PLACEMENT_DRAWS} draws (draw i of the noise or of the inputs on placement i "
            "mod {0}, at this occupancy); empty_time_s and empty_total_s stay the linear placement's, "
            "placement_units_spanned is the draws' mean".format(PLACEMENT_DRAWS))


def scheduled_layouts(machine, layouts, draw: int):
    """``layouts`` (placed job layouts) as a busy batch scheduler places them in placement
    draw ``draw`` (model/production.scheduled_layout: the first free nodes at the machine's
    ``production.node_occupancy``, seed ``draw``), a layout it does not place so (a torus,
    one node, a placement other than linear) as it is; None when it places none."""
    from icnperf.model.production import scheduled_layout

    out, moved = [], False
    for layout in layouts:
        busy = scheduled_layout(machine, layout, layout.placement)
        moved |= busy is not None
        out.append(layout if busy is None
                   else busy.placed(layout.processes_per_node, "random", draw))
    return out if moved else None


def _units_spanned(placed) -> list[dict] | None:
    """Per layout, the mean over the placement draws of the groups or leaf switches its
    nodes span and the draws' count (``placement_units_spanned``, ``placement_draws``); None
    without a busy scheduler's placement."""
    from icnperf.model.production import units_spanned

    drawn = [p for p in placed if p is not None]
    if not drawn:
        return None
    per_layout = list(zip(*drawn))
    return [{"placement_units_spanned": sum(units_spanned(l) for l in each) / len(each),
             "placement_draws": len(each)} for each in per_layout]


def _point(draws, name: str, low: float, high: float) -> dict:
    return {name: float(np.median(draws)), f"{name}_low": float(np.quantile(draws, low)),
            f"{name}_high": float(np.quantile(draws, high))}


def _run_draws(skeleton, layout, per_machine, run_index, position, rng, count: int):
    """Phases x ``count`` draws of one run's production time: one per drawn machine, or,
    with one machine, that machine ``count`` times (only the noise drawn)."""
    from icnperf.model.production import phase_steps, skeleton_production_draws

    rows = []
    for m, queueing, runs in per_machine:
        result = runs[run_index][1][position]
        rows.append((result, queueing, m))
    phases_by_name = {phase.name: phase for phase in skeleton.phases}
    ranks = rows[0][0].ranks
    ppn = rows[0][0].ppn
    schedules: dict = {}  # (phase, algorithm) -> collective steps: one schedule per pair
    specs = []
    for p in range(len(rows[0][0].phases)):
        times, groups, waiting, lengths = [], [], [], []
        for result, _, m in rows:
            drawn = result.phases[p]
            algorithm = next((t.algorithm for t in drawn.terms if t.kind == "collective"),
                             None)
            if (drawn.name, algorithm) not in schedules:
                schedules[drawn.name, algorithm] = _collective_steps(
                    phases_by_name[drawn.name], algorithm, layout, ppn)
            g, w, length = phase_steps(drawn, ranks, schedules[drawn.name, algorithm])
            times.append(drawn.time_s)
            groups.append(g)
            waiting.append(w)
            lengths.append(length)
        specs.append((np.resize(times, count), [groups[i % len(groups)] for i in range(count)],
                      np.resize(waiting, count), np.resize(lengths, count)))
    machines = [m for _, _, m in rows]
    return skeleton_production_draws(
        specs, queueing_per_step=np.resize([q for _, q, _ in rows], count),
        frequency=np.resize([m.production.get("noise_frequency", 0.0) for m in machines],
                            count),
        duration=np.resize([m.production.get("noise_duration", 0.0) for m in machines],
                           count), rng=rng)


def _collective_steps(phase, algorithm: str | None, layout, ppn: int):
    """The steps of the phase's collective as the phase ran it (model/apps/patterns.
    collective_term: flat over the layout's nodes, ``ppn`` ranks on each, one a node for
    ``scope = "nodes"``), by model/production.collective_steps, the rule of ``predict
    collective --production``; ((), 0) without a collective or a step schedule for its
    algorithm."""
    from icnperf.model.production import collective_steps

    if phase.collective is None or algorithm is None or phase.on_gpu_library:
        return (), 0
    procs = 1 if phase.collective.scope == "nodes" else ppn
    placed = layout.placed(procs, layout.placement, layout.seed)
    if placed.ranks < 2:
        return (), 0
    try:
        return collective_steps(phase.collective.op, algorithm, placed, None)
    except (InputError, ValueError, KeyError):
        return (), 0


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
