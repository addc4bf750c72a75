"""Pairwise all-gather and all-to-all past the 4,096-rank limit of mapped steps: evaluated
where the layout counts its P - 1 steps in structure (a whole torus, crossbar, gdragonfly
or dfplus, linear placement, any processes per node), left out and refused elsewhere."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.data.machine import load_machine
from icnperf.errors import InputError
from icnperf.model import collectives as C
from icnperf.model.budget import mapping_cost
from icnperf.model.collectives import structured


def test_every_shift_of_a_torus_past_the_old_limit_equals_the_mapper():
    # 5,120 ranks (over the 4,096 a mapped pairwise takes): each of the 5,119 steps'
    # (hops, channel load, host load, intra) from the closed form equals the messages routed
    layout = C.Layout.torus((8, 8, 80))
    assert structured.counts_steps_in_structure(layout)
    shifts = np.arange(1, layout.ranks)
    ranks = np.arange(layout.ranks, dtype=np.int64)
    counted = structured.shift_traffic(layout, shifts)
    for d in (1, 2, 7, 8, 63, 64, 65, 639, 640, 2560, 4095, 4096, 4097, 5119):
        assert counted[d - 1] == layout.rank_traffic(ranks, (ranks + d) % layout.ranks)


LIMIT_REASON = ("beyond its 4,096-rank limit (its steps are mapped message by message "
                "here; they are counted in structure on a whole torus, crossbar, gdragonfly "
                "or dfplus, on part of a gdragonfly (P not a power of two) and on a fat tree "
                "with random up ports, nodes placed linearly)")


def test_pairwise_runs_at_a_whole_torus_past_4096_ranks_and_not_placed_at_random():
    machine = load_machine("angara-4d")  # torus 8x8x8x16: 8,192 nodes
    whole = C.collective_time(machine, "alltoall", "pairwise", [2.0**20])
    assert whole.time[0] > 0
    assert "pairwise" in C.compare(machine, "alltoall", [2.0**20])
    # two ranks a node: each step is two weighted node shifts, counted as well
    assert "pairwise" not in C.left_out(machine, "alltoall", processes_per_node=2)
    assert C.collective_time(machine, "alltoall", "pairwise", [2.0**20],
                             processes_per_node=2).time[0] > 0
    # placed at random the steps would be mapped message by message (P (P - 1) of them):
    # left out, and refused when named
    shuffled = C.left_out(machine, "alltoall", placement="random")
    assert shuffled["pairwise"] == LIMIT_REASON
    with pytest.raises(InputError, match="at most 4096 ranks"):
        C.collective_time(machine, "alltoall", "pairwise", [2.0**20], placement="random")


def test_pairwise_runs_on_part_of_a_gdragonfly_and_on_a_whole_one():
    frontier = load_machine("frontier")  # 9,408 of a 9,472-endpoint gdragonfly
    assert "pairwise" not in C.left_out(frontier, "alltoall")
    assert "pairwise" not in C.left_out(frontier, "alltoall", processes_per_node=8)
    # placed at random the steps are mapped message by message: left out
    assert C.left_out(frontier, "alltoall", placement="random")["pairwise"] == LIMIT_REASON
    aurora = load_machine("aurora")  # the whole gdragonfly, 10,624 nodes
    assert "pairwise" not in C.left_out(aurora, "alltoall", processes_per_node=12)


def test_pairwise_on_a_fat_tree_is_counted_under_random_up_ports_only():
    machine = load_machine("summit")
    layout = C.Layout.from_topology("fattree:k=32,n=3")  # 8,192 endpoints
    assert structured.counts_steps_in_structure(layout.tree_routed("random"))
    assert "pairwise" not in C.left_out(machine, "allgather", layout)
    # d mod k up ports load channels by destination residue: still mapped
    dmodk = layout.tree_routed("dmodk")
    assert not structured.counts_steps_in_structure(dmodk)
    assert C.left_out(machine, "allgather", dmodk)["pairwise"] == LIMIT_REASON


def test_the_budget_charges_counted_steps_linearly_and_mapped_ones_quadratically():
    def seconds(ranks, counted):
        return mapping_cost([ranks], ["pairwise"], operation="alltoall", counted=counted)[1]

    assert seconds(8192, True) / seconds(4096, True) < 2.5
    assert seconds(4096, False) / seconds(2048, False) > 3.5
    assert seconds(158976, True) < 60  # Fugaku's nodes, one rank each: inside the budget


def test_naming_a_left_out_algorithm_says_why():
    """--algorithm pairwise past the limit on a layout whose steps are mapped: the refusal
    names the limit (it said 'does not define alltoall', which pairwise does); an algorithm
    that does not define the operation is still told so."""
    from click.testing import CliRunner

    from icnperf.cli import cli

    left = CliRunner().invoke(cli, ["predict", "collective", "alltoall", "--machine",
                                    "angara-4d", "--algorithm", "pairwise", "--placement",
                                    "random"])
    assert left.exit_code == 2 and left.output.count("\n") == 1
    assert "pairwise is left out of alltoall on torus:8x8x8x16: beyond its 4,096-rank limit" \
        in left.output
    undefined = CliRunner().invoke(cli, ["predict", "collective", "barrier", "--machine",
                                         "angara-4d", "--nodes", "8", "--algorithm", "ring"])
    assert undefined.exit_code == 2 and "ring does not define barrier" in undefined.output


def test_pairwise_keeps_no_limit_among_the_presets():
    """Every bundled preset at its full size, at one rank a node and at its own ranks a
    node: pairwise all-to-all runs on every one, including the jobs on part of a
    gdragonfly (Frontier 9,408 of 9,472 endpoints, LUMI-G 2,978 of 3,072 at 8 ranks a
    node, Piz Daint 5,320 of 5,376; counted per kind of group, before left out past
    4,096 ranks). (Summit's 4,608 of 11,664 is a fat tree with random up ports:
    counted.)"""
    from icnperf.data.machine.presets import list_presets

    left = set()
    for name, _ in list_presets():
        machine = load_machine(name)
        for ppn in sorted({1, int(machine.get("node.processes_per_node", 1))}):
            reason = C.left_out(machine, "alltoall", processes_per_node=ppn).get("pairwise")
            if reason is not None:
                assert reason == LIMIT_REASON
                left.add((name, ppn))
    assert left == set()
