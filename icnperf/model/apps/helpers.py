"""The fixed registry of bundled Python helpers a skeleton may call, by name, for what the
skeleton format cannot say.

A skeleton names a helper (``helper = { name = "hpcg_halo", nx = "nx", ... }``) and passes
its arguments as expressions; it can never name an import path or any other code. Each
helper is a pure function of the machine, the node layout, the processes per node, the
phase's messaging interface and its evaluated arguments, and returns the communication time
of one repeat of the phase with a one-line account of it.

* ``hpcg_halo`` (nx, ny, nz, sync, efficiency): the halo exchanges of one HPCG 2.4 CG
  iteration over its 4 multigrid levels (4, 3, 3 and 1 exchanges on the local boxes n,
  n/2, n/4, n/8), 26 neighbours of unequal sizes, the busiest node's adapter shared by its
  processes, intra-node copies at the memory bandwidth share ``efficiency`` x the slowest
  node type's memory bandwidth / ppn, and the SHMEM completion ``sync`` (0 none, 1 pairwise
  flags, 2 barrier). Formulas: :func:`icnperf.model.apps.hpcg.halo_per_iteration`.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from icnperf.errors import InputError

__all__ = ["HELPERS", "Helper", "HelperContext", "HelperOutcome"]


class HelperContext(NamedTuple):
    """What a helper sees: the machine, the node layout (ring ties set), processes per
    node, the phase's api (``mpi``, ``shmem``, ``none``) and the network parameters of that
    api (network.machine_parameters)."""

    machine: object
    layout: object
    ppn: int
    api: str
    params: dict


class HelperOutcome(NamedTuple):
    """A helper's answer: time of one repeat (s) and what it charged, in words."""

    time_s: float
    detail: str


class Helper(NamedTuple):
    name: str
    arguments: tuple[str, ...]
    function: Callable
    summary: str


def _whole(value, what: str) -> int:
    if float(value) != int(value) or value < 1:
        raise InputError(f"{what} must be a whole number >= 1, not {float(value):g}")
    return int(value)


def _hpcg_halo(context: HelperContext, nx, ny, nz, sync, efficiency) -> HelperOutcome:
    from icnperf.model.apps import hpcg

    local = tuple(_whole(v, f"hpcg_halo: {k}") for k, v in (("nx", nx), ("ny", ny),
                                                             ("nz", nz)))
    modes = {0: None, 1: "pairwise", 2: "barrier"}
    if sync not in modes:
        raise InputError(f"hpcg_halo: sync must be 0 (none), 1 (pairwise) or 2 (barrier), "
                         f"not {float(sync):g}")
    if not 0 < efficiency <= 1:
        raise InputError(f"hpcg_halo: efficiency must be in (0, 1], not {float(efficiency):g}")
    total, levels = hpcg.halo_per_iteration(
        context.machine, context.layout, context.params, local, context.ppn,
        sync=modes[int(sync)], stream_efficiency=float(efficiency))
    detail = "; ".join(f"level {b[0]}x{b[1]}x{b[2]}: {c} x {t * 1e6:.3g} us"
                       for b, c, t in levels)
    mode = modes[int(sync)]
    return HelperOutcome(total, f"HPCG halo, 26 neighbours, {hpcg.LEVELS} multigrid levels"
                         f" ({detail})" + (f", SHMEM {mode} sync" if mode else ""))


HELPERS: dict[str, Helper] = {
    "hpcg_halo": Helper("hpcg_halo", ("nx", "ny", "nz", "sync", "efficiency"), _hpcg_halo,
                        "HPCG 2.4 halo exchanges of one CG iteration, 4 multigrid levels"),
}
"""Every helper a skeleton may name. Adding one is a code change reviewed like any model."""
