"""Where a busy batch scheduler puts a job's nodes (issue #31, item 4, "job placement as a
batch scheduler gives it"). Pure: counts and a fraction in, counts out; the machine's
``production.node_occupancy`` is read by the caller.

**The model.** A machine of ``total`` nodes, numbered in the scheduler's node order and
cut into units of ``unit`` consecutive nodes (the groups of a dragonfly, the leaf switches
of a fat tree), runs at occupancy ρ: the share of its nodes allocated to other jobs. Two
assumptions, each stated where it is used:

* *free nodes scattered*: after long operation the ρ·total busy nodes are the leftovers of
  many jobs of many sizes and lengths, so each node is taken to be free independently with
  probability 1 - ρ (a Bernoulli mask). Real free nodes come in runs (a job that ends frees
  a block), which packs a job tighter than this: the model is the scattered end of the
  range, the empty machine (ρ = 0) the packed end;
* *first free nodes*: the job of N nodes takes the N free nodes that come first in node
  order (a scheduler that fills nodes in order, as Slurm's node ordering does on a Cray XC
  when no block of N consecutive free nodes is chosen instead).

Then the job's i-th node lies a Geometric(1 - ρ) gap after its (i-1)-th, so its nodes span
about N / (1 - ρ) consecutive nodes, and unit u (nodes u·m .. u·m + m - 1) holds one of them
exactly when fewer than N free nodes lie before it and at least one of its own m is free.
The two events concern disjoint nodes, so they are independent:

    E[units spanned] = Σ_u P(Binomial(u m, 1 - ρ) <= N - 1) · (1 - ρ^m)

(:func:`units_spanned_mean`), without conditioning on the machine holding N free nodes, at
the occupancy the job meets when it starts (:func:`occupancy_at_start`: a job larger than
the free nodes waits until enough are free). ρ = 0 gives the
linear placement's ceil(N / m); as ρ approaches 1 the job's nodes scatter over the whole
machine, the ``random`` placement (a uniform draw of N of all nodes, model/collectives/
layout.py), whose span :func:`random_units` bounds it; ``spread`` (one node a unit,
min(N, U)) bounds both. The sum does not condition on the mask holding N free nodes, so it
is exact for the job's model only when the free nodes comfortably exceed N; near the cap of
:func:`occupancy_at_start` it runs low (about half the masks then hold fewer than N free
nodes), which :func:`scheduled_nodes`' draws, drawn again until the job fits, do not.
"""

from __future__ import annotations

import math

MAX_TRIES = 1000
"""Draws of :func:`scheduled_nodes` before it gives up on a job that fits only rarely."""


def require_fit(total: int, job: int, occupancy: float) -> None:
    """InputError (one line) on a bad ``occupancy`` (a fraction in [0, 1)) or a ``job`` of
    fewer than 1 or more than ``total`` nodes."""
    from icnperf.errors import InputError

    if not (isinstance(occupancy, (int, float)) and not isinstance(occupancy, bool)
            and 0 <= occupancy < 1):
        raise InputError(f"node occupancy {occupancy!r}: give a fraction in [0, 1)")
    if not (isinstance(job, int) and isinstance(total, int) and 1 <= job <= total):
        raise InputError(f"a job of {job!r} nodes on a machine of {total!r}: give a whole "
                         f"number of nodes from 1 to the machine's")


def occupancy_at_start(total: int, job: int, occupancy: float) -> float:
    """The occupancy the job meets when it starts: min(ρ, 1 - N / total). A job larger
    than the (1 - ρ)·total nodes free on average waits until enough are free (the
    scheduler drains nodes for it: an assumption of a scheduler that reserves nodes for
    the job at the head of its queue), so it starts at most as busy as leaves its N nodes
    free."""
    require_fit(total, job, occupancy)
    return min(occupancy, 1 - job / total)


def _binomial_cdf(trials: int, p: float, k: int) -> float:
    """P(Binomial(trials, p) <= k), summed in log space (lgamma) so that thousands of
    trials do not overflow."""
    if k < 0:
        return 0.0
    if k >= trials or p <= 0:
        return 1.0
    if p >= 1:
        return 0.0
    logp, logq = math.log(p), math.log1p(-p)
    base = math.lgamma(trials + 1)
    return min(1.0, sum(math.exp(base - math.lgamma(i + 1) - math.lgamma(trials - i + 1)
                                 + i * logp + (trials - i) * logq) for i in range(k + 1)))


def units_spanned_mean(total: int, unit: int, job: int, occupancy: float) -> float:
    """Expected units (groups, leaf switches) of ``unit`` nodes each that a job of ``job``
    nodes spans on a machine of ``total`` nodes at node occupancy ρ (module docstring; ρ
    as the job meets it, :func:`occupancy_at_start`):
    Σ_u P(Binomial(u·m, 1 - ρ) <= N - 1) · (1 - ρ^m), over the ceil(total / m) units (the
    last one may be short)."""
    occupancy = occupancy_at_start(total, job, occupancy)
    free = 1 - occupancy
    mean = 0.0
    for start in range(0, total, unit):
        size = min(unit, total - start)
        before = _binomial_cdf(start, free, job - 1)
        if before < 1e-15:
            break
        mean += before * (1 - occupancy ** size)
    return mean


def linear_units(unit: int, job: int) -> int:
    """Units a job of ``job`` nodes spans when placed on consecutive nodes from node 0 (the
    ``linear`` placement, ρ = 0): ceil(N / m)."""
    return -(-job // unit)


def random_units(total: int, unit: int, job: int) -> float:
    """Expected units of ``unit`` nodes each (``total`` a multiple of it) that N nodes drawn
    uniformly without replacement span: U (1 - C(M - m, N) / C(M, N)), the ``random``
    placement's."""
    units = total // unit
    return units * (1 - math.comb(total - unit, job) / math.comb(total, job))


def spread_units(units: int, job: int) -> int:
    """Units a job spans when its nodes are dealt round-robin over ``units`` units (the
    ``spread`` placement): min(N, U)."""
    return min(job, units)


def scheduled_nodes(total: int, job: int, occupancy: float, rng):
    """One draw of the job's nodes (a sorted NumPy array of ``job`` node numbers in
    0..total-1): the first N free nodes of a Bernoulli(1 - ρ) free mask (ρ as the job
    meets it, :func:`occupancy_at_start`), drawn as
    cumulative Geometric(1 - ρ) gaps with ``rng`` (a NumPy Generator); a draw whose N-th
    free node falls beyond the machine is drawn again (the job waits for a state in which
    it fits), at most :data:`MAX_TRIES` times."""
    from icnperf.errors import InputError

    occupancy = occupancy_at_start(total, job, occupancy)
    if occupancy == 0:
        import numpy as np

        return np.arange(job, dtype=np.int64)
    for _ in range(MAX_TRIES):
        nodes = rng.geometric(1 - occupancy, job).cumsum() - 1
        if nodes[-1] < total:
            return nodes.astype("int64")
    raise InputError(f"a job of {job} nodes fitted none of {MAX_TRIES} draws of a machine "
                     f"of {total} nodes at node occupancy {occupancy:g}")


def units_of(nodes, unit: int) -> int:
    """Distinct units of ``unit`` consecutive nodes that ``nodes`` (node numbers) touch."""
    import numpy as np

    return int(np.unique(np.asarray(nodes) // unit).size)
