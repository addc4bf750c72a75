"""The layout of the simulator's state arrays, shared by both router kernels, the routing
helper and the engine: scalar slots, configuration slots, the per-VC state's columns and
the packet pool's columns.

Indices: output or input port ``o = router * P + port``, virtual channel ``q = o * V + vc``,
buffer slot ``q * B + position``; a buffer slot holds ``packet * 4 + flags`` (``HEAD``,
``TAIL``) and the time the flit becomes eligible.
"""

from __future__ import annotations

import numpy as np

HEAD = 1
TAIL = 2

# scalar slots of the ``sc`` int64 array
NOW, NEXT_ID, INJECTED, EJECTED, FLIT_HOPS, N_FREE, LO, HI = 0, 1, 2, 3, 4, 5, 6, 7
IN_WINDOW, ACCEPTED, N_DELIVERED, N_LOGGED, TRACE, STOP = 8, 9, 10, 11, 12, 13
SCALARS = 14

STOP_DONE, STOP_LOG_FULL, STOP_POOL_LOW = 0, 1, 2

# configuration slots of the ``cfg`` int64 array
(C_R, C_P, C_V, C_B, C_N, C_ROUTE, C_CLASS, C_CLASSES, C_RC, C_VA, C_SA, C_ST, C_LINK,
 C_TERM, C_AGE, C_DA, C_DC, C_FLITS, C_TRAFFIC, C_WRAP, C_NONMIN, C_TIES, C_GROUP,
 C_TREE_RANDOM, C_INJECT_RANDOM, C_SPEEDUP_NUM, C_SPEEDUP_DEN, C_ONE_LINK) = range(28)
CONFIG = 28

TRAFFIC_FIXED, TRAFFIC_UNIFORM, TRAFFIC_HALVES = 0, 1, 2

BIG = np.int64(1) << np.int64(62)
"""Larger than any key an allocator compares."""

U = np.uint64
"""Every variable array index in the kernels goes through ``U``: Numba then skips its check for
negative (from-the-end) indices (runs were about 15 % slower with it). The indices are
never negative, so nothing else changes."""

# columns of the per-VC state ``vs`` (int32, one row per VC q): the input VC's
# flit count, front position, output port and VC held, switch-eligibility time of its front
# flit (kept while it holds an output VC, so switch allocation reads no buffer slot), cached
# route and class range; and the output VC q's credits and whether it is held
(VS_COUNT, VS_HEAD, VS_OUT, VS_OUTVC, VS_SA_READY, VS_ROUTE, VS_LO, VS_HI, VS_CREDITS,
 VS_BUSY) = range(10)
VS_COLUMNS = 10

# columns of the packet pool ``pkt`` (int64, one 64-byte row per packet): source endpoint,
# creation cycle, id, hops taken (counted only where routing reads it), intermediate router
# (-1: none), routing phase / dimension class (-1: not chosen yet). The destinations are a
# separate dense int32 array ``pk_dest``: routing reads it at every hop, and a dense array
# stays in cache (runs about 15 % faster than with it in the rows)
PK_SRC, PK_BIRTH, PK_ID, PK_HOPS, PK_MID, PK_PHASE = range(6)
PK_COLUMNS = 8
