"""Compute on the GPUs: a skeleton's compute phases moved onto the node's accelerators
(``predict app --compute gpu``).

Each phase that charges flops or memory bytes is timed on the roofline of the node's GPUs
(Williams, Waterman & Patterson, "Roofline: an insightful visual performance model for
multicore architectures", CACM 2009), shared by the node's ppn ranks as on the CPU
(timing.py):

* FLOP roof: n_acc · R_acc (``node.accelerators`` x ``node.accelerator_peak_flops``),
  efficiency 1: the peak, an upper bound on the rate of any kernel;
* memory roof: n_acc · η_acc · B_acc (``node.accelerator_memory_efficiency`` x
  ``node.accelerator_memory_bandwidth``): the fraction of HBM bandwidth a streaming kernel
  reaches, the machine's stated figure;
* the bytes are the phase's ``gpu_memory_bytes`` (what the kernel moves through HBM),
  else its ``memory_bytes``; a phase with flops alone is charged the FLOP roof only,
  which the notes say.

The phase's own ``rate`` and ``bandwidth`` describe the CPU (a measured stencil rate, the
CPU's STREAM share) and are replaced; ``fixed`` times stay.

Halo and point-to-point phases on GPU buffers (``buffers = "gpu"``, the run's
``--buffers gpu``): rank r drives GPU r mod ppn of node r // ppn (the GPU-buffer model's
convention, model/network/gpu.py), so the rank mapping says which messages stay in a node
and between which GPUs, and which NIC each inter-node message leaves by
(:func:`gpu_step`): the messages inside a node cross the scale-up fabric on their own
pair's route (``network.gpu.pair_route``) and the step is charged the slowest pair present
(GPU IPC; a staged path keeps the node-wide figures); between nodes each GPU sends through
its NIC (``node.gpu_nics``), so the adapter count is the most messages through one NIC
rather than one node. Collectives keep the GPU-buffer model's values (node-local stages at
the pair 0 -> 1).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from icnperf.model.apps.expression_values import Expression
from icnperf.model.apps.skeleton import Skeleton

COMPUTE_TARGETS = ("cpu", "gpu")
"""Where a skeleton's compute runs (``--compute``), the first the default."""

GPU_RATE = "node.accelerators * node.accelerator_peak_flops"
"""The FLOP roof of a node's GPUs (FLOP/s), at efficiency 1."""

GPU_BANDWIDTH = ("node.accelerators * node.accelerator_memory_efficiency"
                 " * node.accelerator_memory_bandwidth")
"""The memory roof of a node's GPUs (B/s), at the machine's streaming efficiency."""

ROOF_TREES = {
    GPU_RATE: ("mul", "node.accelerators", "node.accelerator_peak_flops"),
    GPU_BANDWIDTH: ("mul", "node.accelerators", "node.accelerator_memory_efficiency",
                    "node.accelerator_memory_bandwidth"),
}
"""The two roofs' plain trees (model/apps/expression_values.py), as SymPy parses their text
(tests/model/test_apps_gpu.py checks it), so --compute gpu imports no SymPy."""


def on_gpus(skeleton: Skeleton, buffers: str = "host") -> Skeleton:
    """The skeleton with every compute phase on the GPU roofline (module docstring), a
    note per phase stating its roofs and their efficiencies, and ``buffers`` (host or gpu:
    where the run's messages sit) recorded for the halo and point-to-point phases."""
    phases, notes = [], []
    for phase in skeleton.phases:
        if phase.flops is None and phase.memory_bytes is None \
                and phase.gpu_memory_bytes is None:
            phases.append(phase)
            continue
        where = f"phase {phase.name!r} on the GPUs"
        bytes_ = phase.gpu_memory_bytes or phase.memory_bytes
        rate = (Expression(GPU_RATE, ROOF_TREES[GPU_RATE], f"{where}, rate")
                if phase.flops is not None else None)
        bandwidth = (Expression(GPU_BANDWIDTH, ROOF_TREES[GPU_BANDWIDTH],
                                f"{where}, bandwidth") if bytes_ is not None else None)
        phases.append(replace(phase, rate=rate, bandwidth=bandwidth, memory_bytes=bytes_))
        roofs = []
        if phase.flops is not None:
            roofs.append(f"{phase.flops.text} FLOP at accelerators x accelerator_peak_flops "
                         "(efficiency 1, the peak)")
        if bytes_ is not None:
            roofs.append(f"{bytes_.text} B at accelerators x accelerator_memory_efficiency x "
                         "accelerator_memory_bandwidth (efficiency: the machine's "
                         "accelerator_memory_efficiency)")
        else:
            roofs.append("no memory bytes given: the FLOP roof alone, a lower bound on the "
                         "time")
        notes.append(f"compute on the GPUs, phase {phase.name!r}: " + "; ".join(roofs)
                     + " per rank, the node's GPUs shared by its ppn ranks")
    if buffers == "gpu":
        notes.append("compute on the GPUs, GPU buffers: rank r drives GPU r mod ppn; halo "
                     "and point-to-point messages inside a node take their GPU pair's "
                     "scale-up route (the slowest pair present sets the step), those between "
                     "nodes leave by their GPU's NIC (node.gpu_nics)")
    else:
        notes.append("compute on the GPUs, host buffers: messages as without --compute gpu")
    return replace(skeleton, phases=tuple(phases), notes=tuple(skeleton.notes) + tuple(notes),
                   compute="gpu", buffers=buffers)


def gpu_step(machine, layout, sources, destinations, ppn: int):
    """(copy, load, note) of messages sent at once between ranks on GPU buffers (module
    docstring), ``layout`` placed with ``ppn``. ``copy``: (latency s, bandwidth B/s) of
    the slowest GPU pair present under GPU IPC, software.gpu_mpi_overhead + the pair's
    scale-up latency and its bandwidth (None when no message stays in a node or the node
    path is staged); ``load``: (channel load, most messages through one NIC), replacing
    the mapping's node-adapter count by the NICs' (None on a rail tree, whose endpoints
    are already the NICs, collectives.Layout, or when no message leaves its node)."""
    from icnperf.model.network import gpu

    src = np.asarray(sources, dtype=np.int64)
    dst = np.asarray(destinations, dtype=np.int64)
    gpus = gpu.gpus_per_node(machine)
    if ppn > gpus:
        from icnperf.errors import InputError
        raise InputError(f"{ppn} processes per node on GPU buffers: the node has {gpus} GPUs "
                         "(one process per GPU)")
    a, b = src % ppn, dst % ppn
    intra = src // ppn == dst // ppn
    copy, note = None, ""
    if intra.any() and machine.require("software.gpu_buffer_path_node") == "ipc":
        pairs = sorted(set(zip(a[intra].tolist(), b[intra].tolist())))
        routes = [(gpu.pair_route(machine, x, y), (x, y)) for x, y in pairs]
        route, (x, y) = min(routes, key=lambda r: (r[0].bandwidth, -r[0].latency))
        overhead = float(machine.require("software.gpu_mpi_overhead"))
        copy = (overhead + route.latency, route.bandwidth)
        note = f"; inside a node the slowest GPU pair present, {x} -> {y}: {route.route}"
    link = None
    inter = ~intra
    if inter.any() and layout.rails == 1:
        table = np.asarray(gpu.gpu_nics(machine), dtype=np.int64)
        count = int(table.max()) + 1
        out = np.bincount((src[inter] // ppn) * count + table[a[inter]])
        into = np.bincount((dst[inter] // ppn) * count + table[b[inter]])
        nics = int(max(out.max(), into.max()))
        ends = layout.rank_endpoints()
        _, load = layout.traffic(ends[src[inter]], ends[dst[inter]])
        link = (max(int(load), nics, 1), nics)
        note += f"; at most {nics} message(s) through one NIC (node.gpu_nics)"
    return copy, link, note
