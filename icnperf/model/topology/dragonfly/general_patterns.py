"""Whole-job node shifts and XORs on the generalized dragonfly ``gdragonfly`` under its MIN
routing (:mod:`~icnperf.model.topology.dragonfly.general_routes`), counted channel by
channel for many patterns at once: what ``gdragonfly_route_hops`` (largest) and
``gdragonfly_route_load`` return for the explicit messages of each, without building them.

A pattern is a batch of weighted router-to-router messages (every message between the same
two routers loads the same channels and takes the same hops, so the endpoints of a router
are merged first). :func:`channel_units` gives each batch's channels with their load in
units of 1/m message, exactly as ``gdragonfly_route_load`` counts them (a message within
a group puts m units on each channel of its local route; a message from group G to G + o
one unit on each of the m global channels of offset o and on the local legs to each
port's owner and from each landing router), by class: rank-1, rank-2 and global channels,
whose loads are shared by la, lb and 1 parallel links. The busiest channel of a batch is
``max over classes of ceil(max units / (m · links))`` (:func:`divisors`).

**Why one group stands for all in a shift.** The global port k of group G goes to group
G + k // m + 1 and lands on a port fixed by the offset alone, and every group is wired
inside alike, so moving every endpoint G·p·a·b places on (one group) maps the network onto
itself. On the whole network a node shift n -> n + d mod N is invariant under that move,
so every group's channels carry the same loads: those of group 0 are the channels its own
messages leave by (the intra-group routes, the source legs and the global links) and those
of the messages arriving into it, which, moved back by their offset, are the landing legs
of group 0's own messages counted in group 0 (:func:`shift_units`, ``fold``). Derived
here; equal to the mapper in tests/model/test_collectives_structured_networks.py.
"""

from __future__ import annotations

import numpy as np

from icnperf.model.topology.dragonfly.general_routes import _copies, gdragonfly_route_hops


def divisors(params) -> np.ndarray:
    """Units per message on one link of each class (rank-1, rank-2, global): m·la, m·lb,
    m."""
    _, _, _, la, lb, _, m = params
    return np.array([m * la, m * lb, m], dtype=np.int64)


def group_endpoints(params) -> int:
    """Endpoints of one group: p·a·b."""
    return params[0] * params[1] * params[2]


def _sum_by(keys: np.ndarray, amounts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    distinct, index = np.unique(keys, return_inverse=True)
    return distinct, np.bincount(index.ravel(), weights=amounts,
                                 minlength=distinct.size).round().astype(np.int64)


def channel_units(params, batch, gs, us, gd, ud, weight, fold: bool = False):
    """Channel loads of weighted router-to-router messages grouped in batches: message i
    of batch ``batch[i]`` stands for ``weight[i]`` messages from router ``us[i]`` of group
    ``gs[i]`` to router ``ud[i]`` of group ``gd[i]``. ``fold``: every channel is counted in
    group 0 (the landing legs and intra-group routes of any group, the global links of
    any group's offsets; module docstring). Returns (batch, class, channel, units) over the
    channels that carry some load, one row each, sorted by batch, class and channel;
    classes 0, 1, 2 = rank-1, rank-2, global (:func:`divisors`)."""
    p, a, b, la, lb, g, m = params
    routers = a * b
    batch, gs, us, gd, ud = (np.asarray(x, dtype=np.int64).ravel()
                             for x in (batch, gs, us, gd, ud))
    weight = np.asarray(weight, dtype=np.int64).ravel()
    if fold:
        gd = (gd - gs) % g
        gs = np.zeros_like(gs)
    inner = (gs == gd) & (us != ud) & (weight > 0)
    across = (gs != gd) & (weight > 0)
    seg = [(batch[inner], gs[inner], us[inner], ud[inner], m * weight[inner])]
    rows = []
    if across.any():
        offset = (gd[across] - gs[across]) % g
        rows.append((batch[across], np.full(offset.size, 2), gs[across] * g + offset,
                     weight[across]))
        shift, count = _copies(m, routers)
        for group, router, window, leaving in (
                (gs[across], us[across], offset - 1, True),
                (0 * gd[across] if fold else gd[across], ud[across], g - offset - 1, False)):
            keys, total = _sum_by(((batch[across] * g + group) * g + window) * routers + router,
                                  weight[across])
            b_, grp = keys // (g * g * routers), (keys // (g * routers)) % g
            win, rtr = (keys // routers) % g, keys % routers
            ports = ((win * m)[:, None] + shift[None, :]) % routers
            here = np.broadcast_to(rtr[:, None], ports.shape)
            seg.append((np.broadcast_to(b_[:, None], ports.shape).ravel(),
                        np.broadcast_to(grp[:, None], ports.shape).ravel(),
                        (here if leaving else ports).ravel(),
                        (ports if leaving else here).ravel(),
                        (total[:, None] * count[None, :]).ravel()))
    sb, sg, su, sw, sunits = (np.concatenate(x) for x in zip(*seg))
    keep = su != sw
    sb, sg, su, sw, sunits = sb[keep], sg[keep], su[keep], sw[keep], sunits[keep]
    iu, ju, iw, jw = su % a, su // a, sw % a, sw // a
    r1, r2 = iu != iw, ju != jw
    rows.append((sb[r1], np.zeros(int(r1.sum()), dtype=np.int64),
                 ((sg[r1] * b + ju[r1]) * a + iu[r1]) * a + iw[r1], sunits[r1]))
    rows.append((sb[r2], np.ones(int(r2.sum()), dtype=np.int64),
                 ((sg[r2] * a + iw[r2]) * b + ju[r2]) * b + jw[r2], sunits[r2]))
    cb, cc, ch, cu = (np.concatenate(x) for x in zip(*rows))
    span = max(g * g, g * b * a * a, g * a * b * b)
    keys, units = _sum_by((cb * 3 + cc) * span + ch, cu)
    return keys // (3 * span), (keys // span) % 3, keys % span, units


def router_messages(params, batch, sources, destinations, weight):
    """Endpoint messages merged per (batch, source router, destination router): (batch,
    gs, us, gd, ud, weight) with the routers split into group and router within it."""
    p, a, b = params[0], params[1], params[2]
    routers = a * b
    src = np.asarray(sources, dtype=np.int64) // p
    dst = np.asarray(destinations, dtype=np.int64) // p
    total = int(max(src.max(initial=0), dst.max(initial=0))) + 1
    keys, weights = _sum_by((np.asarray(batch, dtype=np.int64) * total + src) * total + dst,
                            np.asarray(weight, dtype=np.int64))
    b_, s, d = keys // (total * total), (keys // total) % total, keys % total
    return b_, s // routers, s % routers, d // routers, d % routers, weights


def batch_hops(params, batches: int, batch, gs, us, gd, ud) -> np.ndarray:
    """Per batch: the largest router-router hops of its messages (gdragonfly_route_hops of
    one endpoint of each router)."""
    p, a, b = params[0], params[1], params[2]
    routers = a * b
    hops = np.zeros(batches, dtype=np.int64)
    if len(batch):
        each = gdragonfly_route_hops(*params, (gs * routers + us) * p, (gd * routers + ud) * p)
        np.maximum.at(hops, batch, each)
    return hops


def shift_units(params, shifts):
    """Node shifts n -> n + d mod N of the whole gdragonfly (N its endpoints), d in
    ``shifts`` (0 < d < N): (hops per shift, and channel_units rows with batch = the
    shift's index) from group 0's messages alone, every channel counted in group 0
    (module docstring)."""
    p, a, b, _, _, g, _ = params
    group = p * a * b
    total = group * g
    shifts = np.asarray(shifts, dtype=np.int64).ravel()
    index = np.repeat(np.arange(shifts.size, dtype=np.int64), group)
    sources = np.tile(np.arange(group, dtype=np.int64), shifts.size)
    destinations = (sources + shifts[index]) % total
    merged = router_messages(params, index, sources, destinations, np.ones_like(index))
    hops = batch_hops(params, shifts.size, *merged[:5])
    return hops, channel_units(params, *merged, fold=True)


def xor_units(params, masks):
    """Node XORs n -> n XOR i of the whole gdragonfly (N a power of two), i in ``masks``:
    (hops per mask, channel_units rows with batch = the mask's index), every group
    counted (an XOR is not invariant under the move of one group). N a power of two
    makes p one, so the p endpoints of router r all go to router r XOR (i >> lg p): the
    routers are XORed, p messages each."""
    p, a, b, _, _, g, _ = params
    routers = a * b * g
    masks = np.asarray(masks, dtype=np.int64).ravel()
    index = np.repeat(np.arange(masks.size, dtype=np.int64), routers)
    sources = np.tile(np.arange(routers, dtype=np.int64), masks.size)
    destinations = sources ^ (masks[index] >> (p.bit_length() - 1))
    merged = router_messages(params, index, sources * p, destinations * p,
                             np.full_like(index, p))
    hops = batch_hops(params, masks.size, *merged[:5])
    return hops, channel_units(params, *merged)
