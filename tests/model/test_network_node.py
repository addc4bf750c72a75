"""model/network/node.py and the node side of p2p_table: processes spread over a node's NICs,
messages inside a node through shared memory. Expectations are hand derived."""

import numpy as np
import pytest

from icnperf.data.machine import load_machine
from icnperf.errors import InputError
from icnperf.model import network


@pytest.fixture(scope="module")
def angara():
    return load_machine("angara-3d")


@pytest.mark.parametrize("p, k, expected", [(1, 1, 1), (8, 1, 8), (8, 4, 2), (5, 4, 2),
                                            (4, 6, 1), (48, 6, 8)])
def test_processes_per_nic_is_the_busiest_nic(p, k, expected):
    # round robin: NIC j gets processes j, j + k, ...; the busiest holds ceil(p / k)
    busiest = max(len(range(j, p, k)) for j in range(k))
    assert busiest == expected
    assert network.processes_per_nic(p, k) == expected


def test_node_injection_scales_with_nics():
    assert network.node_injection_bandwidth(25e9, 4) == 100e9
    assert network.node_injection_bandwidth(25e9) == 25e9


def test_shared_memory_time_hand_computed():
    t = network.shared_memory_time(1 << 20, shared_memory_latency=0.25e-6,
                                   shared_memory_bandwidth=10e9)
    assert t == pytest.approx(0.25e-6 + 1048576 / 10e9)


def test_shared_memory_parameters_name_the_missing_key(angara):
    with pytest.raises(InputError, match="node.shared_memory_latency"):
        network.shared_memory_parameters(angara)
    m = angara.with_overrides(["node.shared_memory_latency=0.3us",
                               "node.shared_memory_bandwidth=8GB/s"])
    assert network.shared_memory_parameters(m) == {"shared_memory_latency": 0.3e-6,
                                                   "shared_memory_bandwidth": 8e9}


def test_nics_spread_the_processes_of_a_node(angara):
    """8 processes over 4 NICs behave as 2 processes on one NIC, column for column; the
    node's message rate is 4 x the one-NIC node's at the same per-process rate."""
    sizes = [8, 4096, 1 << 20]
    four = angara.with_overrides(["node.nics_per_node=4"])
    spread = network.p2p_table(four, sizes, 1, processes_per_node=8).columns
    two = network.p2p_table(angara, sizes, 1, processes_per_node=2).columns
    for name in network.COLUMNS:
        np.testing.assert_allclose(spread[name], two[name], rtol=0, atol=0)
    single = network.p2p_table(angara, sizes, 1, processes_per_node=8).columns
    ser = single["serialization_s"]
    assert single["sharing_delay_s"] == pytest.approx(7 * ser)
    assert spread["sharing_delay_s"] == pytest.approx(1 * ser)
    # one process per node: the NIC count changes nothing
    alone = network.p2p_table(four, sizes, 1).columns
    base = network.p2p_table(angara, sizes, 1).columns
    np.testing.assert_array_equal(alone["latency_s"], base["latency_s"])


def test_nic_note_in_the_assumptions(angara):
    four = angara.with_overrides(["node.nics_per_node=4"])
    notes = network.p2p_table(four, [8], 1, processes_per_node=6).assumptions
    assert any("spread round robin over the node's 4 NICs: 2 share" in n for n in notes)


def test_intra_node_table(angara):
    m = angara.with_overrides(["node.shared_memory_latency=0.4us",
                               "node.shared_memory_bandwidth=5GB/s"])
    sizes = np.array([0.0, 8.0, 65536.0])
    cols = network.p2p_table(m, sizes, same_node=True).columns
    expected = 0.4e-6 + sizes / 5e9
    np.testing.assert_allclose(cols["latency_s"], expected, rtol=1e-15)
    np.testing.assert_allclose(cols["bandwidth_Bps"][1:], sizes[1:] / expected[1:])
    # streaming: one message per max(L / 2, m / B)
    interval = np.maximum(0.2e-6, sizes / 5e9)
    np.testing.assert_allclose(cols["message_rate_per_s"], 1 / interval)
    assert not cols["hops"].any() and not cols["packets"].any()
    with pytest.raises(InputError, match="no hops"):
        network.p2p_table(m, sizes, 2, same_node=True)
    with pytest.raises(InputError, match="shared_memory_latency"):
        network.p2p_table(angara, sizes, same_node=True)
