"""HPCG 2.4's structure as counts: the process grid, the halo messages, the multigrid levels,
the bytes one process moves through memory per CG iteration and the official FLOP count.

Source: the HPCG 2.4 reference code (Dongarra, Heroux, Luszczek; ``src/CG.cpp``,
``ComputeMG_ref.cpp``, ``ComputeSYMGS_ref.cpp``, ``ComputeSPMV_ref.cpp``,
``ExchangeHalo.cpp``, ``ReportResults.cpp``), whose structure is restated here, as
Agarkov, Semenov, Simonov 2015 (Agarkov 2015) use it. The times these counts take are
:mod:`icnperf.model.apps.hpcg`'s.

One CG iteration of the slowest process (all are bulk-synchronous):

* MG preconditioner over ``LEVELS`` = 4 grids (each coarsening 2x per dimension: local
  n, n/2, n/4, n/8). On levels 0..2: SYMGS pre-smoothing, SPMV residual, restriction,
  recursion, prolongation, SYMGS post-smoothing; on the coarsest level one SYMGS. Each
  SYMGS and SPMV starts with a halo exchange on its level: 3 exchanges on levels 0..2 and 1
  on level 3.
* CG: 1 SPMV (fine level, with its halo exchange), 3 dot products (each an all-reduce of
  one 8-byte double), 3 WAXPBYs.

So 11 halo exchanges (:data:`LEVEL_EXCHANGES`) and 3 all-reduces per iteration.

Halo exchange (26 neighbours): the local box n_x x n_y x n_z sends 6 faces (n_y n_z,
n_x n_z, n_x n_y doubles), 12 edges (n_x, n_y or n_z doubles) and 8 corners (1 double) to
the neighbour processes that exist (non-periodic global grid); packing a send buffer moves
:data:`PACK_BYTES` = 20 bytes per halo value (read x and its index, write the buffer).

Bytes per kernel from the reference CSR layout (HPCG 2.4 ``SparseMatrix``:
``double** matrixValues``, ``local_int_t** mtxIndL`` (32-bit), ``char* nonzerosInRow``,
``double** matrixDiagonal``), with vector entries reused from cache within a row (each read
once):

* per non-zero: 8 B value + 4 B column index = :data:`BYTES_PER_NONZERO` = 12 B;
* SPMV per row: 2 row pointers (16) + count (1) + x (8) + y written (8) = 33 B;
* SYMGS per row and sweep: 2 row pointers (16) + count (1) + diagonal pointer (8) + r (8)
  + x read and written (16) = 49 B; forward and backward sweep = 2 sweeps;
* restriction / prolongation per coarse row: 8 + 8 + 4 + 8 = 28 B each;
* dot r·z and p·Ap 16 B per row, r·r 8 B; WAXPBY 24 B per row (3 per iteration);
* ZeroVector of the correction at each MG level: 8 B per row.

The slowest process is an interior one (26 neighbours, 27 non-zeros on every row).

FLOPs: HPCG's official count (``ReportResults.cpp``) for the global grid, 50 iterations
and one CG set: ddot and waxpby (3·iters + 1)·2·rows each, SpMV (iters + 1)·2·nnz, MG per
level l < 3: iters·(4 + 2 + 4)·nnz_l, coarsest iters·4·nnz_3. Global nnz of a 27-point
stencil on an N_x x N_y x N_z grid = (3N_x - 2)(3N_y - 2)(3N_z - 2).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from icnperf.errors import InputError

__all__ = ["BYTES_PER_NONZERO", "LEVELS", "LEVEL_EXCHANGES", "NEIGHBOURS", "PACK_BYTES",
           "SPMV_ROW_BYTES", "SYMGS_ROW_BYTES", "TRANSFER_ROW_BYTES", "ZERO_ROW_BYTES",
           "bytes_per_iteration", "check_local", "halo_messages", "level_box",
           "official_flops", "process_grid"]

LEVELS = 4
"""Multigrid levels of HPCG 2.4 (``numberOfMgLevels = 4``, GenerateProblem/CG setup)."""

NEIGHBOURS = 26

BYTES_PER_NONZERO = 12
"""8-byte value + 4-byte (32-bit ``local_int_t``) column index per stored non-zero."""

SPMV_ROW_BYTES = 33
SYMGS_ROW_BYTES = 49
TRANSFER_ROW_BYTES = 28
ZERO_ROW_BYTES = 8
PACK_BYTES = 20
"""Per halo value packed: x read (8), its index read (4), buffer written (8)."""

LEVEL_EXCHANGES = (4, 3, 3, 1)
"""Halo exchanges per CG iteration on each multigrid level (module docstring)."""


# --- geometry ---------------------------------------------------------------------------


def process_grid(processes: int) -> tuple[int, int, int]:
    """3D process grid P_x <= P_y <= P_z with P_x P_y P_z = processes, the most cubic one
    (smallest P_z, then the smallest sum): 288 -> (6, 6, 8). HPCG 2.4's
    ``ComputeOptimalShapeXYZ`` also picks a near-cubic factorisation."""
    if not (isinstance(processes, (int, np.integer)) and processes >= 1):
        raise InputError(f"processes must be a whole number >= 1, not {processes!r}")
    best = None
    for px in range(1, int(round(processes ** (1 / 3))) + 2):
        if processes % px:
            continue
        rest = processes // px
        for py in range(px, math.isqrt(rest) + 1):
            if rest % py:
                continue
            pz = rest // py
            key = (pz, px + py + pz)
            if best is None or key < best[0]:
                best = (key, (px, py, pz))
    if best is None:
        return (1, 1, processes)
    return best[1]


def halo_messages(local) -> list[tuple[tuple[int, int, int], int]]:
    """The 26 (direction, doubles) pairs of an interior process with a local box
    (n_x, n_y, n_z): faces n_y n_z / n_x n_z / n_x n_y, edges n_x / n_y / n_z, corners 1."""
    nx, ny, nz = local
    out = []
    for d in itertools.product((-1, 0, 1), repeat=3):
        if d == (0, 0, 0):
            continue
        size = 1
        for n, di in zip((nx, ny, nz), d):
            if di == 0:
                size *= n
        out.append((d, size))
    return out


def level_box(local, level):
    """The local box of multigrid ``level`` (0 finest): each dimension halved per level."""
    box = tuple(n >> level for n in local)
    if min(box) < 1:
        raise InputError(f"local domain {local} cannot be coarsened {LEVELS - 1} times "
                         f"(each dimension must be divisible by {2 ** (LEVELS - 1)})")
    return box


MAX_LOCAL_SIDE = 1 << 20
"""Largest side of a process's local box (HPCG runs use 16 to a few hundred): a face of
2^40 points of 8 bytes, times 26 neighbours and the processes of a node, stays within a
64-bit integer."""


def check_local(local):
    """``local`` as three whole numbers, each divisible by 2^(LEVELS - 1); InputError else."""
    local = tuple(local)
    if len(local) != 3 or not all(isinstance(n, (int, np.integer)) and n >= 1 for n in local):
        raise InputError(f"local domain must be three whole numbers >= 1, not {local!r}")
    if max(local) > MAX_LOCAL_SIDE:
        raise InputError(f"local domain {'x'.join(str(int(n)) for n in local)}: each side "
                         f"must be at most {MAX_LOCAL_SIDE:,} (a face's bytes are counted in "
                         "64-bit integers)")
    step = 2 ** (LEVELS - 1)
    if any(n % step for n in local):
        raise InputError(f"local domain {local}: each dimension must be divisible by {step} "
                         f"for {LEVELS} multigrid levels (HPCG 2.4 requires it)")
    return tuple(int(n) for n in local)


# --- bytes and FLOPs ----------------------------------------------------------------------


def bytes_per_iteration(local) -> dict[str, float]:
    """Bytes the slowest (interior) process moves through memory per CG iteration, by
    kernel (see the module docstring for the per-row and per-non-zero counts)."""
    local = check_local(local)
    rows = [math.prod(level_box(local, l)) for l in range(LEVELS)]
    nnz = [27 * r for r in rows]
    spmv = lambda l: BYTES_PER_NONZERO * nnz[l] + SPMV_ROW_BYTES * rows[l]
    sweep = lambda l: BYTES_PER_NONZERO * nnz[l] + SYMGS_ROW_BYTES * rows[l]
    out = {"symgs": 0.0, "spmv": float(spmv(0)), "restrict_prolong": 0.0, "vector": 0.0}
    for l in range(LEVELS - 1):
        out["symgs"] += 2 * 2 * sweep(l)            # pre + post, forward + backward
        out["spmv"] += spmv(l)                       # residual
        out["restrict_prolong"] += 2 * TRANSFER_ROW_BYTES * rows[l + 1]
        out["vector"] += ZERO_ROW_BYTES * rows[l]
    out["symgs"] += 2 * sweep(LEVELS - 1)
    out["vector"] += ZERO_ROW_BYTES * rows[LEVELS - 1]
    out["vector"] += (16 + 16 + 8) * rows[0] + 3 * 24 * rows[0]
    return out


def official_flops(global_box, iterations: int) -> float:
    """HPCG's official FLOP count (ReportResults.cpp, one CG set) of ``iterations``
    iterations on a global grid (N_x, N_y, N_z)."""
    rows, nnz = [], []
    box = tuple(global_box)
    for _ in range(LEVELS):
        rows.append(math.prod(box))
        nnz.append(math.prod(3 * n - 2 for n in box))
        box = tuple(max(n // 2, 1) for n in box)
    it = float(iterations)
    flops = 2 * (3 * it + 1) * 2 * rows[0]           # ddot + waxpby
    flops += (it + 1) * 2 * nnz[0]                    # CG SpMV
    for l in range(LEVELS - 1):
        flops += it * (4 + 2 + 4) * nnz[l]            # pre, residual, post
    flops += it * 4 * nnz[LEVELS - 1]                 # coarsest SYMGS
    return flops
