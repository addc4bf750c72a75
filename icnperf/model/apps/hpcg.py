"""HPCG (High Performance Conjugate Gradients, reference 2.4) as a closed-form model: the
time of the counts of :mod:`icnperf.model.apps.hpcg_counts` (process grid, halo messages,
bytes per CG iteration, official FLOPs) on a machine.

Source: Agarkov, Semenov, Simonov, "Optimized implementation of HPCG benchmark on
supercomputer with Angara interconnect", 2015 (Agarkov 2015, cited below as Agarkov 2015), and the
HPCG 2.4 reference code (its structure: hpcg_counts).

Per CG iteration: 11 halo exchanges over the 4 multigrid levels and 3 all-reduces of one
8-byte double, plus the compute. Time of one exchange on a node (derived here, see
:func:`halo_time`):

    T_halo = T(m_max, h) + max(Σ_proc g_i - g_max,  Σ_node T_ser(m_j) - T_ser(m_max))
             + Σ_proc-intra (t_shm + 2 m / (η B_mem / p)) + T_pack + T_sync

T(m, h) = network.latency (software overhead of the API, injection, h hops, ejection,
serialization); g = max(O/2, T_ser(m)) the sender's busy time per message
(collectives.send_gap); the node's adapter serializes every inter-node message of all p
processes of the node one after another (network.sharing_delay generalised to unequal
messages); intra-node messages are copies through shared memory at the process's share of
the memory bandwidth; T_pack packs the send buffers (hpcg_counts.PACK_BYTES per halo
value); T_sync is the SHMEM completion protocol (see below).

Compute: memory-bandwidth bound. Every process of a node streams its bytes
(hpcg_counts.bytes_per_iteration) at the same time through the node's memory:
t = p · bytes / (η · B_mem), B_mem = node (type) memory bandwidth, η = the node's own
``node.memory_efficiency`` (STREAM triad / peak, with its source in the machine file; the
Angara and SKIF presets keep the 0.78 Sandy Bridge-EP figure HPCG used for every node
before).

Variants:

* ``reference``: HPCG 2.4 with MPI: halo messages pay ``software.mpi_overhead`` (the
  angara-36 preset calibrates it from Agarkov 2015 Table 2, 1 µs 16-byte latency); no sync
  beyond the message receipt.
* ``optimized`` means the machine's own optimized HPCG, named by
  ``software.hpcg_optimized``: ``angara-shmem`` (the Angara presets) for the SHMEM port
  below, ``vendor`` (the default) for the vendor-optimized HPCG as submitted to the HPCG
  list (:func:`vendor_bandwidth`): the same kernels' bytes streamed at the node's fastest
  memory, max(η · B_mem, n_acc · η_acc · B_acc) (accelerators when the node has them:
  vendor codes run HPCG on the GPUs), no node-level factors, MPI halo and dot products.
  The bytes are those of the reference CSR layout; vendor formats (ELLPACK variants with
  32-bit indices) move the same 12 B per non-zero and save the row pointers, Agarkov 2015's
  +5 % (§2.3).
* ``optimized`` with ``angara-shmem``: Agarkov 2015's version "with single-node optimizations
  (excluding OpenMP) and SHMEM": halo by ``shmem_double_put`` (``software.shmem_overhead``,
  from the 0.7 µs latency) followed by a synchronisation, ``sync="pairwise"`` (a flag put
  to every exchange partner; a process starts once its neighbours' flags arrived) or
  ``sync="barrier"`` (``shmem_barrier_all`` after the puts, charged as a barrier over the
  node layout plus an intra-node stage); Agarkov 2015 §2.4 describes both and does not say
  which one the 39 % is for. Compute is divided by the node-level factors of Agarkov 2015,
  taken as inputs: contiguous storage ``CONTIGUOUS_FACTOR`` = 1.5 (§2.1, "on average one
  and a half times"), ELLPACK ``ELLPACK_FACTOR`` = 1.05 (§2.3, "+5 %"). The 4.8x of the
  2-plane 2-colour ordering (§2.2) is **not** applied: it is measured on 12 OpenMP
  threads against the contiguous version on 12 threads (the colouring exists to let
  threads run SYMGS in parallel), while the 39 % run is "excluding OpenMP" (§2.4, last
  paragraphs) with 8 single-threaded processes per node; ``coloring_factor`` (default 1)
  lets a caller charge it anyway. The factors are whole-benchmark single-node
  performance ratios, so they divide the whole compute time.
* Dot products stay MPI all-reduces in every variant (Agarkov 2015 describes SHMEM only in
  ``ExchangeHalo``); algorithm selectable (collectives.ALGORITHMS), over the node layout
  (one rank per node, collectives) plus an intra-node reduce and broadcast of
  2·ceil(lg p) shared-memory steps.

Messages inside a node: ``node.shared_memory_latency`` per message when the machine
states it (:data:`INTRA_NODE_LATENCY` otherwise), plus the copy m / min(B_shm, share / 2)
where share = η · B_mem / p is the process's share of the node's memory bandwidth (the copy
reads and writes it) and B_shm = ``node.shared_memory_bandwidth`` (unbounded when absent:
the old rule 2 m / share). A node's processes are spread over its ``node.nics_per_node``
adapters round robin (absent: 1); each adapter serializes its own processes' messages.

Mixed node types (``machine.node_types``): each kernel is followed by a synchronising
exchange, so every step waits for the slowest node: the compute part is the maximum over
the node types present of the type's compute time (on angara-36 type B: 51.2 GB/s for 8
processes vs type A 85.2 GB/s). Nodes hold consecutive ranks (p per node).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from icnperf.errors import InputError
from icnperf.model import collectives, network
from icnperf.model.apps.base import AppResult
from icnperf.model.apps.hpcg_counts import (BYTES_PER_NONZERO, LEVEL_EXCHANGES, LEVELS,
                                            PACK_BYTES, SPMV_ROW_BYTES, SYMGS_ROW_BYTES,
                                            bytes_per_iteration, check_local, halo_messages,
                                            level_box, official_flops, process_grid)
from icnperf.model.collectives import Layout
from icnperf.model.constants import Constant, register
from icnperf.model.constants import value as constant_value
from icnperf.model.topology import torus

__all__ = ["BYTES_PER_NONZERO", "CONTIGUOUS_FACTOR", "ELLPACK_FACTOR", "INTRA_NODE_LATENCY",
           "LEVELS", "LEVEL_EXCHANGES", "OPTIMIZED", "bytes_per_iteration",
           "halo_messages", "halo_per_iteration", "intra_node_latency", "optimized_kind",
           "official_flops", "predict", "process_grid", "vendor_bandwidth"]

INTRA_NODE_LATENCY = 0.3e-6
"""Latency of one message between two processes of the same node through shared memory,
for machines that do not state ``node.shared_memory_latency``. Chosen: typical MPI
intra-node (shared-memory) latency on Sandy Bridge nodes is 0.2-0.4 µs (OSU osu_latency
intra-node results of MVAPICH2 / Open MPI of the period); not in Agarkov 2015."""

INTRA_NODE_LATENCY_STATED = register(Constant(
    "apps.hpcg.intra_node_latency", INTRA_NODE_LATENCY, "chosen", "absolute", 0.1e-6,
    "the 0.2-0.4 us its choice was made from"))

OPTIMIZED = ("vendor", "angara-shmem")
"""What ``variant="optimized"`` runs, by ``software.hpcg_optimized`` (absent: vendor)."""

CONTIGUOUS_FACTOR = 1.5
"""Agarkov 2015 §2.1: contiguous allocation of the matrix arrays, 'on average one and a half
times' the reference performance (one node, local 16x16x128)."""

CONTIGUOUS_FACTOR_STATED = register(Constant(
    "apps.hpcg.contiguous_factor", CONTIGUOUS_FACTOR, "stated", "absolute", 0.25,
    "'one and a half times' in words, an average rounded to the half: 1.25-1.75"))

ELLPACK_FACTOR = 1.05
"""Agarkov 2015 §2.3: ELLPACK with 28 entries per row, '+5 %'."""

ELLPACK_FACTOR_STATED = register(Constant(
    "apps.hpcg.ellpack_factor", ELLPACK_FACTOR, "stated", "absolute", 0.005,
    "'+5 %' printed to the whole per cent: 1.045-1.055"))

COLORING_FACTOR_OPENMP = 4.8
"""Agarkov 2015 §2.2: 2-plane 2-colour ordering, 4.8x over contiguous storage **on 12 OpenMP
threads**; not applied to the no-OpenMP optimized variant (module docstring)."""

VARIANTS = ("reference", "optimized")
SYNCS = ("pairwise", "barrier")


def _node_types(machine, efficiency=None):
    """[(name, count, η · memory_bandwidth)] of the machine's node types, or the [node]:
    each type's streaming bandwidth at its memory efficiency (the type's
    ``memory_efficiency``, else [node]'s; ``efficiency`` overrides both)."""
    types = []
    for name, nt in getattr(machine, "node_types", {}).items():
        bw = nt.params.get("memory_bandwidth", machine.get("node.memory_bandwidth"))
        if bw is None:
            raise InputError(f"machine {machine.name!r}: node type {name} has no "
                             "memory_bandwidth")
        eta = efficiency if efficiency is not None else nt.params.get(
            "memory_efficiency", machine.require("node.memory_efficiency"))
        types.append((name, nt.count, float(eta) * float(bw)))
    if not types:
        bw = machine.require("node.memory_bandwidth")
        eta = efficiency if efficiency is not None else machine.require(
            "node.memory_efficiency")
        types.append(("node", None, float(eta) * float(bw)))
    return types


def vendor_bandwidth(machine, efficiency=None) -> list:
    """[(name, count, streaming bandwidth)] for the vendor-optimized HPCG: per node type the
    faster of the CPU memory at its efficiency and the node's accelerators' memory,
    n_acc · η_acc · B_acc (``node.accelerators``, ``accelerator_memory_efficiency``,
    ``accelerator_memory_bandwidth``; none when the node has no accelerators)."""
    out = []
    for name, count, cpu in _node_types(machine, efficiency):
        params = dict(machine.node)
        if name != "node":
            params.update(machine.node_types[name].params)
        accelerators = int(params.get("accelerators", 0))
        gpu = 0.0
        if accelerators:
            for key in ("accelerator_memory_bandwidth", "accelerator_memory_efficiency"):
                if key not in params:
                    machine.require(f"node.{key}")
            gpu = (accelerators * float(params["accelerator_memory_efficiency"])
                   * float(params["accelerator_memory_bandwidth"]))
        out.append((name, count, max(cpu, gpu)))
    return out


def optimized_kind(machine) -> str:
    """``software.hpcg_optimized`` of a machine (absent: vendor)."""
    return machine.get("software.hpcg_optimized", "vendor")


def intra_node_latency(machine) -> float:
    """``node.shared_memory_latency`` of a machine, else :data:`INTRA_NODE_LATENCY`."""
    return float(machine.get("node.shared_memory_latency",
                             constant_value("apps.hpcg.intra_node_latency")))


# --- communication ----------------------------------------------------------------------


def _placement(grid, ppn):
    """Node of each rank (HPCG rank order: x fastest; ppn consecutive ranks per node)."""
    px, py, pz = grid
    ranks = np.arange(px * py * pz)
    coords = np.stack([ranks % px, (ranks // px) % py, ranks // (px * py)], axis=1)
    return ranks // ppn, coords


DIRECTIONS = tuple(d for d in itertools.product((-1, 0, 1), repeat=3) if d != (0, 0, 0))
"""The 26 neighbour directions, in :func:`halo_messages` order."""


@functools.lru_cache(maxsize=8)
def _inter_node_counts(grid, ppn, nodes):
    """Per direction of :data:`DIRECTIONS`, how many ranks of each node have an existing
    neighbour on another node in that direction (an int array over nodes): the halo's
    inter-node message counts, which every multigrid level shares (only the sizes change).
    Computed once per (grid, ppn, nodes) with NumPy, one direction at a time."""
    px, py, _ = grid
    node_of, coords = _placement(grid, ppn)
    low = [coords[:, a] > 0 for a in range(3)]
    high = [coords[:, a] < grid[a] - 1 for a in range(3)]
    rank = np.arange(len(node_of))
    out = []
    for d in DIRECTIONS:
        ok = np.ones(len(rank), dtype=bool)
        for a, da in enumerate(d):
            if da:
                ok &= low[a] if da < 0 else high[a]
        other = rank + d[0] + px * (d[1] + py * d[2])
        inter = ok & (node_of[np.where(ok, other, 0)] != node_of)
        out.append(np.bincount(node_of[inter], minlength=nodes))
    return tuple(out)


def _halo_plan(grid, ppn, nodes, local_box):
    """The busiest node (most inter-node halo bytes; the first such node): (node, its ranks,
    per rank the (inter-node, intra-node) messages as (bytes, partner rank), node of every
    rank). Every node's load is its per-direction inter-node message counts
    (:func:`_inter_node_counts`) times the level's message sizes."""
    px, py, _ = grid
    node_of, coords = _placement(grid, ppn)
    msgs = halo_messages(local_box)
    counts = _inter_node_counts(tuple(grid), ppn, nodes)
    load = np.zeros(nodes, dtype=np.int64)
    for (_, doubles), per_node in zip(msgs, counts):
        load += per_node * (8 * doubles)
    node = int(np.argmax(load))

    def of_rank(r):
        inter, intra = [], []
        c = coords[r]
        for d, doubles in msgs:
            q = c + np.array(d)
            if np.any(q < 0) or np.any(q >= grid):
                continue
            other = int(q[0] + px * (q[1] + py * q[2]))
            (intra if node_of[other] == node_of[r] else inter).append((8 * doubles, other))
        return inter, intra

    ranks = np.flatnonzero(node_of == node)
    return node, ranks, [of_rank(int(r)) for r in ranks], node_of


def halo_time(params, per_rank, node_inter, hops, *, mem_share, intra_latency, pack_bytes,
              nics=1, shared_memory_bandwidth=None):
    """One halo exchange on the busiest node (see the module docstring):

        T = T(m_max, h) + max(Σ_rank g - g_max, Σ_NIC T_ser - T_ser(m_max)) + T_intra + T_pack

    ``per_rank``: [(inter sizes, intra sizes)] of the node's ranks; ``node_inter`` every
    inter-node message size of the node (used when ``nics`` = 1); ``mem_share`` memory
    bandwidth per process. Rank i of the node sends through NIC i mod ``nics``, which
    serializes the messages of its own ranks. An intra-node message costs
    ``intra_latency`` + m / min(B_shm, mem_share / 2) (B_shm = ``shared_memory_bandwidth``,
    unbounded when None: 2 m / mem_share)."""
    ser_keys = network.bind(network.serialization_time, params)
    lat_keys = network.bind(network.latency, params)
    gap_keys = network.bind(collectives.send_gap, params)
    ser = lambda m: float(network.serialization_time(m, **ser_keys))
    if nics == 1:
        nic_ser = [sum(ser(m) for m in node_inter)]
    else:
        nic_ser = [0.0] * nics
        for i, (inter, _) in enumerate(per_rank):
            nic_ser[i % nics] += sum(ser(m) for m in inter)
    copy = mem_share / 2 if shared_memory_bandwidth is None else min(
        shared_memory_bandwidth, mem_share / 2)
    worst = 0.0
    for i, (inter, intra) in enumerate(per_rank):
        t = 0.0
        if inter:
            m_max = max(inter)
            gaps = [float(collectives.send_gap(m, **gap_keys)) for m in inter]
            t = (float(network.latency(m_max, hops, **lat_keys))
                 + max(sum(gaps) - max(gaps), nic_ser[i % nics] - ser(m_max)))
        t += sum(intra_latency + m / copy for m in intra)
        t += pack_bytes * (sum(inter) + sum(intra)) / 8 / mem_share
        worst = max(worst, t)
    return worst


def _node_hops(layout, ranks, partners):
    """Largest dimension-order hop count between node ``ranks[i]`` and ``partners[i]``
    (nodes numbered linearly on the torus, dimension 0 fastest); 1 off a torus."""
    if not layout.is_torus:
        return 1
    src = torus.endpoint_coordinates(layout.radices, np.array(ranks))
    dst = torus.endpoint_coordinates(layout.radices, np.array(partners))
    k = np.array(layout.radices)
    diff = np.abs(src - dst)
    return int(np.max(np.sum(np.minimum(diff, k - diff), axis=-1))) if len(ranks) else 1


def _layout(machine, layout):
    if layout is None:
        return Layout.from_topology(machine.topology)
    if isinstance(layout, Layout):
        return layout
    if isinstance(layout, (int, np.integer)) and not isinstance(layout, bool):
        if layout < 1:
            raise InputError(f"node count must be >= 1, not {layout}")
        if layout == 1:
            return Layout(1, None)
        return Layout.torus(torus.balanced_torus_shape(int(layout), 3))
    if isinstance(layout, str):
        return Layout.from_topology(layout)
    raise InputError(f"layout must be a Layout, a topology spec or a node count, "
                     f"not {layout!r}")


def predict(machine, layout=None, *, variant: str = "reference", local=(16, 16, 16),
            processes_per_node: int = 8, iterations: int = 50, sync: str = "pairwise",
            algorithm: str = "recursive-doubling", coloring_factor: float = 1.0,
            contiguous_factor: float | None = None,
            ellpack_factor: float | None = None,
            stream_efficiency: float | None = None) -> AppResult:
    """HPCG time on ``layout`` (a collectives.Layout of the nodes, a topology spec, a node
    count (balanced 3D torus) or None for the machine's topology).

    Per iteration: compute (max over node types), p2p (11 halo exchanges, + SHMEM sync),
    collective (3 all-reduces of 8 bytes). ``total_s`` = iterations x iteration_s (set-up
    and the untimed reference/validation phases of HPCG are not charged).
    ``variant="optimized"`` runs the machine's optimized HPCG (``software.hpcg_optimized``:
    vendor or angara-shmem, module docstring); ``sync`` and the node-level factors apply to
    angara-shmem only (``contiguous_factor``, ``ellpack_factor`` None: the stated
    constants, drawn under ``--uncertainty``, model/constants.py). ``stream_efficiency``
    replaces every node's ``node.memory_efficiency`` (None: each node type's own)."""
    if contiguous_factor is None:
        contiguous_factor = constant_value("apps.hpcg.contiguous_factor")
    if ellpack_factor is None:
        ellpack_factor = constant_value("apps.hpcg.ellpack_factor")
    if variant not in VARIANTS:
        raise InputError(f"unknown HPCG variant {variant!r}; choose {', '.join(VARIANTS)}")
    if sync not in SYNCS:
        raise InputError(f"unknown SHMEM synchronisation {sync!r}; choose "
                         f"{', '.join(SYNCS)}")
    local = check_local(local)
    if not (isinstance(processes_per_node, (int, np.integer)) and processes_per_node >= 1):
        raise InputError(f"processes per node must be >= 1, not {processes_per_node!r}")
    if not (isinstance(iterations, (int, np.integer)) and iterations >= 1):
        raise InputError(f"iterations must be >= 1, not {iterations!r}")
    for name, f in (("coloring_factor", coloring_factor),
                    ("contiguous_factor", contiguous_factor),
                    ("ellpack_factor", ellpack_factor)):
        if not (f > 0 and math.isfinite(f)):
            raise InputError(f"{name} must be > 0, not {f!r}")
    if stream_efficiency is not None and not 0 < stream_efficiency <= 1:
        raise InputError(f"stream_efficiency must be in (0, 1], not {stream_efficiency!r}")
    kind = optimized_kind(machine) if variant == "optimized" else "reference"
    if kind not in ("reference", *OPTIMIZED):
        raise InputError(f"machine {machine.name!r}: unknown software.hpcg_optimized "
                         f"{kind!r}; choose {', '.join(OPTIMIZED)}")
    shmem = kind == "angara-shmem"
    layout = _layout(machine, layout)
    nodes = layout.endpoints
    ppn = int(processes_per_node)
    procs = nodes * ppn
    grid = process_grid(procs)
    api = "shmem" if shmem else "mpi"
    params = network.machine_parameters(machine, api)
    notes = []

    # compute
    node_factor = (contiguous_factor * ellpack_factor * coloring_factor) if shmem else 1.0
    per_kernel = bytes_per_iteration(local)
    total_bytes = sum(per_kernel.values())
    streams = (vendor_bandwidth(machine, stream_efficiency) if kind == "vendor"
               else _node_types(machine, stream_efficiency))
    per_type = {name: ppn * total_bytes / bw / node_factor for name, _, bw in streams}
    slowest = max(per_type, key=per_type.get)
    compute = per_type[slowest]
    # halo exchanges
    p2p, halo_levels = halo_per_iteration(machine, layout, params, local, ppn,
                                          sync=sync if shmem else None,
                                          stream_efficiency=stream_efficiency)

    # all-reduces
    allreduce = _allreduce_time(machine, layout, algorithm, ppn)
    collective = 3 * allreduce

    iteration = compute + p2p + collective
    global_box = (grid[0] * local[0], grid[1] * local[1], grid[2] * local[2])
    flops = official_flops(global_box, iterations)
    memory = ("the node's fastest memory: max(memory_efficiency x memory_bandwidth, "
              "accelerators x accelerator_memory_efficiency x accelerator_memory_bandwidth)"
              if kind == "vendor" else "the node's memory bandwidth at its memory_efficiency"
              if stream_efficiency is None else
              f"the node's memory bandwidth at efficiency {stream_efficiency:g}")
    notes += [
        f"HPCG 2.4 structure: {LEVELS} MG levels, SYMGS pre/post, 11 halo exchanges and 3 "
        "8-byte all-reduces per CG iteration; set-up and validation phases not charged",
        f"processes: {nodes} nodes x {ppn} = {procs}, process grid "
        f"{grid[0]}x{grid[1]}x{grid[2]} (most cubic), ranks x-fastest, {ppn} consecutive "
        "ranks per node; slowest process interior (26 neighbours, 27 non-zeros per row)",
        f"compute: memory bound, {total_bytes / 1e6:.3f} MB per process per iteration "
        f"(CSR: {BYTES_PER_NONZERO} B per non-zero, SPMV {SPMV_ROW_BYTES} B / SYMGS sweep "
        f"{SYMGS_ROW_BYTES} B per row), {ppn} processes share {memory}",
        "node types: " + ", ".join(f"{n} {t * 1e3:.4f} ms" for n, t in per_type.items())
        + f" per iteration; every step waits for the slowest ({slowest}; every type of "
        "the machine is taken to be in the allocation)",
        f"node-level factor {node_factor:g} (variant {variant}"
        + (f", {kind}" if variant == "optimized" else "")
        + ("" if not shmem else
           f": contiguous {contiguous_factor:g} x ELLPACK {ellpack_factor:g} x colouring "
           f"{coloring_factor:g}; the 4.8x 2-colour ordering is an OpenMP gain, not applied "
           "to the no-OpenMP version unless coloring_factor says so") + ")",
        "halo: " + "; ".join(f"level {box[0]}x{box[1]}x{box[2]}: {c} x {t * 1e6:.2f} us"
                             for box, c, t in halo_levels)
        + f" ({api.upper()} overhead per message, the node's {ppn} processes spread over "
        f"{network.nics_per_node(machine)} adapter(s), intra-node through shared memory "
        f"{intra_node_latency(machine) * 1e6:g} us + copy)",
        f"all-reduce: MPI {algorithm} over {layout.text} + 2 ceil(lg {ppn}) intra-node "
        f"steps = {allreduce * 1e6:.2f} us each",
        "official FLOPs: HPCG ReportResults count for the global grid "
        f"{global_box[0]}x{global_box[1]}x{global_box[2]}",
    ]
    if shmem:
        notes.append(f"SHMEM synchronisation: {sync}")
    return AppResult("hpcg", nodes, layout.text, algorithm, int(iterations), compute, p2p,
                     collective, iteration, iterations * iteration, flops, tuple(notes))



def halo_per_iteration(machine, layout, params, local, ppn, *, sync=None,
                       stream_efficiency=None):
    """The halo exchanges of one CG iteration over the :data:`LEVELS` multigrid levels on
    ``layout`` (nodes) with ``ppn`` processes per node: (Σ_levels count x time, per level
    (box, count, time)). ``params``: network.machine_parameters with the halo's api;
    ``sync`` (None, ``pairwise``, ``barrier``) adds the SHMEM completion to every exchange;
    intra-node copies run at the process's share of the slowest node type's memory
    bandwidth at its ``memory_efficiency`` (``stream_efficiency`` replaces it), bounded by
    ``node.shared_memory_bandwidth``, after ``node.shared_memory_latency``
    (:func:`intra_node_latency`); the node's processes spread over its
    ``node.nics_per_node`` adapters. Also the ``hpcg_halo`` skeleton helper."""
    local = check_local(local)
    nodes = layout.endpoints
    grid = process_grid(nodes * ppn)
    mem_share = min(bw for _, _, bw in _node_types(machine, stream_efficiency)) / ppn
    shm_bw = machine.get("node.shared_memory_bandwidth")
    nics = network.nics_per_node(machine)
    total = 0.0
    levels = []
    for level in range(LEVELS):
        box = level_box(local, level)
        node, _, plans, node_of = _halo_plan(grid, ppn, nodes, box)
        per_rank = [([m for m, _ in inter], [m for m, _ in intra]) for inter, intra in plans]
        node_inter = [m for inter, _ in per_rank for m in inter]
        partners = sorted({int(node_of[o]) for inter, _ in plans for _, o in inter})
        hops = _node_hops(layout, [node] * len(partners), partners) if partners else 1
        t = halo_time(params, per_rank, node_inter, hops, mem_share=mem_share,
                      intra_latency=intra_node_latency(machine), pack_bytes=PACK_BYTES,
                      nics=nics, shared_memory_bandwidth=shm_bw)
        if sync is not None:
            t += _sync_time(machine, params, sync, plans, hops, layout, ppn)
        count = LEVEL_EXCHANGES[level]
        levels.append((box, count, t))
        total += count * t
    return total, levels


def _sync_time(machine, params, sync, plans, hops, layout, ppn):
    """SHMEM completion: ``pairwise`` - one 8-byte flag put to every partner after the data
    (the last flag one latency after it is sent; the sender issues them one gap apart);
    ``barrier`` - shmem_barrier_all over the layout plus ceil(lg p) intra-node steps."""
    if sync == "pairwise":
        gap = float(collectives.send_gap(8, **network.bind(collectives.send_gap, params)))
        k = max(len(inter) + len(intra) for inter, intra in plans)
        return (float(network.latency(8, hops, **network.bind(network.latency, params)))
                + (k - 1) * gap)
    intra = math.ceil(math.log2(ppn)) * intra_node_latency(machine) if ppn > 1 else 0.0
    if layout.endpoints < 2:
        return intra
    alg = "hw-tree" if (layout.is_torus and machine.get("network.collective_trees")) \
        else "bruck"
    t = collectives.collective_time(machine, "barrier", alg, layout=layout, api="shmem")
    return float(t.time[0]) + intra


def _allreduce_time(machine, layout, algorithm, ppn):
    intra = 2 * math.ceil(math.log2(ppn)) * intra_node_latency(machine) if ppn > 1 else 0.0
    if layout.endpoints < 2:
        return intra
    t = collectives.collective_time(machine, "allreduce", algorithm, [8], layout=layout,
                                    api="mpi")
    return float(t.time[0]) + intra
