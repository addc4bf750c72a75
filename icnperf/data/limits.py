"""The work limits of this run, read from the environment.

``ICNPERF_MAX_MEMORY``: the most memory a request may be estimated to need (bytes, or a
size with a unit: ``8GB``, ``4 GiB``); ``ICNPERF_MAX_SECONDS``: the most time (seconds,
or a time with a unit: ``600 s``, ``10 min``, ``2 h``). Unset or empty:
:data:`icnperf.model.budget.DEFAULT_LIMITS` (2 GB, 3 minutes). The estimates and the check
are :mod:`icnperf.model.budget`; this module only reads the settings, so the model stays
free of I/O.
"""

from __future__ import annotations

import os
import re

from icnperf.errors import InputError
from icnperf.model.budget import DEFAULT_LIMITS, Limits

MEMORY_VARIABLE = "ICNPERF_MAX_MEMORY"
"""Environment variable: the memory limit (bytes, or a size with a unit)."""

TIME_VARIABLE = "ICNPERF_MAX_SECONDS"
"""Environment variable: the time limit (seconds, or a time with a unit)."""


_LONG_TIMES = {"min": 60.0, "h": 3600.0}
"""Units a time limit may also be given in (units.py's time kind stops at seconds)."""


def _setting(name: str, kind: str, unit: str, default: float, smallest: float) -> float:
    from icnperf.data.files import printable
    from icnperf.units import parse_quantity

    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    text = raw
    long_time = re.fullmatch(r"(.*?)\s*(min|h)", raw) if kind == "time" else None
    if long_time and _is_number(long_time.group(1)):
        text = f"{float(long_time.group(1)) * _LONG_TIMES[long_time.group(2)]!r} s"
    try:
        value = parse_quantity(text, kind, default_unit=unit)
    except InputError as error:
        raise InputError(f"{name}={printable(raw)}: {error}") from None
    if not value >= smallest:
        raise InputError(f"{name}={printable(raw)}: the limit must be at least {smallest:g}"
                         f" {unit}")
    return value


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


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


def _counts_pairwise(machine, nodes) -> bool:
    """Whether the jobs of each of ``nodes`` nodes on ``machine``, nodes placed linearly,
    count their collectives' pairwise steps in structure: every torus job (a job torus
    is filled), else structured.counts_steps_in_structure of the machine's job layout
    with its routing rules, each distinct count once, stopping at the first that does
    not; False for a topology collectives are not mapped on."""
    from icnperf.errors import InputError
    from icnperf.model.collectives import Layout, machine_layout, structured

    try:
        if Layout.from_topology(machine.topology).is_torus:
            return True
        return all(structured.counts_steps_in_structure(
            machine_layout(machine, Layout.machine_job(machine.topology, int(n))))
            for n in dict.fromkeys(nodes))
    except InputError:
        return False


def skeleton_within_limits(skeleton, machine, nodes, ppn=None, algorithm=None,
                           fmt: str = "table", command: str = "predict app",
                           extra_seconds: float = 0.0, narrow: str | None = None,
                           placement: str = "linear", draws: int = 0):
    """A skeleton (model.apps.skeleton.Skeleton) on ``nodes`` node counts checked against
    this run's limits before any phase is evaluated (:func:`icnperf.model.budget.
    skeleton_estimate`; ``ppn`` as model.apps.timing.processes_per_node resolves it;
    jobs placed ``linear`` where :func:`_counts_pairwise` holds count their collectives'
    pairwise steps in structure); ``draws``: run again on that many draws of the inputs
    (``--uncertainty``). The estimate with every pairwise step counted, the smallest, is
    checked first, so work refused even then (a million node counts) is refused before
    a layout is built for each count."""
    from icnperf.model.apps.timing import processes_per_node
    from icnperf.model.budget import skeleton_estimate, with_draws

    per_node = processes_per_node(skeleton, machine, ppn)

    def checked(counted: bool):
        estimate = skeleton_estimate(skeleton.name, skeleton.phases, [int(n) for n in nodes],
                                     per_node, algorithm, fmt, command, extra_seconds,
                                     narrow, counted)
        return within_limits(with_draws(estimate, draws) if draws else estimate)

    checked(True)
    return checked(placement == "linear" and _counts_pairwise(machine, nodes))
