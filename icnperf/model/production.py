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
"""

from __future__ import annotations

import math


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
        cumulative += math.comb(steps, k) * q ** k * (1 - q) ** (steps - k)
        if cumulative >= quantile * (1 - 1e-12):
            return k * duration
    return steps * duration


def production_quantiles(time: float, steps: int, ranks: int, *, queueing_per_step=0.0,
                         frequency=0.0, duration=0.0,
                         quantiles=(0.05, 0.5, 0.95)) -> tuple[float, ...]:
    """A collective's time (s) on a production machine at each of ``quantiles``: its
    empty-machine ``time`` over ``steps`` synchronising steps on ``ranks`` ranks, plus each
    step's background queueing delay (``queueing_per_step``, s: the M/D/1 mean at the
    background's offered load) and the noise delay's quantile with the steps' mean length
    time / steps (:func:`noise_delay_quantile`). The median is the production point
    prediction; the outer quantiles its range."""
    base = time + steps * queueing_per_step
    if not (frequency and duration):
        return tuple(base for _ in quantiles)
    step_time = time / steps
    return tuple(base + noise_delay_quantile(q, ranks, steps, step_time, frequency, duration)
                 for q in quantiles)


def collective_production(machine, operation: str, algorithm: str, size: float, layout,
                          api: str = "mpi", quantiles=(0.05, 0.5, 0.95)) -> dict:
    """A point-to-point collective on ``layout`` (one process per node) under the machine's
    ``[production]`` values (absent ones: no effect): its empty-machine time, its steps
    (collectives.schedules), the background's offered load (:func:`offered_load` of the
    uniform-traffic saturation estimate) and queueing delay per step (the p2p M/D/1 delay
    at the topology's average distance, model/network/table.py), the noise's hit
    probability per step, and the production time at each of ``quantiles`` (s)."""
    from icnperf.errors import InputError
    from icnperf.model.collectives import collective_time
    from icnperf.model.collectives.schedules import schedule
    from icnperf.model.network import p2p_table

    values = machine.production
    try:
        steps = sum(step.count for step in schedule(algorithm, operation, layout))
    except InputError as exc:
        raise InputError(f"production effects need a step schedule: {exc}") from None
    time = float(collective_time(machine, operation, algorithm, [size], layout=layout,
                                 api=api).time[0])
    load = 0.0
    queueing = 0.0
    utilisation = float(values.get("background_utilization", 0.0))
    if utilisation:
        load = offered_load(utilisation, _saturation(machine))
        queueing = float(p2p_table(machine, [size], None, api, offered_load=load)
                         .columns["queueing_delay_s"][0])
    frequency = float(values.get("noise_frequency", 0.0))
    duration = float(values.get("noise_duration", 0.0))
    return {
        "time_s": time, "steps": steps, "ranks": layout.ranks, "offered_load": load,
        "queueing_per_step_s": queueing,
        "noise_hit_probability": step_hit_probability(layout.ranks, time / steps, frequency),
        "quantiles": tuple(quantiles),
        "production_time_s": production_quantiles(
            time, steps, layout.ranks, queueing_per_step=queueing, frequency=frequency,
            duration=duration, quantiles=quantiles),
    }


def _saturation(machine) -> float:
    """The uniform-traffic saturation estimate of the machine's topology (flits per
    endpoint per cycle; model/topology/saturation.py, as ``predict p2p --load`` uses)."""
    from icnperf.model.topology.saturation import machine_router, saturation_of
    from icnperf.model.topology.spec import parse_spec

    spec = parse_spec(machine.topology)
    metrics = spec.evaluate()
    return float(saturation_of(spec.family.name, spec.params, metrics, "uniform",
                               machine_router(machine))["saturation_estimate"])


def production_draws(time, steps: int, ranks: int, *, queueing_per_step=0.0,
                     frequency=0.0, duration=0.0, rng=None):
    """One draw of the production time (s) per element of ``time`` (an array: one empty-
    machine time per draw of the inputs, with its own queueing, frequency and duration
    arrays or scalars): time + S x queueing + d x K, K ~ Binomial(S, q) drawn with ``rng``
    (a NumPy Generator), q from each draw's mean step length time / steps."""
    import numpy as np

    time = np.asarray(time, dtype=float)
    base = time + steps * np.asarray(queueing_per_step, dtype=float)
    frequency = np.broadcast_to(np.asarray(frequency, dtype=float), time.shape)
    duration = np.broadcast_to(np.asarray(duration, dtype=float), time.shape)
    q = -np.expm1(-ranks * frequency * time / steps)
    return base + duration * rng.binomial(steps, q)
