"""``predict app --production`` with several processes per node: a phase's all-reduce is
charged the steps ``predict collective --production`` counts (model/production.
collective_steps), not a one-rank-a-node schedule. Worked by hand below."""

import json

import pytest
from click.testing import CliRunner

from icnperf.cli import cli

# hypothetical values (not lumi's): f = 1 GHz hits every step of any length (q = 1)
EVERY_STEP = ["production.noise_frequency=1GHz", "production.noise_duration=10us",
              "production.background_utilization=0"]


def _heat(*values):
    args = ["predict", "app", "heat", "--machine", "lumi", "--nodes", "16", "--ppn", "8",
            "--steps", "1", "--algorithm", "recursive-doubling", "--production",
            "--format", "json"]
    for value in values:
        args += ["--set", value]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return {row["phase"]: row for row in json.loads(result.output)["rows"]}


def test_allreduce_phase_counts_the_steps_over_every_rank():
    """16 nodes x 8 ranks = 128 ranks: recursive doubling takes lg 128 = 7 steps (a
    one-rank-a-node schedule, as before, took lg 16 = 4), plus the repeat's bulk step: 8
    detours of 10 us; the other phases one each."""
    rows = _heat(*EVERY_STEP)
    extra = {name: (row["time_s"] - row["empty_time_s"]) / 10e-6 for name, row in rows.items()}
    assert extra == pytest.approx({"stencil": 1, "halo-x": 1, "halo-y": 1, "allreduce": 8})


def test_only_steps_leaving_a_node_wait_the_background():
    """Ranks r..r+7 on one node (linear): recursive doubling's partners at distance 1, 2
    and 4 share the node, those at 8, 16, 32, 64 do not: 4 of its 7 steps wait the
    background, plus the repeat's bulk step: 5 waits, against 1 for each other phase."""
    from icnperf.model.production import queueing_per_message
    import icnperf

    values = ["production.background_utilization=0.3", "production.noise_frequency=0Hz",
              "production.noise_duration=0s"]
    wait = queueing_per_message(icnperf.machine("lumi", set=values))
    assert wait > 0
    rows = _heat(*values)
    extra = {name: (row["time_s"] - row["empty_time_s"]) / wait for name, row in rows.items()}
    assert extra == pytest.approx({"stencil": 1, "halo-x": 1, "halo-y": 1, "allreduce": 5})
