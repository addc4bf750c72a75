"""Where one algorithm overtakes another: the node count or message size at which
T_slower / T_faster reaches a factor.

:func:`crossover` answers e.g. "from how many nodes is the hardware tree 2x faster than the
point-to-point tree", from the formulas of :mod:`icnperf.model.collectives` evaluated
numerically (``model/ops.py``). Node counts: the torus is reshaped with balanced radices
(:func:`torus.balanced_torus_shape`); the given counts (powers of two on the CLI) are
scanned, and the first bracket where the ratio reaches the factor is refined on ever finer
grids down to single nodes. Message sizes: the sizes are scanned in one vectorized call and
the bracket is solved with ``scipy.optimize.brentq`` on T_slower(m) − factor · T_faster(m),
then rounded to the smallest whole byte count that reaches the factor. Units: nodes, bytes,
seconds; the ratio is dimensionless.

Pure: no I/O, no printing, and numeric only: SymPy is never imported (the formula view is
:mod:`icnperf.model.explain`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model import collectives, ops
from icnperf.model.explain import _size, check_pair
from icnperf.model.topology import torus

__all__ = [
    "Crossover",
    "ScanPoint",
    "crossover",
    "refinement_evaluations",
]


class ScanPoint(NamedTuple):
    """One evaluated point: the node count or message size, the layout, both times (s) and
    their ratio T_slower / T_faster."""

    value: float
    layout: str
    time_faster: float
    time_slower: float
    ratio: float

    @classmethod
    def of(cls, value, layout: str, faster, slower) -> ScanPoint:
        return cls(value, layout, float(faster), float(slower), float(slower) / float(faster))


@dataclass(frozen=True)
class Crossover:
    """What :func:`crossover` returns.

    ``status``: ``crosses`` (the ratio T_slower / T_faster is below the factor at the start
    of the range and reaches it at ``at``), ``from-start`` (it already does at the first
    value scanned) or ``never`` (not within the range; ``at`` is None and ``best`` is the
    point of the largest ratio). ``at`` and ``below`` are the crossing point and the last
    evaluated point below it that falls short (None for ``from-start``); ``reverts`` the
    first scanned point after the crossing where the ratio is below the factor again (None:
    it holds over the rest of the scan); ``scan`` lists the scanned values (the refinement
    points are not listed; ``evaluations`` counts all).
    ``method`` says how the crossing was located; ``skipped`` lists scanned node counts the
    torus cannot be shaped to."""

    operation: str
    faster: str
    slower: str
    factor: float
    variable: str
    status: str
    at: ScanPoint | None
    below: ScanPoint | None
    reverts: ScanPoint | None
    best: ScanPoint
    scan: tuple[ScanPoint, ...]
    method: str
    fixed: dict
    skipped: tuple
    evaluations: int
    assumptions: tuple[str, ...]

    @property
    def found(self) -> bool:
        return self.at is not None


VARIABLES = ("nodes", "bytes")

_REFINE_STEPS = 64
"""A bracket of node counts is refined on a grid of about this many points per pass."""

_WALK = 64
"""Whole byte counts tried on either side of brentq's root (ceilings make T jump by a flit
or a packet there)."""


def crossover(machine, operation: str, faster: str, slower: str, factor: float, *,
              variable: str = "nodes", values: Sequence | None = None,
              dims: int | None = None, m: float = 256.0,
              layout: collectives.Layout | None = None, api: str = "mpi",
              combine_time: float = 0.0, max_aspect: float | None = 2.0,
              budget: Callable[[Sequence[int]], None] | None = None) -> Crossover:
    """The smallest node count or message size at which T_slower / T_faster >= factor.

    ``variable="nodes"``: ``values`` are node counts (default: powers of two from 2^dims
    to 32768), each shaped into a ``dims``-dimensional torus (default: the machine's
    dimension count) by :func:`torus.balanced_torus_shape` (counts it cannot shape are
    skipped), at message size ``m``; the bracket of the first crossing is refined over the
    counts whose balanced shape has largest radix <= ``max_aspect`` x smallest (2: as
    elongated as the powers of two get; None: any shape, e.g. 66 = 2x3x11). ``variable="bytes"``: ``values`` are message sizes
    (default: powers of two from 1 B to 64 MiB) on ``layout`` (default: the machine's
    topology). Raises InputError for bad names, an undefined pair, the same algorithm
    twice, a factor <= 1 or not finite, a barrier over bytes, or a machine that is not a
    torus when varying nodes.

    ``budget``, when given, is called with the node count of every layout about to be
    evaluated before the work starts (it raises to refuse): the scanned counts first, then,
    varying nodes, at most as many counts as the refinement of the first bracket can
    evaluate (each at most the bracket's upper end).
    """
    faster, operation = check_pair(faster, operation)
    slower, _ = check_pair(slower, operation)
    if faster == slower:
        raise InputError(f"--faster and --slower are both {faster}; name two algorithms")
    try:
        factor = float(factor)
    except (TypeError, ValueError):
        raise InputError(f"factor must be a number > 1, not {factor!r}") from None
    if not (math.isfinite(factor) and factor > 1):
        raise InputError(f"factor must be a finite number > 1 (how many times faster), "
                         f"not {factor:g}")
    if variable not in VARIABLES:
        raise InputError(f"unknown variable {variable!r}; choose nodes or bytes")
    params = collectives.collective_parameters(machine, api, combine_time=combine_time)
    if variable == "nodes":
        if max_aspect is not None and not (math.isfinite(max_aspect) and max_aspect >= 1):
            raise InputError(f"max_aspect must be a number >= 1, not {max_aspect!r}")
        return _over_nodes(machine, operation, faster, slower, factor, values, dims,
                           _size(m, operation), params, api, max_aspect, budget)
    if operation == "barrier":
        raise InputError("a barrier carries no data: vary nodes, not bytes")
    layout = collectives.machine_layout(machine, layout)
    if budget is not None:
        budget([layout.ranks])
    return _over_bytes(operation, faster, slower, factor, values, layout, params, api)


def _times(operation, faster, slower, m, layout, params):
    with ops.quiet():
        a = collectives.evaluate(operation, faster, m, layout, params)
        b = collectives.evaluate(operation, slower, m, layout, params)
    return a, b


def _notes(operation, faster, slower, layout, params, api) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for algorithm in (faster, slower):
        for note in collectives.assumptions(operation, algorithm, layout, params, api):
            seen.setdefault(note, None)
    return tuple(seen)


def _over_nodes(machine, operation, faster, slower, factor, values, dims, m, params, api,
                max_aspect, budget=None):
    base = collectives.Layout.from_topology(machine.topology)
    if not base.is_torus:
        raise InputError("crossover over nodes reshapes a torus; this machine's topology is "
                         f"{base.text}")
    if dims is None:
        dims = len(base.radices)
    if not (isinstance(dims, (int, np.integer)) and not isinstance(dims, bool) and dims >= 1):
        raise InputError(f"dims must be a whole number >= 1, not {dims!r}")
    if values is None:
        values = [2 ** k for k in range(dims, 16)]
    counts = sorted({_count(v) for v in values})
    if budget is not None:
        budget(counts)
    cache: dict[int, ScanPoint | None] = {}
    layouts: dict[str, collectives.Layout] = {}

    def point(n: int, refining: bool = False) -> ScanPoint | None:
        if n not in cache:
            try:
                shape = torus.balanced_torus_shape(n, dims)
            except InputError:
                cache[n] = None
            else:
                layout = collectives.machine_layout(machine, collectives.Layout.torus(shape))
                a, b = _times(operation, faster, slower, float(m), layout, params)
                cache[n] = ScanPoint.of(n, layout.text, a, b)
                layouts[layout.text] = layout
        p = cache[n]
        if refining and p is not None and max_aspect is not None:
            radices = layouts[p.layout].radices
            if max(radices) > max_aspect * min(radices):
                return None
        return p

    scan, skipped = [], []
    for n in counts:
        p = point(n)
        if p is None:
            skipped.append(n)
        else:
            scan.append(p)
    if not scan:
        raise InputError(f"none of the node counts can be shaped into a {dims}-dimensional "
                         f"torus of radix >= 2 (the smallest is {2 ** dims})")
    at, below, reverts = _first_crossing(scan, factor)
    if at is not None and below is not None:
        if budget is not None:
            budget([int(at.value)] * refinement_evaluations(below.value, at.value))
        at, below = _refine_nodes(below, at, factor, lambda n: point(n, refining=True))
    method = (f"scan of the node counts, each a {dims}D torus shaped by "
              "torus.balanced_torus_shape; the first bracket refined on grids of 1/64 of "
              "its width down to single nodes, over the counts whose shape is "
              + ("of any aspect" if max_aspect is None else
                 f"no more elongated than largest radix <= {max_aspect:g} x smallest")
              + " (the ratio need not be monotone in between: shapes change with the count)")
    where = layouts[(at or max(scan, key=lambda p: p.ratio)).layout]
    return _record(operation, faster, slower, factor, "nodes", scan, at, below, reverts,
                   method, {"bytes": m, "dims": dims, "max_aspect": max_aspect},
                   tuple(skipped), sum(1 for p in cache.values() if p is not None),
                   _notes(operation, faster, slower, where, params, api))


def _first_crossing(scan, factor):
    """(first point reaching the factor, the point before it, the first later point that
    falls short again) over a scan; Nones where there is no such point."""
    below = at = reverts = None
    for p in scan:
        if at is None:
            if p.ratio >= factor:
                at = p
            else:
                below = p
        elif p.ratio < factor:
            reverts = p
            break
    return at, (below if at is not None else None), reverts


def _record(operation, faster, slower, factor, variable, scan, at, below, reverts, method,
            fixed, skipped, evaluations, notes) -> Crossover:
    status = "never" if at is None else ("from-start" if below is None else "crosses")
    best = max(scan, key=lambda p: p.ratio)
    return Crossover(operation, faster, slower, factor, variable, status, at, below,
                     reverts, best, tuple(scan), method, fixed, skipped, evaluations, notes)


def _count(value) -> int:
    number = float(value)
    if not number.is_integer() or number < 1:
        raise InputError(f"node counts must be whole numbers >= 1, not {value!r}")
    return int(number)


def refinement_evaluations(low: float, high: float) -> int:
    """The most node counts :func:`_refine_nodes` evaluates in the bracket (low, high]: at
    most _REFINE_STEPS per pass (about width / step of them), the step at least halving
    from pass to pass down to 1."""
    step = max(1, math.ceil((high - low) / _REFINE_STEPS))
    passes = 1 + max(0, math.ceil(math.log2(step)))
    return min(int(high - low), (_REFINE_STEPS + 1) * passes)


def _refine_nodes(below: ScanPoint, at: ScanPoint, factor: float, point):
    """The first count in (below, at] whose ratio reaches the factor, on grids of about
    _REFINE_STEPS points per pass, each pass inside the previous pass's bracket, the last
    pass at single nodes."""
    step = max(1, math.ceil((at.value - below.value) / _REFINE_STEPS))
    while True:
        for n in range(below.value + step, at.value, step):
            p = point(n)
            if p is None:
                continue
            if p.ratio >= factor:
                at = p
                break
            below = p
        if step == 1:
            return at, below
        step = max(1, min(math.ceil((at.value - below.value) / _REFINE_STEPS), step // 2))


def _over_bytes(operation, faster, slower, factor, values, layout, params, api):
    if values is None:
        values = 2.0 ** np.arange(0, 27)
    sizes = np.unique(np.asarray(values, dtype=float))
    if sizes.size == 0 or not np.all(np.isfinite(sizes)) or sizes[0] <= 0:
        raise InputError("message sizes must be finite and > 0 bytes")
    a, b = _times(operation, faster, slower, sizes, layout, params)
    a = np.broadcast_to(a, sizes.shape)
    b = np.broadcast_to(b, sizes.shape)
    scan = tuple(ScanPoint.of(float(s), layout.text, x, y) for s, x, y in zip(sizes, a, b))
    evaluations = len(scan)
    at, below, reverts = _first_crossing(scan, factor)
    method = ("scan of the message sizes, then scipy.optimize.brentq on T_slower(m) - "
              "factor * T_faster(m) (the collectives formulas evaluated numerically) in the "
              "first bracket, rounded to the smallest whole byte count that reaches the "
              "factor")

    def at_size(size: float) -> ScanPoint:
        nonlocal evaluations
        evaluations += 1
        x, y = _times(operation, faster, slower, float(size), layout, params)
        return ScanPoint.of(float(size), layout.text, x, y)

    if at is not None and below is not None:
        from scipy.optimize import brentq

        def gap(size):
            p = at_size(size)
            return p.time_slower - factor * p.time_faster

        root = brentq(gap, below.value, at.value, xtol=1e-6, rtol=1e-12)
        whole = math.ceil(root - 1e-6)
        candidate = min(max(whole, math.floor(below.value) + 1), math.ceil(at.value))
        p = at_size(candidate)
        while p.ratio < factor and candidate < min(at.value, whole + _WALK):  # jump above
            candidate += 1
            p = at_size(candidate)
        if p.ratio < factor:
            p = at
        for _ in range(_WALK):
            if p.value - 1 <= below.value:                      # a jump just below it
                break
            q = at_size(p.value - 1)
            if q.ratio < factor:
                below = q
                break
            p = q
        at = p
    return _record(operation, faster, slower, factor, "bytes", scan, at, below, reverts,
                   method, {"layout": layout.text, "endpoints": layout.endpoints}, (),
                   evaluations, _notes(operation, faster, slower, layout, params, api))
