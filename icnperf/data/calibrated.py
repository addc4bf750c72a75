"""Calibrate a machine from benchmark data: benchdata points -> model fit -> calibrated Machine.

The glue between :mod:`icnperf.data.measurements.bench` (reading OSU / IMB / CSV files),
:mod:`icnperf.model.calibrate` (the pure least-squares fit) and :mod:`icnperf.data.machine` (the
calibrated machine, written with ``write_machine``). ``icnperf calibrate`` is::

    data = load_bench(path, format)                       # BenchData (DataError if bad)
    result, calibrated = calibrate_machine(machine, data, "software.mpi_overhead,G")
    parameter_rows(result), point_rows(result)            # what to print
    write_machine(calibrated, out, overwrite=force)       # atomic: nothing half-written

Which points are fitted: the point-to-point kinds ``latency`` and ``bandwidth`` (streaming)
by default; ``pingpong_bandwidth`` (IMB PingPong's Mbytes/sec) only when asked for in
``kinds``, because it is the same measurement as PingPong's ``t[usec]`` latency. Collective
points (``allreduce``, ...) are read but not fitted yet.

Hops: a point's own ``hops`` (a CSV ``hops`` column) wins; otherwise the ``hops`` argument;
otherwise :data:`DEFAULT_HOPS` = 1, i.e. the two ranks on neighbouring nodes (one
router-to-router hop: two routers, one link), which is how a two-node ping-pong between
adjacent nodes runs and how the angara-36 preset derives its software overheads from the
two-node latencies of Agarkov 2015. The result's assumptions say which was used.

Interface: a point that names its interface (OSU ``MPI``/``OpenSHMEM`` titles, IMB = MPI, a
CSV ``api`` column) is evaluated with that interface's software overhead; others with
``api``. ``api`` also resolves the LogGP aliases ``o`` and ``g``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from icnperf import units
from icnperf.data.measurements.bench import BenchData, BenchPoint, points_of
from icnperf.errors import InputError
from icnperf.data.machine import SCHEMA, Machine
from icnperf.model import calibrate as cal
from icnperf.model.calibrate import FitResult

__all__ = [
    "DEFAULT_HOPS",
    "DEFAULT_KINDS",
    "calibrate_machine",
    "observations_from",
    "parameter_rows",
    "point_rows",
]

DEFAULT_HOPS = 1
"""Hops assumed for points that do not say (neighbouring nodes)."""

DEFAULT_KINDS = ("latency", "bandwidth")
"""Point kinds fitted unless ``kinds`` says otherwise."""

def _split_names(fit_keys: str | Iterable[str]) -> list[str]:
    if isinstance(fit_keys, str):
        fit_keys = fit_keys.split(",")
    return [str(k).strip() for k in fit_keys]


def _check_known(names: Sequence[str]) -> None:
    """InputError for a dotted name that is not a machine key at all (the model says which
    machine keys it cannot fit)."""
    for name in names:
        if name in cal.ALIASES or not name:
            continue
        section, _, key = name.partition(".")
        if section not in SCHEMA or key not in SCHEMA[section]:
            known = ", ".join(f"{s}.{k}" for s in SCHEMA for k in SCHEMA[s])
            raise InputError(f"--fit {name}: unknown machine key (LogGP names o, g, G, L or "
                             f"one of: {known})")


def observations_from(data: BenchData | Iterable[BenchPoint], *, api: str = "mpi",
                      hops: float | None = None,
                      kinds: Sequence[str] = DEFAULT_KINDS) -> tuple[cal.Observations, list[str]]:
    """The model's :class:`~icnperf.model.calibrate.Observations` from benchmark points of
    ``kinds``, with notes on the hops and interfaces assumed. InputError when no point is of
    a fittable kind."""
    points = points_of(data)
    origin = data.origin if isinstance(data, BenchData) else "the data"
    if isinstance(kinds, str):
        kinds = tuple(k.strip() for k in kinds.split(","))
    for kind in kinds:
        if kind not in cal.QUANTITIES:
            raise InputError(f"cannot fit points of kind {kind!r} yet (fittable: "
                             f"{', '.join(cal.QUANTITIES)})")
    chosen = [p for p in points if p.kind in kinds]
    if not chosen:
        present = ", ".join(dict.fromkeys(p.kind for p in points)) or "nothing"
        raise InputError(f"{origin} has no {' or '.join(kinds)} points to fit (it holds: "
                         f"{present}); calibration fits point-to-point latency and bandwidth")
    if hops is not None and not (isinstance(hops, (int, float)) and np.isfinite(hops)
                                 and hops >= 0):
        raise InputError(f"hops must be a non-negative number, not {hops!r}")
    default_hops = DEFAULT_HOPS if hops is None else hops
    notes = []
    missing = sum(p.hops is None for p in chosen)
    if missing:
        how = (f"{default_hops:g} (given)" if hops is not None
               else f"{DEFAULT_HOPS} (neighbouring nodes; pass hops to change)")
        notes.append(f"hops: {missing} of {len(chosen)} points do not say; taken as {how}")
    unnamed = sum(p.api is None for p in chosen)
    if unnamed:
        notes.append(f"interface: {unnamed} of {len(chosen)} points do not say; taken as "
                     f"{api.upper()}")
    origin_name = data.origin if isinstance(data, BenchData) else "data"
    obs = cal.observations(
        sizes=[p.bytes for p in chosen],
        hops=[default_hops if p.hops is None else p.hops for p in chosen],
        values=[p.value for p in chosen],
        quantity=[p.kind for p in chosen],
        api=[api if p.api is None else p.api for p in chosen],
        labels=[f"{origin_name}, line {p.line}" for p in chosen],
    )
    return obs, notes


def _fmt(value: float, kind: str) -> str:
    """A fitted value of ``kind`` (time, bandwidth) with its unit, 4 digits, for sources."""
    if not np.isfinite(value):
        return str(value)
    return units.format_quantity(value, kind, 4)


def calibrate_machine(machine: Machine, points: BenchData | Iterable[BenchPoint],
                      fit_keys: str | Iterable[str], api: str = "mpi", *,
                      hops: float | None = None, kinds: Sequence[str] = DEFAULT_KINDS,
                      switching: str | None = None, loss: str = cal.DEFAULT_LOSS,
                      f_scale: float = cal.DEFAULT_F_SCALE,
                      confidence: float = 0.95) -> tuple[FitResult, Machine]:
    """Fit ``fit_keys`` of ``machine`` to the benchmark ``points``; returns the fit and the
    calibrated machine (each fitted key set to its value, its provenance the fit: data,
    points, interval, error; a note added).

    ``fit_keys``: machine keys and LogGP names (``"software.mpi_overhead,G"`` or a list).
    ``api``: the interface of points that do not name theirs, and of the aliases o and g.
    ``hops``: for points without hops (default :data:`DEFAULT_HOPS`). ``kinds``: which point
    kinds to fit (a sequence or one comma-separated string). ``switching``, ``loss``,
    ``f_scale``, ``confidence``: passed to :func:`icnperf.model.calibrate.fit`. Raises
    InputError (bad keys, too few points, no convergence, parameters the data cannot
    separate) with a one-line message.
    """
    names = _split_names(fit_keys)
    _check_known(names)
    parameters = cal.resolve_parameters(names, api)
    obs, notes = observations_from(points, api=api, hops=hops, kinds=kinds)
    result = cal.fit(machine, obs, parameters, api=api, switching=switching, loss=loss,
                     f_scale=f_scale, confidence=confidence)
    result = dataclasses.replace(result, assumptions=tuple(notes) + result.assumptions)

    origin = points.origin if isinstance(points, BenchData) else "benchmark data"
    kinds_used = ", ".join(dict.fromkeys(result.quantities))
    calibrated = machine
    for label in result.parameters:
        kind = cal.FITTABLE[result.keys[label][0]]
        low, high = result.intervals[label]
        interval = (f"{result.confidence:.0%} CI [{_fmt(low, kind)}, {_fmt(high, kind)}]"
                    if result.dof > 0 else "exact fit, no interval")
        source = (f"calibrated: least-squares fit ({result.loss}) of "
                  f"{', '.join(result.parameters)} to {origin} ({kinds_used}, "
                  f"{result.n_points} points); {interval}; rms relative error "
                  f"{result.rms_relative_error:.2%}")
        calibrated = calibrated.with_values(
            {k: result.values[label] for k in result.keys[label]}, source,
            {k: _fit_spread(k, result, label) for k in result.keys[label]})
    note = (f"Calibrated from {origin}: {', '.join(result.parameters)} fitted to "
            f"{result.n_points} {kinds_used} points (rms relative error "
            f"{result.rms_relative_error:.2%}).")
    calibrated = dataclasses.replace(calibrated, notes=calibrated.notes + (note,))
    return result, calibrated


def _fit_spread(path: str, result: FitResult, label: str):
    """The calibrated value's uncertainty: the half-width of the fit's interval, the wider
    side (absolute, in the key's unit); an exact fit (no degrees of freedom) has no
    interval and takes the calibrated kind's default."""
    from icnperf.data.machine.schema import key_for_path
    from icnperf.data.machine.uncertainty import make

    key = key_for_path(path, "calibrate")
    value = result.values[label]
    low, high = result.intervals[label]
    if result.dof <= 0 or not (np.isfinite(low) and np.isfinite(high)):
        return make(key, "calibrated", "", "exact fit, no interval: the calibrated kind's"
                    " default", (), "calibrate", path)
    half = max(high - value, value - low, 0.0)
    written = units.format_quantity(half, key.kind, None, key.unit)
    return make(key, "calibrated", written,
                f"half-width of the fit's {result.confidence:.0%} confidence interval "
                f"({result.n_points} points)", (), "calibrate", path)


def parameter_rows(result: FitResult) -> list[dict[str, Any]]:
    """One row per fitted parameter: parameter, keys, unit, initial, value, stderr,
    ci_low, ci_high (SI numbers), for the CLI's table / JSON / CSV."""
    rows = []
    for label in result.parameters:
        keys = result.keys[label]
        unit = units.SI_UNITS[cal.FITTABLE[keys[0]]]
        low, high = result.intervals[label]
        rows.append({
            "parameter": label,
            "keys": ",".join(keys),
            "unit": unit,
            "initial": result.initial[label],
            "value": result.values[label],
            "stderr": result.stderr[label],
            "ci_low": low,
            "ci_high": high,
        })
    return rows


def point_rows(result: FitResult) -> list[dict[str, Any]]:
    """One row per fitted point: where it came from, kind, bytes, hops, api, unit,
    measured, predicted and relative_error (SI numbers)."""
    return [
        {
            "point": result.labels[i],
            "kind": result.quantities[i],
            "bytes": int(result.sizes[i]),
            "hops": float(result.hops[i]),
            "api": result.apis[i],
            "unit": result.units[i],
            "measured": float(result.measured[i]),
            "predicted": float(result.predicted[i]),
            "relative_error": float(result.relative_errors[i]),
        }
        for i in range(result.n_points)
    ]
