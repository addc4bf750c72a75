"""Routes of endpoint pairs on an XGFT (fat trees of every kind) under a named rule, and the
load they put on each channel: what the collectives charge a step and what the transpose
pattern load counts.

Rules (xgft.TREE_ROUTINGS, the module docstring of xgft.py derives the channel a flow
uses): a pair s -> d whose level-l pods differ leaves the source's level-l pod on one of
its C_l = W_{l+1}·p_{l+1} up channels and enters the destination's pod on one of as many
down channels.

* ``dmodk``: up channel = residue d mod C_l of the source pod; down channel =
  (d mod W_{l+1}, s mod p_{l+1}) of the destination pod. Counts are exact.
* ``random``: each flow is spread over the pod's C_l channels. :func:`pattern_load` gives
  the expectation (pod traffic / C_l); :func:`message_load` the busiest channel when the
  pod's c messages are dealt as evenly as possible, ceil(c / C_l) (the pigeonhole bound
  every up-port choice meets and an even spread attains, fattree.nca_message_load's rule).

Channels are the router-router ones; endpoint links (each endpoint's single link to its
leaf) are counted by the callers as the host's adapter. Vectorized over the pairs.
"""

from __future__ import annotations

import math

import numpy as np


def _pairs(sources, destinations):
    return (np.asarray(sources, dtype=np.int64).ravel(),
            np.asarray(destinations, dtype=np.int64).ravel())


def _levels(m, w, p):
    """(P_l, W_{l+1}, p_{l+1}, C_l) for the channel levels l = 1..h-1 (Python ints)."""
    out = []
    pod, switches = 1, 1
    for level in range(1, len(m)):
        pod *= m[level - 1]
        switches *= w[level - 1]
        upper_w, cables = switches * w[level], p[level]
        out.append((pod, upper_w, cables, upper_w * cables))
    return out


def channel_levels(m, w, p) -> list[tuple[int, int, int, int]]:
    """(P_l, W_{l+1}, p_{l+1}, C_l) for the channel levels l = 1..h-1: the level-l pod's
    endpoints, the switches and cables above it and its C_l up (and down) channels."""
    return _levels(m, w, p)


def hops(m, w, sources, destinations) -> np.ndarray:
    """Router-router hops of each pair, 2·#{l = 1..h-1 : s // P_l != d // P_l}."""
    s, d = _pairs(sources, destinations)
    out = np.zeros(s.shape, dtype=np.int64)
    pod = 1
    for level in range(1, len(m)):
        pod *= m[level - 1]
        out += 2 * (s // pod != d // pod)
    return out


def _channel_loads(m, w, p, routing, s, d, weights, spread):
    """Yield the per-channel loads of each level's up and down channels."""
    for pod, upper_w, cables, channels in _levels(m, w, p):
        pod_s, pod_d = s // pod, d // pod
        leave = pod_s != pod_d
        if not leave.any():
            continue
        ps, pd, ss, dd = pod_s[leave], pod_d[leave], s[leave], d[leave]
        wt = weights[leave]
        if routing == "dmodk":
            yield np.bincount(ps * channels + dd % channels, weights=wt)
            yield np.bincount(pd * channels + (dd % upper_w) * cables + ss % cables,
                              weights=wt)
        else:
            yield spread(np.bincount(ps, weights=wt), channels)
            yield spread(np.bincount(pd, weights=wt), channels)


def pattern_load(m, w, p, routing: str, sources, destinations, weights=None) -> float:
    """γ_max (flits/cycle) of flows s -> d of rate ``weights`` (default 1) on the tree's
    router-router channels: exact for dmodk, the expectation for random (pod traffic /
    C_l). 0 when no flow crosses a router-router channel."""
    s, d = _pairs(sources, destinations)
    weights = np.ones(s.shape) if weights is None else np.asarray(weights, float).ravel()
    best = 0.0
    for loads in _channel_loads(m, w, p, routing, s, d, weights,
                                lambda counts, c: counts / c):
        best = max(best, float(loads.max(initial=0.0)))
    return best


def message_load(m, w, p, routing: str, sources, destinations) -> int:
    """Most messages on one router-router channel when each pair sends one message at
    once: exact counts for dmodk, ceil(c / C_l) per pod for random (module docstring)."""
    s, d = _pairs(sources, destinations)
    best = 0
    for loads in _channel_loads(m, w, p, routing, s, d, np.ones(s.shape),
                                lambda counts, c: np.ceil(counts / c)):
        best = max(best, int(round(float(loads.max(initial=0.0)))))
    return best


def channel_flows(m, w, p, routing: str, sources, destinations):
    """(flow index, channel key, channels behind the key) of every router-router channel
    each pair crosses, keys unique over the tree (for max-min sharing). dmodk: one key per
    channel (multiplicity 1); random: one key per pod and direction standing for its C_l
    channels, over which the flow is spread (multiplicity C_l)."""
    s, d = _pairs(sources, destinations)
    index = np.arange(s.size, dtype=np.int64)
    flows, keys, widths = [], [], []
    offset = 0
    for pod, upper_w, cables, channels in _levels(m, w, p):
        pods = math.prod(m) // pod
        total = pods * channels
        leave = s // pod != d // pod
        ss, dd = s[leave], d[leave]
        flows += [index[leave], index[leave]]
        if routing == "dmodk":
            keys += [offset + (ss // pod) * channels + dd % channels,
                     offset + total + (dd // pod) * channels + (dd % upper_w) * cables
                     + ss % cables]
            widths += [np.ones(ss.size), np.ones(ss.size)]
        else:
            keys += [offset + ss // pod, offset + total + dd // pod]
            widths += [np.full(ss.size, float(channels))] * 2
        offset += 2 * total
    if not flows:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    return np.concatenate(flows), np.concatenate(keys), np.concatenate(widths)
