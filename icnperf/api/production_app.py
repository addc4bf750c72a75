"""``--production`` on ``predict app`` (and the report's skeletons): every phase's repeats
are bulk-synchronous steps over the job's ranks, each waiting the M/D/1 delay of one
message at the background load (model/production.queueing_per_message), with the steps of
its collective added as the collective's own rule gives them
(model/production.collective_steps, as for ``predict collective``: its steps wait for the
ranks it runs on, ppn per node or one a node, and only those with a message leaving a node
wait the background; model/production.phase_steps); a step is delayed by one detour when
any rank it waits for is hit (model/production.skeleton_production_draws). The production
distribution of each phase and of the total is drawn (:data:`DRAWS` draws, seeded); the
point is its median, the range its 5-95 %. Shares, GFLOP/s and efficiency stay the empty
machine's. On a machine with ``production.node_occupancy`` the draws run on a busy
scheduler's placements of the job (:func:`scheduled_layouts`).

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

    def layouts_of(drawn, k):  # a helper phase keeps its ranks on consecutive nodes
        return scheduled_layouts(drawn, layouts, k) if placeable(skeleton) else None

    if sampling is None:
        placed = [layouts_of(machine, k) for k in range(PLACEMENT_DRAWS)]
        queueing = queueing_per_message(machine)
        per_machine = ([(machine, queueing, runs)] if placed[0] is None else
                       [(machine, queueing, runs_on(machine, p)) for p in placed])
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
    spans = _units_spanned(placed, layouts)
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


def app_placement_note(machine, skeleton, layouts) -> str | None:
    """What ``predict app --production`` did with a busy scheduler's placement of
    ``layouts`` (None on a machine without ``production.node_occupancy``)."""
    from icnperf.model.production import PLACEMENT_DRAWS

    if "node_occupancy" not in machine.production:
        return None
    if not placeable(skeleton):
        return ("placement: linear, not a busy scheduler's: a helper phase of this skeleton "
                "puts ranks on consecutive nodes")
    if not scheduled(machine, skeleton, layouts):
        return ("placement: as --placement says, not a busy scheduler's, which places a job "
                "of two nodes or more placed linearly on a fat tree or dragonfly at a node "
                "occupancy above 0")
    return (f"placement: on a fat tree or dragonfly the job's nodes are the first free nodes "
            f"at node occupancy {machine.production['node_occupancy']:g}, {PLACEMENT_DRAWS} "
            f"draws (draw i of the noise or of the inputs on placement i mod {PLACEMENT_DRAWS},"
            " at this occupancy); empty_time_s and empty_total_s stay the linear placement's,"
            " placement_units_spanned is the draws' mean")


def scheduled(machine, skeleton, layouts) -> bool:
    """Whether ``predict app --production`` runs ``skeleton`` on a busy scheduler's
    placements of ``layouts`` (:func:`app_tables`)."""
    return placeable(skeleton) and scheduled_layouts(machine, layouts, 0) is not None


def scheduled_layouts(machine, layouts, draw: int):
    """``layouts`` (placed job layouts) as a busy batch scheduler places them in placement
    draw ``draw`` (model/scheduled_jobs.scheduled_layout: the first free nodes at the machine's
    ``production.node_occupancy``, seed ``draw``), a layout it does not place so (a torus,
    one node, a placement other than linear) as it is; None when it places none."""
    from icnperf.model.scheduled_jobs import scheduled_layout

    out, moved = [], False
    for layout in layouts:
        busy = scheduled_layout(machine, layout, layout.placement)
        moved |= busy is not None
        out.append(layout if busy is None
                   else busy.placed(layout.processes_per_node, "random", draw))
    return out if moved else None


def _units_spanned(placed, layouts) -> list[dict] | None:
    """Per layout, the mean over the placement draws of the groups or leaf switches its
    nodes span and the draws' count (``placement_units_spanned``, ``placement_draws``), an
    empty dict for a layout the scheduler leaves as it is (one node, a torus); None without
    a busy scheduler's placement."""
    from icnperf.model.scheduled_jobs import units_spanned

    drawn = [p for p in placed if p is not None]
    if not drawn:
        return None
    return [{} if each[0] is layout else
            {"placement_units_spanned": sum(units_spanned(l) for l in each) / len(each),
             "placement_draws": len(each)} for layout, each in zip(layouts, zip(*drawn))]


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
