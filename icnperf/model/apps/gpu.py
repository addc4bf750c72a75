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
CPU's STREAM share) and are replaced; ``fixed`` times stay. Communication phases are
timed as without it: host buffers unless the run says otherwise (GPU-buffer messages over
the scale-up fabric are the GPU-node keys' part, issue 29 items 1 and 3; charging each
intra-node halo message its own GPU pair's route is not done yet).
"""

from __future__ import annotations

from dataclasses import replace

from icnperf.model.apps.expressions import parse
from icnperf.model.apps.skeleton import Skeleton

COMPUTE_TARGETS = ("cpu", "gpu")
"""Where a skeleton's compute runs (``--compute``), the first the default."""

GPU_RATE = "node.accelerators * node.accelerator_peak_flops"
"""The FLOP roof of a node's GPUs (FLOP/s), at efficiency 1."""

GPU_BANDWIDTH = ("node.accelerators * node.accelerator_memory_efficiency"
                 " * node.accelerator_memory_bandwidth")
"""The memory roof of a node's GPUs (B/s), at the machine's streaming efficiency."""


def on_gpus(skeleton: Skeleton) -> Skeleton:
    """The skeleton with every compute phase on the GPU roofline (module docstring) and a
    note per phase stating its roofs and their efficiencies."""
    table = skeleton.table()
    phases, notes = [], []
    for phase in skeleton.phases:
        if phase.flops is None and phase.memory_bytes is None \
                and phase.gpu_memory_bytes is None:
            phases.append(phase)
            continue
        where = f"phase {phase.name!r} on the GPUs"
        bytes_ = phase.gpu_memory_bytes or phase.memory_bytes
        rate = parse(GPU_RATE, f"{where}, rate", table) if phase.flops is not None else None
        bandwidth = (parse(GPU_BANDWIDTH, f"{where}, bandwidth", table)
                     if bytes_ is not None else None)
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
    notes.append("compute on the GPUs: communication phases timed as without it (their "
                 "buffers and intra-node path as the machine and options give them; each GPU "
                 "pair's own scale-up route is not yet charged per halo message)")
    return replace(skeleton, phases=tuple(phases), notes=tuple(skeleton.notes) + tuple(notes))
