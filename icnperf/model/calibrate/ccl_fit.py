"""Fit the machine keys the NCCL/RCCL closed forms read to a measured nccl-tests run: the
times of the algorithm the library picks (``auto``, :mod:`icnperf.model.collectives.nccl`)
against the run's out-of-place times, by least squares on relative (log) residuals.

Only the keys the collective model exposes are fittable (:data:`FITTABLE`); the default
(:func:`default_keys`) is the bandwidth that bounds the run: on one scale-up domain the
scale-up fabric's (``node.scaleup_bandwidth`` switched, ``node.scaleup_link_bandwidth``
direct), across domains the GPU's NIC path (``node.gpu_nic_bandwidth``). By default only the
rows of at least :data:`BANDWIDTH_FROM` bytes are fitted (the bandwidth term dominates
there; below it the library's stated latencies do, which are not fitted). The fit is pure:
it returns values, nothing is written.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model.network.gpu import WithValues

FITTABLE = ("node.scaleup_bandwidth", "node.scaleup_link_bandwidth",
            "node.gpu_nic_bandwidth", "network.link_bandwidth", "node.scaleup_latency",
            "network.injection_latency")
"""Machine keys the NCCL/RCCL forms read and a run can inform."""

BANDWIDTH_FROM = 1 << 20
"""Bytes from which rows are fitted by default (1 MiB)."""


class CclFit(NamedTuple):
    """Fitted values (path -> SI), the relative error of each row before and after, the
    library's pick per row, the rows fitted (mask) and the rms relative error of those."""

    values: dict
    initial: dict
    errors_before: np.ndarray
    errors_after: np.ndarray
    picks: tuple[str, ...]
    fitted: np.ndarray
    rms: float


def default_keys(machine, domains: int) -> tuple[str, ...]:
    """The bandwidth that bounds a run over ``domains`` scale-up domains (module
    docstring)."""
    if domains > 1:
        return ("node.gpu_nic_bandwidth",)
    if machine.get("node.scaleup_fabric") == "direct":
        return ("node.scaleup_link_bandwidth",)
    return ("node.scaleup_bandwidth",)


def _times(machine, values, library, operation, nodes, gpn, sizes):
    from icnperf.model.collectives.nccl_api import ccl_collective

    rows, _ = ccl_collective(WithValues(machine, values), operation, [nodes], list(sizes),
                             "auto", library, gpn)
    autos = [r for r in rows if r["algorithm"] == "auto"]
    return np.array([r["time_s"] for r in autos]), tuple(r["pick"] for r in autos)


def fit_ccl(machine, library: str, operation: str, nodes: int, gpus_per_node: int, sizes,
            times, keys=None, all_rows: bool = False) -> CclFit:
    """Least-squares fit of ``keys`` (default :func:`default_keys`) so that icnperf's time
    of the library's pick matches ``times`` (s) at ``sizes`` (bytes): residuals
    log(model / measured) over the rows of at least 1 MiB (``all_rows``: every row).
    InputError for an unknown key, a key the machine lacks, or no row to fit."""
    from scipy.optimize import least_squares

    from icnperf.model.collectives.nccl_fabric import ccl_fabric

    sizes = np.asarray(sizes, dtype=float)
    times = np.asarray(times, dtype=float)
    fabric = ccl_fabric(machine, nodes, gpus_per_node)
    keys = tuple(keys or default_keys(machine, fabric.domains))
    for key in keys:
        if key not in FITTABLE:
            raise InputError(f"--fit {key}: with nccl-tests data fit one of "
                             f"{', '.join(FITTABLE)}")
        machine.require(key)
    mask = np.ones(len(sizes), bool) if all_rows else sizes >= BANDWIDTH_FROM
    if not mask.any():
        raise InputError(f"no row of at least {BANDWIDTH_FROM} bytes to fit a bandwidth; "
                         "give larger sizes or fit every row")
    initial = {key: float(machine.require(key)) for key in keys}
    start = np.log([max(v, 1e-12) for v in initial.values()])

    def values_of(theta):
        return {key: float(math.exp(t)) for key, t in zip(keys, theta)}

    def residual(theta):
        model, _ = _times(machine, values_of(theta), library, operation, nodes,
                          gpus_per_node, sizes[mask])
        return np.log(model / times[mask])

    solution = least_squares(residual, start, method="trf", x_scale=1.0,
                             diff_step=1e-3, max_nfev=200)
    fitted = values_of(solution.x)
    before, _ = _times(machine, initial, library, operation, nodes, gpus_per_node, sizes)
    after, picks = _times(machine, fitted, library, operation, nodes, gpus_per_node, sizes)
    errors_after = after / times - 1
    rms = float(np.sqrt(np.mean(errors_after[mask] ** 2)))
    return CclFit(fitted, initial, before / times - 1, errors_after, picks, mask, rms)
