"""``predict collective --production``: each row's time on a busy production machine (the
machine's ``[production]`` values, model/production.py): ``time_s`` becomes the median of
the production distribution, ``time_s_low`` / ``time_s_high`` its 5th and 95th
percentiles, ``empty_time_s`` the empty machine's time; the ratio columns stay the empty
machine's. The line under the table says which values were applied."""

from __future__ import annotations

from icnperf.errors import InputError

KEYS = ("background_utilization", "noise_frequency", "noise_duration")
"""The ``[production]`` keys (docs/machine-format.md)."""


def production_rows(machine, rows, operation: str, layouts, api: str) -> list[dict]:
    """The rows of ``predict collective`` under the machine's production values (module
    docstring). InputError when the machine has none, or for an algorithm without a step
    schedule."""
    from icnperf.model.production import collective_production

    if not any(key in machine.production for key in KEYS):
        raise InputError(f"--production: machine {machine.name!r} has no [production] "
                         "values (none of the presets has); give them in the machine file "
                         "or with --set production.noise_frequency=..., "
                         "production.noise_duration=..., production.background_utilization"
                         "=... (docs/machine-format.md, '[production]')")
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
