"""The Slingshot presets' dragonfly cabling equals the published figures their sources cite,
worked out by hand here (not read back from the presets' own prose)."""

from __future__ import annotations

import pytest

from icnperf.data.machine import load_machine
from icnperf.model.topology.spec import parse_spec

ROSETTA_PORTS = 64            # 64-port switch (ALCF, 'Aurora interconnect')
LINK_BOTH_WAYS = 2 * 25e9     # one 200 Gbit/s link, 25 GB/s each way, counted both ways


def _shape(name: str) -> dict[str, int]:
    spec = parse_spec(load_machine(name).topology)
    assert spec.family.name == "gdragonfly"
    return {"b": 1, **spec.params}


def _nodes(name: str) -> int:
    return int(load_machine(name).get("system.nodes"))


def test_lumi_g_is_the_user_guides_24_groups_of_32_switches():
    """LUMI user guide, docs/hardware/network.md: 24 groups of 124 nodes, the last 126; 32
    switches a group, 16 endpoints a switch, 4 endpoints a node."""
    s = _shape("lumi-g")
    assert (s["g"], s["a"], s["b"]) == (24, 32, 1)
    assert s["p"] * 4 == 16                       # node slots x NICs = endpoint ports
    assert 23 * 124 + 126 == _nodes("lumi-g") == 2978 <= s["g"] * s["a"] * s["p"]


def test_lumi_g_global_links_give_the_guides_276_tb_s():
    """276 TB/s LUMI-G to LUMI-G = 276 group pairs x m links x 50 GB/s, so m = 20; and the
    group's global ports (23 x 20 to LUMI-G, 8 x 4 to LUMI-C, 48 + 144 + 192 links to
    LUMI-M, -F, -P over 24 groups) fit in 32 switches x (64 - 16 - 31) ports."""
    s = _shape("lumi-g")
    pairs = 24 * 23 // 2
    assert pairs == 276
    assert pairs * s["m"] * LINK_BOTH_WAYS == pytest.approx(276e12, rel=1e-12)
    assert 24 * 8 * 4 * LINK_BOTH_WAYS == pytest.approx(38.4e12, rel=1e-12)
    used = 23 * s["m"] + 8 * 4 + (48 + 144 + 192) // 24
    assert used == 508 <= 32 * (ROSETTA_PORTS - 16 - 31) == 544
    assert 23 * 2 * s["m"] > 544                  # a link counted one way cannot be cabled


def test_lumi_c_is_8_groups_of_16_switches_with_16_links_a_pair():
    s = _shape("lumi")
    assert (s["g"], s["a"], s["p"], s["m"]) == (8, 16, 16, 16)
    assert 8 * 256 == _nodes("lumi") == s["g"] * s["a"] * s["p"]
    assert 8 * 7 // 2 * s["m"] * LINK_BOTH_WAYS == pytest.approx(22.4e12, rel=1e-12)


def test_aurora_has_2_links_between_compute_groups():
    """Lockwood's Aurora notes (citing DAOS User Group 2022): 166 compute groups, 2 links per
    compute group pair, 32 switches of 16 endpoint ports; 64 nodes of 8 NICs a rack."""
    s = _shape("aurora")
    assert (s["g"], s["a"], s["m"]) == (166, 32, 2)
    assert s["p"] * 8 == 16 and 64 * 8 == 32 * 16
    assert 166 * 64 == _nodes("aurora") == s["g"] * s["a"] * s["p"]
    assert 165 * s["m"] == 330                     # global links out of a compute group


def test_frontier_has_4_links_between_its_74_groups():
    s = _shape("frontier")
    assert (s["g"], s["a"], s["p"], s["m"]) == (74, 32, 4, 4)
    assert 73 * s["m"] == 292 <= 32 * 16          # within the 16 global ports of a switch
    assert _nodes("frontier") <= 74 * 128


@pytest.mark.parametrize("name", ["lumi-g", "frontier"])
def test_ex235a_nics_spread_over_switches(name):
    """LUMI user guide: 'each endpoint connected to different switches' (the EX235a blade;
    Frontier's value is transferred from it)."""
    assert load_machine(name).get("node.nic_attachment") == "spread"
