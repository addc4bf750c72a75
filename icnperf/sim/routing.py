"""Routing rules of the simulator: how a head flit at a router picks its output port and the
range of VCs it may take there. The rules are carried out in ``kernel`` (written out in
place there, for speed, and shared by both routers); the network modules build the tables
they read. This module holds their names, constants and scalar helpers.

Route kinds (``NetworkTables.route_kind``):

* ``ROUTE_TABLE``: output port = ``route_table[router, destination router]``;
* ``ROUTE_DOR``: dimension order on a grid: the lowest dimension whose coordinate differs
  first, the shorter way round a torus ring; at a tie (distance exactly k/2) the +
  direction, or with ``ring_ties="random"`` a fair coin drawn on entering the dimension
  (BookSim2's ``dim_order_torus``); towards the destination on a mesh;
* ``ROUTE_TREE``: nearest common ancestor on a fat tree (``trees``): down when the
  destination endpoint d is in the router's subtree, to child digit (d // P_{l-1}) mod m_l
  over cable (source mod p_l); else up, through up port u = parent + w_{l+1}·cable with
  u = floor(d / W_l) mod (w_{l+1}·p_{l+1}) (``dmodk``, SimGrid's FatTreeZone) or uniformly
  at random at each router (``random``, BookSim2's ``nca``).

Non-minimal routing (dragonfly): ``NONMIN_VALIANT`` goes minimally to the packet's random
intermediate router, then to the destination; ``NONMIN_UGAL_HOPS`` decides at the source
router between the two by queue x hops (UGAL-L, Kim et al. ISCA 2008: minimal when
q_min·H_min <= q_nonmin·H_nonmin, q the flits held downstream of the output over all its
VCs); ``NONMIN_UGAL`` is BookSim2's ``ugal_dragonflynew``: non-minimal when
q_min > 2·q_nonmin + 30 (its source: ``adaptive_threshold = 30``), q = credits in use at
the candidate output.

VC classes (``class_kind``; a class is a contiguous range of the port's VCs):

* ``CLASS_ALL``: every VC;
* ``CLASS_DATELINE``: torus rings of radix > 2: the lower half until the packet crosses the
  ring's wraparound link, the upper half from there to the end of that dimension;
* ``CLASS_DIMENSION``: BookSim2's rule: on entering a dimension the packet takes the upper
  half when its coordinate there is above the destination's, else the lower half, and keeps
  it to the end of the dimension (in the + direction exactly the packets that will wrap; in
  the - direction BookSim's comparison gives the upper half to those that will not: both
  are deadlock-free, since a class's minimal paths never close a ring);
* ``CLASS_HOPS``: class min(hops taken, C-1) of C equal ranges;
* ``CLASS_PHASE``: the dragonfly phase of BookSim2 (C = 2 for ``min``: source-group hops
  in class 0, the global hop and after in class 1; C = 3 for ``ugal``: 0 non-minimal before
  the intermediate router, 1 minimal before the global hop, 2 after it), V // C VCs each
  (BookSim uses exactly VC 0, 1 (, 2); with 3 VCs the two agree).

Ejection ports take every VC, except under ``CLASS_PHASE`` (BookSim ejects on the phase's
VC too). Non-minimal routing is for table-routed networks (dragonflies).
"""

from __future__ import annotations

import numpy as np
from numba import njit


ROUTE_TABLE, ROUTE_DOR, ROUTE_TREE = 0, 1, 2
CLASS_ALL, CLASS_DATELINE, CLASS_HOPS, CLASS_DIMENSION, CLASS_PHASE = 0, 1, 2, 3, 4
NONMIN_NONE, NONMIN_VALIANT, NONMIN_UGAL_HOPS, NONMIN_UGAL = 0, 1, 2, 3

UGAL_THRESHOLD = 30
"""BookSim2's ``adaptive_threshold`` in ugal_dragonflynew (flits)."""
LINK_GLOBAL = 1
"""``link_class`` of a dragonfly's inter-group link (0: any other)."""

# columns of ``rparams`` (one int64 row per router) for ROUTE_TREE
T_FIRST, T_SPAN, T_CHILD, T_M, T_CABLES, T_UP0, T_UPS, T_WDIV = range(8)
TREE_COLUMNS = 8


def tree_parameters(first, span, child, m, cables, up0, ups, wdiv) -> np.ndarray:
    """Rows of ``rparams`` (int64, one per router; the arguments broadcast together): the
    first endpoint of the router's subtree and how many it holds, endpoints per child
    subtree, children ``m``, parallel ``cables`` per child, the first up port, the number of
    up ports and the d-mod-k divisor (``trees``' docstring)."""
    columns = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in (
        first, span, child, m, cables, up0, ups, wdiv)))
    rows = np.empty(columns[0].shape + (TREE_COLUMNS,), dtype=np.int64)
    for column, values in zip((T_FIRST, T_SPAN, T_CHILD, T_M, T_CABLES, T_UP0, T_UPS,
                               T_WDIV), columns):
        rows[..., column] = values
    return rows



@njit(cache=True, error_model="numpy")
def random_unit(state):
    """SplitMix64 step (Steele, Lea & Flood, OOPSLA 2014): (next state, a float in [0, 1)
    from 53 random bits)."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return state, np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, error_model="numpy")
def dor_step(c, t, k, wrap):
    """0 for the + direction, 1 for - along one ring / line from coordinate c to t (+ at a
    tie)."""
    if wrap:
        forward = t - c if t > c else t - c + k
        return 0 if 2 * forward <= k else 1
    return 0 if t > c else 1
