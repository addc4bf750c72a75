"""Flows sharing links max-min fairly (collectives.fluid), the MPI libraries' algorithms and
eager sends, against hand derivations and the independent channel counts."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.data.machine import load_machine
from icnperf.errors import InputError
from icnperf.model import collectives as C
from icnperf.model import network
from icnperf.model.collectives import fluid
from icnperf.model.topology import torus

B = 1.25e9      # 10 Gbit/s in bytes/s
LAT = 80e-9


def params(machine="simgrid-fattree-64", **extra):
    values = C.collective_parameters(load_machine(machine), "none")
    values.update(extra)
    return values


@pytest.mark.parametrize("ties", torus.RING_TIES)
@pytest.mark.parametrize("radices", [(4, 4, 4), (3, 5), (2, 6, 3)])
def test_torus_channels_count_what_dor_traffic_counts(radices, ties):
    layout = C.Layout.torus(radices).routed(ties)
    n = int(np.prod(radices))
    rng = np.random.default_rng(len(radices))
    for _ in range(10):
        s, d = rng.integers(0, n, 40), rng.integers(0, n, 40)
        keep = s != d
        s, d = s[keep], d[keep]
        flow, resource, kind, _ = fluid.flow_resources(layout, s, d)
        channels = resource[kind == 0]
        load = np.bincount(channels).max(initial=0)
        hops = np.bincount(flow[kind == 0], minlength=s.size).max()
        assert (hops, load) == torus.dor_traffic(radices, s, d, ties)


def test_one_flow_takes_the_point_to_point_latency():
    layout = C.Layout.from_topology("xgft:m=8x8,w=1x8").tree_routed("dmodk")
    p = params()
    for size in (8.0, 4096.0, 2.0**20):
        end = fluid.flow_times(layout, [0], [63], size, p)[0]
        want = network.latency(size, 2, **network.bind(network.latency, p))
        assert end == pytest.approx(want, rel=1e-12)


def test_flows_through_one_host_link_share_it():
    """k flows leaving one host at once, same latency: L + k W / B (max-min gives each
    B/k on the host link, nothing else binds)."""
    layout = C.Layout.from_topology("xgft:m=8x8,w=1x8").tree_routed("dmodk")
    p = params()
    ends = fluid.flow_times(layout, [0, 0, 0], [8, 16, 24], 1000.0, p)
    wire = 1000 + 16
    assert ends == pytest.approx([4 * LAT + 3 * wire / B] * 3, rel=1e-12)


def test_a_later_flow_gets_the_bandwidth_left():
    """Host 0 sends W to host 1 (same leaf: latency 2 links) and to host 8 (4 links).
    The first sends alone at B for 2 x 80 ns, then both share B/2 until it ends, then the
    second goes on alone (hand-derived, bytes W = 1016)."""
    layout = C.Layout.from_topology("xgft:m=8x8,w=1x8").tree_routed("dmodk")
    ends = fluid.flow_times(layout, [0, 0], [1, 8], 1000.0, params())
    wire = 1016.0
    head = 2 * LAT * B                          # bytes the first sends alone
    first = 4 * LAT + 2 * (wire - head) / B     # then shares B/2 from t = 4 x 80 ns
    second = first + (wire - (first - 4 * LAT) * B / 2) / B
    assert ends == pytest.approx([first, second], rel=1e-12)


def test_eager_binomial_broadcast_overlaps_a_parents_sends():
    """4 ranks on one switch (xgft:m=4,w=1, 0 router hops, path latency L0): eagerly the
    root sends to 2 and 1 at once (B/2 each), then 2 sends to 3: 2 L0 + 3 W / B; the
    synchronous steps give 2 (L0 + W / B)."""
    layout = C.Layout.from_topology("xgft:m=4,w=1").tree_routed("dmodk")
    p = params()
    steps = C.schedule("binomial", "broadcast", layout)
    m, wire, l0 = 4096.0, 4112.0, 2 * LAT
    assert float(C.schedule_time(m, steps, **C.parameters._bind(C.schedule_time, p))) == \
        pytest.approx(2 * (l0 + wire / B))
    eager = C.evaluate("broadcast", "binomial", np.array([m]), layout, p)
    assert float(eager[0]) == pytest.approx(2 * l0 + 3 * wire / B, rel=1e-12)


def test_without_eager_limit_results_are_the_synchronous_steps():
    layout = C.Layout.from_topology("xgft:m=8x8,w=1x8").tree_routed("dmodk")
    p = params()
    p.pop("eager_limit")
    sizes = np.array([8.0, 4096.0])
    synchronous = C.schedule_time(sizes, C.schedule("binomial", "broadcast", layout),
                                  **C.parameters._bind(C.schedule_time, p))
    np.testing.assert_array_equal(C.evaluate("broadcast", "binomial", sizes, layout, p),
                                  synchronous)
    above = params()
    above["eager_limit"] = 100.0
    np.testing.assert_array_equal(
        C.evaluate("broadcast", "binomial", np.array([4096.0]), layout, above),
        synchronous[1:])


def test_linear_allgather_on_the_fat_tree_is_the_host_link():
    """63 blocks leave and enter every host. The 7 to the same leaf start after 2 x 80 ns
    and the host links stay busy from then on (the other 56 join at 4 x 80 ns, long before
    they drain): the last ends 2 x 80 ns + 63 (m + 16) / B, SimGrid's 5.284919680e-02 s."""
    machine = load_machine("simgrid-fattree-64")
    block = 2.0**20
    t = C.collective_time(machine, "allgather", "linear", [64 * block], api="none").time[0]
    assert t == pytest.approx(2 * LAT + 63 * (block + 16) / B, rel=1e-12)


def test_pairwise_allgather_slows_on_a_tapered_tree():
    """Shift steps load a 4:1 tapered tree's spine channels up to 4x a full tree's (every
    leaf's 8 flows over its 2 up channels): the whole all-gather is 2.5-4x slower (the
    reference sees 2.5-3.7x on such trees)."""
    full = load_machine("simgrid-fattree-64")
    tapered = full.with_overrides(["topology=xgft:m=8x8,w=1x2"])
    size = 64 * 65536.0
    t_full = C.collective_time(full, "allgather", "pairwise", [size], api="none").time[0]
    t_taper = C.collective_time(tapered, "allgather", "pairwise", [size], api="none").time[0]
    assert 2.5 < t_taper / t_full < 4.0


def test_library_algorithms_refuse_what_they_do_not_model():
    machine = load_machine("simgrid-torus-4x4x4")
    big = C.Layout.torus((8, 8, 8))
    with pytest.raises(InputError, match="at most 64 ranks"):
        C.collective_time(machine, "allgather", "linear", [4096], layout=big)
    assert "linear" not in C.compare(machine, "allgather", [4096], layout=big)
    assert fluid.rank_limit("linear", "allgather") == 64         # 64 x 63 <= 4096 flows
    assert fluid.offered("linear", 256, "broadcast") and not fluid.offered("linear", 257)
    with pytest.raises(InputError, match="does not define"):
        C.collective_time(machine, "barrier", "linear", [4096])


def test_a_host_posts_its_messages_one_after_another():
    """With software overhead O, a host's second message leaves O/2 after its first (the
    sending half, LogGP's o); with 16-byte messages they never share a link."""
    layout = C.Layout.from_topology("xgft:m=8x8,w=1x8").tree_routed("dmodk")
    p = params(software_overhead=1e-6)
    first, second = fluid.flow_times(layout, [0, 0], [8, 16], 0.0, p)
    alone = fluid.flow_times(layout, [0], [8], 0.0, p)[0]
    assert first == pytest.approx(alone, rel=1e-12)
    assert second - first == pytest.approx(0.5e-6, rel=1e-9)
    assert alone == pytest.approx(1e-6 + 4 * LAT + 16 / B, rel=1e-12)
