"""``--production`` on collectives with several processes per node, hierarchical (node
leaders) or flat, and other placements (model/production.collective_steps): steps and the
ranks each waits for counted by hand, the binomial median brute-forced over every outcome."""

import itertools
import json
import math

import pytest
from click.testing import CliRunner

import icnperf
from icnperf.cli import cli
from icnperf.data.machine import load_machine
from icnperf.model.collectives import Layout, machine_layout
from icnperf.model.production import collective_steps

# hypothetical noise (not a machine's): every step of any collective is hit
ALWAYS = ["production.noise_frequency=1GHz", "production.noise_duration=10us"]


def _rows(machine, **options):
    return icnperf.predict_collective(machine, "allreduce", bytes="8", **options
                                      ).to_dict()["rows"]


def _placed(preset, nodes, ppn):
    machine = load_machine(preset)
    layout = Layout.one_node() if nodes == 1 else \
        Layout.from_topology(machine.topology).on_part(nodes)
    return machine_layout(machine, layout).placed(ppn, "linear", 0)


def test_steps_and_ranks_per_step_by_hand():
    # hierarchical all-reduce, 128 ranks a node: ceil(lg 128) = 7 rounds of reduce and 7 of
    # broadcast inside every node at once (all N x 128 ranks wait for the slowest), then
    # recursive doubling among the N leaders, lg N steps on N ranks, each leaving its node
    assert collective_steps("allreduce", "recursive-doubling", _placed("lumi", 4, 128),
                            "node") == (((14, 512, "node"), (2, 4, "network")), 2)
    assert collective_steps("allreduce", "recursive-doubling", _placed("lumi", 1, 128),
                            "node") == (((14, 128, "node"),), 0)       # no leaders' step
    # a broadcast has only the fan-out after the leaders' step: 3 rounds for 8 ranks
    assert collective_steps("broadcast", "binomial", _placed("lumi", 2, 8),
                            "node") == (((3, 16, "node"), (1, 2, "network")), 1)
    # flat recursive doubling over 16 x 4 = 64 ranks: lg 64 = 6 steps on all 64; partners
    # r XOR 1 and r XOR 2 share a node (ranks r..r+3 on one), the other 4 steps leave it
    assert collective_steps("allreduce", "recursive-doubling", _placed("piz-daint", 16, 4),
                            "flat") == (((6, 64, "time"),), 4)


def _median_by_enumeration(qs, quantile):
    """The smallest k with P(delayed steps <= k) >= quantile, over all 2^S outcomes of S
    independent steps hit with probabilities ``qs``."""
    pmf = [0.0] * (len(qs) + 1)
    for hits in itertools.product((0, 1), repeat=len(qs)):
        pmf[sum(hits)] += math.prod(q if h else 1 - q for q, h in zip(qs, hits))
    return next(k for k in range(len(pmf)) if sum(pmf[:k + 1]) >= quantile * (1 - 1e-12))


def test_lumi_g_two_nodes_eight_gcds_by_hand():
    # 2 nodes x 8 GCDs, 8 bytes on GPU buffers, recursive doubling among the leaders,
    # hypothetical noise 20 kHz x 10 us. Steps: 2 ceil(lg 8) = 6 node-local rounds (binomial
    # reduce, then broadcast) on 2 x 8 = 16 ranks, each of the node-local time / 6; 1
    # leaders' exchange (lg 2) on 2 ranks, of the inter-node time
    noisy = ["production.noise_frequency=20kHz", "production.noise_duration=10us"]
    options = dict(nodes="2", ppn=8, buffers="gpu", algorithm="recursive-doubling")
    (empty,) = _rows("lumi-g", **options)
    (row,) = _rows("lumi-g", production=True, set=noisy, **options)
    assert empty["hierarchy"] == "node"
    local, network = empty["node_local_s"], empty["inter_node_s"]
    assert local + network == pytest.approx(empty["time_s"], rel=1e-12)
    q_local = 1 - math.exp(-16 * 20e3 * local / 6)
    q_leaders = 1 - math.exp(-2 * 20e3 * network)
    # at lumi-g's 1.34 us IPC message and 2.50 us leaders' step: q = 0.349 and 0.095
    assert (q_local, q_leaders) == pytest.approx((0.3487, 0.0950), abs=5e-4)
    qs = [q_local] * 6 + [q_leaders]
    # P(K = 0) = 0.069 >= 5 %; P(K <= 1) = 0.298, P(K <= 2) = 0.618: median 2 detours;
    # P(K <= 3) = 0.862, P(K <= 4) = 0.969: 95th percentile 4
    assert [_median_by_enumeration(qs, p) for p in (0.05, 0.5, 0.95)] == [0, 2, 4]
    assert row["empty_time_s"] == pytest.approx(empty["time_s"], rel=1e-12)
    assert (row["time_s_low"], row["time_s"], row["time_s_high"]) == pytest.approx(
        (empty["time_s"], empty["time_s"] + 2e-5, empty["time_s"] + 4e-5), rel=1e-9)
    # the JSON fields of one rank a node, for 7 steps of which 1 leaves the node
    assert row["production_steps"] == 7
    assert row["background_waiting_steps"] == 1
    assert row["noise_hit_probability"] == pytest.approx((6 * q_local + q_leaders) / 7,
                                                         rel=1e-9)
    assert row["background_offered_load"] == 0.0 == row["background_wait_per_step_s"]


def test_background_waits_only_on_steps_that_leave_the_node():
    from icnperf.model.network import p2p_table
    from icnperf.model.production import _saturation

    # hypothetical 30 % background, the preset's noise off: only the background is added
    quiet = ["production.background_utilization=0.3", "production.noise_frequency=0Hz"]
    machine = load_machine("lumi").with_overrides(quiet)
    load = 0.3 * _saturation(machine)
    wait = float(p2p_table(machine, [8], None, "mpi", offered_load=load)
                 .columns["queueing_delay_s"][0])
    assert wait > 0
    # hierarchical, 2 nodes x 128: 14 node-local rounds never leave the node, the one
    # leaders' exchange does
    options = dict(nodes="2", ppn=128, algorithm="recursive-doubling")
    (empty,) = _rows(machine, **options)
    (row,) = _rows(machine, production=True, **options)
    assert row["time_s"] == pytest.approx(empty["time_s"] + wait, rel=1e-9)
    assert (row["production_steps"], row["background_waiting_steps"]) == (15, 1)
    # flat over 16 x 4 ranks: 4 of the 6 recursive-doubling steps leave their node
    options = dict(nodes="16", ppn=4, hierarchy="flat", algorithm="recursive-doubling")
    (empty,) = _rows(machine, **options)
    (row,) = _rows(machine, production=True, **options)
    assert row["time_s"] == pytest.approx(empty["time_s"] + 4 * wait, rel=1e-9)
    assert (row["production_steps"], row["background_waiting_steps"]) == (6, 4)


@pytest.mark.parametrize("placement", ["spread", "random"])
def test_other_placements_carry_the_same_noise(placement):
    # lumi's dragonfly: 16 nodes spread over the groups (or randomly); every one of lg 16
    # = 4 steps hit, so each adds one 10-us detour to the placed layout's empty time
    options = dict(nodes="16", algorithm="recursive-doubling", placement=placement)
    (empty,) = _rows("lumi", **options)
    (row,) = _rows("lumi", production=True, set=ALWAYS, **options)
    assert row["empty_time_s"] == empty["time_s"]
    assert row["time_s"] == pytest.approx(empty["time_s"] + 4e-5, rel=1e-9)
    assert row["production_steps"] == 4


def test_one_node_under_auto_is_its_node_local_rounds():
    # one node, 128 ranks: 'auto: node-local only', 14 rounds all hit
    (empty,) = _rows("lumi", nodes="1", ppn=128, algorithm="auto")
    (row,) = _rows("lumi", nodes="1", ppn=128, algorithm="auto", production=True,
                   set=ALWAYS)
    assert row["algorithm"] == "auto: node-local only"
    assert row["time_s"] == pytest.approx(empty["time_s"] + 14e-5, rel=1e-9)
    assert (row["production_steps"], row["background_waiting_steps"]) == (14, 0)


def test_uncertainty_shifts_every_draw_by_its_steps():
    # every step hit in every draw: the range is the --uncertainty range moved by 7 x 10 us
    options = dict(nodes="2", ppn=8, buffers="gpu", algorithm="recursive-doubling",
                   uncertainty=True, samples=40, set=ALWAYS)
    (plain,) = _rows("lumi-g", **options)
    (busy,) = _rows("lumi-g", production=True, **options)
    for key in ("time_s_low", "time_s_high"):
        assert busy[key] == pytest.approx(plain[key] + 7e-5, rel=1e-9)


def test_a_leaders_step_without_a_schedule_is_one_line():
    # the point-to-point tree among fugaku's node leaders has no step schedule
    result = CliRunner().invoke(cli, ["predict", "collective", "allreduce", "--machine",
                                      "fugaku", "--nodes", "8", "--ppn", "4", "--bytes",
                                      "8", "--hierarchy", "node", "--algorithm", "p2p-tree",
                                      "--production"])
    assert result.exit_code == 2, result.output
    assert "step schedule" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_json_inputs_record_the_layout():
    result = CliRunner().invoke(cli, ["predict", "collective", "allreduce", "--machine",
                                      "lumi", "--nodes", "2", "--ppn", "128", "--bytes",
                                      "8", "--algorithm", "recursive-doubling",
                                      "--production", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["inputs"]["processes_per_node"] == 128
    assert doc["inputs"]["hierarchy"] == "node"
    assert doc["inputs"]["production"] == {"noise_frequency": 253.0,
                                           "noise_duration": 4e-6}
