"""A machine as MPI sees it on GPU buffers: the values of the machine's GPU-buffer path
(:func:`icnperf.model.network.gpu.gpu_buffer_values`) set on a copy, each credited to it, so
collectives and skeletons run unchanged on GPU buffers (``--buffers gpu``)."""

from __future__ import annotations

from icnperf.errors import InputError
from icnperf.model.network.gpu import BUFFERS, gpu_buffer_values


def with_buffers(machine, buffers: str = "host"):
    """``machine`` itself for host buffers; for GPU buffers a copy whose MPI overhead, NIC
    latencies and host interface are the GPU-buffer path between nodes and whose
    shared-memory values are GPU 0 -> GPU 1 inside a node. InputError for an unknown
    ``buffers`` or a machine without the GPU keys."""
    if buffers not in BUFFERS:
        raise InputError(f"unknown buffers {buffers!r}; choose {' or '.join(BUFFERS)}")
    if buffers == "host":
        return machine
    path = gpu_buffer_values(machine)
    return machine.with_values(path.values, "--buffers gpu: " + "; ".join(path.notes))
