"""gdragonfly_route_hops / gdragonfly_route_load against routes walked message by message on
the explicit multigraphs of test_gdragonfly (built there from the construction rules alone).

Every message is routed as the family defines MIN routing (rank-1 then rank-2 inside a
group; between groups one 1/m share over each of the group pair's m global links; parallel
links sharing equally); its hops are those of its longest share, and the channel loads are
summed exactly (fractions) over every share and parallel link, then the busiest is rounded
up.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from test_gdragonfly import CASES, build, case_id, router_of, routes

from icnperf.model.topology import dragonfly as D


def walked(inst, sources, destinations):
    """(hops of each message, busiest channel rounded up) by walking the routes."""
    net, _ = build(*inst)
    hops, load = [], {}
    for e, f in zip(sources, destinations):
        shares = routes(inst, router_of(inst, e), router_of(inst, f))
        hops.append(max(len(route) for _, route in shares))
        for weight, route in shares:
            for parallel in route:
                for u, v, key in parallel:
                    assert net.has_edge(u, v, key)
                    load[u, v, key] = (load.get((u, v, key), Fraction(0))
                                       + Fraction(weight).limit_denominator(10**6)
                                       / len(parallel))
    return hops, math.ceil(max(load.values(), default=0))


def message_sets(inst, seed):
    """All ordered pairs; a random permutation; random pairs with repeats; the
    recursive-doubling steps e -> e xor 2^k that stay inside the network."""
    n = math.prod(inst[:3]) * inst[5]
    rng = np.random.default_rng(seed)
    e = np.arange(n)
    pairs = [(s, d) for s in range(n) for d in range(n) if s != d]
    yield [s for s, _ in pairs], [d for _, d in pairs]
    yield e.tolist(), rng.permutation(n).tolist()
    yield rng.integers(0, n, 3 * n).tolist(), rng.integers(0, n, 3 * n).tolist()
    for k in range(max(1, (n - 1).bit_length())):
        keep = (e ^ (1 << k)) < n
        yield e[keep].tolist(), (e[keep] ^ (1 << k)).tolist()


@pytest.mark.parametrize("inst", CASES, ids=case_id)
def test_route_hops_and_load_match_walked_routes(inst):
    for index, (src, dst) in enumerate(message_sets(inst, sum(inst))):
        hops, load = walked(inst, src, dst)
        np.testing.assert_array_equal(D.gdragonfly_route_hops(*inst, src, dst), hops,
                                      err_msg=str(index))
        assert D.gdragonfly_route_load(*inst, src, dst) == load, index


def test_hops_and_loads_by_hand():
    """gdragonfly:p=1,a=2,g=3,m=1: routers 0, 1 per group; group 0's port 0 (to group 1)
    on router 0 lands on group 1's port 1 (router 1); port 1 (to group 2) on router 1."""
    inst = (1, 2, 1, 1, 1, 3, 1)
    # 0 -> 1 one local hop; 0 -> 3 (group 1 router 1): global from router 0, lands on 1;
    # 0 -> 2 (group 1 router 0): global, then one local hop; 0 -> 4 (group 2 router 0):
    # local to router 1, global to group 2's port 0 (router 0)
    assert D.gdragonfly_route_hops(*inst, [0, 0, 0, 0, 0], [0, 1, 3, 2, 4]).tolist() == [
        0, 1, 1, 2, 2]
    # 0 and 1 both to group 1: both cross its one global link
    assert D.gdragonfly_route_load(*inst, [0, 1], [2, 3]) == 2
    assert D.gdragonfly_route_load(*inst, [0], [0]) == 0
    # m = 4 global links between the two groups of p=1,a=4,g=2: 4 messages, one each
    spread = (1, 4, 1, 1, 1, 2, 4)
    assert D.gdragonfly_route_load(*spread, [0, 1, 2, 3], [4, 5, 6, 7]) == 1
