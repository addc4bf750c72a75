"""The work limits of this run, read from the environment.

``ICNPERF_MAX_MEMORY``: the most memory a request may be estimated to need (bytes, or a
size with a unit: ``8GB``, ``4 GiB``); ``ICNPERF_MAX_SECONDS``: the most time (seconds, or
a time with a unit: ``10 min``). Unset or empty: :data:`icnperf.model.budget.DEFAULT_LIMITS`
(2 GB, 3 minutes). The estimates and the check are :mod:`icnperf.model.budget`; this
module only reads the settings, so the model stays free of I/O.
"""

from __future__ import annotations

import os

from icnperf.errors import InputError
from icnperf.model.budget import DEFAULT_LIMITS, Limits

MEMORY_VARIABLE = "ICNPERF_MAX_MEMORY"
"""Environment variable: the memory limit (bytes, or a size with a unit)."""

TIME_VARIABLE = "ICNPERF_MAX_SECONDS"
"""Environment variable: the time limit (seconds, or a time with a unit)."""


def _setting(name: str, kind: str, unit: str, default: float, smallest: float) -> float:
    from icnperf.data.files import printable
    from icnperf.units import parse_quantity

    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = parse_quantity(raw, kind, default_unit=unit)
    except InputError as error:
        raise InputError(f"{name}={printable(raw)}: {error}") from None
    if not value >= smallest:
        raise InputError(f"{name}={printable(raw)}: the limit must be at least {smallest:g}"
                         f" {unit}")
    return value


def limits() -> Limits:
    """The limits of this run: :data:`DEFAULT_LIMITS` unless ``ICNPERF_MAX_MEMORY`` or
    ``ICNPERF_MAX_SECONDS`` say otherwise (InputError for a setting that is not a
    positive size or time)."""
    return Limits(
        memory=_setting(MEMORY_VARIABLE, "size", "B", DEFAULT_LIMITS.memory, 1e6),
        seconds=_setting(TIME_VARIABLE, "time", "s", DEFAULT_LIMITS.seconds, 1.0),
        memory_setting=MEMORY_VARIABLE, time_setting=TIME_VARIABLE)


def within_limits(estimate):
    """``estimate`` (an :class:`icnperf.model.budget.Estimate`) checked against this run's
    :func:`limits`: returned when it fits, a one-line InputError when it does not."""
    from icnperf.model.budget import check

    return check(estimate, limits())
