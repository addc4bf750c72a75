"""Explicit 2D heat equation: 9-point stencil, halo exchange, all-reduce (max) per step
(Mukosey 2015 §3.3).

One time step on P nodes (bulk-synchronous, one process per node):

    T_step = T_comp + T_halo + T_allreduce(8 B)

* **Grid**: G cells as an Nx × Ny grid, the most square factorization of G (Nx <= Ny;
  the paper's 40,960,000 = 6400 × 6400, 81,920,000 = 8192 × 10000, 163,840,000 =
  12800 × 12800). **Process grid** Px × Py, the most square factorization of P
  (Px <= Py, :func:`process_grid`); Nx is split over Px and Ny over Py in blocks, the first
  Nx mod Px block columns (Ny mod Py block rows) taking one more cell
  (:func:`block_sizes`). The step waits for the largest block, ceil(Nx/Px) × ceil(Ny/Py).
* **Compute**: T_comp = t_0 + F · ceil(Nx/Px) · ceil(Ny/Py) / R_stencil, R_stencil =
  ``node.stencil_rate`` (the paper's ~11 GFLOP/s; absent: the node's roofline,
  :mod:`.node_rates`) and F = :data:`FLOPS_PER_CELL` = 17:
  the stencil's arithmetic, a weighted sum of the 9 cells of the previous layer (Mukosey 2015
  Fig. 11), 9 multiplications and 8 additions (time step, h² and source term folded into
  the weights). Chosen once for every grid and node count. t_0 =
  ``node.stencil_overhead`` (0 when absent) is the fixed cost of one sweep whatever the
  block size: the paper measured T_s on the real processor for each block size
  (Mukosey 2015 §3.3), so tiny blocks (35 x 35 cells at 32,768 nodes) carry the C/OpenMP
  program's start-up and join; the rate alone cannot show it. Its value in a preset says
  where it comes from.
* **Halo** (width 1, 8-byte doubles): the 4 face neighbours in **two phases** (the usual
  way to get the corners a 9-point stencil needs without diagonal messages): phase 1
  exchanges the x faces (ceil(Ny/Py) cells) with the left and right neighbours, phase 2
  the y faces (ceil(Nx/Px) + 2 cells: the corners received in phase 1 ride along) with the
  neighbours below and above. The grid is not periodic (edge blocks have fewer neighbours).
  **Mapping**: block (px, py) is rank px + Px·py, and rank r sits on torus endpoint r
  (dimension 0 fastest) - model/collectives's placement. A phase is one synchronous
  step in the sense of :func:`collectives.schedule_time`: its messages (both directions)
  are mapped onto the torus with ``Layout.traffic`` (largest hop count, largest channel
  load c), charged ``network.latency`` at that distance with B_link / c, plus one
  :func:`collectives.send_gap` because every rank sends its two messages of the phase one
  after the other.
* **All-reduce (max)** of one double (the thermal diffusivity that fixes the stable time
  step): :func:`collectives.collective_time` of ``allreduce`` on 8 bytes, so the formulas
  are model/collectives's: ``hw-tree`` (reduce then broadcast on the hardware tree) or
  a point-to-point algorithm (``p2p-tree``, ``recursive-doubling``, ``binomial``, ...).

The official FLOP count of a run is F · G per step. The paper rates its runs as
N_op / (T_s + T_max) (§3.3, compute and all-reduce; the formula is damaged in the text
extraction and does not mention the halo); this model charges the halo too.
"""

from __future__ import annotations

import math
from fractions import Fraction

from icnperf.errors import InputError
from icnperf.model import collectives, network
from icnperf.model.apps import node_rates
from icnperf.model.apps.base import AppResult
from icnperf.model.apps.patterns import halo_pairs
from icnperf.model.apps.spmv import BYTES_PER_ELEMENT, _whole
from icnperf.model.collectives import Layout, Step

__all__ = ["FLOPS_PER_CELL", "block_sizes", "compute_time", "grid_shape", "halo_phases",
           "halo_time", "most_square", "predict", "process_grid"]

FLOPS_PER_CELL = 17
"""FLOP per cell per step: a 9-point weighted sum, 9 multiplications + 8 additions (the
stencil's arithmetic; Mukosey 2015 gives neither the count nor the code)."""


def most_square(n: int) -> tuple[int, int]:
    """(a, b) with a·b = n, a <= b and a as large as possible."""
    n = _whole(n, "count")
    a = math.isqrt(n)
    while n % a:
        a -= 1
    return a, n // a


def process_grid(nodes: int) -> tuple[int, int]:
    """The 2D process grid (Px, Py): the most square factorization of P, Px <= Py."""
    return most_square(nodes)


def grid_shape(cells: int) -> tuple[int, int]:
    """The 2D cell grid (Nx, Ny): the most square factorization of G, Nx <= Ny."""
    return most_square(cells)


def block_sizes(length: int, parts: int) -> tuple[int, ...]:
    """Block lengths of ``length`` cells over ``parts`` blocks: the first length mod parts
    blocks get one cell more. InputError if a block would be empty."""
    if parts > length:
        raise InputError(f"{length} cells cannot be split into {parts} blocks (a block "
                         "would be empty)")
    base, extra = divmod(length, parts)
    return tuple(base + 1 if i < extra else base for i in range(parts))


def compute_time(block_cells: int, rate: float, flops_per_cell: float = FLOPS_PER_CELL,
                 overhead: float = 0.0) -> float:
    """Stencil time of the largest block (s): t_0 + F · cells / R."""
    if not rate > 0:
        raise InputError(f"stencil rate must be > 0 FLOP/s, not {rate!r}")
    if not overhead >= 0:
        raise InputError(f"stencil overhead must be >= 0 s, not {overhead!r}")
    return overhead + flops_per_cell * block_cells / rate


def halo_phases(layout: Layout, px: int, py: int, nx_block: int, ny_block: int
                ) -> tuple[tuple[int, Step], ...]:
    """The two halo phases as (message bytes, Step) pairs: the Step (one synchronous step,
    fraction 1 of the message) carries the phase's largest hop count and channel load on
    ``layout`` under the mapping rank = x + Px·y. A phase with no neighbours (Px = 1 or
    Py = 1) is left out."""
    phases = []
    for axis, size in enumerate((BYTES_PER_ELEMENT * ny_block,
                                 BYTES_PER_ELEMENT * (nx_block + 2))):
        src, dst, _ = halo_pairs((px, py), False, (axis,))
        if len(src):
            hops, load = layout.traffic(src, dst)
            phases.append((size, Step(1, Fraction(1), hops, load, False)))
    return tuple(phases)


def halo_time(phases, params: dict) -> float:
    """Halo time (s): Σ_phases [T(m, h; B_link / c) + g(m)], T the step time of
    :func:`collectives.schedule_time`, g = :func:`collectives.send_gap` (the second
    message of the phase leaves one gap after the first)."""
    total = 0.0
    for size, step in phases:
        total += float(collectives.schedule_time(
            size, (step,), **network.bind(collectives.schedule_time, params)))
        total += float(collectives.send_gap(
            size, **network.bind(collectives.send_gap, params)))
    return total


def predict(machine, layout: Layout | None = None, *, algorithm: str = "hw-tree",
            cells: int = 40_960_000, steps: int = 1, api: str = "mpi",
            flops_per_cell: float = FLOPS_PER_CELL) -> AppResult:
    """Time of ``steps`` explicit time steps of the 2D heat equation on the layout's P
    nodes (default: the machine's topology); ``algorithm`` is the all-reduce algorithm
    (``hw-tree``, ``p2p-tree``, ``recursive-doubling``, ``binomial``, ``ring``,
    ``rabenseifner``). See the module docstring."""
    cells = _whole(cells, "cells")
    steps = _whole(steps, "steps")
    if not (isinstance(flops_per_cell, (int, float)) and flops_per_cell > 0):
        raise InputError(f"FLOPs per cell must be > 0, not {flops_per_cell!r}")
    layout = collectives.machine_layout(machine, layout)
    nodes = layout.endpoints
    px, py = process_grid(nodes)
    nx, ny = grid_shape(cells)
    xs, ys = block_sizes(nx, px), block_sizes(ny, py)
    rate, derived = node_rates.machine_rate(machine, "node.stencil_rate")
    overhead = float(machine.get("node.stencil_overhead", 0.0))
    compute = compute_time(xs[0] * ys[0], rate, flops_per_cell, overhead)
    params = collectives.collective_parameters(machine, api)
    phases = halo_phases(layout, px, py, xs[0], ys[0])
    halo = halo_time(phases, params)
    reduced = collectives.collective_time(machine, "allreduce", algorithm,
                                          [BYTES_PER_ELEMENT], layout=layout, api=api)
    collective = float(reduced.time[0])
    iteration = compute + halo + collective
    phase_text = "; ".join(f"{size} B, {s.hops} hop(s), channel load {s.load}"
                           for size, s in phases) or "none (one block per dimension)"
    notes = (
        f"heat (Mukosey 2015 §3.3): {cells} cells as a {nx} x {ny} grid (most square "
        f"factorization), {nodes} nodes ({layout.text}) as a {px} x {py} process grid "
        f"(most square factorization), one process per node",
        f"blocks: columns {max(xs)}/{min(xs)}, rows {max(ys)}/{min(ys)} cells (the first "
        f"N mod P blocks take one more); the step waits for the largest block "
        f"{xs[0]} x {ys[0]}",
        f"compute: {flops_per_cell:g} FLOP per cell (9-point weighted sum: 9 mul + 8 add) "
        f"at node.stencil_rate = {rate / 1e9:g} GFLOP/s, plus node.stencil_overhead = "
        f"{overhead * 1e6:g} µs per sweep",
        "halo: width 1, 8-byte doubles, 4 face neighbours in two phases (x faces, then y "
        "faces carrying the corners), non-periodic; block (x, y) = rank x + Px·y on "
        "endpoint rank (dimension 0 fastest)",
        f"halo phases: {phase_text}; each charged network.latency at the phase's largest "
        "hop count with B_link / channel load, plus one send gap",
        f"all-reduce (max) of one 8-byte double per step: {algorithm}, model/collectives",
        *reduced.assumptions,
        "bulk-synchronous: compute, halo, all-reduce",
        *([] if derived is None else [derived]),
    )
    return AppResult("heat", nodes, layout.text, algorithm, steps, compute, halo,
                     collective, iteration, steps * iteration,
                     float(steps) * flops_per_cell * cells, notes)
