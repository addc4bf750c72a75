"""``predict collective --production``: each row's time on a busy production machine (the
machine's ``[production]`` values, model/production.py): ``time_s`` becomes the median of
the production distribution, ``time_s_low`` / ``time_s_high`` its 5th and 95th
percentiles, ``empty_time_s`` the empty machine's time; the ratio columns stay the empty
machine's. The line under the table says which values were applied.

With ``--uncertainty`` the inputs (the production values among them, within their own
spreads) are drawn as for any range, and in each draw the noise's count of delayed steps is
drawn too (model/production.production_draws, seeded by the same seed): ``time_s`` is then
the median over the draws, its range their 5-95 %."""

from __future__ import annotations


def production_rows(machine, rows, operation: str, layouts, api: str) -> list[dict]:
    """The rows of ``predict collective`` under the machine's production values (module
    docstring). InputError when the machine has none, or for an algorithm without a step
    schedule."""
    from icnperf.model.production import collective_production, require_values

    require_values(machine)
    by_shape = {layout.text: layout for layout in layouts}
    out = []
    for row in rows:
        result = collective_production(machine, operation, row["algorithm"], row["bytes"],
                                       by_shape[row["shape"]], api)
        low, median, high = result["production_time_s"]
        out.append({**row, "empty_time_s": row["time_s"], "time_s": median,
                    "time_s_low": low, "time_s_high": high,
                    "production_steps": result["steps"],
                    "noise_hit_probability": result["noise_hit_probability"],
                    "background_offered_load": result["offered_load"],
                    "background_wait_per_step_s": result["queueing_per_step_s"]})
    return out


def production_line(machine) -> str:
    """What ``--production`` applied, in one line."""
    parts = [f"{key} {text}" for section, key, _, text, _ in machine.rows()
             if section == "production"]
    return ("production: time is the median over OS noise and background traffic, the "
            "range its 5-95 %; " + ", ".join(parts) + " (docs/machine-format.md, "
            "'[production]'); ratios are the empty machine's")


def production_ranged_rows(base, drawn_machine, rows, operation: str, layouts, api: str,
                           sampling) -> list[dict]:
    """The rows under production effects and the inputs' uncertainty together (module
    docstring): ``drawn_machine(machine)`` is the machine each draw runs on (the buffers
    applied)."""
    import numpy as np

    from icnperf.data.machine.sampling import sample_machines
    from icnperf.model.production import collective_production, production_draws

    rows = production_rows(drawn_machine(base), rows, operation, layouts, api)
    by_shape = {layout.text: layout for layout in layouts}
    machines = [drawn_machine(m) for m in sample_machines(base, sampling.samples,
                                                          sampling.seed)]
    rng = np.random.default_rng(sampling.seed)
    out = []
    for row in rows:
        layout = by_shape[row["shape"]]
        parts = [collective_production(m, operation, row["algorithm"], row["bytes"], layout,
                                       api, quantiles=()) for m in machines]
        totals = production_draws(
            [p["time_s"] for p in parts], row["production_steps"], layout.ranks,
            queueing_per_step=[p["queueing_per_step_s"] for p in parts],
            frequency=[m.production.get("noise_frequency", 0.0) for m in machines],
            duration=[m.production.get("noise_duration", 0.0) for m in machines], rng=rng)
        low, median, high = np.quantile(totals, [sampling.low, 0.5, sampling.high])
        out.append({**row, "time_s": float(median), "time_s_low": float(low),
                    "time_s_high": float(high)})
    return out


def values_line(values: dict, quantity: str) -> str:
    """What ``--production`` applied to ``predict p2p|app``, in one line: the
    ``[production]`` values (SI, as in the document's inputs) and which ``quantity`` is the
    median with its range."""
    from icnperf.units import format_quantity

    kinds = {"noise_frequency": "frequency", "noise_duration": "time"}
    parts = [f"{key} {format_quantity(value, kinds[key]) if key in kinds else f'{value:g}'}"
             for key, value in values.items()]
    return (f"production: {quantity} is the median over OS noise and background traffic, "
            "the range its 5-95 %; " + ", ".join(parts)
            + " (docs/machine-format.md, '[production]')")
