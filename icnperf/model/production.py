"""Effects of a busy production machine on a job (issue #31, item 4): other jobs' traffic
on the links, and operating-system noise on the job's own ranks. Pure: floats in, floats
out; the machine's ``[production]`` values are read by the caller.

**Background traffic.** A link utilisation ``u`` (the fraction of a channel's bandwidth
that other jobs keep busy) is carried to the M/D/1 queueing of ``predict p2p --load``
(model/network/contention.py), whose input is the offered load λ in flits per endpoint per
cycle. The busiest channel on a path runs at ρ = λ γ_max / η (router-router channels) or
λ / η (the endpoint's own), so it saturates at λ_sat = η min(1, 1/γ_max)
(contention.saturation_load); a background that keeps the busiest channel a path crosses
at utilisation u is therefore λ = u · λ_sat (:func:`offered_load`).

**Operating-system noise.** Each rank is interrupted as a Poisson process of rate ``f``
(detours per second), each detour lasting ``d`` seconds. A step of a collective that every
rank must finish before the next begins (a synchronising step, of length t) is delayed
when any of its P ranks is interrupted during it: with probability

    q = 1 - (1 - p)^P = 1 - exp(-P f t),   p = 1 - exp(-f t)

(Tsafrir, Etsion, Feitelson and Kirkpatrick, "System noise, OS clock ticks, and
fine-grained parallel applications", ICS 2005, section 3: the probability that at least
one of N nodes is hit in a phase; the same extreme-value argument as Hoefler, Schneider and
Lumsdaine, "Characterizing the influence of system noise on large-scale applications by
simulation", SC 2010). A delayed step waits one detour, d (the slowest rank's; two detours
on one rank in one step are neglected, as f t << 1 for the short steps where noise
matters). Over S steps the delay is d times a binomial count, Binomial(S, q): its mean
S q d, its quantiles :func:`noise_delay_quantile`. Noise so grows with ranks (q rises
towards 1) and with steps (S).

**Several processes per node and hierarchical collectives** (:func:`collective_steps`).
Each rank, not each node, is interrupted at rate f (the detours are a core's: the
selfish-detour traces behind the ``[production]`` values time one core's loop), the ranks
of one node independently of each other as of other nodes' (an assumption: detours that
several cores take at once, such as a tick delivered to all, would count once), so with c
ranks on each of N nodes, by the same argument as for one rank a node (Tsafrir et al.
2005: a phase waits for the slowest of the ranks it synchronises):

* a flat algorithm runs over all P = N c ranks, and every one of its S steps synchronises
  all of them, as with one rank a node: one group of S steps on N c ranks, of mean length
  T / S;
* a hierarchical collective (model/collectives/hierarchy.py) runs node-local binomial
  rounds, then the algorithm among the N node leaders, then node-local rounds back. A
  node-local round synchronises the c ranks of one node, but every node runs it at once and
  the leaders' phase starts when the slowest node is done, so each node-local round waits
  for all N c ranks: one group of the node-local rounds on N c ranks, of mean length the
  node-local time over the rounds. The leaders' phase synchronises the leaders only (the
  other ranks are idle, their detours delay nobody): one group of its schedule's steps on N
  ranks, of mean length the inter-node time over those steps;
* only a message that leaves its node meets other jobs' traffic: a step waits the
  background's M/D/1 delay when one of its messages crosses the network (a schedule step
  whose ``host`` is above 0; every step of the leaders' phase), never a node-local round.

The delay is then d times a sum of independent binomial counts, one per group
(:func:`grouped_delay_quantile`: their distributions convolved). Placement (linear, spread,
random) moves the nodes on the network, not the ranks' detours, and the background's wait
per message is taken at the topology's average distance whatever the placement: the same
charge (the empty-machine time is the placed layout's).

**Job placement as a busy batch scheduler gives it** (model/scheduled_jobs.py). With
``node_occupancy`` ρ the job's nodes are the first free nodes of a machine whose other jobs
hold a share ρ of its nodes, scattered (model/scheduled_placement.py), in place of the
linear placement on a fat tree or dragonfly (an explicit ``spread`` or ``random`` is kept;
a torus is not placed so). Each of :data:`PLACEMENT_DRAWS` draws of the free nodes (seeds
0, 1, ...) gives its own empty-machine time and step lengths, and the production
distribution is their equal-weight mixture (:func:`mixture_quantiles`); under
``--uncertainty`` each draw of the inputs draws one placement.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from icnperf.model.scheduled_jobs import PLACEMENT_DRAWS


KEYS = ("background_utilization", "noise_frequency", "noise_duration", "node_occupancy")
"""The ``[production]`` keys (docs/machine-format.md)."""


class NoiseGroup(NamedTuple):
    """``steps`` synchronising steps of mean length ``length`` (s), each waiting for the
    slowest of ``ranks`` ranks (module docstring)."""

    steps: int
    ranks: int
    length: float


def require_values(machine) -> None:
    """InputError (one line) when the machine has none of the ``[production]`` values."""
    from icnperf.errors import InputError

    if not any(key in machine.production for key in KEYS):
        raise InputError(f"--production: machine {machine.name!r} has no [production] "
                         "values; give them in the machine file "
                         "or with --set production.noise_frequency=..., "
                         "production.noise_duration=..., production.background_utilization"
                         "=... (docs/machine-format.md, '[production]')")


def offered_load(utilisation: float, saturation: float) -> float:
    """Offered flits per endpoint per cycle that keep the busiest channel at
    ``utilisation`` (0 <= u < 1), given the path's saturation load λ_sat (flits per
    endpoint per cycle, contention.saturation_load or the saturation estimate):
    λ = u · λ_sat (module docstring)."""
    if not 0 <= utilisation < 1:
        raise ValueError(f"utilisation {utilisation!r}: give a fraction in [0, 1)")
    return utilisation * saturation


def step_hit_probability(ranks: int, step_time: float, frequency: float) -> float:
    """Probability that at least one of ``ranks`` ranks is interrupted during a step of
    ``step_time`` seconds, each interrupted at ``frequency`` per second (Poisson):
    q = 1 - exp(-P f t) (Tsafrir et al. 2005)."""
    return -math.expm1(-ranks * frequency * step_time)


def noise_delay_mean(ranks: int, steps: int, step_time: float, frequency: float,
                     duration: float) -> float:
    """Mean delay (s) that noise adds to ``steps`` synchronising steps of ``step_time``
    seconds each on ``ranks`` ranks: S q d (module docstring)."""
    return steps * step_hit_probability(ranks, step_time, frequency) * duration


def noise_delay_quantile(quantile: float, ranks: int, steps: int, step_time: float,
                         frequency: float, duration: float) -> float:
    """The ``quantile`` (0-1) of the delay (s) noise adds to ``steps`` synchronising steps:
    d times the smallest k with P(Binomial(S, q) <= k) >= quantile."""
    if not 0 <= quantile <= 1:
        raise ValueError(f"quantile {quantile!r}: give a fraction in [0, 1]")
    q = step_hit_probability(ranks, step_time, frequency)
    cumulative = 0.0
    for k in range(steps + 1):
        cumulative += _binomial_term(steps, k, q)
        if cumulative >= quantile * (1 - 1e-12):
            return k * duration
    return steps * duration


EXACT_STEPS = 1000
"""Up to this many steps the binomial terms are computed as written, C(S, k) q^k
(1 - q)^(S - k); beyond, C(S, k) no longer fits a float (from about 1030 steps) and they are
computed through logarithms (lgamma), which a ring or pairwise collective on thousands of
ranks needs."""


def _binomial_term(steps: int, k: int, q: float) -> float:
    """P(Binomial(steps, q) = k) (:data:`EXACT_STEPS`)."""
    if steps <= EXACT_STEPS:
        return math.comb(steps, k) * q ** k * (1 - q) ** (steps - k)
    if q <= 0 or q >= 1:
        return float(k == (steps if q >= 1 else 0))
    return math.exp(math.lgamma(steps + 1) - math.lgamma(k + 1) - math.lgamma(steps - k + 1)
                    + k * math.log(q) + (steps - k) * math.log1p(-q))


def grouped_delay_quantile(quantile: float, groups, frequency: float,
                           duration: float) -> float:
    """The ``quantile`` (0-1) of the delay (s) noise adds to ``groups`` (:class:`NoiseGroup`
    each: its steps on its ranks, q = 1 - exp(-P f t) per step): d times the smallest k with
    P(K <= k) >= quantile, K the sum of the groups' independent Binomial(S, q) counts (their
    distributions convolved); one group is :func:`noise_delay_quantile`."""
    import numpy as np

    if not 0 <= quantile <= 1:
        raise ValueError(f"quantile {quantile!r}: give a fraction in [0, 1]")
    groups = [g for g in groups if g.steps > 0]
    if not groups:
        return 0.0
    if len(groups) == 1:
        (g,) = groups
        return noise_delay_quantile(quantile, g.ranks, g.steps, g.length, frequency,
                                    duration)
    pmf = np.ones(1)
    for g in groups:
        q = step_hit_probability(g.ranks, g.length, frequency)
        pmf = np.convolve(pmf, [_binomial_term(g.steps, k, q) for k in range(g.steps + 1)])
    reached = np.nonzero(np.cumsum(pmf) >= quantile * (1 - 1e-12))[0]
    return float(reached[0] if len(reached) else len(pmf) - 1) * duration


def production_quantiles(time: float, steps: int, ranks: int, *, queueing_per_step=0.0,
                         frequency=0.0, duration=0.0,
                         quantiles=(0.05, 0.5, 0.95)) -> tuple[float, ...]:
    """A collective's time (s) on a production machine at each of ``quantiles``: its
    empty-machine ``time`` over ``steps`` synchronising steps on ``ranks`` ranks, plus each
    step's background queueing delay (``queueing_per_step``, s: the M/D/1 mean at the
    background's offered load) and the noise delay's quantile with the steps' mean length
    time / steps (:func:`noise_delay_quantile`). The median is the production point
    prediction; the outer quantiles its range. One group of :func:`grouped_quantiles`."""
    return grouped_quantiles(time, (NoiseGroup(steps, ranks, time / steps),),
                             waiting_steps=steps, queueing_per_step=queueing_per_step,
                             frequency=frequency, duration=duration, quantiles=quantiles)


def grouped_quantiles(time: float, groups, *, waiting_steps: int = 0, queueing_per_step=0.0,
                      frequency=0.0, duration=0.0,
                      quantiles=(0.05, 0.5, 0.95)) -> tuple[float, ...]:
    """A collective's time (s) on a production machine at each of ``quantiles``: its
    empty-machine ``time``, plus ``waiting_steps`` times the background's queueing delay
    per step (``queueing_per_step``, s: the steps with a message that leaves its node),
    plus the quantile of the noise delay of its ``groups`` (:class:`NoiseGroup` each,
    :func:`grouped_delay_quantile`)."""
    base = time + waiting_steps * queueing_per_step
    if not (frequency and duration):
        return tuple(base for _ in quantiles)
    return tuple(base + grouped_delay_quantile(q, groups, frequency, duration)
                 for q in quantiles)


def delay_pmf(groups, frequency: float):
    """P(K = k), k = 0, 1, ..., for K the sum of the ``groups``' independent
    Binomial(S, q) counts of delayed steps (:class:`NoiseGroup` each, q = 1 - exp(-P f t)):
    their distributions convolved (a NumPy array)."""
    import numpy as np

    pmf = np.ones(1)
    for g in groups:
        if g.steps <= 0:
            continue
        q = step_hit_probability(g.ranks, g.length, frequency)
        pmf = np.convolve(pmf, [_binomial_term(g.steps, k, q) for k in range(g.steps + 1)])
    return pmf


def mixture_quantiles(components, frequency: float, duration: float,
                      quantiles=(0.05, 0.5, 0.95)) -> tuple[float, ...]:
    """The ``quantiles`` (s) of an equal-weight mixture of production distributions, one
    per ``components`` entry (base time in s: the empty-machine time plus the background's
    queueing; its noise groups): component i is base_i + d K_i, K_i with
    :func:`delay_pmf`; each quantile is the smallest value whose mixture CDF reaches it."""
    import numpy as np

    values, weights = [], []
    for base, groups in components:
        pmf = delay_pmf(groups, frequency) if frequency and duration else np.ones(1)
        values.append(base + duration * np.arange(pmf.size))
        weights.append(pmf / len(components))
    values, weights = np.concatenate(values), np.concatenate(weights)
    return tuple(float(v) for v in _discrete_quantiles(values, weights, quantiles))


def _discrete_quantiles(values, weights, quantiles) -> list:
    """Per quantile (0-1), the smallest of ``values`` (along axis 0; further axes each on
    their own) whose cumulative ``weights`` reach it, the largest where rounding leaves the
    total just short: the quantiles of a discrete distribution (:func:`mixture_quantiles`,
    :func:`message_mixture_quantiles`)."""
    import numpy as np

    order = np.argsort(values, axis=0, kind="stable")
    values = np.take_along_axis(values, order, axis=0)
    cumulative = np.cumsum(np.take_along_axis(weights, order, axis=0), axis=0)
    out = []
    for quantile in quantiles:
        if not 0 <= quantile <= 1:
            raise ValueError(f"quantile {quantile!r}: give a fraction in [0, 1]")
        reached = cumulative >= quantile * (1 - 1e-12)
        index = np.where(reached.any(axis=0), reached.argmax(axis=0), values.shape[0] - 1)
        out.append(np.take_along_axis(values, index[None, ...], axis=0)[0])
    return out


def message_mixture_quantiles(latency, frequency: float, duration: float,
                              quantiles=(0.05, 0.5, 0.95)) -> tuple:
    """Per quantile, the latency (s; an array, one per message size) of one message whose
    placement is one of K equally likely draws: ``latency`` (K x sizes) the draws' latencies
    t_k, each a component of :func:`message_noise_quantiles`' distribution (t_k, or t_k + d
    with probability q_k = 1 - exp(-2 f t_k)); each quantile is the smallest latency whose
    mixture CDF reaches it."""
    import numpy as np

    latency = np.atleast_2d(np.asarray(latency, dtype=float))
    draws = latency.shape[0]
    q = -np.expm1(-2 * frequency * latency) if frequency and duration \
        else np.zeros_like(latency)
    return tuple(_discrete_quantiles(np.concatenate([latency, latency + duration]),
                                     np.concatenate([1 - q, q]) / draws, quantiles))


def collective_steps(operation: str, algorithm: str, layout, hierarchy: str | None
                     ) -> tuple[tuple[tuple[int, int, str], ...], int]:
    """The synchronising steps of a collective run on ``layout`` (a placed Layout: its
    processes per node and placement) under ``hierarchy`` (None or flat, node): ((steps,
    ranks, part) per noise group, steps that wait the background), ``part`` naming the time
    the group's steps share (``time``, the whole; ``node``, the node-local phases';
    ``network``, the leaders'). Flat: the schedule's S steps on all N c ranks, those with a
    message leaving its node waiting the background. Node: the node-local rounds
    (collectives.hierarchy.local_rounds) on all N c ranks, none waiting the background; the
    leaders' schedule on the N leaders, every step waiting it (module docstring).
    InputError (collectives.schedules) for an algorithm without a step schedule."""
    from icnperf.model.collectives.hierarchy import local_rounds
    from icnperf.model.collectives.schedules import schedule

    if hierarchy != "node":
        steps = schedule(algorithm, operation, layout)
        total = sum(step.count for step in steps)
        return (((total, layout.ranks, "time"),),
                sum(step.count for step in steps if step.host > 0))
    groups = []
    rounds = local_rounds(operation, layout.processes_per_node)
    if rounds:
        groups.append((rounds, layout.ranks, "node"))
    waiting = 0
    if layout.endpoints > 1:
        leaders = layout.placed(1, layout.placement, layout.seed)
        waiting = sum(step.count for step in schedule(algorithm, operation, leaders))
        groups.append((waiting, leaders.ranks, "network"))
    return tuple(groups), waiting


def collective_groups(steps, result) -> tuple[NoiseGroup, ...]:
    """The noise groups of :func:`collective_steps`' ``steps`` with their mean step lengths
    from ``result`` (collectives.CollectiveResult, one size): the part's time over the
    group's steps."""
    times = {"time": result.time, "node": result.node_time, "network": result.network_time}
    return tuple(NoiseGroup(count, ranks, float(times[part][0]) / count)
                 for count, ranks, part in steps)


def collective_production(machine, operation: str, algorithm: str, size: float, layout,
                          api: str = "mpi", quantiles=(0.05, 0.5, 0.95), *,
                          processes_per_node: int = 1, placement: str = "linear",
                          seed: int = 0, hierarchy: str | None = None,
                          element_size: float = 8.0, placement_draws: int = PLACEMENT_DRAWS,
                          placement_seed: int = 0) -> dict:
    """A point-to-point collective on ``layout`` with ``processes_per_node`` ranks a node,
    nodes placed by ``placement`` (``seed``: random's), run ``hierarchy`` flat or node
    (collectives.collective_time), under the machine's ``[production]`` values (absent
    ones: no effect): its empty-machine time, its noise groups and the steps that wait the
    background (:func:`collective_steps`, :func:`collective_groups`), the background's
    offered load (:func:`offered_load` of the uniform-traffic saturation estimate) and
    queueing delay per waiting step (the p2p M/D/1 delay at the topology's average distance,
    model/network/table.py), the mean over the steps of a step's noise hit probability
    (the expected delayed steps over the steps; with one group its q), and the production
    time at each of ``quantiles`` (s). With ``production.node_occupancy`` (and the linear
    placement on a fat tree or dragonfly, scheduled_jobs.scheduled_layout) the nodes are
    those of ``placement_draws`` draws of a busy scheduler's placement, seeds
    ``placement_seed`` onwards (a range whose input draw i takes placement i mod 16 asks
    one: ``placement_draws=1, placement_seed=i mod 16``): ``time_s`` and the groups'
    lengths are then the mean over the draws, ``placement_times_s``, ``placement_groups``
    and ``groups_spanned`` each draw's, and the quantiles those of the draws' mixture
    (:func:`mixture_quantiles`)."""
    from icnperf.model.scheduled_jobs import scheduled_layout, units_spanned

    values = machine.production
    scheduled = scheduled_layout(machine, layout, placement)
    if scheduled is None:
        runs = [_placed_run(machine, operation, algorithm, size, layout, api,
                            processes_per_node, placement, seed, hierarchy, element_size)]
    else:
        runs = [_placed_run(machine, operation, algorithm, size, scheduled, api,
                            processes_per_node, "random", placement_seed + k, hierarchy,
                            element_size) for k in range(placement_draws)]
    groups_each = [run[1] for run in runs]
    groups = groups_each[0] if len(runs) == 1 else tuple(
        NoiseGroup(g.steps, g.ranks, sum(gs[i].length for gs in groups_each) / len(runs))
        for i, g in enumerate(groups_each[0]))
    times = [run[0] for run in runs]
    time = times[0] if len(runs) == 1 else sum(times) / len(runs)
    _, _, waiting, placed = runs[0]
    steps = sum(g.steps for g in groups)
    load = 0.0
    queueing = 0.0
    utilisation = float(values.get("background_utilization", 0.0))
    if utilisation and waiting:
        from icnperf.model.network import p2p_table

        load = offered_load(utilisation, _saturation(machine))
        queueing = float(p2p_table(machine, [size], None, api, offered_load=load)
                         .columns["queueing_delay_s"][0])
    frequency = float(values.get("noise_frequency", 0.0))
    duration = float(values.get("noise_duration", 0.0))
    hits = [step_hit_probability(g.ranks, g.length, frequency) for g in groups]
    hit = hits[0] if len(groups) == 1 else \
        sum(g.steps * h for g, h in zip(groups, hits)) / steps if steps else 0.0
    out = {
        "time_s": time, "steps": steps, "ranks": placed.ranks, "groups": groups,
        "waiting_steps": waiting, "offered_load": load, "queueing_per_step_s": queueing,
        "noise_hit_probability": hit, "quantiles": tuple(quantiles),
    }
    if scheduled is None:
        out["production_time_s"] = grouped_quantiles(
            time, groups, waiting_steps=waiting, queueing_per_step=queueing,
            frequency=frequency, duration=duration, quantiles=quantiles)
        return out
    out["production_time_s"] = mixture_quantiles(
        [(t + waiting * queueing, g) for t, g in zip(times, groups_each)], frequency,
        duration, quantiles) if quantiles else ()
    out["placement_times_s"] = tuple(times)
    out["placement_groups"] = tuple(groups_each)
    out["groups_spanned"] = tuple(units_spanned(run[3]) for run in runs)
    return out


def _placed_run(machine, operation, algorithm, size, layout, api, processes_per_node,
                placement, seed, hierarchy, element_size):
    """(empty-machine time in s, noise groups, waiting steps, placed layout) of one
    placement of the collective (:func:`collective_production`)."""
    from icnperf.errors import InputError
    from icnperf.model.collectives import collective_time, machine_layout

    placed = machine_layout(machine, layout).placed(processes_per_node, placement, seed)
    mode = "node" if hierarchy == "node" and processes_per_node > 1 else "flat"
    try:
        steps_of, waiting = collective_steps(operation, algorithm, placed, mode)
    except InputError as exc:
        raise InputError(f"production effects need a step schedule: {exc}") from None
    result = collective_time(machine, operation, algorithm, [size], layout=layout, api=api,
                             processes_per_node=processes_per_node, placement=placement,
                             seed=seed, hierarchy=hierarchy, element_size=element_size)
    return (float(result.time[0]), collective_groups(steps_of, result), waiting, placed)


def _saturation(machine, pattern: str = "uniform") -> float:
    """The saturation estimate of the machine's topology under ``pattern`` traffic (flits
    per endpoint per cycle; model/topology/saturation.py, as ``predict p2p --load``
    uses, network.table.pattern_saturation: InputError for a pattern the topology does not
    define)."""
    from icnperf.model.network.table import pattern_saturation
    from icnperf.model.topology.spec import parse_spec

    spec = parse_spec(machine.topology)
    return pattern_saturation(machine, spec, spec.evaluate(), pattern)[1]


def background_load(machine, pattern: str = "uniform") -> float:
    """The offered load (flits per endpoint per cycle) of the machine's
    ``production.background_utilization`` under ``pattern`` traffic: u · λ_sat
    (:func:`offered_load`); 0 without one."""
    utilisation = float(machine.production.get("background_utilization", 0.0))
    return offered_load(utilisation, _saturation(machine, pattern)) if utilisation else 0.0


def message_noise_quantiles(latency, frequency: float, duration: float,
                            quantiles=(0.05, 0.5, 0.95)) -> tuple:
    """Per quantile, the latency (s; an array, one per message size) of one message under
    OS noise: a message is one synchronising step on its two ranks (the sender and the
    receiver), delayed by one detour d when either is interrupted during it, with
    probability q = 1 - exp(-2 f t) (:func:`step_hit_probability`, t the message's
    latency); the quantile is t + d when it lies above 1 - q, else t."""
    import numpy as np

    latency = np.asarray(latency, dtype=float)
    if not (frequency and duration):
        return tuple(latency.copy() for _ in quantiles)
    q = -np.expm1(-2 * frequency * latency)
    return tuple(np.where(1 - q >= quantile * (1 - 1e-12), latency, latency + duration)
                 for quantile in quantiles)


def message_noise_draws(latency, frequency, duration, rng):
    """One draw of a message's latency (s) under OS noise per element of ``latency`` (draws
    of the inputs; ``frequency`` and ``duration`` arrays of the same length or scalars):
    t + d x Bernoulli(1 - exp(-2 f t)) (:func:`message_noise_quantiles`). ``latency`` may
    be 2-D (draws x message sizes)."""
    import numpy as np

    latency = np.asarray(latency, dtype=float)
    shape = latency.shape
    frequency = np.asarray(frequency, dtype=float).reshape((-1,) + (1,) * (latency.ndim - 1))
    duration = np.asarray(duration, dtype=float).reshape((-1,) + (1,) * (latency.ndim - 1))
    q = -np.expm1(-2 * frequency * latency)
    return latency + np.broadcast_to(duration, shape) * rng.binomial(1, np.broadcast_to(q, shape))


def phase_steps(phase, ranks: int, collective=((), 0)) -> tuple[tuple, int, float]:
    """(noise groups as (steps, ranks) pairs, steps that wait the background, mean step
    length in s) of one phase of a skeleton run (model/apps/timing.PhaseResult, its job's
    ``ranks``) over all its repeats: each repeat is one bulk-synchronous step on all the
    job's ranks (the phase ends when its slowest rank ends, timing.py), waiting one
    message's background delay, plus the steps of its collective, ``collective`` being
    :func:`collective_steps`' answer for the collective as the phase ran it (((steps,
    ranks, part), ...), waiting steps; ((), 0) for a phase without one or one without a
    schedule: hardware trees, the GPU libraries, helpers): its groups wait for the ranks
    that rule names and only its steps with a message leaving a node wait the background.
    Counts are the repeats times the steps per repeat, rounded to whole counts (the bulk
    step at least 1 when the phase runs); every step's mean length is the per-repeat time
    over the steps per repeat."""
    groups_of, waiting = collective
    per_repeat = 1 + sum(count for count, _, _ in groups_of)
    length = phase.per_repeat_s / per_repeat
    if phase.repeat <= 0:
        return (), 0, length
    groups = [(max(1, round(phase.repeat)), ranks)]
    groups += [(round(phase.repeat * count), ranks) for count, ranks, _ in groups_of]
    return tuple(groups), max(1, round(phase.repeat)) + round(phase.repeat * waiting), length


def skeleton_production_draws(phases, *, queueing_per_step=0.0, frequency=0.0,
                              duration=0.0, rng=None):
    """Draws of each phase's time (s) on a production machine: ``phases`` a list of
    (time, groups, waiting steps, step length) per phase, time and step length arrays over
    the draws of the inputs, groups ((steps, ranks) per noise group, :func:`phase_steps`)
    and waiting steps one per draw. Each phase: time + waiting steps x queueing + d x Σ
    K_g, K_g ~ Binomial(S_g, q_g), q_g = 1 - exp(-P_g f t) (:func:`grouped_draws`, the
    collective's mechanism, per phase and draw). Returns an array (phases x draws)."""
    import numpy as np

    out = []
    for time, groups, waiting, length in phases:
        width = max((len(g) for g in groups), default=0)
        columns = [([g[i][0] if i < len(g) else 0 for g in groups],
                    [g[i][1] if i < len(g) else 0 for g in groups], length)
                   for i in range(width)]
        out.append(grouped_draws(time, columns, waiting_steps=waiting,
                                 queueing_per_step=queueing_per_step, frequency=frequency,
                                 duration=duration, rng=rng))
    return np.array(out)


def queueing_per_message(machine, api: str = "mpi") -> float:
    """The M/D/1 wait (s) of one message at the machine's background offered load
    (:func:`background_load`), at the topology's average distance (model/network/table.py;
    the wait does not depend on the message's size: the background's packets set the
    service time); 0 without a background."""
    from icnperf.model.network import p2p_table

    load = background_load(machine)
    if not load:
        return 0.0
    return float(p2p_table(machine, [8.0], None, api, offered_load=load)
                 .columns["queueing_delay_s"][0])


def production_draws(time, steps: int, ranks: int, *, queueing_per_step=0.0,
                     frequency=0.0, duration=0.0, rng=None):
    """One draw of the production time (s) per element of ``time`` (an array: one empty-
    machine time per draw of the inputs, with its own queueing, frequency and duration
    arrays or scalars): time + S x queueing + d x K, K ~ Binomial(S, q) drawn with ``rng``
    (a NumPy Generator), q from each draw's mean step length time / steps. One group of
    :func:`grouped_draws`."""
    import numpy as np

    time = np.asarray(time, dtype=float)
    return grouped_draws(time, [(steps, ranks, time / steps)], waiting_steps=steps,
                         queueing_per_step=queueing_per_step, frequency=frequency,
                         duration=duration, rng=rng)


def grouped_draws(time, groups, *, waiting_steps: int = 0, queueing_per_step=0.0,
                  frequency=0.0, duration=0.0, rng=None):
    """One draw of the production time (s) per element of ``time`` (an array: one empty-
    machine time per draw of the inputs; queueing, frequency and duration arrays of the same
    length or scalars): time + waiting steps x queueing + d x Σ K_g over ``groups``
    ((steps, ranks, step length: an array over the draws or a scalar) each), K_g ~
    Binomial(S_g, q_g), q_g = 1 - exp(-P_g f t_g), drawn with ``rng`` (a NumPy Generator)
    group after group (:func:`grouped_quantiles`). Steps, ranks and waiting steps may be
    arrays over the draws too (a skeleton phase whose drawn machines pick different
    algorithms)."""
    import numpy as np

    time = np.asarray(time, dtype=float)
    out = time + np.asarray(waiting_steps) * np.asarray(queueing_per_step, dtype=float)
    frequency = np.broadcast_to(np.asarray(frequency, dtype=float), time.shape)
    duration = np.broadcast_to(np.asarray(duration, dtype=float), time.shape)
    for steps, ranks, length in groups:
        steps = np.asarray(steps)
        if np.all(steps <= 0):
            continue
        q = -np.expm1(-np.asarray(ranks) * frequency * np.broadcast_to(np.asarray(length, dtype=float),
                                                           time.shape))
        out = out + duration * rng.binomial(steps, q)
    return out
