"""``icnperf simulate collective`` through Click's CliRunner."""

import json

import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.validation.fabric import fabric_config
from icnperf.data.machine import load_machine


def run(*args):
    return CliRunner().invoke(cli, ["simulate", "collective", *args])


def test_angara_mapping_to_cycles():
    """angara-3d: 500 MHz router clock -> 2 ns cycles; 8 ns router = 4, 80 ns link = 40,
    300 ns PCIe = 150 cycles; 75 Gbit/s = 9.375 GB/s over 16 B flits at 2 ns = 1.171875
    flits/cycle; 5.85 GB/s host = 0.73125 flit/cycle; MPI overhead 300 ns = 150 cycles,
    75 + 75; ring ties split as the preset says."""
    config, cycle = fabric_config(load_machine("angara-3d"), "mpi")
    assert cycle == pytest.approx(2e-9)
    assert (config.router_delay, config.link_delay, config.injection_delay,
            config.ejection_delay) == (4, 40, 150, 150)
    assert config.link_rate == pytest.approx(1.171875)
    assert config.host_rate == pytest.approx(0.73125)
    assert config.ring_ties == "split"
    assert (config.send_overhead, config.recv_overhead) == (75, 75)
    assert config.collective_store_and_forward and not config.p2p_store_and_forward


def test_machine_vc_count_and_depth_reach_the_simulator():
    """network.virtual_channels = 4 ordinary VCs -> 2 per dateline class;
    network.vc_buffer_flits sets every VC buffer."""
    machine = load_machine("angara-3d").with_overrides(["network.virtual_channels=4",
                                                        "network.vc_buffer_flits=64"])
    config, _ = fabric_config(machine, "none")
    assert config.vcs_per_class == 2 and config.buffer_flits == 64
    assert config.send_overhead == config.recv_overhead == 0


def test_table_and_json():
    result = run("broadcast", "--machine", "angara-3d", "--nodes", "8,64")
    assert result.exit_code == 0, result.output
    assert "torus:2x2x2" in result.output and "torus:4x4x4" in result.output
    assert "sim - model (%)" in result.output
    result = run("allreduce", "--machine", "angara-4d", "--nodes", "16", "--bytes",
                 "16,4KiB", "--api", "none", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["inputs"]["algorithm"] == "hw-tree" and len(doc["rows"]) == 2
    for row in doc["rows"]:
        assert row["shape"] == "torus:2x2x2x2"
        assert row["simulated_s"] == pytest.approx(row["simulated_cycles"] * 2e-9)
        assert abs(row["difference_percent"]) < 10


def test_csv_p2p_tree():
    result = run("broadcast", "--machine", "angara-36", "--algorithm", "p2p-tree",
                 "--format", "csv")
    assert result.exit_code == 0, result.output
    header, line = result.output.strip().splitlines()
    assert header.startswith("nodes,shape,bytes,algorithm")
    assert line.startswith("36,torus:3x3x4,256")


@pytest.mark.parametrize("args", [
    ["gather", "--machine", "angara-3d", "--nodes", "8"],
    ["broadcast", "--machine", "angara-3d", "--nodes", "8", "--algorithm", "ring"],
    ["allgather", "--machine", "angara-3d", "--nodes", "8", "--algorithm", "hw-tree"],
    ["allgather", "--machine", "angara-3d", "--nodes", "12"],
    ["broadcast", "--machine", "angara-3d", "--nodes", "0"],
    ["broadcast", "--machine", "angara-3d"],
    ["broadcast", "--machine", "ib-qdr-cluster"],
    ["broadcast", "--machine", "nudt-generic", "--nodes", "8"],
    ["broadcast", "--machine", "angara-3d", "--nodes", "8", "--bytes", "0"],
    ["broadcast", "--machine", "angara-3d", "--nodes", "8", "--set",
     "network.router_clock=0 Hz"],
    ["allgather", "--machine", "angara-3d", "--nodes", "4096", "--bytes", "1MiB"],
])
def test_bad_input_is_one_line_and_status_2(args):
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1


def test_runs_the_model_expects_to_be_endless_are_refused_at_once():
    """A 1 B/s link at a 500 MHz router clock: one 256-byte broadcast needs at least 256 s
    (1.3e11 cycles) by the model; refused before simulating."""
    result = CliRunner().invoke(cli, ["simulate", "collective", "broadcast", "--machine",
                                      "angara-3d", "--nodes", "8", "--set",
                                      "network.link_bandwidth=1 B/s"])
    assert result.exit_code == 2
    assert "simulation too long" in result.output and "limit 5,000,000" in result.output
