"""The screen: the proxy by hand, the front kept, the short list bounded."""

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.data.machine import load_machine
from icnperf.model.sizing.cost import cost_model_from_dict
from icnperf.model.sizing.screen import proxy_time, screen_space, workload_coefficients
from icnperf.model.sizing.space import enumerate_space
from icnperf.model.sizing.workload import workload_from_dict

MACHINE = load_machine("angara-3d")
PRICES = cost_model_from_dict({"unit": "u", "router": {"base": 1000, "per_port": 10},
                               "link": {"electrical": 2, "optical": 50, "endpoint": 3},
                               "adapter": {"per_endpoint": 100}}, "test")
ONE_ALLREDUCE = workload_from_dict({"collective": [
    {"name": "ar", "weight": 1, "operation": "allreduce", "bytes": "8 B", "nodes": 4}]}, "t")
MIX = workload_from_dict({"collective": [
    {"name": "small", "weight": 1000, "operation": "allreduce", "bytes": "8 B"},
    {"name": "big", "weight": 10, "operation": "allgather", "bytes": "1 MiB", "nodes": 64}],
    "app": [{"name": "heat", "weight": 1, "app": "heat", "nodes": 64,
             "problem": {"cells": 1_000_000, "steps": 20}}]}, "t")


def test_proxy_by_hand():
    """angara-3d: t_0 = 300 ns MPI overhead + 300 ns injection + 300 ns ejection, router 8 ns,
    link 80 ns, link 75 Gbit/s = 9.375 GB/s, host 5.85 GB/s. An 8-byte allreduce on 4
    nodes: R = lg 4 = 2 rounds, V = 2 x 8 x 3/4 = 12 B. With H = 2 hops and Θ = 0.5:
    2 x (900 + 8 + 2 x 88) ns + 12 B / min(5.85, 0.5 x 9.375) GB/s = 2168 ns + 2.56 ns."""
    assert workload_coefficients(ONE_ALLREDUCE, 1000) == (2.0, 12.0)
    seconds = proxy_time(ONE_ALLREDUCE, MACHINE, 1000, np.array([2.0, 2.0]),
                         np.array([0.5, 1.0]))
    assert seconds[0] == pytest.approx(2168e-9 + 12 / 4.6875e9, rel=1e-12)
    assert seconds[1] == pytest.approx(2168e-9 + 12 / 5.85e9, rel=1e-12)  # host-bound


def test_app_terms_count_their_collectives():
    """heat, 20 steps on 64 nodes: 20 allreduces of 8 B, lg 64 = 6 rounds each, 2 x 8 x 63/64
    bytes; plus 1000 x (lg 500 -> 9 rounds, 2 x 8 x 499/500 B) and 10 allgathers of 1 MiB
    on 64 nodes (6 rounds, 2^20 x 63/64 B), with N = 500 endpoints."""
    rounds, volume = workload_coefficients(MIX, 500)
    assert rounds == 1000 * 9 + 10 * 6 + 20 * 6
    assert volume == pytest.approx(1000 * 16 * 499 / 500 + 10 * 2**20 * 63 / 64
                                   + 20 * 16 * 63 / 64)


def screened(shortlist):
    blocks = enumerate_space(500, radix_max=32, torus_dims=(2, 3), slack=1.5)
    return screen_space(blocks, PRICES, MIX, MACHINE, 500, shortlist)


def brute_front(cost, time):
    return np.array([not np.any((cost <= c) & (time <= t) & ((cost < c) | (time < t)))
                     for c, t in zip(cost, time)])


def test_screen_keeps_the_whole_proxy_front_and_the_nudt_designs():
    screen = screened(shortlist=1000)
    front = brute_front(screen.cost, screen.proxy_s)
    assert (screen.front == front).all()
    chosen = {screen.flat(b, r) for b, r in screen.shortlist}
    canonical = np.flatnonzero(np.concatenate([b.canonical for b in screen.blocks]))
    assert chosen == set(np.flatnonzero(front)) | set(canonical)
    assert screen.screened == sum(len(b) for b in screen.blocks) > 1000


def test_short_list_is_bounded_nudt_first_then_front_ends():
    full = screened(shortlist=1000)
    canonical = np.flatnonzero(np.concatenate([b.canonical for b in full.blocks]))
    front = np.flatnonzero(full.front & ~np.isin(np.arange(full.screened), canonical))
    assert len(front) > 3
    screen = screened(shortlist=len(canonical) + 3)
    chosen = [screen.flat(b, r) for b, r in screen.shortlist]
    assert len(chosen) == len(canonical) + 3
    assert chosen[:len(canonical)] == canonical.tolist()
    rest = chosen[len(canonical):]
    assert all(full.front[i] for i in rest)
    by_cost = front[np.lexsort((full.proxy_s[front], full.cost[front]))]
    assert rest[0] == by_cost[0] and rest[-1] == by_cost[-1]    # cheapest and fastest kept
    with pytest.raises(InputError, match="shortlist"):
        screened(shortlist=0)
