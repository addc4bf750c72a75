"""What every topology family returns, and the conventions they all share.

Conventions (stated once here, repeated in each result's ``notes``):

* **Hops** are router-to-router channel traversals. The endpoint's own injection and
  ejection links are not counted; two endpoints on the same router are 0 hops apart.
* **average_distance** is the mean hop count over all ordered pairs of *distinct*
  endpoints.
* **A channel** is one direction of a bidirectional router-router link; ``links`` counts
  bidirectional router-router links (each is two channels). Endpoint links are not in
  ``links``.
* **Channel load** γ is the expected number of flits per cycle crossing a channel when
  every endpoint injects 1 flit/cycle with the named traffic pattern (Dally & Towles,
  *Principles and Practices of Interconnection Networks*, 2004, §3.3). ``channel_load``
  holds γ_max, the maximum over router-router channels. Under **uniform** traffic the
  destination is drawn uniformly from all N endpoints, the source included (Dally &
  Towles §3.3.1); self-traffic crosses no channel.
* **Throughput** Θ = min(1, 1/γ_max) flits/endpoint/cycle: the ideal saturation
  throughput with channel bandwidth equal to the injection bandwidth (1 flit/cycle), capped
  at 1 by the endpoint's own channel.
* A pattern that is not defined for a configuration (e.g. transpose on a non-square
  network) has γ_max = NaN and Θ = NaN.
* **bisection_links** counts bidirectional links cut by a minimum balanced cut of the
  endpoints (each direction of a link is one channel; the cut has 2x this many channels).
  Where no exact minimum is known in closed form (dragonfly and megafly in some ranges,
  slim fly of odd q) the family reports the size of an explicit balanced cut, an upper
  bound, and says so in its notes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from icnperf.errors import InputError

PATTERNS = (
    "uniform",
    "tornado",
    "bit-complement",
    "transpose",
    "nearest-neighbour",
    "worst-case",
)
"""Traffic patterns every family reports (NaN where a pattern is not defined)."""

MAX_ENDPOINTS = 10**12
"""Largest network icnperf accepts: beyond it float64 counts lose integer exactness."""

COMMON_NOTES = (
    "hops count router-to-router channels; endpoint links are not counted",
    "average_distance: mean over ordered pairs of distinct endpoints",
    "channel_load: gamma_max in flits/cycle per unidirectional router-router channel "
    "when every endpoint injects 1 flit/cycle; uniform traffic includes self",
    "throughput = min(1, 1/gamma_max) flits/endpoint/cycle",
)


@dataclass(frozen=True)
class Metrics:
    """Structural metrics of one or many configurations of one family.

    Every array field has the shape of the configuration batch (0-d for one spec).
    ``channel_load`` maps each name in ``PATTERNS`` to γ_max (flits/cycle/channel).
    """

    family: str
    routers: np.ndarray
    endpoints: np.ndarray
    radix: np.ndarray
    links: np.ndarray
    diameter: np.ndarray
    average_distance: np.ndarray
    bisection_links: np.ndarray
    channel_load: Mapping[str, np.ndarray]
    notes: tuple[str, ...] = field(default=COMMON_NOTES)

    @property
    def throughput(self) -> dict[str, np.ndarray]:
        """Θ = min(1, 1/γ_max) per pattern, flits/endpoint/cycle (NaN stays NaN)."""
        return {pattern: self.pattern_throughput(pattern) for pattern in self.channel_load}

    def pattern_throughput(self, pattern: str) -> np.ndarray:
        """Θ of one pattern (:attr:`throughput`'s value for it)."""
        g = np.asarray(self.channel_load[pattern], dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(np.isnan(g), np.nan, np.minimum(1.0, 1.0 / g))

    @property
    def ports(self) -> np.ndarray:
        """Total router ports, routers x radix."""
        return np.asarray(self.routers) * np.asarray(self.radix)


def structure_metrics(family: str, structure, channel_load: Mapping[str, np.ndarray],
                      notes: tuple[str, ...]) -> Metrics:
    """Metrics of a family whose structure object answers each structural count by a method
    of the field's name (``routers()``, ``endpoints()``, ``radix()``, ``links()``,
    ``diameter()``, ``average_distance()``, ``bisection_links()``: fattree.FatTree,
    xgft.XGFT), with its channel loads and notes."""
    return Metrics(
        family=family,
        routers=structure.routers(),
        endpoints=structure.endpoints(),
        radix=structure.radix(),
        links=structure.links(),
        diameter=structure.diameter(),
        average_distance=structure.average_distance(),
        bisection_links=structure.bisection_links(),
        channel_load=channel_load,
        notes=notes,
    )


@dataclass(frozen=True)
class Family:
    """A topology family as the spec parser and the CLI see it.

    ``parameters`` are the names accepted in ``family:k=v,...`` specs, in order.
    ``positional`` names the single parameter a bare body fills (``hypercube:10``) or
    ``"radices"`` for an ``AxBxC`` body (torus, mesh); ``None`` when only ``k=v`` is allowed.
    ``check(params)`` raises InputError for infeasible scalar parameters (Python ints);
    ``evaluate(**params)`` returns Metrics and broadcasts over NumPy arrays.
    ``endpoints(params)`` is the exact endpoint count as a Python int (used for size limits).
    """

    name: str
    description: str
    parameters: tuple[str, ...]
    positional: str | None
    check: Callable[[dict], None]
    endpoints: Callable[[dict], int]
    evaluate: Callable[..., Metrics]
    example: str


def require(condition: bool, message: str) -> None:
    """Raise InputError(message) unless condition holds."""
    if not condition:
        raise InputError(message)


def is_integer(value) -> bool:
    """True for a Python or NumPy integer (bool excluded): a valid count parameter."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def require_within_limit(family: str, log2_endpoints: float) -> None:
    """Raise InputError when 2^log2_endpoints exceeds MAX_ENDPOINTS.

    Families whose size is exponential in a parameter (hypercube n, fat-tree levels) call
    this from ``check`` so the exact count is never built for an absurd exponent.
    """
    require(log2_endpoints <= math.log2(MAX_ENDPOINTS),
            f"{family}: the network would have more than {MAX_ENDPOINTS:.0e} endpoints,"
            " the largest icnperf accepts")


def nan_like(x) -> np.ndarray:
    """An all-NaN float array with the shape of x."""
    return np.full(np.shape(x), np.nan)
