"""Fixtures of the flit simulator's tests: running a traced simulation to empty and reading
its packet logs, and counting deliveries past saturation."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest


class PacketTrace(NamedTuple):
    """The packets of a traced simulation run to empty: ids, sources, destinations and
    creation cycles in injection order, ids in delivery order, and each packet's latency
    (creation to tail delivery, cycles) in injection order."""

    packet: np.ndarray
    source: np.ndarray
    destination: np.ndarray
    birth: np.ndarray
    delivered: np.ndarray
    latency: np.ndarray


def _drain_and_trace(sim, cycles: int = 0) -> PacketTrace:
    if cycles:
        sim.run(cycles)
    sim.run_until_empty()
    packet, source, destination, birth = (np.concatenate(x) for x in zip(*sim.injected_log))
    delivered, when, _ = (np.concatenate(x) for x in zip(*sim.ejected_log))
    assert np.array_equal(np.sort(delivered), np.arange(sim.injected))   # each once
    latency = np.empty(len(packet), dtype=np.int64)
    latency[delivered] = when
    return PacketTrace(packet, source, destination, birth, delivered, latency[packet] - birth)


def _deliveries(sim, rounds: int, cycles: int) -> list[int]:
    out = []
    for _ in range(rounds):
        before = sim.ejected
        sim.run(cycles)
        out.append(sim.ejected - before)
    return out


@pytest.fixture
def drain_and_trace():
    """``drain_and_trace(sim, cycles=0)``: runs a simulation made with ``trace=True`` for
    ``cycles`` more cycles and then until it is empty, checks that every injected packet was
    delivered exactly once, and returns its :class:`PacketTrace`."""
    return _drain_and_trace


@pytest.fixture
def deliveries():
    """``deliveries(sim, rounds, cycles)``: flits delivered in each of ``rounds`` runs of
    ``cycles`` cycles (past saturation: all above 0 unless the network deadlocks)."""
    return _deliveries
