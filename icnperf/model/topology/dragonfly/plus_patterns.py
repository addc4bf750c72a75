"""Whole-job node shifts and XORs on the dragonfly+ ``dfplus`` under its MIN routing
(:class:`~icnperf.model.topology.dragonfly.plus.DFPlus`), counted channel by channel for
many patterns at once: what ``DFPlus.hops`` (largest) and ``DFPlus.pattern_load`` (rounded
up, as collectives.Layout.traffic rounds it) return for the explicit messages of each.

Loads are kept in whole units of 1/(s·m·c) message, so sums are exact: a message within
a group puts 1/(s·c) of itself, m units, on the up cable of its leaf to every spine and
on every spine's down cable to its destination leaf; a message from group G to G + t + 1
puts 1/(m·c), s units, on the up cable to the owner spine of each of the m ports of the
group pair, 1/m, s·c units, on each of those global ports, and s units on the down cable
from each landing spine. The busiest channel is ``ceil(max units / (s·m·c))``.

As on the generalized dragonfly (dragonfly.general_patterns), the global wiring depends on
the group offset alone, so a node shift of the whole network loads every group alike and
is counted from group 0's messages, their landing legs folded back into group 0. Derived
here; equal to DFPlus on the explicit messages in
tests/model/test_collectives_structured_networks.py.
"""

from __future__ import annotations

import numpy as np

from icnperf.model.topology.dragonfly.general_patterns import _sum_by


def _sizes(params):
    p, l, s, h, g, c = params
    return p, l, s, h, g, c, s * h // (g - 1)


def group_endpoints(params) -> int:
    """Endpoints of one group: p·l."""
    return params[0] * params[1]


def divisors(params) -> np.ndarray:
    """Units per message on one channel of each class (up, down, global): s·m·c."""
    p, l, s, h, g, c, m = _sizes(params)
    return np.full(3, s * m * c, dtype=np.int64)


def leaf_messages(params, batch, sources, destinations, weight):
    """Endpoint messages merged per (batch, source leaf, destination leaf)."""
    p = params[0]
    src = np.asarray(sources, dtype=np.int64) // p
    dst = np.asarray(destinations, dtype=np.int64) // p
    total = int(max(src.max(initial=0), dst.max(initial=0))) + 1
    keys, weights = _sum_by((np.asarray(batch, dtype=np.int64) * total + src) * total + dst,
                            np.asarray(weight, dtype=np.int64))
    return keys // (total * total), (keys // total) % total, keys % total, weights


def channel_units(params, batch, ls, ld, weight, fold: bool = False):
    """Channel loads of weighted leaf-to-leaf messages grouped in batches (``ls``, ``ld``
    the leaves' indices g·l + leaf): (batch, class, channel, units) over the loaded
    channels, one row each; classes 0, 1, 2 = up cable [leaf, spine], down cable [leaf,
    spine], global port [group, port]. ``fold``: counted in group 0 (module
    docstring)."""
    p, l, s, h, g, c, m = _sizes(params)
    gs, gd = ls // l, ld // l
    if fold:
        gd = (gd - gs) % g
        ls, ld = ls % l, ld % l + gd * l
        gs = np.zeros_like(gs)
    inner = (gs == gd) & (ls != ld) & (weight > 0)
    across = (gs != gd) & (weight > 0)
    spines = np.arange(s, dtype=np.int64)
    rows = []
    if inner.any():
        b, w = batch[inner], m * weight[inner]
        for cls, leaf in ((0, ls[inner]), (1, ld[inner])):
            rows.append((np.repeat(b, s), np.full(b.size * s, cls),
                         (leaf[:, None] * s + spines[None, :]).ravel(), np.repeat(w, s)))
    if across.any():
        b, w = batch[across], weight[across]
        t = (gd[across] - gs[across] - 1) % g
        down_leaf = ld[across] % l if fold else ld[across]
        for copy in range(m):
            port = copy * (g - 1) + t
            far = copy * (g - 1) + g - 2 - t
            rows.append((b, np.zeros(b.size, dtype=np.int64), ls[across] * s + port // h,
                         s * w))
            rows.append((b, np.ones(b.size, dtype=np.int64), down_leaf * s + far // h, s * w))
            rows.append((b, np.full(b.size, 2), gs[across] * s * h + port, s * c * w))
    if not rows:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    cb, cc, ch, cu = (np.concatenate(x) for x in zip(*rows))
    span = int(ch.max()) + 1
    keys, units = _sum_by((cb * 3 + cc) * span + ch, cu)
    return keys // (3 * span), (keys // span) % 3, keys % span, units


def batch_hops(params, batches: int, batch, ls, ld) -> np.ndarray:
    """Per batch: the largest hops of its messages (0 on one leaf, 2 in a group, 3
    across groups)."""
    l = params[1]
    each = np.where(ls == ld, 0, np.where(ls // l == ld // l, 2, 3))
    hops = np.zeros(batches, dtype=np.int64)
    np.maximum.at(hops, batch, each)
    return hops


def shift_units(params, shifts):
    """Node shifts n -> n + d mod N of the whole dfplus, d in ``shifts`` (0 < d < N):
    (hops per shift, channel_units rows with batch = the shift's index) from group 0's
    messages alone, every channel counted in group 0."""
    p, l, s, h, g, c, m = _sizes(params)
    group = p * l
    shifts = np.asarray(shifts, dtype=np.int64).ravel()
    index = np.repeat(np.arange(shifts.size, dtype=np.int64), group)
    sources = np.tile(np.arange(group, dtype=np.int64), shifts.size)
    merged = leaf_messages(params, index, sources, (sources + shifts[index]) % (group * g),
                           np.ones_like(index))
    return (batch_hops(params, shifts.size, *merged[:3]),
            channel_units(params, *merged, fold=True))


def xor_units(params, masks):
    """Node XORs n -> n XOR i of the whole dfplus (N a power of two, so p is one: the p
    endpoints of leaf f all go to leaf f XOR (i >> lg p)), i in ``masks``: (hops per
    mask, channel_units rows with batch = the mask's index), every group counted."""
    p, l, s, h, g, c, m = _sizes(params)
    leaves = l * g
    masks = np.asarray(masks, dtype=np.int64).ravel()
    index = np.repeat(np.arange(masks.size, dtype=np.int64), leaves)
    sources = np.tile(np.arange(leaves, dtype=np.int64), masks.size)
    destinations = sources ^ (masks[index] >> (p.bit_length() - 1))
    weight = np.full_like(index, p)
    return (batch_hops(params, masks.size, index, sources, destinations),
            channel_units(params, index, sources, destinations, weight))
