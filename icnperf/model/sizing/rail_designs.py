"""GPU fabric variants for a sizing study (``size --families rail``): the rail-optimised
fat tree against the plain one of the same switches, the NICs per GPU, and the taper.

For N nodes of a GPU machine of A GPUs per node, each variant is a two-level tree of one
switch radix r whose endpoints are NICs (``rail:``, docs/fat-trees.md):

* NICs per node R in :func:`rail_options`: A (one NIC per GPU, the DGX SuperPOD's) and
  A/2 (one per two GPUs); GPU g sends by NIC floor(g R / A) (``node.gpu_nics``), so the
  GPUs' injection bandwidth scales with R (the NCCL forms' B_net, model/collectives);
* taper t:1 of space.TAPERS: a leaf has m1 = t·u NIC ports down and u up, one to each of
  u spines (r = (t+1)·u), s leaves under the spines (s <= r);
* placement: ``join=2`` the rail tree (NIC i of each node on rail i's leaf, the rails
  joined at the spines), ``join=1`` the plain tree (each leaf holds all R NICs of m1/R
  whole nodes). Both take the same m and w (R divides m1 and s), so the same switches,
  cables and cost: the study's difference between them is the NIC placement alone.

Per (R, t, placement) the study offers one tree: the smallest u (the smallest switch radix)
that reaches N·R NICs with s = ceil(N·R / m1) rounded up to a multiple of R, within the
window (at most slack·N nodes) and ``radix_max``. Its cost is the cost model's (cost.py:
routers at their radix, leaf-spine cables electrical, one endpoint cable and one adapter
per NIC), so fewer NICs per GPU and a taper are cheaper, and the workload model says what
they cost in time.

The screen's lower bound on these trees (:class:`FloorView`): every round at least one
message per link and no hop, which any network meets; a skeleton's library collectives
count 0 there and its compute exactly (skeleton_terms.py), so the screen never drops one.
"""

from __future__ import annotations

import numpy as np

from icnperf.model.sizing.views import Crossbar

RAIL_JOINS = (2, 1)
"""Placements offered: 2 the rail tree (rails joined at the spines), 1 the plain tree."""


def rail_options(accelerators: int) -> tuple[int, ...]:
    """NICs per node offered for nodes of ``accelerators`` GPUs: one per GPU and, for an even
    count, one per two GPUs; () for a machine without GPUs."""
    a = int(accelerators or 0)
    if a < 1:
        return ()
    return (a, a // 2) if a % 2 == 0 and a >= 2 else (a,)


def rail_space(n_nodes: int, limit_nodes: int, radix_max: int, options: tuple[int, ...],
               tapers: tuple[int, ...]) -> dict:
    """The variants (module docstring) as arrays ``rails``, ``m`` (count, 2), ``w`` (count,
    2), ``join``; none for a combination no tree of at most ``radix_max`` ports reaches.
    With one NIC per node the rail and the plain placement put every NIC at the same leaf
    port, so only the plain tree (``join=1``) is offered."""
    rails, m, w, join = [], [], [], []
    for r in options:
        for t in tapers:
            tree = _smallest_tree(n_nodes, limit_nodes, radix_max, r, t)
            if tree is None:
                continue
            for placement in (RAIL_JOINS if r > 1 else (1,)):
                rails.append(r)
                m.append(tree[0])
                w.append(tree[1])
                join.append(placement)
    as_array = (lambda rows: np.array(rows, dtype=np.int64).reshape(len(rows), -1))
    return {"rails": np.array(rails, dtype=np.int64), "m": as_array(m), "w": as_array(w),
            "join": np.array(join, dtype=np.int64)}


def _smallest_tree(n_nodes: int, limit_nodes: int, radix_max: int, rails: int,
                   taper: int):
    """((m1, s), (1, u)) of the smallest u whose tree holds N nodes of ``rails`` NICs, or
    None."""
    nics = n_nodes * rails
    for u in range(1, radix_max // (taper + 1) + 1):
        m1 = taper * u
        if m1 % rails:
            continue
        s = -(-nics // m1)
        s = max(2, -(-s // rails) * rails)
        if s <= (taper + 1) * u and s * m1 <= limit_nodes * rails:
            return (m1, s), (1, u)
    return None


def design_values(rails: int, accelerators: int) -> dict:
    """The machine values of a variant of ``rails`` NICs per node: ``node.nics_per_node`` and
    ``node.gpu_nics`` (GPU g on NIC floor(g R / A))."""
    nics = " ".join(str(g * rails // accelerators) for g in range(accelerators))
    return {"node.nics_per_node": rails, "node.gpu_nics": nics}


def describe(params: dict) -> str:
    """A variant's rule text: taper, NICs per node, rail or plain."""
    m, w = params["m"], params["w"]
    kind = "plain" if params.get("join", len(m)) == 1 else "rail"
    return f"{m[-2] // w[-1]}:1 taper, {params['rails']} NICs/node, {kind}"


class FloorView(Crossbar):
    """The screen's view of rail designs: (0 hops, 1 message per link) for every round,
    a bound every network meets (module docstring); the crossbar's view but for the hop."""

    def __call__(self, table, r) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(self.count), np.ones(self.count)
