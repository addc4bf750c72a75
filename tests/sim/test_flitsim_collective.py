"""The flit simulator's collective mode (validation/flitsim/collective.py): hand-derived
timings, conservation, determinism, and agreement with the collective closed forms."""

import itertools

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.sim.collective import simulate_collective
from icnperf.sim.collective_fabric import FabricConfig

SIMPLE = {"router_delay": 2, "link_delay": 3, "injection_delay": 5, "ejection_delay": 5,
              "link_rate": 1.0, "host_rate": 1.0, "flit_bytes": 16, "packet_flits": 16, "header_flits": 1}


def torus_distance(radices, a, b):
    """Minimal hops between routers a and b (dimension 0 fastest), brute force per ring."""
    total = 0
    for k in radices:
        x, y = a % k, b % k
        total += min((x - y) % k, (y - x) % k)
        a //= k
        b //= k
    return total


@pytest.mark.parametrize("radices", [(2, 2, 2), (4, 4, 4), (3, 5)])
def test_single_packet_hw_broadcast_matches_hand_timeline(radices):
    """16 B = 1 payload flit, 2 wire flits (1 header). Timeline, cycles: the payload flit
    leaves the root's host in cycle 0 and reaches its router at 0 + 1 + t_inj = 6, where the
    adapter adds the header: the packet is whole (store-and-forward), routed at 6 + t_r = 8.
    Each tree hop sends 2 flits (cycles c, c+1), the tail arrives at c + 1 + 1 + t_l, the
    next router routes it t_r later: 7 cycles a hop. The ejection sends the payload flit at
    the leaf router's routing cycle, it arrives 1 + t_ej later; the receive overhead follows.
    Host at depth d (= its torus distance from the root, the tree being DOR from the root):
        T(d) = o_s + t_inj + 1 + (d + 1)·t_r + d·(t_l + 2) + 1 + t_ej + o_r."""
    config = FabricConfig(**SIMPLE, send_overhead=10, recv_overhead=20)
    run = simulate_collective(radices, "broadcast", 16, config, "hw-tree")
    for host, cycle in run.host_cycles.items():
        d = torus_distance(radices, 0, host)
        assert cycle == 10 + 5 + 1 + (d + 1) * 2 + d * (3 + 2) + 1 + 5 + 20
    assert run.cycles == max(run.host_cycles.values())


def test_unicast_steps_of_recursive_doubling_on_a_ring_match_hand_timeline():
    """torus:4, 64 B gathered (16 B per rank, 1 payload flit). Step 0: every rank sends 1
    flit to its neighbour (1 hop); step 1: 2 blocks (2 payload flits, 3 wire flits) to the
    rank 2 hops away, all in the + direction (tie rule), so each + link carries two
    messages. Cut-through, no contention in step 0:
        step 0 ends (receiver has it) at o_s + t_inj + 1 + 2·t_r + t_l + 1 + t_ej + 1 + o_r
    = 0 + 5 + 1 + 4 + 3 + 1 + 5 + 1 + 0 ... computed below per flit; the test checks the
    first step's exact value and that the whole gather is one such step plus the second."""
    config = FabricConfig(**SIMPLE)
    run = simulate_collective((4,), "allgather", 64, config, "recursive-doubling")
    assert run.complete and run.duplicates == 0
    # step 0 alone: payload flit leaves at 0, at the router at 6 (header added), routed
    # at 8; header leaves 8, payload 9 -> arrive 12, 13 at the neighbour; the head is
    # routed at 14, ejection sends the payload flit at 14 -> host at 20.
    one = simulate_collective((2,), "allgather", 32, config, "recursive-doubling")
    assert one.cycles == 20
    assert run.cycles > 2 * 20


@pytest.mark.parametrize("radices", [(2, 2, 2), (4, 4, 4)])
@pytest.mark.parametrize("nbytes", [16, 256, 4096])
def test_broadcast_conservation_and_link_flits(radices, nbytes):
    """Every non-root host receives every byte exactly once; each tree edge (P - 1 of them)
    carries each packet once: link flits = (P - 1) · (ceil(m/16) + packets · 1)."""
    config = FabricConfig(**SIMPLE)
    run = simulate_collective(radices, "broadcast", nbytes, config, "hw-tree")
    P = 1
    for k in radices:
        P *= k
    assert run.complete and run.duplicates == 0
    assert sorted(run.bytes_received) == list(range(1, P))
    assert all(b == nbytes for b in run.bytes_received.values())
    payload = -(-nbytes // 16)
    packets = -(-payload // 15)
    assert run.link_flits == (P - 1) * (payload + packets)


@pytest.mark.parametrize("operation", ["reduce", "allreduce"])
def test_reduce_result_is_the_sum(operation):
    """Host h contributes (h + 1)·1000 + j in packet j; the result is summed in the routers.
    Expected, computed here: Σ_h ((h+1)·1000 + j) = 1000·P(P+1)/2 + P·j."""
    config = FabricConfig(**SIMPLE)
    radices = (3, 4, 2)
    P = 24
    nbytes = 3 * 240 + 16          # 4 packets
    run = simulate_collective(radices, operation, nbytes, config, "hw-tree")
    expected = [1000 * P * (P + 1) // 2 + P * j for j in range(4)]
    holders = [0] if operation == "reduce" else list(range(P))
    assert run.complete
    assert sorted(run.values) == holders
    assert all(run.values[h] == expected for h in holders)


def test_allgather_conservation_and_link_flits():
    """Each rank ends with all P blocks, none twice, having received (P - 1)/P of the
    vector; links carry Σ_steps Σ_ranks hops(r, r ^ 2^s) · wire flits of a 2^s-block
    message (hops by brute force; DOR routes are minimal)."""
    config = FabricConfig(**SIMPLE)
    radices, P, nbytes = (4, 2, 4), 32, 32 * 48.0
    run = simulate_collective(radices, "allgather", nbytes, config, "recursive-doubling")
    assert run.complete and run.duplicates == 0
    assert all(run.bytes_received[h] == pytest.approx(nbytes * (P - 1) / P)
               for h in range(P))
    flits = 0
    for s, r in itertools.product(range(5), range(P)):
        payload = -(-(2**s) * 48 // 16)
        flits += torus_distance(radices, r, r ^ (1 << s)) * (payload + -(-payload // 15))
    assert run.link_flits == flits


def test_p2p_tree_broadcast_conservation():
    config = FabricConfig(**SIMPLE, send_overhead=7, recv_overhead=7)
    run = simulate_collective((3, 3), "broadcast", 300, config, "p2p-tree")
    assert run.complete and run.duplicates == 0
    assert all(run.bytes_received[h] == 300 for h in range(1, 9))


def test_deterministic():
    config = FabricConfig(**SIMPLE, send_overhead=3, recv_overhead=4)
    for operation, algorithm in [("allgather", "recursive-doubling"),
                                 ("allreduce", "hw-tree"), ("broadcast", "p2p-tree")]:
        a = simulate_collective((4, 4), operation, 1000, config, algorithm)
        b = simulate_collective((4, 4), operation, 1000, config, algorithm)
        assert a.host_cycles == b.host_cycles and a.cycles == b.cycles


def test_credits_and_reduce_window_slow_a_long_reduce():
    """Shallow buffers (one packet per VC) and a reduce window of one packet make a
    17-packet reduce slower than with buffers covering the credit round trip and the
    Angara window (16 ReduceIds, a credit per 8 packets); the result stays the sum."""
    nbytes = 4096
    base = simulate_collective((4, 4), "reduce", nbytes, FabricConfig(**SIMPLE), "hw-tree")
    shallow = simulate_collective((4, 4), "reduce", nbytes,
                                  FabricConfig(**SIMPLE, buffer_flits=16), "hw-tree")
    window = simulate_collective((4, 4), "reduce", nbytes,
                                 FabricConfig(**SIMPLE, reduce_window=1, credit_packets=1),
                                 "hw-tree")
    assert shallow.cycles > base.cycles and window.cycles > base.cycles
    assert shallow.values == base.values == window.values


@pytest.mark.parametrize("kwargs, message", [
    ({"operation": "gather"}, "unknown collective operation"),
    ({"algorithm": "ring"}, "unknown algorithm"),
    ({"operation": "allgather", "algorithm": "hw-tree"}, "runs hw-tree for"),
    ({"operation": "allgather", "algorithm": "recursive-doubling", "radices": (3, 2)},
     "power-of-two"),
    ({"nbytes": 0}, "> 0 bytes"),
])
def test_bad_requests(kwargs, message):
    args = {"radices": (2, 2), "operation": "broadcast", "nbytes": 16, "algorithm": None}
    args.update(kwargs)
    with pytest.raises(InputError, match=message):
        simulate_collective(args["radices"], args["operation"], args["nbytes"],
                            FabricConfig(**SIMPLE), args["algorithm"])


@pytest.mark.parametrize("kwargs", [{"link_rate": 0}, {"buffer_flits": 4},
                                    {"router_delay": -1}, {"header_flits": 16}])
def test_bad_config(kwargs):
    with pytest.raises(InputError):
        FabricConfig(**{**SIMPLE, **kwargs})


@pytest.mark.parametrize("operation, algorithm, nodes, sizes", [
    ("broadcast", "hw-tree", "8", "16,256,4KiB"),
    ("broadcast", "hw-tree", "64", "16,256,4KiB"),
    ("broadcast", "hw-tree", "512", "16,256"),
    ("allgather", "recursive-doubling", "8", "16,256,4KiB"),
    ("allgather", "recursive-doubling", "64", "256,4KiB"),
    ("allgather", "recursive-doubling", "512", "256"),
])
def test_within_ten_percent_of_the_collective_formulas(operation, algorithm, nodes, sizes):
    """Issue #6: hardware-tree broadcast and recursive-doubling all-gather on the Angara
    machine (angara-3d reshaped to 2x2x2, 4x4x4, 8x8x8) within 10 % of model.collectives.
    The simulator is given the machine's parameters in cycles, never the formulas; the
    measured gaps are below 3 % (the largest, +2.6 %, is 4 KiB on 8x8x8, where four
    messages share each link in the last steps and the model charges c · serialization)."""
    from icnperf.api.collective_simulation import collective_rows

    rows, _ = collective_rows(operation, "angara-3d", (), nodes, sizes, algorithm)
    assert len(rows) == len(sizes.split(","))
    for row in rows:
        assert row["nodes"] == int(nodes)
        assert abs(row["difference_percent"]) <= 10, row


def test_one_vc_per_dateline_class_is_the_large_allgather_gap():
    """A measured modelling difference, not tuned away: on a 4-node ring the last
    recursive-doubling step sends 8 KiB from every rank 2 hops in the + direction (the +
    tie rule, set here on both sides, with the raw 8 GB/s host rate these figures were
    measured with), so every link carries two messages, one passing
    through and one just injected. The formula charges each B_link / 2. With one VC per
    dateline class both often need the same VC; the VC is held by a packet whose flits
    arrive at the transit rate, and the link idles: 10-18 % above the formula. A second VC
    per class restores the fair share."""
    import dataclasses

    from icnperf.validation.fabric import fabric_config
    from icnperf.data.machine import load_machine
    from icnperf.model.collectives import Layout, collective_time

    machine = load_machine("angara-3d").with_overrides(
        ["network.ring_ties=plus", "network.host_bandwidth=8GB/s"])
    config, cycle = fabric_config(machine, "mpi")
    model = collective_time(machine, "allgather", "recursive-doubling", [16384],
                            layout=Layout.torus((4,))).time[0] / cycle
    one = simulate_collective((4,), "allgather", 16384,
                              dataclasses.replace(config, vcs_per_class=1))
    two = simulate_collective((4,), "allgather", 16384,
                              dataclasses.replace(config, vcs_per_class=2))
    assert one.cycles > 1.10 * model
    assert abs(two.cycles - model) < 0.03 * model


def test_split_ties_route_half_the_ring_each_way_in_the_simulator_too():
    """With the preset's split ties the last step on the 4-node ring sends ranks 0 and 2 +
    and ranks 1 and 3 -: every channel carries one message, so nothing is shared and the
    simulated all-gather is host-bound like the formula, within 3 % even with one VC per
    dateline class; with + ties the same run is slower (two messages per + channel)."""
    import dataclasses

    from icnperf.data.machine import load_machine
    from icnperf.model.collectives import Layout, collective_time
    from icnperf.model.topology import torus
    from icnperf.validation.fabric import fabric_config

    machine = load_machine("angara-3d")
    config, cycle = fabric_config(machine, "mpi")
    assert config.ring_ties == "split" and config.vcs_per_class == 1
    ranks = np.arange(4)
    assert torus.dor_traffic((4,), ranks, ranks ^ 2, "split") == (2, 1)
    model = collective_time(machine, "allgather", "recursive-doubling", [16384],
                            layout=Layout.torus((4,))).time[0] / cycle
    split = simulate_collective((4,), "allgather", 16384, config)
    plus = simulate_collective((4,), "allgather", 16384,
                               dataclasses.replace(config, ring_ties="plus"))
    assert abs(split.cycles - model) < 0.03 * model
    assert plus.cycles > split.cycles


def test_reduce_window_recurrence_on_a_two_node_ring():
    """The ReduceId window, derived by hand on torus:2 (root 0, one child 1), 1 flit/cycle
    everywhere, t_r = 2, t_l = 100, t_inj = t_ej = 5, 16-flit packets (15 payload), 40
    packets (9,600 B). The child's combined packet p (its host's alone) is ready at
    15p + 22 and leaves on the link at s_p = max(ready, s_{p-1} + 16, credit), 16 flits.
    The root forms packet p and counts it sent at s_p + 15 + 1 + 100 + 2 = s_p + 118;
    after every 8th it returns a credit that reaches the child t_l + t_r + 1 = 103 later,
    so credit q (after packet 8q - 1) arrives at s_{8q-1} + 221 and admits packets
    16 + 8(q-1) .. 16 + 8q - 1. The last packet reaches the root's host at
    s_39 + 118 + 14 + 1 + 5. Recurrence evaluated here: s_39 = 800, completion 938."""
    config = FabricConfig(router_delay=2, link_delay=100, injection_delay=5,
                          ejection_delay=5, link_rate=1.0, host_rate=1.0, flit_bytes=16,
                          packet_flits=16, header_flits=1)
    n = 40
    s = []
    for p in range(n):
        start = 15 * p + 22
        if p:
            start = max(start, s[p - 1] + 16)
        if p >= 16:
            q = (p - 16) // 8 + 1
            start = max(start, s[8 * q - 1] + 221)
        s.append(start)
    assert s[-1] == 800
    run = simulate_collective((2,), "reduce", n * 240, config, "hw-tree")
    assert run.cycles == s[-1] + 118 + 14 + 1 + 5 == 938
    assert run.values[0] == [1000 * 3 + 2 * j for j in range(n)]
