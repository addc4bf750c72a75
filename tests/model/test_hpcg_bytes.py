"""HPCG's memory traffic counted on a small matrix, independently of model/apps/hpcg.py.

The count builds the 27-point matrix of an interior process's local box (ghost columns on
every side), runs one CG iteration's kernels in HPCG 2.4's order (CG.cpp, ComputeMG_ref,
ComputeSYMGS_ref, ComputeSPMV_ref, ComputeRestriction_ref, ComputeProlongation_ref) on a
tracer, and charges each array element a kernel pass touches once, at its C size:
``matrixValues[i]`` / ``mtxIndL[i]`` / ``matrixDiagonal[i]`` pointers 8 B, ``nonzerosInRow``
1 B, a stored value 8 B, a column index 4 B (``local_int_t``), ``f2cOperator`` 4 B, a vector
entry 8 B; reads and writes of the same element count separately. Each SYMGS sweep is its
own pass (the forward and the backward sweep each stream the matrix).

The model charges a vector read once per row (module docstring of hpcg.py), which leaves out
the ghost entries of x read by SPMV and SYMGS; the count keeps them apart and the test
states how much they add.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import pytest

from icnperf.model.apps import hpcg

SIZES = {"ptr": 8, "count": 1, "value": 8, "index": 4, "f2c": 4, "vector": 8}


class Level:
    """One multigrid level of an interior process: local rows, their 27 columns each (local
    or ghost), and the coarse-to-fine map to the next level."""

    def __init__(self, box):
        self.box = box
        nx, ny, nz = box
        self.rows = [(i, j, k) for k in range(nz) for j in range(ny) for i in range(nx)]
        self.columns = {
            row: [(row[0] + a, row[1] + b, row[2] + c)
                  for c, b, a in itertools.product((-1, 0, 1), repeat=3)]
            for row in self.rows}
        self.local = set(self.rows)


class Tracer:
    """Bytes per category; a pass charges each distinct (array, element) once per access
    kind. Ghost reads of x are charged to ``ghost``."""

    def __init__(self):
        self.bytes = defaultdict(int)

    def charge(self, category, reads, writes=(), ghost=()):
        for elements in (reads, writes):
            self.bytes[category] += sum(SIZES[kind] for kind, _ in set(elements))
        self.bytes["ghost"] += SIZES["vector"] * len(set(ghost))


def _x_reads(level, name):
    reads, ghost = [], []
    for row in level.rows:
        for col in level.columns[row]:
            (reads if col in level.local else ghost).append(("vector", (name, col)))
    return reads, ghost


def _matrix_reads(level, name, diagonal=False):
    reads = []
    for row in level.rows:
        reads += [("ptr", (name, "values", row)), ("ptr", (name, "indices", row)),
                  ("count", (name, row))]
        if diagonal:
            reads.append(("ptr", (name, "diagonal", row)))
        for j in range(len(level.columns[row])):
            reads += [("value", (name, row, j)), ("index", (name, row, j))]
    return reads


def spmv(tracer, level, name, category="spmv"):
    x, ghost = _x_reads(level, "x")
    writes = [("vector", ("y", row)) for row in level.rows]
    tracer.charge(category, _matrix_reads(level, name) + x, writes, ghost)


def symgs_sweep(tracer, level, name):
    x, ghost = _x_reads(level, "x")
    r = [("vector", ("r", row)) for row in level.rows]
    writes = [("vector", ("x", row)) for row in level.rows]
    tracer.charge("symgs", _matrix_reads(level, name, diagonal=True) + x + r, writes, ghost)


def transfer(tracer, coarse, fine_reads, fine_writes=0, coarse_reads=0):
    """Restriction (2 fine reads, a coarse write) or prolongation (a coarse read, a fine
    read and write), each through f2c."""
    reads = [("f2c", row) for row in coarse.rows]
    reads += [("vector", (f"f{n}", row)) for row in coarse.rows for n in range(fine_reads)]
    reads += [("vector", ("c", row)) for row in coarse.rows for _ in range(coarse_reads)]
    writes = ([("vector", ("f", row)) for row in coarse.rows] if fine_writes
              else [("vector", ("c", row)) for row in coarse.rows])
    tracer.charge("restrict_prolong", reads, writes)


def multigrid(tracer, levels, depth=0):
    level = levels[depth]
    tracer.charge("vector", [], [("vector", ("z", row)) for row in level.rows])  # ZeroVector
    if depth == len(levels) - 1:
        for _ in range(2):
            symgs_sweep(tracer, level, depth)
        return
    for _ in range(2):                                        # pre-smoother
        symgs_sweep(tracer, level, depth)
    spmv(tracer, level, depth)                                # residual A x
    transfer(tracer, levels[depth + 1], fine_reads=2)         # restriction
    multigrid(tracer, levels, depth + 1)
    transfer(tracer, levels[depth + 1], fine_reads=1, fine_writes=1, coarse_reads=1)
    for _ in range(2):                                        # post-smoother
        symgs_sweep(tracer, level, depth)


def one_cg_iteration(local):
    levels = [Level(tuple(n >> l for n in local)) for l in range(hpcg.LEVELS)]
    tracer = Tracer()
    fine = levels[0].rows
    multigrid(tracer, levels)                                     # z = M r
    dot = lambda *names: [("vector", (n, row)) for n in names for row in fine]
    tracer.charge("vector", dot("r", "z"))                        # r·z
    tracer.charge("vector", dot("z", "p"), dot("p"))              # p = z + β p
    spmv(tracer, levels[0], 0)                                    # A p
    tracer.charge("vector", dot("p", "Ap"))                       # p·Ap
    tracer.charge("vector", dot("x", "p"), dot("x"))              # x += α p
    tracer.charge("vector", dot("r", "Ap"), dot("r"))             # r -= α Ap
    tracer.charge("vector", dot("r"))                             # r·r
    return tracer.bytes, levels


@pytest.mark.parametrize("local", [(8, 8, 8), (8, 16, 8)])
def test_bytes_per_iteration_match_a_count_on_a_small_matrix(local):
    counted, levels = one_cg_iteration(local)
    assert all(len(cols) == 27 for level in levels for cols in level.columns.values())
    model = hpcg.bytes_per_iteration(local)
    for category in ("symgs", "spmv", "restrict_prolong", "vector"):
        assert model[category] == counted[category], category


def test_ghost_reads_the_model_leaves_out():
    """The ghost entries of x (the 1-wide shell around each level's box) read by every SPMV
    and SYMGS pass: (n+2)^3 - n^3 per pass; for a 16^3 local box 8·13,728 = 109,824 B,
    1.0 % of the iteration's bytes (three quarters of it on the finest level)."""
    counted, levels = one_cg_iteration((16, 16, 16))
    passes = [5, 5, 5, 2]                   # 4 SYMGS sweeps + 1 SPMV, coarsest 2 sweeps
    passes[0] += 1                          # CG's SPMV
    shells = [(n + 2) ** 3 - n ** 3 for n in (16, 8, 4, 2)]
    assert counted["ghost"] == 8 * sum(p * s for p, s in zip(passes, shells))
    total = sum(hpcg.bytes_per_iteration((16, 16, 16)).values())
    assert counted["ghost"] / total == pytest.approx(0.0103, abs=0.0001)
