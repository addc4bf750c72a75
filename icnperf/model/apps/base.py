"""What every application model returns: time split into compute, point-to-point and
collective parts, per iteration and in total, with the assumptions behind it."""

from __future__ import annotations

from typing import NamedTuple


class AppResult(NamedTuple):
    """One application run on one node count (seconds; FLOP for ``flops``).

    ``compute_s``, ``p2p_s`` and ``collective_s`` are per iteration and add up to
    ``iteration_s`` (a bulk-synchronous step waits for its slowest part); ``total_s`` is
    ``iterations`` x ``iteration_s`` plus any set-up the model charges. ``flops`` is the
    official FLOP count of the whole run (for the GFLOP/s rating). ``notes`` states every
    assumption (decomposition, halo protocol, collective algorithm, constants chosen).
    """

    app: str
    nodes: int
    layout: str
    algorithm: str
    iterations: int
    compute_s: float
    p2p_s: float
    collective_s: float
    iteration_s: float
    total_s: float
    flops: float
    notes: tuple[str, ...]

    @property
    def gflops(self) -> float:
        """Achieved rate, GFLOP/s (official FLOP count over total time)."""
        return self.flops / self.total_s / 1e9
