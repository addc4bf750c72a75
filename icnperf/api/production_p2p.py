"""``--production`` on ``predict p2p`` (and the report's point-to-point curves): the
background utilisation becomes the offered load of the M/D/1 queueing behind ``--load``
(model/production.background_load, for the ``--pattern`` asked), so every column is the
busy network's; the noise delays a message (one synchronising step on its two ranks) by
one detour with probability 1 - exp(-2 f t) (model/production.message_noise_quantiles).
``latency_s`` is the median of that distribution, ``latency_s_low``/``_high`` its 5th and
95th percentiles, and the ping-pong bandwidth follows the latency (bytes / latency);
``empty_latency_s`` keeps the latency under the background alone. Streaming bandwidth and
message rate keep the background's queueing only (a stream does not wait for its receiver
step by step). On a machine with ``production.node_occupancy`` and no hops, endpoints or
same node given, the two ranks are a two-node job as a busy scheduler places it
(model/scheduled_jobs.scheduled_pair_hops), and the latency's distribution the mixture of
the placement draws'.
"""

from __future__ import annotations

import numpy as np


def p2p_point(machine, table_of, pattern: str, scheduled: bool = False):
    """(columns, spans, table, placement) of ``predict p2p --production`` without
    ``uncertainty``: ``table_of(machine, load[, hops])`` the model's table at an offered
    load (and hops; without: the command's). ``scheduled`` (no hops, endpoints or same
    node given): on a machine with ``production.node_occupancy`` the two ranks are a
    two-node job as a busy scheduler places it, one table per placement draw
    (:func:`_pair_placement`); placement None otherwise (module docstring)."""
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
    (model/scheduled_jobs.scheduled_pair_hops), or draw ``draw`` alone (a draw of the
    inputs)."""
    from icnperf.model.production import PLACEMENT_DRAWS
    from icnperf.model.scheduled_jobs import scheduled_pair_hops

    if not scheduled:
        return (None,), None
    drawn = scheduled_pair_hops(machine) if draw is None else \
        scheduled_pair_hops(machine, 1, draw % PLACEMENT_DRAWS)
    if drawn is None:
        return (None,), None
    return drawn, {"scheduled": True, "node_occupancy": machine.production["node_occupancy"],
                   "draws": len(drawn), "hops": list(drawn)}


def pair_placement_note(placement: dict, ranged: bool = False) -> str:
    """The placement assumption of ``predict p2p --production`` on a busy scheduler's
    placement (:func:`_pair_placement`); ``ranged``: with ``--uncertainty``, where draw i
    of the inputs takes placement draw i mod 16 at its own occupancy."""
    from collections import Counter

    counts = Counter(placement["hops"])
    spread = ", ".join(f"{h} hop{'s' if h != 1 else ''} in {n}"
                       for h, n in sorted(counts.items()))
    how = ("draw i of the inputs on placement i mod 16 at its own occupancy, the other "
           "columns the nominal draws' mean" if ranged else
           "the latency's median and range over the draws' mixture, the other columns "
           "their mean")
    return (f"placement: the two ranks are a two-node job as a busy scheduler places it, the "
            f"first two free nodes at node occupancy {placement['node_occupancy']:g} "
            f"(model/scheduled_placement.py), {placement['draws']} draws: {spread}; {how}")


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
