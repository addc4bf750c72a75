"""Router micro-architecture and link timing of a simulation: ``RouterConfig``.

Two routers share the networks, routing and traffic:

* ``allocator="separable"`` (icnperf's own, ``kernel``): separable input-first switch
  allocation (one VC per input port, then one input per output port) and a VC allocator in
  which each waiting head asks for the free VC of its class with most credits; round-robin
  or oldest-first priority (``arbiter``); stage timing as in ``engine``'s docstring;
* ``allocator="islip"`` (``islip_kernel``): BookSim2's input-queued router (``iq``, commit
  28f4329 of github.com/booksim/booksim2, read for its rules): iSLIP VC and switch
  allocation with one iteration and round-robin arbiters, pointers advanced only on an
  accepted grant; BookSim's stage boundaries and channel timing; ``internal_speedup``
  internal steps per cycle with output queues (``islip_kernel``'s docstring).

Routing options a router applies (``routing``'s docstring): ``dateline`` (``crossing``:
lower half of the VCs until the ring's wraparound link, upper half after it; ``dimension``:
BookSim's class chosen on entering each dimension) and ``ring_ties`` (``plus``: the +
direction at a distance of exactly k/2; ``random``: a fair coin, BookSim's).

Link timing: ``link_delay`` for router-router links, ``global_link_delay`` for a
dragonfly's inter-group links (default: ``link_delay``), ``terminal_delay`` for endpoint
links; credits cross each link with its delay.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icnperf.errors import InputError

ARBITERS = ("round-robin", "age")
"""Separable-allocator priority: rotating per input/output port, or oldest packet first."""

ALLOCATORS = ("separable", "islip")
"""Router models: icnperf's separable allocators, or BookSim2's iq router with iSLIP."""

DATELINES = ("crossing", "dimension")
"""Torus VC-class rules (routing module docstring)."""

RING_TIES = ("plus", "random")
"""Direction of a torus packet at a distance of exactly k/2."""

STAGES = ("routing_delay", "vc_alloc_delay", "switch_alloc_delay", "switch_traversal_delay")
"""Router pipeline stages (cycles); when none is given, router_delay is all switch alloc."""

MAX_SPEEDUP = 4.0
"""Largest internal speedup accepted (internal steps are counted in 32-bit integers)."""


def _whole(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


@dataclass(frozen=True)
class RouterConfig:
    """Router micro-architecture and link timing, all in cycles / flits.

    Giving any pipeline stage (``routing_delay`` ... ``switch_traversal_delay``) sets the
    unset ones to 0 and ``router_delay`` to their sum (an explicit ``router_delay`` other
    than the default 1 must then equal it). VC allocation and switch allocation of a head
    flit happen in different cycles, so ``vc_alloc_delay + switch_alloc_delay >= 1``; the
    iSLIP router needs VC allocation, switch allocation and switch traversal of at least
    one cycle each (BookSim2 refuses zero-delay allocators and crossbars).
    """

    vcs: int = 2
    buffer: int = 8
    router_delay: int = 1
    link_delay: int = 1
    terminal_delay: int = 1
    packet_flits: int = 1
    arbiter: str = "round-robin"
    routing_delay: int | None = None
    vc_alloc_delay: int | None = None
    switch_alloc_delay: int | None = None
    switch_traversal_delay: int | None = None
    global_link_delay: int | None = None
    allocator: str = "separable"
    internal_speedup: float = 1.0
    dateline: str = "crossing"
    ring_ties: str = "plus"

    def __post_init__(self):
        given = [getattr(self, name) for name in STAGES]
        if all(v is None for v in given):
            return
        values = [0 if v is None else v for v in given]
        for name, value in zip(STAGES, values):
            object.__setattr__(self, name, value)
        if all(isinstance(v, (int, np.integer)) for v in values) and self.router_delay == 1:
            object.__setattr__(self, "router_delay", int(sum(values)))

    @property
    def stages(self) -> tuple[int, int, int, int]:
        """(routing, VC allocation, switch allocation, switch traversal) delays in cycles."""
        if self.routing_delay is None:
            return 0, 0, self.router_delay, 0
        return (self.routing_delay, self.vc_alloc_delay, self.switch_alloc_delay,
                self.switch_traversal_delay)

    @property
    def injection_delay(self) -> int:
        """Cycles from a packet's creation to its head's arrival at its router, at zero
        load: ``terminal_delay``, plus for the iSLIP router the cycle BookSim's injection
        channel adds (``kernel``'s docstring)."""
        return self.terminal_delay + (1 if self.allocator == "islip" else 0)

    @property
    def global_delay(self) -> int:
        """Latency of a dragonfly's inter-group links (cycles)."""
        return self.link_delay if self.global_link_delay is None else self.global_link_delay

    def check(self, network) -> None:
        """Raise InputError for a configuration the engine cannot run."""
        if self.routing_delay is not None:
            for name in STAGES:
                value = getattr(self, name)
                if not _whole(value) or value < 0:
                    raise InputError(f"flitsim: {name.replace('_', ' ')} must be an integer"
                                     f" >= 0, got {value!r}")
            if self.vc_alloc_delay + self.switch_alloc_delay < 1:
                raise InputError("flitsim: vc alloc delay + switch alloc delay must be >= 1"
                                 " (VC and switch allocation take separate cycles)")
            if sum(self.stages) != self.router_delay:
                raise InputError(f"flitsim: router delay {self.router_delay} is not the sum"
                                 f" of the stage delays {self.stages}")
        for name in ("vcs", "buffer", "router_delay", "link_delay", "terminal_delay",
                     "packet_flits"):
            value = getattr(self, name)
            if not _whole(value) or value < 1:
                raise InputError(f"flitsim: {name.replace('_', ' ')} must be an integer >= 1,"
                                 f" got {value!r}")
        if self.global_link_delay is not None and (not _whole(self.global_link_delay)
                                                   or self.global_link_delay < 1):
            raise InputError(f"flitsim: global link delay must be an integer >= 1, got"
                             f" {self.global_link_delay!r}")
        for name, value, choices in (("arbiter", self.arbiter, ARBITERS),
                                     ("allocator", self.allocator, ALLOCATORS),
                                     ("dateline rule", self.dateline, DATELINES),
                                     ("ring tie rule", self.ring_ties, RING_TIES)):
            if value not in choices:
                raise InputError(f"flitsim: unknown {name} {value!r} (choose from"
                                 f" {', '.join(choices)})")
        speedup = self.internal_speedup
        if (isinstance(speedup, bool) or not isinstance(speedup, (int, float, np.number))
                or not 0 < speedup <= MAX_SPEEDUP):
            raise InputError(f"flitsim: internal speedup must be a number in (0,"
                             f" {MAX_SPEEDUP:g}], got {speedup!r}")
        if self.allocator == "islip":
            rc, va, sa, st = self.stages
            if self.routing_delay is None or min(va, sa, st) < 1:
                raise InputError("flitsim: the islip router (BookSim2's iq router) needs VC"
                                 " allocation, switch allocation and switch traversal of at"
                                 " least 1 cycle each; give the stage delays")
            if self.arbiter != "round-robin":
                raise InputError("flitsim: the islip router arbitrates round-robin only"
                                 " (iSLIP pointers), not by age")
        elif speedup != 1:
            raise InputError("flitsim: internal speedup needs the islip router (the separable"
                             " router makes one allocation per cycle)")
        if network.dateline_ports().any() and self.vcs < 2:
            raise InputError("flitsim: a torus ring of radix > 2 needs at least 2 VCs per"
                             " port (dateline classes keep dimension-order routing"
                             " deadlock-free)")
        classes = getattr(network, "vc_classes", 1)
        if classes > 1 and self.vcs < classes:
            raise InputError(f"flitsim: {network.name} routes with {classes} VC classes and"
                             f" needs at least {classes} VCs per port, got {self.vcs}")
