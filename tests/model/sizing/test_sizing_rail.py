"""Sizing's GPU fabric variants (model/sizing/rail_designs.py): the trees chosen, their cost
and the workload time on rail against plain trees, worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.data.machine import load_machine
from icnperf.data.sizing_inputs import load_cost_model
from icnperf.errors import InputError
from icnperf.model.apps.skeleton import Skeleton
from icnperf.model.sizing import rail_designs as rd
from icnperf.model.sizing.cost import total_cost
from icnperf.model.sizing.designs import candidate
from icnperf.model.sizing.space import TAPERS, enumerate_space
from icnperf.model.sizing.workload import predict_workload, workload_from_dict
from icnperf.model.topology import rail as rl


def test_nic_options_and_gpu_nics():
    assert rd.rail_options(8) == (8, 4)
    assert rd.rail_options(4) == (4, 2)
    assert rd.rail_options(0) == ()
    assert rd.design_values(4, 8) == {"node.nics_per_node": 4,
                                      "node.gpu_nics": "0 0 1 1 2 2 3 3"}


def test_smallest_trees_by_hand():
    """128 nodes of 8 NICs (1,024 NICs). 1:1: m1 = u with 8 | u; u = 8 needs 128 leaves
    (> 16 ports), u = 16 needs 64 (> 32), u = 24 needs ceil(1024/24) = 43 -> 48 leaves
    <= 48 ports. 4:1: m1 = 4u, 8 | 4u; u = 8: 32 leaves of 32 NICs under 8 spines, radix
    40."""
    assert rd._smallest_tree(128, 192, 128, 8, 1) == ((24, 48), (1, 24))
    assert rd._smallest_tree(128, 192, 128, 8, 4) == ((32, 32), (1, 8))
    assert rd._smallest_tree(128, 192, 16, 8, 1) is None


def test_space_pairs_rail_and_plain_on_the_same_switches():
    (block,) = enumerate_space(16, ("rail",), rails=(8, 4))
    assert len(block) == 2 * len(TAPERS) * 2
    for i in range(0, len(block), 2):
        a, b = block.params_of(i), block.params_of(i + 1)
        assert (a["m"], a["w"], a["rails"]) == (b["m"], b["w"], b["rails"])
        assert (a["join"], b["join"]) == (2, 1)
    with pytest.raises(InputError, match="GPU machine"):
        enumerate_space(16, ("rail",))


def test_one_nic_a_node_offers_the_plain_tree_once():
    """With one NIC per node (a 1-GPU node, or a 2-GPU node's one NIC per two GPUs) the rail
    placement puts every NIC where the plain one does (rail.positions equal), so the study
    offered the same network twice; now one design per taper."""
    m = (6, 6)
    nics = np.arange(36)
    assert np.array_equal(rl.positions(1, m, 2, nics), rl.positions(1, m, 1, nics))
    (block,) = enumerate_space(16, ("rail",), rails=(2, 1))
    designs = [block.params_of(i) for i in range(len(block))]
    assert sorted(d["join"] for d in designs if d["rails"] == 1) == [1] * len(TAPERS)
    assert sorted(d["join"] for d in designs if d["rails"] == 2) == \
        sorted([1, 2] * len(TAPERS))


def test_cost_by_hand():
    """rail:rails=8,m=32x32,w=1x8: 32 leaves of radix 40 and 8 spines, all priced at the
    design radix 40: 40 x (5000 + 40 x 300) = 680,000; 256 leaf-spine cables x 100; 1,024
    NICs x (100 + 800) = 921,600: 1,627,200, the same for the plain tree."""
    model = load_cost_model(None)
    for join in (2, 1):
        design = candidate("rail", {"rails": 8, "m": (32, 32), "w": (1, 8), "join": join})
        assert total_cost(design, model) == 1_627_200


def _workload(app: str, **problem):
    from icnperf.data.skeleton import load_skeleton

    return workload_from_dict({"description": "d", "rationale": "r", "app": [
        {"name": app, "weight": 1, "app": app, "problem": problem}]}, "test", load_skeleton)


def test_moe_suffers_from_taper_on_the_plain_tree_only():
    """16 nodes of dgx-h100 on rail:rails=8,m=16x8,w=1x4 (leaves of 16 NICs, 4 up: 4:1),
    moe-step over ep = 64 GPUs (8 nodes). The rail tree keeps the PXN all-to-all in the
    rail leaves: as fast as the full tree. The plain tree (2 nodes per leaf) sends 2 x 8 NICs
    x 6 peers x 1/8 = 12 out over 4 channels, 3 per channel against a NIC's 7/8: slowdown
    24/7. The network term of one all-to-all is g(N-g)/N S / B_net = 7 S / (8 x 50 GB/s),
    S = 8192 x 2 x 4096 x 2 B; 128 all-to-alls per step (dispatch and combine, forward and
    backward, 32 layers): the plain tree adds 128 x 7 S / B_net x (24/7 - 1)."""
    machine = load_machine("dgx-h100")
    work = _workload("moe-step", ep=64)

    def time(m, w, join):
        design = candidate("rail", {"rails": 8, "m": m, "w": w, "join": join})
        return sum(t.weighted_s for t in predict_workload(work, machine, design, 16, {}))

    rail, plain = time((16, 8), (1, 4), 2), time((16, 8), (1, 4), 1)
    full = time((8, 16), (1, 8), 2)
    size, net = 8192 * 2 * 4096 * 2, 8 * 50e9
    assert rail == pytest.approx(full, rel=1e-12)
    assert plain - rail == pytest.approx(128 * 7 * size / net * (24 / 7 - 1), rel=1e-9)


def test_dp_ring_barely_notices_the_taper():
    """dp-step's bucketed all-reduce on the same 16 nodes: the ring leaves a leaf by one
    node's NICs, within any up channel count here, so every tree of 8 NICs per node gives
    the same step time."""
    machine = load_machine("dgx-h100")
    work = _workload("dp-step")
    times = {sum(t.weighted_s for t in predict_workload(
        work, machine, candidate("rail", {"rails": 8, "m": m, "w": w, "join": join}), 16, {}))
        for m, w in (((16, 8), (1, 4)), ((8, 16), (1, 8))) for join in (1, 2)}
    assert len(times) == 1
    assert isinstance(work.terms[0].skeleton, Skeleton)
