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
