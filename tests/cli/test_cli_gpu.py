"""``predict p2p|collective|app --buffers gpu`` through Click's CliRunner: the options, their
one-line errors, and every GPU preset answering with and without --same-node."""

import json

import pytest
from click.testing import CliRunner

from icnperf.cli import cli

GPU_PRESETS = ("dgx-a100", "dgx-h100", "dgx-b200", "gb200-nvl72", "alps", "lumi-g",
               "frontier", "el-capitan", "jupiter", "juwels-booster", "aurora", "perlmutter")


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _rows(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["rows"]


def test_same_node_pair_named_by_from_and_to_gpu():
    # frontier GCDs 0 and 6: two xGMI links of 50 GB/s; overhead 1340 ns (lumi-g's)
    rows = _rows(run("predict", "p2p", "--machine", "frontier", "--buffers", "gpu",
                     "--same-node", "--from-gpu", "0", "--to-gpu", "6", "--bytes", "4MiB",
                     "--format", "json"))
    assert rows[0]["latency_s"] == pytest.approx(1340e-9 + 4194304 / 100e9, rel=1e-12)


def test_default_pair_is_stated():
    result = run("predict", "p2p", "--machine", "dgx-h100", "--buffers", "gpu",
                 "--same-node", "--bytes", "8")
    assert result.exit_code == 0
    assert "GPU 0 -> GPU 1" in result.output and "GPU buffers" in result.output


@pytest.mark.parametrize("args, words", [
    (("--buffers", "gpu", "--to-gpu", "2"), "--same-node"),
    (("--from-gpu", "1"), "--buffers gpu"),
    (("--buffers", "gpu", "--same-node", "--to-gpu", "9"), "GPUs 0..7"),
    (("--buffers", "gpu", "--ppn", "9"), "9 processes per node"),
])
def test_bad_gpu_options_are_one_line_errors(args, words):
    result = CliRunner().invoke(cli, ["predict", "p2p", "--machine", "frontier", *args])
    assert result.exit_code == 2
    assert words in result.output and "Traceback" not in result.output


def test_gpu_buffers_on_a_machine_without_gpus():
    result = CliRunner().invoke(cli, ["predict", "p2p", "--machine", "lumi", "--buffers",
                                      "gpu"])
    assert result.exit_code == 2 and "has no GPUs" in result.output


@pytest.mark.parametrize("name", GPU_PRESETS)
def test_every_gpu_preset_answers_gpu_buffers(name):
    between = _rows(run("predict", "p2p", "--machine", name, "--buffers", "gpu", "--bytes",
                        "8,4MiB", "--format", "json"))
    inside = _rows(run("predict", "p2p", "--machine", name, "--buffers", "gpu",
                       "--same-node", "--bytes", "8,4MiB", "--format", "json"))
    # the scale-up pair 0 -> 1 is faster for large messages than the NIC on every preset
    assert inside[1]["latency_s"] < between[1]["latency_s"]


def test_collective_on_gpu_buffers_uses_the_gpu_overhead():
    args = ("predict", "collective", "allreduce", "--machine", "lumi-g", "--nodes", "4",
            "--bytes", "8", "--algorithm", "recursive-doubling", "--format", "json")
    host = _rows(run(*args))[0]
    gpu = _rows(run(*args, "--buffers", "gpu"))[0]
    # lg 4 = 2 rounds, each one 8-byte message: (1340 - 645) ns more per round
    assert gpu["time_s"] - host["time_s"] == pytest.approx(2 * 695e-9, rel=1e-6)
