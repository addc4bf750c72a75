"""Predictions are monotone where physics says so (issue #16 item 4): at the same path and
load, a longer message never arrives sooner, and a collective never finishes sooner with
more data per rank. Property tests over the bundled machines, paths, loads, processes per
node, layouts and sizes; the expectation is physical (more bytes cross the same channels,
the queues ahead are the same), not the code's own output."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from icnperf.data.machine import list_presets, load_machine
from icnperf.errors import InputError
from icnperf.model import collectives
from icnperf.model import network as N

PRESETS = [name for name, _ in list_presets()]

WHOLE_ELEMENTS = "rabenseifner"
"""Not monotone by construction: MPICH and SMPI split its vector in whole 8-byte elements,
so with fewer elements than blocks every step carries them all, and a vector that fills
the blocks is faster than a smaller one (test_collectives.py derives it by hand). It is
monotone over whole multiples of the element size times the blocks, checked below."""


def _monotone_sizes(algorithm: str, grid, ranks: int):
    """The sizes of ``grid`` over which ``algorithm`` must be monotone: all of them, or for
    Rabenseifner those that split evenly into 8-byte elements over 2^floor(lg P) blocks."""
    if algorithm != WHOLE_ELEMENTS:
        return np.ones(len(grid), dtype=bool)
    blocks = 2 ** int(np.floor(np.log2(max(ranks, 1))))
    return np.asarray(grid) % (8 * blocks) == 0
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

sizes = st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False)


@SETTINGS
@given(machine=st.sampled_from(PRESETS), a=sizes, b=sizes,
       hops=st.one_of(st.none(), st.integers(0, 6)), load=st.floats(0, 0.99),
       ppn=st.integers(1, 8), api=st.sampled_from(["mpi", "shmem", "none"]))
def test_p2p_latency_never_falls_as_the_message_grows(machine, a, b, hops, load, ppn, api):
    m = load_machine(machine)
    small, large = sorted((float(np.floor(a)), float(np.floor(b))))
    try:
        table = N.p2p_table(m, np.array([small, large]), hops, api, processes_per_node=ppn,
                            offered_load=load).columns
    except InputError:
        assume(False)  # past saturation, a pattern the topology lacks, an API it lacks
    latency = table["latency_s"]
    assert np.all(np.isfinite(latency))
    assert latency[1] >= latency[0]
    assert table["queueing_delay_s"][1] == table["queueing_delay_s"][0]


def test_the_packet_boundary_of_the_issue():
    """predict p2p --machine angara-36 --load 0.5 --bytes 240,241 gave 1.20 us then 1.18 us:
    241 bytes is a full 240-byte packet and a 1-byte one, so it can only take longer."""
    table = N.p2p_table(load_machine("angara-36"), np.array([240.0, 241.0]), None, "mpi",
                        offered_load=0.5).columns
    assert table["packets"].tolist() == [1, 2]
    assert table["latency_s"][1] > table["latency_s"][0]


LAYOUTS = [None, (2, 2, 2), (4, 4, 4), (3, 5), (2, 3, 4, 2), (5,)]


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(machine=st.sampled_from(PRESETS), operation=st.sampled_from(
           [op for op in collectives.OPERATIONS if op != "barrier"]),
       shape=st.sampled_from(LAYOUTS), ppn=st.integers(1, 3),
       placement=st.sampled_from(["linear", "random"]),
       values=st.lists(st.floats(min_value=1, max_value=1e9, allow_nan=False), min_size=2,
                       max_size=4))
def test_collective_time_never_falls_as_the_data_grows(machine, operation, shape, ppn,
                                                       placement, values):
    m = load_machine(machine)
    layout = None if shape is None else collectives.Layout.torus(shape)
    # the machine's own network only where it is small: mapping every algorithm's rounds
    # on Fugaku's 158,976 nodes takes minutes per example
    assume(layout is not None or collectives.machine_layout(m).endpoints <= 4096)
    grid = np.unique(np.floor(values))
    assume(len(grid) >= 2)
    try:
        results = collectives.compare(m, operation, grid, layout=layout,
                                      processes_per_node=ppn, placement=placement)
    except InputError:
        assume(False)  # e.g. a layout the machine's topology cannot take
    for algorithm, result in results.items():
        time = np.broadcast_to(result.time, grid.shape)
        assert np.all(np.isfinite(time)), algorithm
        even = _monotone_sizes(algorithm, grid, result.endpoints * ppn)
        time = time[even]
        assert np.all(np.diff(time) >= -1e-12 * time[1:]), (algorithm, grid[even], time)


@pytest.mark.parametrize("operation", [
    "allreduce", pytest.param("allgather", marks=pytest.mark.slow),
    pytest.param("alltoall", marks=pytest.mark.slow), "broadcast", "reduce"])
def test_every_algorithm_over_a_dense_sweep(operation):
    """Every byte count to 4 KiB and a geometric sweep to 64 MiB on a 4x4x4 Angara torus:
    packet boundaries, the fold of non-powers of two and the size splits of Rabenseifner
    and ring are all crossed."""
    m = load_machine("angara-3d")
    grid = np.unique(np.concatenate([np.arange(1, 4097), np.geomspace(1, 2**26, 400).round()]))
    # the textbook algorithms; the MPI libraries' flow-timed ones (linear, pairwise,
    # reduce-bcast) re-solve their flows per size, minutes over 4,500 sizes: a sparser grid
    textbook = [a for a in collectives.ALGORITHMS if collectives.defined(a, operation)]
    layout = collectives.Layout.torus((4, 4, 4))
    for algorithm, result in collectives.compare(m, operation, grid, layout=layout,
                                                 algorithms=textbook).items():
        even = _monotone_sizes(algorithm, grid, 64)
        assert np.all(np.diff(result.time[even]) >= 0), algorithm
    sparse = np.unique(np.geomspace(1, 2**26, 16).round())
    for algorithm, result in collectives.compare(m, operation, sparse, layout=layout).items():
        even = _monotone_sizes(algorithm, sparse, 64)
        assert np.all(np.diff(np.broadcast_to(result.time, sparse.shape)[even]) >= 0), \
            algorithm
