"""Benchmark output (icnperf/benchdata.py): OSU, IMB and CSV samples parse to the right SI
values; detection; malformed files give one-line DataErrors; any text gives points or a
DataError; and the samples calibrate a machine (icnperf/calibration.py) back to the model
they were generated from.

The samples in tests/data/bench were generated from the angara-36 preset with a 450 ns MPI
overhead and 6 GB/s links at 1 hop, with 0.5 % noise, and printed the way each tool prints
(see tests/data/bench/README.md)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icnperf.data.measurements.bench import (
    FORMATS,
    BenchData,
    BenchPoint,
    detect_format,
    load_bench,
    parse_text,
)
from icnperf.data.calibrated import (
    calibrate_machine,
    observations_from,
    parameter_rows,
    point_rows,
)
from icnperf.errors import DataError, InputError
from icnperf.data.machine import load_machine, write_machine

BENCH = Path(__file__).resolve().parent / "data" / "bench"
TRUTH = {"software.mpi_overhead": 450e-9, "network.link_bandwidth": 6e9}
PINNED = {
    "network.injection_latency": 300e-9, "network.ejection_latency": 300e-9,
    "network.router_latency": 8e-9, "network.link_latency": 80e-9,
    "network.host_bandwidth": 8e9, "network.flit_size": 16, "network.packet_max_flits": 16,
    "network.packet_header_flits": 1, "network.switching": "cut-through",
}
"""The other network values the samples were generated with (tests/data/bench/generate.py),
pinned so that a change to the angara-36 preset does not change what the samples mean."""
MIB = 1024 * 1024


def _one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert message and "\n" not in message and message.strip() == message
    return message


def _point(data: BenchData, kind: str, size: int, processes=None) -> BenchPoint:
    hits = [p for p in data if p.kind == kind and p.bytes == size
            and (processes is None or p.processes == processes)]
    assert len(hits) == 1, (kind, size, hits)
    return hits[0]


# --- OSU ----------------------------------------------------------------------------------


def test_osu_latency_sample():
    data = load_bench(BENCH / "osu_latency.txt")
    assert data.format == "osu" and data.kinds() == ("latency",)
    assert len(data) == 24  # 0 B and 1 B .. 4 MiB
    first = data.points[0]
    assert (first.bytes, first.unit, first.line, first.api) == (0, "s", 3, "mpi")
    assert first.value == pytest.approx(1.15e-6)
    assert _point(data, "latency", 1024).value == pytest.approx(1.33e-6)
    assert _point(data, "latency", 4 * MIB).value == pytest.approx(747.41e-6)
    assert first.benchmark == "osu_latency" and first.hops is None
    assert any("v7.3" in note for note in data.notes)


def test_osu_bandwidth_is_decimal_megabytes():
    data = load_bench(BENCH / "osu_bw.txt")
    assert data.kinds() == ("bandwidth",)
    assert _point(data, "bandwidth", 1).value == pytest.approx(4.43e6)  # "4.43" MB/s
    assert _point(data, "bandwidth", 4 * MIB).value == pytest.approx(5676.96e6)
    assert all(p.unit == "B/s" for p in data)
    assert any("10^6" in note for note in data.notes)


def test_osu_allreduce_sample_skips_launcher_chatter():
    data = load_bench(BENCH / "osu_allreduce.txt")
    assert data.kinds() == ("allreduce",)
    assert len(data) == 19
    assert _point(data, "allreduce", 4).value == pytest.approx(4.96e-6)
    assert any("1 line" in note and "skipped" in note for note in data.notes)


def test_osu_variants_in_one_text():
    text = "\n".join([
        "# OSU MPI Bi-Directional Bandwidth Test v5.6.2",
        "# Size      Bandwidth (MB/s)",
        "8                      20.50",
        "# OSU MPI Multiple Bandwidth / Message Rate Test v5.6.2",
        "# [ pairs: 1 ] [ window size: 64 ]",
        "# Size                  MB/s        Messages/s",
        "8                      11.54        1442824.47",
        "# OSU MPI Broadcast Latency Test v5.6.2",
        "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations",
        "4                       2.10              1.90              2.30        1000",
        "# OSU MPI Barrier Latency Test v5.6.2",
        "# Avg Latency(us)",
        "             3.25",
        "# OSU OpenSHMEM Latency Test",
        "# Size          Latency (us)",
        "8                       0.95",
    ])
    data = parse_text(text, "mixed.txt")
    assert [p.kind for p in data] == ["bibandwidth", "multi_bandwidth", "message_rate",
                                      "bcast", "barrier", "latency"]
    values = [p.value for p in data]
    assert values == pytest.approx([20.5e6, 11.54e6, 1442824.47, 2.10e-6, 3.25e-6, 0.95e-6])
    assert data.points[-1].api == "shmem" and data.points[0].api == "mpi"
    assert data.points[4].bytes == 0


# --- IMB ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name, mbyte, convention", [
    ("imb_2021.txt", 1e6, "10^6"),
    ("imb_v3.txt", 2 ** 20, "2^20"),
])
def test_imb_pingpong_and_allreduce(name, mbyte, convention):
    data = load_bench(BENCH / name)
    assert data.format == "imb"
    assert data.kinds() == ("latency", "pingpong_bandwidth", "allreduce")
    latency = {p.bytes: p for p in data if p.kind == "latency"}
    bandwidth = {p.bytes: p for p in data if p.kind == "pingpong_bandwidth"}
    assert len(latency) == 24 and len(bandwidth) == 23  # no bandwidth for 0 bytes
    assert 0 not in bandwidth
    assert latency[0].processes == 2 and latency[0].api == "mpi"
    # the printed Mbytes/sec is #bytes / t[usec] in the file's Mbyte: the SI values agree
    for size, point in bandwidth.items():
        if latency[size].value >= 10e-6:
            assert point.value == pytest.approx(size / latency[size].value, rel=0.002)
    big = bandwidth[4 * MIB]
    text = (BENCH / name).read_text().splitlines()[big.line - 1].split()
    assert big.value == pytest.approx(float(text[3]) * mbyte)
    assert latency[4 * MIB].value == pytest.approx(float(text[2]) * 1e-6)
    assert any(convention in note for note in data.notes)
    # Allreduce: t_avg[usec], one section per process count
    for processes in (2, 4):
        point = _point(data, "allreduce", 1024, processes)
        row = (BENCH / name).read_text().splitlines()[point.line - 1].split()
        assert point.value == pytest.approx(float(row[4]) * 1e-6)
    assert _point(data, "allreduce", 0, 2).value == pytest.approx(0.04e-6)


IMB_UNIBAND = """\
#    {banner}
#---------------------------------------------------
# Benchmarking Uniband
# #processes = 2
#---------------------------------------------------
       #bytes #repetitions   Mbytes/sec      Msg/sec
         1024         1000      1000.00       976563
"""


@pytest.mark.parametrize("banner, factor, word", [
    ("Intel (R) MPI Benchmark Suite V3.2.4, MPI-1 part", 2 ** 20, "2^20"),
    ("Intel(R) MPI Benchmarks 2019 Update 6, MPI-1 part", 1e6, "10^6"),
    ("Intel(R) MPI Benchmarks, MPI-1 part", 1e6, "assumed"),
])
def test_imb_mbyte_from_version_without_pingpong(banner, factor, word):
    data = parse_text(IMB_UNIBAND.format(banner=banner), "uniband.txt")
    (point,) = data.points
    assert point.kind == "uniband" and point.unit == "B/s"
    assert point.value == pytest.approx(1000.0 * factor)
    assert any(word in note for note in data.notes)


def test_imb_barrier_and_failed_rows():
    text = """\
# Benchmarking PingPong
# #processes = 2
       #bytes #repetitions      t[usec]   Mbytes/sec
            0         1000         1.14         0.00
      4194304 time-out.; Time limit (secs_per_sample * msg_sizes_list_len) is over;
# Benchmarking Barrier
# #processes = 4
 #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]
         1000         2.10         2.30         2.20
"""
    data = parse_text(text, "imb.txt")
    assert [(p.kind, p.bytes) for p in data] == [("latency", 0), ("barrier", 0)]
    assert data.points[1].value == pytest.approx(2.2e-6)
    assert data.points[1].processes == 4
    assert any("failed" in note for note in data.notes)


def test_imb_mbytes_column_that_disagrees_with_the_times():
    text = """\
# Benchmarking PingPong
       #bytes #repetitions      t[usec]   Mbytes/sec
        65536         1000        12.81      9999.00
"""
    with pytest.raises(DataError, match="disagrees") as excinfo:
        parse_text(text, "imb.txt")
    assert "imb.txt, line 3" in _one_line(excinfo)


# --- CSV ----------------------------------------------------------------------------------


def test_csv_sample_with_hops():
    data = load_bench(BENCH / "pingpong.csv")
    assert data.format == "csv" and data.kinds() == ("latency",)
    assert len(data) == 21
    assert {p.hops for p in data} == {1.0, 2.0, 3.0}
    first = data.points[0]
    assert (first.bytes, first.value, first.line, first.api) == (8, 1.1425e-06, 2, None)


def test_bundled_table_by_name_reads_its_interfaces():
    data = load_bench("angara-latency-16b")
    assert [(p.api, p.bytes, p.value) for p in data] == [("shmem", 16, 0.7e-6),
                                                          ("mpi", 16, 1e-6)]
    assert data.origin.endswith("angara-latency-16b.csv")


def test_a_path_is_never_taken_for_a_bundled_table(tmp_path, monkeypatch):
    """A PathLike names a file, even when no file is there and its text is a bundled
    table's name; a file named like a bundled table is read as the file."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DataError, match="not found"):
        load_bench(Path("angara-latency-16b"))
    shutil.copy(BENCH / "pingpong.csv", tmp_path / "angara-latency-16b")
    for given in (Path("./angara-latency-16b"), "angara-latency-16b"):
        data = load_bench(given)
        assert data.format == "csv" and len(data) == 21, given


def test_csv_excluded_rows_and_other_value_columns():
    text = ("bytes,bandwidth_bytes_per_s,api,excluded\n"
            "1024,5e9,MPI,\n"
            "2048,6e9,SHMEM,\n"
            "4096,1e3,MPI,timer wrapped\n")
    data = parse_text(text, "bw.csv")
    assert [(p.kind, p.bytes, p.api) for p in data] == [("bandwidth", 1024, "mpi"),
                                                         ("bandwidth", 2048, "shmem")]
    assert any("excluded" in note for note in data.notes)


@pytest.mark.parametrize("text, match", [
    ("message_bytes,latency_s,api\n8,1e-6,UCX\n", "api 'UCX'"),
    ("message_bytes,latency_s\n8.5,1e-6\n", "whole number"),
    ("message_bytes,latency_s\n8,0\n", "not positive"),
    ("message_bytes,latency_s,hops\n8,1e-6,near\n", "hops"),
    ("size,latency_s\n8,1e-6\n", "message_bytes"),
    ("message_bytes,latency_s,excluded\n8,1e-6,bad\n", "every row is marked excluded"),
])
def test_csv_problems(text, match):
    with pytest.raises(DataError, match=match) as excinfo:
        parse_text(text, "mine.csv")
    assert "mine.csv" in _one_line(excinfo)


# --- detection ----------------------------------------------------------------------------


@pytest.mark.parametrize("name, fmt", [
    ("osu_latency.txt", "osu"), ("osu_bw.txt", "osu"), ("osu_allreduce.txt", "osu"),
    ("imb_2021.txt", "imb"), ("imb_v3.txt", "imb"), ("pingpong.csv", "csv"),
])
def test_detect_format_of_samples(name, fmt):
    assert detect_format((BENCH / name).read_text()) == fmt


def test_detect_format_edge_cases():
    assert detect_format("[n1:1] warning\n# OSU MPI Latency Test v7.3\n") == "osu"
    assert detect_format("# Benchmarking Allreduce\n") == "imb"
    assert detect_format("\n\nmessage_bytes, latency_s\n") == "csv"
    with pytest.raises(DataError, match="empty"):
        detect_format(" \n\t\n", "x.txt")
    with pytest.raises(DataError, match="unknown format") as excinfo:
        detect_format("latency_s\n1e-6\n", "x.txt")
    assert _one_line(excinfo).startswith("x.txt: ")


def test_format_override():
    text = (BENCH / "osu_latency.txt").read_text()
    assert parse_text(text, "a.txt", format="osu").format == "osu"
    with pytest.raises(DataError, match="IMB"):
        parse_text(text, "a.txt", format="imb")
    with pytest.raises(DataError):
        parse_text(text, "a.txt", format="csv")
    with pytest.raises(InputError, match="unknown benchmark format"):
        parse_text(text, "a.txt", format="xlsx")
    with pytest.raises(InputError):
        load_bench(BENCH / "osu_latency.txt", format="OSU")


# --- malformed files ----------------------------------------------------------------------


@pytest.mark.parametrize("name, match, line", [
    ("bad_empty.txt", "empty file", None),
    ("bad_unknown.txt", "unknown format", None),
    ("bad_osu_nan.txt", "'nan' is not a finite number", 4),
    ("bad_osu_negative.txt", "'-1.16' is negative", 4),
    ("bad_osu_unparsable.txt", "'1.7.4' is not a number", 4),
    ("bad_osu_no_rows.txt", "no data rows", None),
    ("bad_osu_unsupported.txt", "unsupported OSU test 'Put Latency'", 1),
    ("bad_imb_ragged.txt", "3 values but the column line has 4 columns", 9),
    ("bad_csv_missing_value.csv", "needs a 'latency_s'", None),
    ("bad_csv_wrong_unit.csv", "'latency_us' is not one of these", None),
    ("bad_csv_negative.csv", "negative time", 3),
    ("bad_csv_nan.csv", "not a finite number", 3),
])
def test_malformed_files(name, match, line):
    with pytest.raises(DataError, match=match) as excinfo:
        load_bench(BENCH / name)
    message = _one_line(excinfo)
    assert message.startswith(str(BENCH / name))
    if line is not None:
        assert f", line {line}" in message


@pytest.mark.parametrize("text, match", [
    ("1 1.15\n# OSU MPI Latency Test v7.3\n", "before any '# OSU"),
    ("# OSU MPI Latency Test\n# Size  Latency (us)\n12ab 1.0\n", "not a whole number"),
    ("# OSU MPI Latency Test\n# Size  Latency (us)\n-8 1.0\n", "negative"),
    ("# OSU MPI Latency Test\n# Size  Latency (us)\n8\n", "expected a message size"),
    ("# OSU MPI Latency Test\n# Size  Latency (us)\n8 0.00\n", "not positive"),
    ("# OSU MPI Latency Test\n# Size  Latency (us)\n8 1e999\n", "too large"),
    ("# OSU MPI Latency Test\n# Size  Latency (us)\n" + "9" * 5000 + " 1\n", "too large"),
    ("# OSU MPI Bandwidth Test\n# Size  Latency (us)\n8 1.0\n", "no 'MB/s' column"),
    ("# OSU MPI Latency Test\n# Size  Bandwidth (MB/s)\n8 1.0\n", r"no 'Latency \(us\)'"),
    ("# OSU something odd\n8 1.0\n", "unrecognised OSU title"),
    ("# Benchmarking PingPong\n  1 2 3\n", "before an IMB"),
    ("# Benchmarking PingPong\n #bytes #repetitions t[ms]\n", "unrecognised IMB column"),
    ("#bytes #repetitions t[usec]\n# Benchmarking X\n", "column line before"),
    ("# Benchmarking PingPong\n #bytes #repetitions t[usec]\n 8 1000 inf\n",
     "not a finite number"),
])
def test_malformed_texts(text, match):
    with pytest.raises(DataError, match=match) as excinfo:
        parse_text(text, "t.txt")
    assert _one_line(excinfo).startswith("t.txt")


def test_missing_file():
    with pytest.raises(DataError, match="not found"):
        load_bench(BENCH / "no-such-file.txt")
    with pytest.raises(DataError, match="not found"):
        load_bench("no-such-table")


# --- any text: points or DataError -------------------------------------------------------

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VOCABULARY = [
    "# OSU MPI Latency Test v7.3", "# OSU MPI Bandwidth Test v5.6", "# OSU MPI Allreduce "
    "Latency Test", "# OSU MPI Barrier Latency Test", "# OSU OpenSHMEM Put Test",
    "# Size          Latency (us)", "# Size      Bandwidth (MB/s)", "# Avg Latency(us)",
    "#    Intel(R) MPI Benchmarks 2021.3, MPI-1 part", "# Intel (R) MPI Benchmark Suite V3.2",
    "# Benchmarking PingPong", "# Benchmarking Allreduce", "# #processes = 2",
    "       #bytes #repetitions      t[usec]   Mbytes/sec",
    "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]",
    "message_bytes,latency_s", "bytes,bandwidth_bytes_per_s,hops", "8,1e-6", "64,2e-6,1",
    "0", "1", "8", "1024", "1.15", "-3", "nan", "inf", "1e999", "0.00", "1,5", "x", "",
    "time-out.;", "[node:1] chatter", "#", ",", "  ",
]


def _check(data: BenchData) -> None:
    assert isinstance(data, BenchData) and len(data) > 0
    for point in data:
        assert isinstance(point.bytes, int) and point.bytes >= 0
        assert math.isfinite(point.value) and point.value > 0
        assert point.unit in ("s", "B/s", "1/s")
        assert point.line >= 1


def _parse_or_dataerror(text: str, fmt) -> None:
    try:
        data = parse_text(text, "fuzz.txt", format=fmt)
    except DataError as error:
        assert "\n" not in str(error) and str(error)
    else:
        _check(data)


@FUZZ
@given(text=st.text(max_size=400), fmt=st.sampled_from([None, *FORMATS]))
def test_random_text_gives_points_or_dataerror(text, fmt):
    _parse_or_dataerror(text, fmt)


@FUZZ
@given(lines=st.lists(st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=4)
                      .map(" ".join), max_size=14),
       fmt=st.sampled_from([None, *FORMATS]))
def test_benchmark_like_text_gives_points_or_dataerror(lines, fmt):
    _parse_or_dataerror("\n".join(lines), fmt)


# --- calibrating from the samples (icnperf/calibration.py) ---------------------------------


@pytest.fixture(scope="module")
def preset():
    """angara-36 with the sample files' network values and its own MPI overhead (300 ns) and
    link bandwidth (75 Gbit/s) as the starting point of the fits."""
    return load_machine("angara-36").with_values(PINNED, "as in tests/data/bench")


@pytest.mark.parametrize("name, keys", [
    ("osu_latency.txt", "software.mpi_overhead,network.link_bandwidth"),
    ("osu_bw.txt", "o,G"),
    ("imb_2021.txt", "o,G"),
    ("imb_v3.txt", "software.mpi_overhead,G"),
    ("pingpong.csv", ["software.mpi_overhead", "network.link_bandwidth"]),
])
def test_samples_calibrate_back_to_their_model(preset, name, keys):
    result, machine = calibrate_machine(preset, load_bench(BENCH / name), keys)
    assert result.parameters == tuple(TRUTH)
    for key, value in TRUTH.items():
        low, high = result.intervals[key]
        assert low <= value <= high, (name, key, low, high)
        assert machine.require(key) == result.values[key]
        assert machine.source(key).startswith("calibrated: least-squares fit")
        assert str(BENCH / name) in machine.source(key)
    assert result.rms_relative_error < 0.01
    assert machine.notes[-1].startswith("Calibrated from")
    # untouched keys keep their values and sources
    assert machine.require("network.router_latency") == preset.require("network.router_latency")
    assert machine.source("network.host_bandwidth") == preset.source("network.host_bandwidth")


def test_calibrated_machine_round_trips_through_a_file(preset, tmp_path):
    result, machine = calibrate_machine(preset, load_bench(BENCH / "osu_latency.txt"), "L,G")
    out = tmp_path / "calibrated.toml"
    write_machine(machine, out)
    again = load_machine(str(out))
    assert again.require("network.injection_latency") == machine.require(
        "network.injection_latency")
    assert again.require("network.injection_latency") == again.require(
        "network.ejection_latency")
    assert again.require("network.link_bandwidth") == result.values["network.link_bandwidth"]


def test_calibrate_bundled_table_reports_each_row(preset):
    result, machine = calibrate_machine(preset, load_bench("angara-latency-16b"),
                                        "software.mpi_overhead")
    rows = point_rows(result)
    assert [(r["api"], r["bytes"], r["hops"]) for r in rows] == [("shmem", 16, 1.0),
                                                                  ("mpi", 16, 1.0)]
    assert all(abs(r["relative_error"]) < 0.01 for r in rows)
    assert all(r["point"].endswith(f"line {i}") for i, r in zip((2, 3), rows))
    (param,) = parameter_rows(result)
    assert param["parameter"] == "software.mpi_overhead" and param["unit"] == "s"
    assert 0.25e-6 < param["value"] < 0.35e-6
    assert param["ci_low"] <= param["value"] <= param["ci_high"]
    assert any("taken as 1 (neighbouring nodes" in a for a in result.assumptions)


def test_hops_and_interface_defaults(preset):
    data = load_bench(BENCH / "osu_latency.txt")
    obs, notes = observations_from(data, hops=2)
    assert set(obs.hops) == {2.0} and set(obs.apis) == {"mpi"}
    assert any("taken as 2 (given)" in n for n in notes)
    csv = load_bench(BENCH / "pingpong.csv")
    obs, notes = observations_from(csv, hops=7, api="shmem")
    assert set(obs.hops) == {1.0, 2.0, 3.0}  # the file's own hops win
    assert set(obs.apis) == {"shmem"}
    assert any("interface" in n for n in notes)


def test_pingpong_bandwidth_only_on_request(preset):
    data = load_bench(BENCH / "imb_2021.txt")
    result, _ = calibrate_machine(preset, data, "o,G")
    assert set(result.quantities) == {"latency"}
    result, _ = calibrate_machine(preset, data, "o,G", kinds=("pingpong_bandwidth",))
    assert set(result.quantities) == {"pingpong_bandwidth"}
    assert result.values["network.link_bandwidth"] == pytest.approx(6e9, rel=0.01)


@pytest.mark.parametrize("name, keys, kwargs, match", [
    ("osu_allreduce.txt", "o", {}, "no latency or bandwidth points"),
    ("osu_latency.txt", "network.foo", {}, "unknown machine key"),
    ("osu_latency.txt", "node.peak_flops", {}, "not a machine key the point-to-point"),
    ("osu_latency.txt", "o", {"kinds": ("allreduce",)}, "cannot fit points of kind"),
    ("osu_latency.txt", "o", {"hops": -1}, "hops must be"),
    ("osu_latency.txt", "software.shmem_overhead", {}, "no measured point depends"),
])
def test_calibration_errors(preset, name, keys, kwargs, match):
    with pytest.raises(InputError, match=match) as excinfo:
        calibrate_machine(preset, load_bench(BENCH / name), keys, **kwargs)
    _one_line(excinfo)


def test_points_may_be_a_plain_list(preset):
    points = [BenchPoint("latency", int(m), t, "s", i + 1, "mine")
              for i, (m, t) in enumerate([(8, 1.14e-6), (1024, 1.33e-6), (MIB, 187e-6)])]
    result, _ = calibrate_machine(preset, points, "o,G")
    assert result.n_points == 3
    assert np.all(np.abs(result.relative_errors) < 0.02)
