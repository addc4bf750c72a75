"""Validation of the production ranges (issue #31, "Done when"): is a published
measurement on a busy machine inside its ``--uncertainty --production`` range, and is the
``--production`` point within 30 % of it?

A claim predicted on a preset (``machine``, ``predict_on``; claim.py) may also say how its
quantity is charged on a busy machine (``busy_on``): :class:`Busy`, the quantity's time on
the machine under its background traffic, the synchronising steps OS noise can delay and
the ranks each step waits for, and how the claim's value follows from that time. The
production distribution is then the one of ``predict p2p|collective --production``
(model/production.py): T + S x queueing + d x Binomial(S, q), q = 1 - exp(-P f t), t = T / S;
a hierarchical collective's node-local rounds (on every rank) and leaders' steps (on the
nodes) are two such groups, and only the leaders' steps wait the queueing.

* the ``--production`` point: the median of that distribution on the preset as it is
  (model.production.grouped_quantiles, exact, as predict collective computes it);
* the ``--uncertainty --production`` range: the preset's inputs (its ``[production]``
  values among them) drawn as for any range (:data:`icnperf.validation.ranges.
  VALIDATE_SAMPLING`: 200 draws, seed 0, the model's constants drawn too), each draw
  drawing its count of delayed steps with the same seed (model.production.grouped_draws);
  the 5-95 % of those draws.

:func:`production_coverage` counts, per claim kind (predicted and post-hoc apart, calibrated
not counted, as icnperf.validation.ranges does; an open claim counts as post hoc,
:func:`counted_kind`), the claims whose preset carries
``[production]`` values: how many measurements fall inside their range, the median width
(high / low), and how many have the point within :data:`POINT_TOLERANCE`. Claims on presets
without ``[production]`` values are not counted: they are named with their presets, so a
count of 0 says why. Like the empty-machine ranges, these are not registered claims and do
not fail ``validate``.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Callable

from icnperf.data.machine.sampling import Sampling
from icnperf.validation.claim import Claim
from icnperf.validation.ranges import COUNTED, VALIDATE_SAMPLING, ranged

POINT_TOLERANCE = 0.30
"""The issue's goal for the ``--production`` point: within 30 % of the measurement."""


@dataclass(frozen=True)
class Busy:
    """A claim's quantity on a busy machine: ``time_s`` (s) the time it takes under the
    machine's background traffic (for a collective: the empty machine's, with
    ``queueing_per_step_s`` the background's wait added per step), ``steps`` the
    synchronising steps OS noise can delay (0: none, as for a stream), ``ranks`` the ranks
    each step waits for, and ``value_of`` the claim's value (in its unit) from a production
    time (None: the time itself). With several ranks a node ``groups`` splits the steps by
    the ranks they wait for (model.production.collective_steps) and ``waiting_steps``
    counts those that wait the background (None: every step). ``placements``: under a
    busy scheduler's placement (``production.node_occupancy``), each placement draw's
    (empty-machine time in s, noise groups), ``time_s`` and ``groups`` then their means
    (model.production.collective_production); empty: one placement."""

    time_s: float
    steps: int = 0
    ranks: int = 1
    queueing_per_step_s: float = 0.0
    value_of: Callable[[float], float] | None = None
    groups: tuple = ()
    waiting_steps: int | None = None
    placements: tuple = ()

    def value(self, time: float) -> float:
        """The claim's value at a production ``time`` (s)."""
        return float(time if self.value_of is None else self.value_of(time))

    @property
    def noise_groups(self) -> tuple:
        """The steps noise can delay, as model.production.NoiseGroup (steps, ranks, mean
        length in s): ``groups`` when given (a hierarchical collective's node-local rounds
        and leaders' steps, model.production.collective_steps), else ``steps`` on
        ``ranks`` of mean length time / steps (none without steps)."""
        from icnperf.model.production import NoiseGroup

        if self.groups:
            return tuple(self.groups)
        return (NoiseGroup(self.steps, self.ranks, self.time_s / self.steps),) \
            if self.steps else ()

    @property
    def waiting(self) -> int:
        """The steps that wait the background's queueing: ``waiting_steps`` when given
        (those with a message leaving its node), else every step."""
        return self.steps if self.waiting_steps is None else self.waiting_steps


def p2p_charge(machine, size: int, hops, api: str, column: str, scale: float = 1.0,
               **table) -> Busy:
    """A point-to-point quantity as ``predict p2p --production`` charges it: the table at
    the machine's background offered load (model.production.background_load; none between
    two ranks of one node, ``same_node``), ``table`` the rest of p2p_table's options
    (processes_per_node, buffers, same_node, from_gpu, to_gpu). ``latency_s`` is one
    synchronising step on its two ranks (OS noise delays it); ``streaming_bandwidth_Bps`` a
    stream of ``size`` bytes that noise does not delay. ``scale``: the claim's unit (1e6
    for us, 1e-9 for GB/s)."""
    from icnperf.model.network import p2p_table
    from icnperf.model.production import background_load

    load = 0.0 if table.get("same_node") else background_load(machine)
    columns = p2p_table(machine, [size], hops, api, offered_load=load, **table).columns
    if column == "latency_s":
        return Busy(float(columns[column][0]), steps=1, ranks=2,
                    value_of=lambda time: time * scale)
    if column != "streaming_bandwidth_Bps":
        raise ValueError(f"no production charge for column {column!r}")
    return Busy(size / float(columns[column][0]), value_of=lambda time: size / time * scale)


def counted_kind(claim: Claim) -> str:
    """The kind a claim counts as in the production coverage: its own, except that an open
    claim (a miss seen and not understood, claim.py) counts as post hoc whatever its kind.
    The production mechanisms and their values were chosen after those misses were seen
    (issue #31: the open Piz Daint claims "count apart, as post hoc, whatever their
    result"), so agreement on them is not evidence."""
    return "post-hoc" if claim.open_reason else claim.kind


def has_production(machine) -> bool:
    """Whether a machine carries any ``[production]`` value."""
    from icnperf.model.production import KEYS

    return any(key in machine.production for key in KEYS)


def _noise(machine) -> tuple[float, float]:
    return (float(machine.production.get("noise_frequency", 0.0)),
            float(machine.production.get("noise_duration", 0.0)))


def production_point(claim: Claim) -> float:
    """The claim's ``--production`` point: the median of the production distribution on its
    preset as it is (module docstring)."""
    from icnperf.data.machine import load_machine
    from icnperf.model.production import grouped_quantiles

    machine = load_machine(claim.machine)
    busy = claim.busy_on(machine, None)
    if not busy.steps:
        return busy.value(busy.time_s)
    frequency, duration = _noise(machine)
    if busy.placements:
        from icnperf.model.production import mixture_quantiles

        (median,) = mixture_quantiles(
            [(time + busy.waiting * busy.queueing_per_step_s, groups)
             for time, groups in busy.placements], frequency, duration, (0.5,))
        return busy.value(median)
    (median,) = grouped_quantiles(busy.time_s, busy.noise_groups, waiting_steps=busy.waiting,
                                  queueing_per_step=busy.queueing_per_step_s,
                                  frequency=frequency, duration=duration, quantiles=(0.5,))
    return busy.value(median)


def production_range(claim: Claim, sampling: Sampling = VALIDATE_SAMPLING
                     ) -> tuple[float, float]:
    """The (low, high) of the claim's ``--uncertainty --production`` range: each draw of the
    preset's inputs draws its delayed steps too (module docstring)."""
    import numpy as np

    from icnperf.data.machine import load_machine
    from icnperf.data.machine.sampling import evaluations
    from icnperf.model.production import grouped_draws

    # draw i takes its own machine's placement draw i mod 16 (the mixture, sampled), the
    # only one evaluated on it
    index = iter(range(sampling.samples))

    def busy_on(machine):
        return claim.busy_on(machine, next(index))

    drawn = evaluations(load_machine(claim.machine), busy_on, sampling)
    busy = [b for _, b in drawn]
    times = np.array([b.time_s for b in busy], dtype=float)
    lengths = [[g.length for g in b.noise_groups] for b in busy]
    if busy[0].placements:
        picks = [b.placements[0] for b in busy]
        times = np.array([time for time, _ in picks], dtype=float)
        lengths = [[g.length for g in groups] for _, groups in picks]
    if busy[0].steps:
        noise = np.array([_noise(m) for m, _ in drawn], dtype=float)
        groups = [(g.steps, g.ranks, [each[i] for each in lengths])
                  for i, g in enumerate(busy[0].noise_groups)]
        times = grouped_draws(times, groups, waiting_steps=busy[0].waiting,
                              queueing_per_step=[b.queueing_per_step_s for b in busy],
                              frequency=noise[:, 0], duration=noise[:, 1],
                              rng=np.random.default_rng(sampling.seed))
    values = np.array([b.value(t) for b, t in zip(busy, times)], dtype=float)
    low, high = np.quantile(values, [sampling.low, sampling.high])
    return float(low), float(high)


def production_result(claim: Claim, sampling: Sampling = VALIDATE_SAMPLING) -> dict:
    """One claim on its busy preset: its id, the kind it counts as (:func:`counted_kind`;
    ``registered_kind`` its own, ``open`` whether it is open), preset, unit and
    measurement, the
    ``--production`` point (``production``) and its error relative to the measurement,
    whether it is within :data:`POINT_TOLERANCE` (``point_within``), the range
    (``production_low``, ``production_high``), whether the measurement is inside it
    (``inside``) and its width (high / low)."""
    measured = float(claim.measured() if callable(claim.measured) else claim.measured)
    point = production_point(claim)
    low, high = production_range(claim, sampling)
    error = abs(point - measured) / abs(measured)
    return {"id": claim.id, "kind": counted_kind(claim), "registered_kind": claim.kind,
            "open": claim.open_reason is not None, "machine": claim.machine,
            "unit": claim.unit, "measured": measured, "production": point,
            "point_error": error, "point_within": error <= POINT_TOLERANCE,
            "production_low": low, "production_high": high,
            "inside": low <= measured <= high,
            "width": high / low if low > 0 else None}


def production_results(claims, sampling: Sampling = VALIDATE_SAMPLING) -> dict:
    """The production checks of ``claims``: ``checks`` (production_result of each ranged
    predicted or post-hoc claim whose preset carries ``[production]`` values and that says
    how it is charged on a busy machine), ``elsewhere`` (per counted kind, the presets of
    the ranged claims that carry none, with their claim counts), ``unmodelled`` (the id and
    counted kind of each claim on a preset with values that gives no ``busy_on``) and
    ``calibrated`` (how many ranged calibrated claims were left out, not computed)."""
    from icnperf.data.machine import load_machine

    checks, elsewhere, unmodelled, calibrated = [], {}, [], 0
    for claim in ranged(claims):
        kind = counted_kind(claim)
        if kind not in COUNTED:
            calibrated += kind == "calibrated"
        elif not has_production(load_machine(claim.machine)):
            presets = elsewhere.setdefault(kind, {})
            presets[claim.machine] = presets.get(claim.machine, 0) + 1
        elif claim.busy_on is None:
            unmodelled.append({"id": claim.id, "kind": kind})
        else:
            checks.append(production_result(claim, sampling))
    return {"checks": checks, "elsewhere": elsewhere, "unmodelled": unmodelled,
            "calibrated": calibrated}


def production_coverage(results: dict) -> dict[str, dict]:
    """Per counted kind (predicted, post-hoc): ``ranged`` (its ranged claims in all),
    ``claims`` (those counted: their preset carries ``[production]`` values and they have a
    production charge), ``inside``, ``median_width`` (None without claims),
    ``point_within``, ``without_production`` (the presets whose claims were not counted for
    want of values, with their counts) and ``unmodelled`` (how many were not counted for
    want of a charge); ``calibrated``: how many calibrated claims were left out."""
    checks, elsewhere = results["checks"], results["elsewhere"]
    out: dict[str, dict] = {}
    for kind in COUNTED:
        group = [c for c in checks if c["kind"] == kind]
        apart = elsewhere.get(kind, {})
        unmodelled = sum(u["kind"] == kind for u in results["unmodelled"])
        widths = [c["width"] if c["width"] is not None else float("inf") for c in group]
        out[kind] = {"ranged": len(group) + sum(apart.values()) + unmodelled,
                     "claims": len(group), "inside": sum(c["inside"] for c in group),
                     "median_width": statistics.median(widths) if group else None,
                     "point_within": sum(c["point_within"] for c in group),
                     "without_production": dict(apart), "unmodelled": unmodelled}
    out["calibrated"] = {"claims": results["calibrated"]}
    return out
