"""The permutation mechanisms' model parts against oracles: DOR route incidence against the
torus model's own channel-load counter (torus.dor_traffic, tested by walking routes), and
max-min fair rates against small cases worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.model.network.saturation import (conflict_losses, input_port_ceiling,
                                              input_service, max_min_rates)
from icnperf.model.topology import torus
from icnperf.model.topology.dragonfly.routes import dragonfly_route_hops, dragonfly_route_load
from icnperf.model.topology.saturation import (dragonfly_route_incidence, fixed_paths,
                                               grid_port_hops, grid_route_incidence,
                                               router_traffic)


@pytest.mark.parametrize("radices,wrap", [((8, 8), True), ((8, 8), False), ((4, 4, 4), True),
                                          ((5, 3), True)])
def test_route_incidence_loads_match_dor_traffic(radices, wrap):
    n = int(np.prod(radices))
    rng = np.random.default_rng(1)
    for destinations in (rng.permutation(n), n - 1 - np.arange(n), np.roll(np.arange(n), 3)):
        flow, channel, weight, _ = grid_route_incidence(radices, wrap, destinations)
        hops, load = torus.dor_traffic(radices, np.arange(n), destinations, wrap=wrap)
        assert np.bincount(channel, weights=weight).max() == load
        assert np.bincount(flow, weights=weight, minlength=n).max() == hops


@pytest.mark.parametrize("p,a,h", [(2, 4, 2), (1, 2, 1), (3, 3, 2)])
def test_dragonfly_incidence_matches_the_route_model(p, a, h):
    n = p * a * (a * h + 1)
    destinations = np.random.default_rng(3).permutation(n)
    flow, channel, weight, vc_class = dragonfly_route_incidence(p, a, h, destinations)
    assert np.bincount(channel).max() == dragonfly_route_load(p, a, h, np.arange(n),
                                                              destinations)
    assert (np.bincount(flow, minlength=n)
            == dragonfly_route_hops(p, a, h, np.arange(n), destinations)).all()
    # one global hop per flow leaving its group, in class 1 with every hop after it
    groups = a * h + 1
    assert set(np.unique(channel[vc_class == 0])) < set(range(groups * a * a))


def test_random_ties_split_a_half_ring_flow_and_wrap_links_carry_one_class():
    """Ring of 4, endpoint 0 -> 2 (a tie): half + over channels 0->1->2, half - over
    0->3->2; the - path's first hop (0 -> 3) is the wraparound link: class 1 from there."""
    flow, channel, weight, vc_class = grid_route_incidence((4,), True, [2, 1, 0, 3], "random")
    mine = flow == 0
    assert sorted(weight[mine]) == [0.5] * 4
    plus = channel[mine] % 2 == 0
    assert list(vc_class[mine][plus]) == [0, 0]
    assert list(vc_class[mine][~plus]) == [1, 1]


def test_max_min_rates_by_hand():
    """Flows 0 and 1 share channel 0 (capacity 1); flow 1 also crosses channel 1 with flow
    2 (capacity 0.6); flow 3 crosses nothing. Progressive filling: channel 1 fills first at
    0.3 (flows 1, 2 frozen), then channel 0 gives flow 0 the rest, 0.7; flow 3 its cap 0.9."""
    rates = max_min_rates([0, 1, 1, 2], [0, 0, 1, 1], [1, 1, 1, 1], [1.0, 0.6], 0.9, 4)
    assert rates == pytest.approx([0.7, 0.3, 0.3, 0.9])


def test_fixed_paths():
    assert fixed_paths("torus", "transpose", None)
    assert not fixed_paths("torus", "uniform", None)
    assert not fixed_paths("fattree", "permutation", None)
    assert not fixed_paths("dragonfly", "tornado", "ugal")
    assert fixed_paths("dragonfly", "permutation", "min")


def _walked_router_traffic(radices, wrap, destinations, ties):
    """Oracle: every route walked hop by hop in plain Python, the port a flow arrived on
    carried along (a random half-ring tie: both ways, half the weight each)."""
    k = list(radices)
    n = len(k)
    strides = [int(np.prod(k[:i])) for i in range(n)]
    routers = int(np.prod(k))
    traffic = np.zeros((routers, 2 * n + 1, 2 * n + 1))
    for s, d in enumerate(destinations):
        here = [(s // strides[i]) % k[i] for i in range(n)]
        there = [(int(d) // strides[i]) % k[i] for i in range(n)]
        paths = [([], list(here), 2 * n, 1.0)]  # (hops, position, arrived on, weight)
        for i in range(n):
            grown = []
            for hops, pos, came, w in paths:
                if wrap:
                    f = (there[i] - pos[i]) % k[i]
                    if f == 0:
                        grown.append((hops, pos, came, w))
                        continue
                    if 2 * f == k[i] and k[i] > 2 and ties == "random":
                        ways = [(1, f, 0.5), (-1, f, 0.5)]
                    elif 2 * f <= k[i]:
                        ways = [(1, f, 1.0)]
                    else:
                        ways = [(-1, k[i] - f, 1.0)]
                else:
                    delta = there[i] - pos[i]
                    if delta == 0:
                        grown.append((hops, pos, came, w))
                        continue
                    ways = [(1 if delta > 0 else -1, abs(delta), 1.0)]
                for sign, steps, share in ways:
                    h, p, c = list(hops), list(pos), came
                    port = 2 * i + (sign < 0)
                    for _ in range(steps):
                        h.append((sum(p[j] * strides[j] for j in range(n)), c, port))
                        c = port
                        p[i] = (p[i] + sign) % k[i]
                    grown.append((h, p, c, w * share))
            paths = grown
        for hops, _, came, w in paths:
            for router, inp, out in hops + [(int(d), came, 2 * n)]:
                traffic[router, inp, out] += w
    return traffic


@pytest.mark.parametrize("radices,wrap,ties", [((8, 8), True, "random"), ((8, 8), False, "plus"),
                                               ((4, 4, 4), True, "random"),
                                               ((5, 3), True, "plus")])
def test_router_traffic_matches_walked_routes(radices, wrap, ties):
    n = int(np.prod(radices))
    rng = np.random.default_rng(2)
    tornado = np.arange(n)  # shift every coordinate by (k + 1)//2 - 1
    coords = [(tornado // int(np.prod(radices[:i]))) % k for i, k in enumerate(radices)]
    tornado = sum(((c + (k + 1) // 2 - 1) % k) * int(np.prod(radices[:i]))
                  for i, (c, k) in enumerate(zip(coords, radices)))
    for destinations in (rng.permutation(n), tornado, n - 1 - np.arange(n)):
        flow, router, inp, out, weight = grid_port_hops(radices, wrap, destinations, ties)
        traffic = router_traffic(router, inp, out, weight, n, 2 * len(radices) + 1)
        assert traffic == pytest.approx(_walked_router_traffic(radices, wrap, destinations,
                                                               ties))


def test_input_port_ceiling_by_hand():
    """Two inputs, each only to output 0, round-robin: s = 1 + ρ/2 and ρ = λ·s, so the
    inputs keep up while λ < 1/(1 + 1/2) = 2/3. A single input to one output: 1."""
    two = np.array([[[1.0, 0.0], [1.0, 0.0]]])
    assert input_port_ceiling(two, conflict_losses(2, "round-robin")) == pytest.approx(
        2 / 3, abs=1e-5)
    one = np.array([[[1.0, 0.0], [0.0, 0.0]]])
    assert input_port_ceiling(one, conflict_losses(2, "round-robin")) == pytest.approx(
        1.0, abs=1e-5)
    # age: the injection port (last) always loses, the network input never waits
    lose = conflict_losses(2, "age")
    assert input_service(two, lose)[0].tolist() == [1.0, 2.0]
