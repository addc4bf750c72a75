"""calibrate --data-format nccl-tests: the nccl-tests reader, and the fit recovering a
bandwidth from times the closed form itself generated."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.data.machine import load_machine
from icnperf.errors import DataError, InputError
from icnperf.data.measurements.nccl_tests import parse_nccl_tests
from icnperf.model.calibrate.ccl_fit import fit_ccl
from icnperf.model.collectives.nccl_api import ccl_collective

HEADER = "\n".join(
    [f"#  Rank {r:2d} Group  0 Pid {100 + r:6d} on node{r // 4} device {r % 4} [0x{r:02x}] GPU"
     for r in range(8)])


def _line(size: int, time_us: float) -> str:
    algbw = size / (time_us * 1e3)
    return (f"  {size:10d}  {size // 4:10d}  float  sum  -1  {time_us:8.2f}  {algbw:6.2f}"
            f"  {algbw * 1.75:6.2f}  0  {time_us:8.2f}  {algbw:6.2f}  {algbw * 1.75:6.2f}  0")


def test_reader_takes_ranks_hosts_and_out_of_place_times():
    text = "\n".join(["# Collective test starting: all_reduce_perf", HEADER,
                      "[node0:123] chatter", _line(1048576, 40.0), _line(8388608, 90.0),
                      "# Avg bus bandwidth    : 1.0"])
    run = parse_nccl_tests(text, "run.txt")
    assert (run.operation, run.ranks, run.nodes) == ("allreduce", 8, 2)
    assert [r.size for r in run.rows] == [1048576, 8388608]
    assert run.rows[0].time_s == pytest.approx(40e-6)
    assert run.rows[1].line == 12  # 1 title, 8 rank lines, 1 chatter, then the rows


def test_reader_refuses_bad_output():
    with pytest.raises(DataError, match="no nccl-tests data rows"):
        parse_nccl_tests(HEADER, "x.txt")
    with pytest.raises(DataError, match="Rank"):
        parse_nccl_tests(_line(1048576, 40.0), "x.txt")
    bad = _line(1048576, 40.0).replace("26.21", "99.00")
    with pytest.raises(DataError, match="line 9: algbw"):
        parse_nccl_tests(HEADER + "\n" + bad, "x.txt")


def test_fit_recovers_the_bandwidth_that_generated_the_times():
    machine = load_machine("dgx-h100")
    truth = machine.with_values({"node.scaleup_bandwidth": 300e9}, "test")
    sizes = [2.0 ** k for k in range(20, 31, 2)]
    rows, _ = ccl_collective(truth, "allreduce", [1], sizes, "auto", "nccl")
    times = [r["time_s"] for r in rows if r["algorithm"] == "auto"]
    result = fit_ccl(machine, "nccl", "allreduce", 1, 8, sizes, times)
    assert result.values["node.scaleup_bandwidth"] == pytest.approx(300e9, rel=0.01)
    assert result.rms < 0.01
    assert result.errors_before[-1] < -0.2  # 450 GB/s predicted too fast before


def test_fit_refuses_keys_the_forms_do_not_read():
    with pytest.raises(InputError, match="--fit"):
        fit_ccl(load_machine("dgx-h100"), "nccl", "allreduce", 1, 8, [1 << 20], [1e-4],
                keys=("software.mpi_overhead",))


def test_cli_needs_the_operation_and_writes_a_calibrated_machine(tmp_path):
    data = tmp_path / "run.txt"
    data.write_text(HEADER + "\n" + _line(1 << 24, 120.0) + "\n" + _line(1 << 28, 1500.0)
                    + "\n")
    args = ["calibrate", "--machine", "dgx-h100", "--data", str(data), "--data-format",
            "nccl-tests"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and "--operation" in result.output
    out = tmp_path / "fitted.toml"
    result = CliRunner().invoke(cli, args + ["--operation", "allreduce", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "node.gpu_nic_bandwidth" in result.output  # two nodes: the NIC path bounds it
    fitted = load_machine(str(out))
    assert "calibrated: fitted to" in fitted.source("node.gpu_nic_bandwidth")


def test_parameters_carry_their_schema_unit_into_json_and_table(tmp_path):
    """Each fitted key's unit comes from the machine schema: node.gpu_nic_bandwidth is a
    bandwidth ("B/s"), network.injection_latency a time ("s"); the table prints each in it
    (dgx-h100's injection latency, 300 ns in its preset, as "300 ns", not in B/s)."""
    import json

    data = tmp_path / "run.txt"
    data.write_text(HEADER + "\n" + _line(1 << 24, 120.0) + "\n" + _line(1 << 28, 1500.0)
                    + "\n")
    args = ["calibrate", "--machine", "dgx-h100", "--data", str(data), "--data-format",
            "nccl-tests", "--operation", "allreduce", "--fit",
            "node.gpu_nic_bandwidth,network.injection_latency"]
    result = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    parameters = json.loads(result.output)["parameters"]
    assert [(p["parameter"], p["unit"]) for p in parameters] == [
        ("node.gpu_nic_bandwidth", "B/s"), ("network.injection_latency", "s")]
    assert parameters[1]["initial"] == pytest.approx(300e-9)
    table = CliRunner().invoke(cli, args).output
    latency_row = next(line for line in table.splitlines()
                       if line.startswith("network.injection_latency"))
    assert latency_row.split()[1:3] == ["300", "ns"]
