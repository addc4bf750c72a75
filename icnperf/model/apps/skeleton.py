"""An application skeleton as data: the records a skeleton file is read into.

A skeleton (docs/skeleton-format.md) describes a bulk-synchronous code as a list of phases,
each repeated some number of times, each charging compute (a roofline of FLOP and memory
bytes, or named rates and a fixed time) and communication (a halo exchange, a collective,
a point-to-point pattern, or a bundled helper). Every count and size is an
:class:`~icnperf.model.apps.expression_values.Expression` of the parameters, the rank count P,
the node count N, the processes per node ppn, the declared coefficients and definitions,
and machine values. The file reader lives in ``icnperf/data/skeleton.py``; the evaluation
in :mod:`icnperf.model.apps.timing`; these records only hold what was read.
"""

from __future__ import annotations

import functools
import math
import re
import sys
from dataclasses import dataclass, field, replace
from fractions import Fraction

from icnperf.errors import InputError
from icnperf.model.apps.expression_values import RESERVED, Expression

__all__ = ["API_CHOICES", "COLLECTIVE_SCOPES", "HARDWARE_ALGORITHM", "P2P_PATTERNS",
           "SCALINGS", "Collective",
           "Halo", "HelperCall", "Phase", "PointToPoint", "Skeleton", "read_number",
           "reserved_symbols", "symbol_table"]

P2P_PATTERNS = ("shift", "alltoall", "random")
"""Point-to-point patterns: shift to r + distance (periodic), every other rank, a random
permutation (seed 0)."""

COLLECTIVE_SCOPES = ("ranks", "nodes")
"""Who takes part in a collective: every rank (ppn per node), or one rank per node."""

GPU_LIBRARY_APIS = ("nccl", "rccl", "ccl")
"""The APIs of :data:`API_CHOICES` that are GPU collective libraries: their ranks are GPUs
and their phases time collectives only."""
API_CHOICES = ("mpi", "shmem", "none", *GPU_LIBRARY_APIS)
"""A phase's software: MPI, SHMEM, none (hardware only), or a GPU collective library: nccl,
rccl, or ccl (the machine's ``software.ccl_library``, NCCL when it names none)."""
SCALINGS = ("strong", "weak")


def reserved_symbols() -> dict:
    """The SymPy symbols of P (ranks), N (nodes) and ppn: positive whole numbers."""
    import sympy as sp

    return {name: sp.Symbol(name, positive=True, integer=True) for name in RESERVED}


def symbol_table(names, machine_keys=None, known=None):
    """The :class:`~icnperf.model.apps.expressions.SymbolTable` (SymPy symbols) of a
    skeleton whose own ``names`` (parameters, coefficients, definitions) are known: P, N
    and ppn positive whole numbers (:func:`reserved_symbols`), its own names real.
    ``known``: a table of the same skeleton with some of the names, whose symbols are
    reused."""
    import sympy as sp

    from icnperf.model.apps.expressions import SymbolTable

    symbols = reserved_symbols() if known is None else dict(known.names)
    symbols.update((name, sp.Symbol(name, real=True)) for name in names if name not in symbols)
    return SymbolTable(symbols, machine_keys)


@dataclass(frozen=True)
class Halo:
    """``bytes`` to each face neighbour on the most square ``dims``-dimensional process
    grid, all messages at once; ``axes`` limits the exchange to some grid dimensions (None:
    all); non-periodic unless ``periodic``."""

    dims: int
    bytes: Expression
    periodic: bool = False
    axes: tuple[int, ...] | None = None


HARDWARE_ALGORITHM = "hw-tree"
"""The hardware collective tree: what ``--algorithm all`` sets point-to-point algorithms
beside."""


@dataclass(frozen=True)
class Collective:
    """One collective call: ``op`` (model/collectives' names), ``bytes`` the MPI call's
    per-rank buffer (None for a barrier), ``algorithm`` a collectives algorithm, ``best``
    (the fastest) or ``auto`` (the MPI library's choice), ``scope`` every rank or one rank
    per node, ``p2p_algorithm`` the point-to-point algorithm compared with the hardware tree
    (None: see :attr:`point_to_point`). Under ``api = "nccl"|"rccl"|"ccl"`` ``op`` and
    ``algorithm`` are the library's (model/collectives/nccl.py), ``bytes`` nccl-tests' size
    and ``ranks`` the GPUs of one communicator (None: every rank)."""

    op: str
    bytes: Expression | None
    algorithm: str = "best"
    scope: str = "ranks"
    p2p_algorithm: str | None = None
    ranks: Expression | None = None

    @property
    def point_to_point(self) -> str:
        """The point-to-point algorithm of this call (``predict app --algorithm all`` sets
        it beside the hardware tree): ``p2p_algorithm`` when given, else ``algorithm`` when
        it is neither ``best`` nor the hardware tree (``auto``, the MPI library's choice,
        never picks the hardware tree), else ``best``, which then means the fastest
        algorithm other than the hardware tree."""
        if self.p2p_algorithm is not None:
            return self.p2p_algorithm
        if self.algorithm not in ("best", HARDWARE_ALGORITHM):
            return self.algorithm
        return "best"


@dataclass(frozen=True)
class PointToPoint:
    """A point-to-point pattern, ``bytes`` to each destination of every rank; ``distance``
    of a shift (default 1)."""

    pattern: str
    bytes: Expression
    distance: Expression | None = None


@dataclass(frozen=True)
class HelperCall:
    """A bundled helper (model/apps/helpers.py), by name, with its arguments."""

    name: str
    args: tuple[tuple[str, Expression], ...] = ()


@dataclass(frozen=True)
class Phase:
    """One phase, charged ``repeat`` times. Compute keys: ``flops`` and ``memory_bytes``
    per rank per repeat, ``rate`` (FLOP/s) and ``bandwidth`` (B/s) per node (shared by its
    ppn ranks; default node.peak_flops, node.memory_bandwidth), ``fixed`` seconds per
    repeat; ``gpu_memory_bytes`` the bytes per rank per repeat the kernel moves when it
    runs on the GPUs (model/apps/gpu.py; default memory_bytes). Communication: any of
    ``halo``, ``collective``, ``p2p``, ``helper`` (one after the other). ``overlap``: compute and communication overlap (the larger counts)."""

    name: str
    repeat: Expression
    flops: Expression | None = None
    memory_bytes: Expression | None = None
    gpu_memory_bytes: Expression | None = None
    rate: Expression | None = None
    bandwidth: Expression | None = None
    fixed: Expression | None = None
    halo: Halo | None = None
    collective: Collective | None = None
    p2p: PointToPoint | None = None
    helper: HelperCall | None = None
    overlap: bool = False
    api: str = "mpi"

    @property
    def has_compute(self) -> bool:
        return any(x is not None for x in (self.flops, self.memory_bytes, self.fixed))

    @property
    def on_gpu_library(self) -> bool:
        """Whether the phase runs on a GPU collective library (:data:`GPU_LIBRARY_APIS`)."""
        return self.api in GPU_LIBRARY_APIS

    @property
    def has_communication(self) -> bool:
        return any(x is not None for x in (self.halo, self.collective, self.p2p, self.helper))

    def expressions(self) -> list[Expression]:
        """Every expression of the phase, in file order."""
        out = [self.repeat]
        out += [e for e in (self.flops, self.memory_bytes, self.gpu_memory_bytes, self.rate,
                            self.bandwidth, self.fixed) if e is not None]
        if self.halo:
            out.append(self.halo.bytes)
        if self.collective and self.collective.bytes is not None:
            out.append(self.collective.bytes)
        if self.p2p:
            out += [e for e in (self.p2p.bytes, self.p2p.distance) if e is not None]
        if self.helper:
            out += [e for _, e in self.helper.args]
        return out


Number = Fraction | float


@dataclass(frozen=True)
class Skeleton:
    """A whole skeleton. ``parameters`` and ``coefficients`` map names to their values
    (exact Fractions for whole numbers and decimals); ``defines`` are named expressions
    evaluated in order; ``machine_defaults`` values for machine keys a machine may lack
    (``"node.stencil_overhead": 0``); ``processes_per_node`` the skeleton's default ppn
    (None: the machine's node.processes_per_node, else 1); ``total_flops`` the official
    FLOP count of a run (None: Σ repeat x flops x P); ``scaling`` how efficiency is read
    (strong: fixed problem; weak: fixed per-rank problem). ``compute`` and ``buffers`` say
    where the run puts the ranks' work and message buffers (``gpu`` when
    model/apps/gpu.on_gpus moved it; never read from a file)."""

    name: str
    phases: tuple[Phase, ...]
    description: str = ""
    parameters: dict = field(default_factory=dict)
    coefficients: dict = field(default_factory=dict)
    defines: tuple[tuple[str, Expression], ...] = ()
    machine_defaults: dict = field(default_factory=dict)
    processes_per_node: int | None = None
    total_flops: Expression | None = None
    scaling: str = "strong"
    notes: tuple[str, ...] = ()
    origin: str = ""
    compute: str = "cpu"
    buffers: str = "host"

    def with_parameters(self, values: dict) -> Skeleton:
        """A copy with some parameters set (name -> number); InputError naming an unknown
        parameter or a bad value."""
        params = dict(self.parameters)
        for name, v in values.items():
            if name not in params:
                known = ", ".join(self.parameters) or "none"
                raise InputError(f"{self.name}: unknown parameter {name!r} (the skeleton "
                                 f"declares: {known})")
            params[name] = read_number(v, f"{self.name}: parameter {name}")
        return replace(self, parameters=params)

    def with_coefficients(self, values: dict) -> Skeleton:
        """A copy with some coefficients set (name -> number)."""
        coefficients = dict(self.coefficients)
        for name, v in values.items():
            if name not in coefficients:
                raise InputError(f"{self.name}: unknown coefficient {name!r}")
            coefficients[name] = read_number(v, f"{self.name}: coefficient {name}")
        return replace(self, coefficients=coefficients)

    def map_expressions(self, function) -> Skeleton:
        """A copy with every expression ``e`` (definitions, total_flops, every phase's)
        replaced by ``function(e)``."""
        def f(e):
            return None if e is None else function(e)

        phases = []
        for p in self.phases:
            changes = {key: f(getattr(p, key)) for key in (
                "repeat", "flops", "memory_bytes", "gpu_memory_bytes", "rate", "bandwidth",
                "fixed")}
            if p.halo:
                changes["halo"] = replace(p.halo, bytes=f(p.halo.bytes))
            if p.collective:
                changes["collective"] = replace(p.collective, bytes=f(p.collective.bytes),
                                                ranks=f(p.collective.ranks))
            if p.p2p:
                changes["p2p"] = replace(p.p2p, bytes=f(p.p2p.bytes),
                                         distance=f(p.p2p.distance))
            if p.helper:
                changes["helper"] = replace(p.helper, args=tuple(
                    (key, f(e)) for key, e in p.helper.args))
            phases.append(replace(p, **changes))
        return replace(self, phases=tuple(phases), total_flops=f(self.total_flops),
                       defines=tuple((name, f(e)) for name, e in self.defines))

    def table(self, machine_keys=None):
        """The symbol table the skeleton's expressions were read with (SymPy's symbols:
        :func:`symbol_table`)."""
        return symbol_table([*self.parameters, *self.coefficients,
                             *(name for name, _ in self.defines)], machine_keys)

    @functools.cached_property
    def _machine_keys(self) -> frozenset:
        return self._read_machine_keys()

    def machine_keys(self) -> frozenset:
        """Every machine value an expression of the skeleton reads (found once per
        skeleton: ``icnperf size`` evaluates one at thousands of designs)."""
        return self._machine_keys

    def _read_machine_keys(self) -> frozenset:
        keys = set()
        for _, e in self.defines:
            keys |= e.machine_keys
        for phase in self.phases:
            for e in phase.expressions():
                keys |= e.machine_keys
        if self.total_flops is not None:
            keys |= self.total_flops.machine_keys
        return frozenset(keys)


_NUMBER_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
"""A number as text: whole, decimal or scientific (2048, 0.5, 1e6); no fractions (1/3)."""


def read_number(v, what: str) -> Number:
    """``v`` (an int, a float, a Fraction or text such as ``"2048"``, ``"1e6"``) as an exact
    Fraction; InputError naming ``what`` for anything else (``"1/3"``, ``"inf"``, ``True``)
    or a number beyond the largest float (about 1.8e308)."""
    if isinstance(v, bool):
        raise InputError(f"{what} must be a number, not {v!r}")
    if isinstance(v, float):
        if not math.isfinite(v):
            raise InputError(f"{what} must be a finite number, not {v!r}")
        out = Fraction(repr(v))
    elif isinstance(v, (int, Fraction)):
        out = Fraction(v)
    elif isinstance(v, str) and _NUMBER_RE.fullmatch(v.strip()):
        out = _exact(v.strip(), what)
    else:
        raise InputError(f"{what} must be a number (2048, 0.5, 1e6), not {v!r}")
    if abs(out) > _LARGEST:
        raise InputError(f"{what} is beyond the largest number icnperf computes with, "
                         f"{sys.float_info.max:.3g}")
    return out


_LARGEST = Fraction(sys.float_info.max)

MAX_NUMBER_TEXT = 400
"""Most characters of a number written as text (a float needs 17 significant digits)."""


def _exact(text: str, what: str) -> Fraction:
    """A number's text (matched by ``_NUMBER_RE``) as an exact Fraction, its decimal
    exponent read first: ``Fraction("1e999999999")`` builds a billion-digit integer (it
    hung ``--param n=1e999999999``), so a value of 1e309 or more, or a non-zero value below
    the smallest float (about 4.9e-324), is refused before it is built."""
    if len(text) > MAX_NUMBER_TEXT:
        raise InputError(f"{what} has more than {MAX_NUMBER_TEXT} characters")
    mantissa, _, exponent = text.lower().lstrip("+-").partition("e")
    whole, _, decimals = mantissa.partition(".")
    if not (whole + decimals).strip("0"):
        return Fraction(0)
    lead = (len(whole.lstrip("0")) - 1 if whole.strip("0")
            else -(len(decimals) - len(decimals.lstrip("0")) + 1))
    magnitude = int(exponent or 0) + lead
    if magnitude >= 309:
        raise InputError(f"{what} is beyond the largest number icnperf computes with, "
                         f"{sys.float_info.max:.3g}")
    if magnitude < -324:
        raise InputError(f"{what} is closer to zero than the smallest number icnperf "
                         f"computes with, {5e-324:.2g}")
    return Fraction(text)
