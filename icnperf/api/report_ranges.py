"""``icnperf report --uncertainty``: the report's curves as 5-95 % ranges, and each input's
share of the range of its representative collectives.

The ranges come from the sampler the predict commands use
(:func:`icnperf.data.machine.sampling.ranges` and ``row_ranges``: the machine's inputs
drawn within their stated uncertainty, the same closed forms run on every draw), so a
report's error bars are the ``<field>_low``/``<field>_high`` of ``predict p2p``,
``predict collective`` and ``predict app`` for the same machine, seed and sample count.
The shares are ``explain collective --uncertainty``'s (first order: |elasticity| x the
input's relative spread, over their sum).
"""

from __future__ import annotations

P2P_SHOWN = ("latency_s", "bandwidth_Bps", "streaming_bandwidth_Bps", "message_rate_per_s")
"""The point-to-point quantities the report draws with error bars."""

TORNADO_INPUTS = 10
"""The inputs a tornado chart shows (the largest shares; the rest are summed in a note)."""


def p2p_spans(machine, sizes, api: str, sampling) -> dict:
    """(low, high) arrays of each of :data:`P2P_SHOWN` over ``sizes`` at the topology's
    average distance (predict p2p's ranges for the same sizes)."""
    from icnperf.data.machine.sampling import ranges
    from icnperf.model.network import p2p_table

    def shown(drawn):
        columns = p2p_table(drawn, sizes, None, api).columns
        return {name: columns[name] for name in P2P_SHOWN}

    return ranges(machine, shown, sampling)


def collective_spans(machine, operation: str, layouts, size: float, api: str,
                     sampling) -> list[dict]:
    """Per row of collective_rows (every algorithm on each layout), ``time_s_low`` and
    ``time_s_high`` (predict collective's ranges for the same rows)."""
    import numpy as np

    from icnperf.data.machine.sampling import row_ranges
    from icnperf.api.collective_table import collective_rows

    return row_ranges(machine, lambda drawn: collective_rows(
        drawn, operation, "all", layouts, np.array([size]), api)[0], ("time_s",), sampling)


def app_spans(app: str, machine, layouts, sampling) -> list[dict]:
    """Per row of app_rows (hardware tree and the paper's point-to-point algorithm on each
    layout), ``total_s_low`` and ``total_s_high``."""
    from icnperf.data.machine.sampling import row_ranges
    from icnperf.api.app_runs import app_rows

    return row_ranges(machine, lambda drawn: app_rows(app, drawn, layouts, "all", {}),
                      ("total_s",), sampling)


def skeleton_spans(skeleton, machine, layouts, phase_rows, total_rows, sampling):
    """The skeleton's phase rows and total rows with predict app's ranges (each phase's
    time and share, each node count's total, GFLOP/s and efficiency), its own phases on
    each layout as the report runs it."""
    from icnperf.api.application import _with_ranges
    from icnperf.api.app_runs import skeleton_results

    def runs_on(drawn):
        return [(None, skeleton_results(skeleton, drawn, layouts, None, None))]

    ((_, phases, totals),) = _with_ranges([(None, phase_rows, total_rows)], machine,
                                          "host", runs_on, skeleton, sampling)
    return phases, totals


def tornado(machine, operation: str, algorithm: str, size: float, api: str) -> dict:
    """Each input's share of the range of ``operation`` by ``algorithm`` at ``size`` bytes
    per rank on the machine's own job (explain collective --uncertainty's rows): the
    :data:`TORNADO_INPUTS` largest shares with their key, symbol, spread, the relative
    half-width of the time each gives alone (``range_contribution``) and share
    (``range_share``), and the share of the inputs left out."""
    from icnperf.api.explanation import explain_collective

    explained = explain_collective(machine, operation, algorithm=algorithm, bytes=size,
                                   api=api, uncertainty=True).to_dict()
    rows = sorted((r for r in explained["elasticities"] if r["range_share"] > 0),
                  key=lambda r: -r["range_share"])
    shown = [{key: r[key] for key in ("key", "symbol", "spread", "range_contribution",
                                      "range_share")} for r in rows[:TORNADO_INPUTS]]
    auto = explained["inputs"].get("auto")
    return {"operation": operation,
            "algorithm": algorithm if auto is None else f"auto: {auto['algorithm']}",
            "bytes": size,
            "layout": explained["layout"], "time_s": explained["time_s"], "inputs": shown,
            "rest": sum(r["range_share"] for r in rows[TORNADO_INPUTS:])}
