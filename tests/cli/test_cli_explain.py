"""``icnperf explain collective`` and ``icnperf crossover collective`` through Click's
CliRunner."""

import json

import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.api.layouts import layout_for, parse_shape
from icnperf.data.machine import load_machine
from icnperf.model.crossover import crossover


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


EXPLAIN = ("explain", "collective", "broadcast", "--algorithm", "hw-tree", "--machine",
           "angara-4d")
CROSSOVER = ("crossover", "collective", "broadcast", "--machine", "angara-3d", "--faster",
             "hw-tree", "--slower", "p2p-tree")


def test_explain_table_shows_formula_value_and_elasticities():
    result = run(*EXPLAIN)
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("angara-4d (torus:8x8x8x16): broadcast by hw-tree, 256 B, api mpi")
    assert "T = O + t_ej + t_inj + 20*t_l + 21*t_r" in out
    # 2668 ns fixed + 240 B and 256 B at 5.85 GB/s + 20 x 256 B at 9.375 GB/s = 3298.92 ns
    assert "T on the machine = 3.299 µs" in out
    assert "the shares add up to 100.0%" in " ".join(out.split())   # a wrapped line
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("symbol "))
    assert lines[header + 2].split()[:2] == ["t_l", "network.link_latency"]  # largest first
    assert "tree depth D" in out and "assumptions:" in out


def test_explain_latex():
    out = run(*EXPLAIN, "--latex", "--wide").output                  # the formula unwrapped
    formula = [line for line in out.splitlines() if line.startswith("T = ")]
    assert len(formula) == 1
    assert "\\max\\left(" in formula[0] and "\\frac{5120}{B_{link}}" in formula[0]


def test_explain_json_keys():
    result = run(*EXPLAIN, "--nodes", "8192", "--shape", "8x8x8x16", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert {"icnperf_version", "inputs", "machine", "layout", "operation", "algorithm",
            "bytes", "formula", "time_s", "structure", "share_sum", "elasticities",
            "assumptions"} <= set(doc)
    assert {"text", "latex", "symbols"} == set(doc["formula"])
    assert doc["formula"]["symbols"]["t_l"] == "link_latency"
    assert doc["time_s"] == pytest.approx((2668 + 240 / 5.85 + 256 / 5.85 + 5120 / 9.375) * 1e-9,
                                          rel=1e-9)
    assert doc["share_sum"] == pytest.approx(1)
    assert doc["structure"]["depth"] == 20 and doc["structure"]["endpoints"] == 8192
    row = doc["elasticities"][0]
    assert set(row) == {"symbol", "parameter", "key", "kind", "value", "derivative",
                        "elasticity", "method", "note"}
    assert row["symbol"] == "t_l" and row["value"] == pytest.approx(80e-9)


def test_explain_csv_and_reshaped_torus():
    out = run(*EXPLAIN, "--nodes", "512", "--bytes", "1KiB", "--format", "csv").output
    lines = out.splitlines()
    assert lines[0] == "symbol,parameter,key,kind,value,derivative,elasticity,method,note"
    assert len(lines) == 8                                  # 7 continuous parameters
    out = run(*EXPLAIN, "--nodes", "16").output             # 4D: 2x2x2x2
    assert out.startswith("angara-4d (torus:2x2x2x2): broadcast by hw-tree, 256 B")


def test_explain_all_symbols_and_api():
    out = run(*EXPLAIN, "--all-symbols", "--api", "shmem").output
    assert "ceiling" in out and "software.shmem_overhead" in out


def test_explain_writes_a_file(tmp_path):
    target = tmp_path / "explain.json"
    result = run(*EXPLAIN, "--format", "json", "-o", str(target))
    assert result.exit_code == 0
    assert json.loads(target.read_text())["algorithm"] == "hw-tree"


def test_crossover_from_the_start():
    result = run(*CROSSOVER, "--factor", "2")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "hw-tree is already 2x faster than p2p-tree at the start of the range" in out
    assert "8 nodes (torus:2x2x2)" in out and "32,768" in out
    assert "method:" in out and "assumptions:" in out


def test_crossover_json_crossing_over_nodes():
    result = run(*CROSSOVER, "--factor", "4", "--range", "8..32768:x2", "--dims", "3",
                 "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    cross = doc["crossover"]
    assert cross["status"] == "crosses" and cross["variable"] == "nodes"
    assert cross["at"]["ratio"] >= 4 > cross["below"]["ratio"]
    assert 64 < cross["at"]["value"] <= 128
    assert "becomes 4x faster" in cross["statement"]
    assert [r["value"] for r in doc["rows"]][:3] == [8, 16, 32]
    assert {"value", "layout", "time_faster_s", "time_slower_s", "ratio",
            "reaches_factor"} == set(doc["rows"][0])
    assert doc["assumptions"]


def test_crossover_over_bytes_table_and_csv():
    args = ("crossover", "collective", "allreduce", "--machine", "angara-4d", "--faster",
            "rabenseifner", "--slower", "recursive-doubling", "--factor", "2", "--vary",
            "bytes")
    out = run(*args).output
    model = crossover(load_machine("angara-4d"), "allreduce", "rabenseifner",
                      "recursive-doubling", 2, variable="bytes")     # the model's own root
    assert model.at.value == 65529               # as tests/model/test_explain.py derives it
    assert f"becomes 2x faster than recursive-doubling at {int(model.at.value):,} B" in out
    assert "brentq" in out
    csv = run(*args, "--range", "1KiB..1MiB:x4", "--format", "csv").output
    assert csv.splitlines()[0] == "value,layout,time_faster_s,time_slower_s,ratio,reaches_factor"
    assert len(csv.splitlines()) == 1 + 6


def test_crossover_never():
    out = run(*CROSSOVER, "--factor", "50", "--range", "8,64,512").output
    assert "hw-tree is never 50x faster than p2p-tree" in out


def test_shape_helpers():
    assert parse_shape("16x16x32") == (16, 16, 32)
    assert layout_for("torus:8x8x8x16", 8192, None).text == "torus:8x8x8x16"
    assert layout_for("torus:8x8x8x16", 256, None).text == "torus:4x4x4x4"
    assert layout_for("torus:16x16x32", None, "4x4x4").endpoints == 64


@pytest.mark.parametrize("args", [
    ["explain", "collective", "scan", "--algorithm", "ring", "--machine", "angara-4d"],
    ["explain", "collective", "broadcast", "--algorithm", "fastest", "--machine", "angara-4d"],
    ["explain", "collective", "alltoall", "--algorithm", "hw-tree", "--machine", "angara-4d"],
    [*EXPLAIN, "--shape", "4x4xq"],
    [*EXPLAIN, "--shape", "1x8"],
    [*EXPLAIN, "--shape", "4x4x4", "--nodes", "32"],
    [*EXPLAIN, "--nodes", "0"],
    [*EXPLAIN, "--bytes", "0"],
    [*EXPLAIN, "--bytes", "-8"],
    [*EXPLAIN, "--set", "network.nosuch=1"],
    ["explain", "collective", "broadcast", "--algorithm", "ring", "--machine", "no-such-preset"],
    ["explain", "collective", "broadcast", "--machine", "angara-4d"],
    [*CROSSOVER, "--factor", "1"],
    [*CROSSOVER, "--factor", "0.5"],
    [*CROSSOVER, "--factor", "abc"],
    [*CROSSOVER, "--factor", "2", "--slower", "hw-tree"],
    [*CROSSOVER, "--factor", "2", "--faster", "quick"],
    [*CROSSOVER, "--factor", "2", "--range", "3..5:x2"],
    [*CROSSOVER, "--factor", "2", "--nodes", "64"],
    [*CROSSOVER, "--factor", "2", "--vary", "bytes", "--dims", "3"],
    [*CROSSOVER, "--factor", "2", "--vary", "hops"],
    [*CROSSOVER, "--factor", "2", "--dims", "0"],
    ["crossover", "collective", "barrier", "--machine", "angara-3d", "--faster", "hw-tree",
     "--slower", "p2p-tree", "--factor", "2", "--vary", "bytes"],
])
def test_bad_input_is_one_line_and_status_2(args):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_explain_auto_explains_the_library_choice():
    base = ["explain", "collective", "allreduce", "--algorithm", "auto", "--machine",
            "angara-3d", "--set", "software.mpi_library=mpich", "--bytes", "4KiB",
            "--format", "json"]
    # 4 KiB = 512 doubles, > 8 B: Rabenseifner on 32 nodes (512 >= pof2 32), recursive
    # doubling on the whole 8192-node machine (512 < 8192) (MPICH 4.x)
    small = json.loads(run(*base, "--nodes", "32").output)
    assert small["inputs"]["auto"] == {"algorithm": "rabenseifner",
                                       "rule": "MPICH 4.x: allreduce > 8 B, count >= pof2"}
    assert small["inputs"]["algorithm"] == "auto"
    whole = json.loads(run(*base).output)
    assert whole["inputs"]["auto"] == {"algorithm": "recursive-doubling",
                                       "rule": "MPICH 4.x: allreduce, count < pof2"}


def test_explain_auto_refuses_an_algorithm_without_a_closed_form():
    result = CliRunner().invoke(cli, ["explain", "collective", "alltoall", "--algorithm",
                                      "auto", "--machine", "angara-3d", "--set",
                                      "software.mpi_library=mpich", "--nodes", "16",
                                      "--bytes", "64KiB"])
    # 16 ranks: one block of 4 KiB, <= 32768 B: MPICH's scattered all-to-all (linear)
    assert result.exit_code == 2
    assert "auto picks linear" in result.output and "no closed form" in result.output


def test_explain_saturation_lists_every_factor():
    """The factors' values are saturation_terms' own; the default router on the 8x8 torus:
    bound 0.8, separable allocator, no VC turnaround (t_v = 0), credit loop 2 + 1 + 1 = 4
    cycles, and the estimate is the smallest ceiling."""
    import json

    from click.testing import CliRunner

    from icnperf.cli import cli

    result = CliRunner().invoke(cli, ["explain", "saturation", "torus:8x8", "--format",
                                      "json"])
    assert result.exit_code == 0, result.output
    factors = {f["key"]: f["value"] for f in json.loads(result.output)["factors"]}
    assert factors["saturation_bound"] == 0.8
    assert factors["vc_turnaround_steps"] == 0 and factors["credit_round_trip"] == 4
    ceilings = [factors[k] for k in ("channel_ceiling", "vc_class_ceiling",
                                     "injection_ceiling", "endpoint_ceiling")]
    assert factors["saturation_estimate"] == min(ceilings)
    bad = CliRunner().invoke(cli, ["explain", "saturation", "torus:8x8", "--traffic", "zipf"])
    assert bad.exit_code == 2 and "unknown pattern 'zipf'" in bad.output
