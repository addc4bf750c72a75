"""``icnperf predict app`` (skeleton files and bundled skeletons), ``icnperf place`` and
``icnperf explain app`` through Click's CliRunner."""

import csv
import io
import json
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from icnperf.cli import cli

JACOBI = resources.files("icnperf").joinpath("data", "apps", "jacobi3d.toml").read_text()
"""The bundled jacobi3d skeleton, the example of the issue and of docs/skeleton-format.md,
read from a user's file in these tests."""
FITME = (Path(__file__).resolve().parents[1] / "data" / "apps" / "fitme.toml").read_text()
"""The skeleton tests/model/test_apps_fit.py fits too."""


@pytest.fixture
def jacobi(tmp_path):
    path = tmp_path / "jacobi.toml"
    path.write_text(JACOBI)
    return str(path)


def run(*args, status=0):
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == status, result.output
    return result.output


def run_json(*args):
    return json.loads(run(*args, "--format", "json"))


def test_jacobi_file_gives_a_scaling_table_on_angara_4d(jacobi):
    text = run("predict", "app", jacobi, "--machine", "angara-4d", "--nodes", "16..8192:x2")
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    header = next(line for line in lines if line.startswith("nodes"))
    for word in ("sweep", "halo", "residual", "total", "GFLOP/s", "efficiency"):
        assert word in header
    assert sum(1 for line in lines if line.strip().startswith(("16 ", "8,192 "))) == 2


@pytest.mark.parametrize("machine, nodes", [("angara-3d", "8..512:x4"),
                                            ("angara-36", "8..64:x2")])
def test_jacobi_runs_on_the_other_presets_with_node_and_network_values(jacobi, machine, nodes):
    doc = run_json("predict", "app", jacobi, "--machine", machine, "--nodes", nodes)
    assert len(doc["totals"]) >= 3 and all(t["total_s"] > 0 for t in doc["totals"])


def test_jacobi_json_is_long_rows_with_shares_and_totals(jacobi):
    doc = run_json("predict", "app", jacobi, "--machine", "angara-4d", "--nodes", "16,256",
                   "--param", "n=512")
    rows, totals = doc["rows"], doc["totals"]
    assert {tuple(sorted(r)) for r in rows} == {("algorithm", "layout", "nodes", "phase",
                                                 "share", "time_s")}
    assert {r["algorithm"] for r in rows} == {None}         # each phase's own
    # memory-bound sweep: 100 x 64 n^3 / P bytes at 51.2 GB/s (angara-4d node)
    sweep16 = next(r for r in rows if r["nodes"] == 16 and r["phase"] == "sweep")
    assert sweep16["time_s"] == pytest.approx(100 * 64 * 512**3 / 16 / 51.2e9, rel=1e-12)
    for total in totals:
        own = [r for r in rows if r["nodes"] == total["nodes"]]
        assert sum(r["time_s"] for r in own) == pytest.approx(total["total_s"], rel=1e-12)
        assert sum(r["share"] for r in own) == pytest.approx(1)
        assert total["gflops"] == pytest.approx(100 * 8 * 512**3 / total["total_s"] / 1e9)
    assert totals[0]["efficiency"] == 1
    assert totals[1]["efficiency"] == pytest.approx(
        totals[0]["total_s"] * 16 / (totals[1]["total_s"] * 256))
    assert doc["inputs"]["parameters"]["n"] == 512


def test_csv_has_phase_rows_and_total_rows(jacobi):
    text = run("predict", "app", jacobi, "--machine", "angara-4d", "--nodes", "16,32",
               "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["phase"] for r in rows] == ["sweep", "halo", "residual", "total"] * 2
    assert list(rows[0]) == ["nodes", "layout", "algorithm", "phase", "time_s", "share",
                             "gflops", "efficiency", "hw_gain"]
    total = rows[3]
    assert float(total["time_s"]) == pytest.approx(sum(float(r["time_s"]) for r in rows[:3]))
    assert float(total["share"]) == 1 and float(total["gflops"]) > 0


def test_legacy_flags_are_aliases_of_param():
    by_flag = run_json("predict", "app", "spmv", "--machine", "angara-4d", "--nodes", "16",
                       "--rows", "1000000", "--algorithm", "hw-tree")
    by_param = run_json("predict", "app", "spmv", "--machine", "angara-4d", "--nodes", "16",
                        "--param", "rows=1000000", "--algorithm", "hw-tree")
    assert by_flag["rows"] == by_param["rows"]
    compute = by_flag["rows"][0]
    # 2 d ceil(N / P) FLOP at 591 MFLOP/s
    assert compute["time_s"] == pytest.approx(2 * 10 * 62_500 / 591e6, rel=1e-12)
    heat = run_json("predict", "app", "heat", "--machine", "angara-4d", "--nodes", "64",
                    "--cells", "1000000", "--steps", "10")
    assert heat["inputs"]["parameters"]["cells"] == 1_000_000
    assert heat["inputs"]["parameters"]["steps"] == 10
    hpcg = run_json("predict", "app", "hpcg", "--machine", "angara-36", "--local", "16x16x32",
                    "--iterations", "5")
    assert hpcg["inputs"]["parameters"]["nz"] == 32
    assert hpcg["inputs"]["parameters"]["iterations"] == 5


def test_hpcg_optimized_beats_reference():
    def total(variant):
        doc = run_json("predict", "app", "hpcg", "--machine", "angara-36", "--variant", variant)
        return doc["totals"][0]["total_s"]

    assert total("optimized") < total("reference")


def test_hpcg_optimized_is_the_machines_own():
    """--variant optimized runs Agarkov 2015's SHMEM port on the Angara presets and the vendor
    roofline (hpcg-vendor) elsewhere, e.g. on Fugaku's A64FX nodes."""
    angara = run_json("predict", "app", "hpcg", "--machine", "angara-3d", "--nodes", "8",
                      "--variant", "optimized")
    fugaku = run_json("predict", "app", "hpcg", "--machine", "fugaku", "--nodes", "64",
                      "--variant", "optimized", "--local", "16x16x16")
    assert angara["inputs"]["skeleton"] == "hpcg-optimized"
    assert fugaku["inputs"]["skeleton"] == "hpcg-vendor"
    assert fugaku["inputs"]["processes_per_node"] == 4


def test_many_phases_fall_back_to_one_row_per_phase(tmp_path):
    phases = "".join(f'[[phase]]\nname = "compute step {i}"\nflops = "1e9 / P"\n'
                     for i in range(9))
    path = tmp_path / "many.toml"
    path.write_text(f'format = 1\nname = "many"\n{phases}')
    text = run("predict", "app", str(path), "--machine", "angara-4d", "--nodes", "16,32")
    assert max(len(line) for line in text.splitlines()) <= 100
    assert text.count("compute step 8") == 2 and text.count("total") >= 2


def test_npb_is_keeps_its_python_model():
    doc = run_json("predict", "app", "npb-is", "--machine", "ib-qdr-cluster", "--class", "C",
                   "--nodes", "2,4", "--ppn", "2")
    assert [p["nodes"] for p in doc["placements"]] and doc["inputs"]["app"] == "npb-is"


def test_place_ranks_every_placement_of_16_processes():
    placements = run_json("place", "--app", "npb-is", "--class", "C", "--procs", "16",
                          "--machine", "ib-qdr-cluster")["placements"]
    assert all(p["nodes"] * p["processes_per_node"] == 16 for p in placements)
    times = [p["total_s"] for p in placements]
    assert times == sorted(times) and len(placements) >= 3


def _bad(*args) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    return result.output


@pytest.mark.parametrize("args", [
    ["predict", "app", "nosuch", "--machine", "angara-4d"],
    ["predict", "app", "heat", "--machine", "angara-4d", "--nodes", "-1"],
    ["predict", "app", "heat", "--machine", "angara-4d", "--nodes", "0"],
    ["predict", "app", "heat", "--machine", "angara-4d", "--rows", "5"],
    ["predict", "app", "hpcg", "--machine", "angara-36", "--local", "16x16"],
    ["predict", "app", "hpcg", "--machine", "angara-36", "--local", "12x12x12"],
    ["predict", "app", "spmv", "--machine", "angara-4d", "--param", "rowz=5"],
    ["predict", "app", "spmv", "--machine", "angara-4d", "--param", "rows"],
    ["predict", "app", "spmv", "--machine", "angara-4d", "--param", "rows=many"],
    ["predict", "app", "spmv", "--machine", "angara-4d", "--algorithm", "fastest"],
    ["predict", "app", "spmv", "--machine", "angara-4d", "--class", "C"],
    ["predict", "app", "npb-is", "--machine", "ib-qdr-cluster", "--param", "x=1"],
    ["predict", "app", "missing.toml", "--machine", "angara-4d"],
    ["place", "--app", "npb-is", "--class", "Z", "--procs", "16", "--machine", "ib-qdr-cluster"],
    ["place", "--app", "npb-is", "--procs", "16", "--machine", "angara-36"],
])
def test_bad_input_is_one_line_and_status_2(args):
    _bad(*args)


def test_a_malformed_file_names_phase_and_key(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(JACOBI.replace('flops = "8 * n**3 / P"', 'flops = "8 * q**3 / P"'))
    out = _bad("predict", "app", str(path), "--machine", "angara-4d")
    assert "phase 'sweep', key 'flops'" in out and "unknown symbol 'q'" in out
    path.write_text(JACOBI.replace('flops = "8 * n**3 / P"', 'flops = "8 * n**3 * (20 - P)"'))
    out = _bad("predict", "app", str(path), "--machine", "angara-4d", "--nodes", "16,32")
    assert "phase 'sweep', key 'flops'" in out and "at N = 32" in out
    path.write_text(JACOBI.replace('flops = "8 * n**3 / P"', 'flops = "__import__(\'os\')"'))
    assert "attempt at code" in _bad("predict", "app", str(path), "--machine", "angara-4d")


def test_explain_app_prints_formulas_hops_and_loads(jacobi):
    text = run("explain", "app", jacobi, "--machine", "angara-4d", "--nodes", "4096")
    assert max(len(line) for line in text.splitlines()) <= 100
    for phrase in ("8*n**3/P", "8*n**2/P**(2/3)", "16x16x16 process grid", "5 hop(s)",
                   "channel load", "recursive-doubling", "T =", "t_inj",
                   "t_inj=network.injection_latency"):
        assert phrase in text, phrase
    doc = run_json("explain", "app", jacobi, "--machine", "angara-4d", "--nodes", "4096")
    assert [p["name"] for p in doc["phases"]] == ["sweep", "halo", "residual"]
    assert doc["phases"][1]["communication"][0]["hops"] == 5


def test_explain_app_bad_input_is_one_line():
    _bad("explain", "app", "npb-is", "--machine", "angara-4d")
    _bad("explain", "app", "heat", "--machine", "angara-4d", "--nodes", "0")
    _bad("explain", "app", "heat", "--machine", "angara-4d", "--param", "cells=-5")


def _fitme_runs(tmp_path):
    """The FITME skeleton in a file and runs.csv of its times with c_flops = 12, c_halo = 8
    at 4 node counts and 2 sizes, with 1 % seeded noise: (app path, runs path)."""
    import numpy as np

    from icnperf.data.machine import load_machine
    from icnperf.data.skeleton import parse_skeleton
    from icnperf.model.apps import timing
    from icnperf.model.collectives import Layout
    from icnperf.model.topology.torus import balanced_torus_shape

    app = tmp_path / "fitme.toml"
    app.write_text(FITME)
    truth = parse_skeleton(FITME).with_coefficients({"c_flops": 12, "c_halo": 8})
    machine = load_machine("angara-4d")
    noise = np.random.default_rng(7)
    lines = ["nodes,n,total_s"]
    for nodes in (16, 64, 256, 1024):
        for n in (128, 512):
            layout = Layout.torus(balanced_torus_shape(nodes, 4))
            t = timing.run(truth.with_parameters({"n": n}), machine, layout).total_s
            lines.append(f"{nodes},{n},{t * (1 + 0.01 * noise.standard_normal())!r}")
    runs = tmp_path / "runs.csv"
    runs.write_text("\n".join(lines) + "\n")
    return app, runs


def test_calibrate_app_fits_coefficients_and_writes_the_skeleton(tmp_path):
    from icnperf.data.skeleton import parse_skeleton

    app, runs = _fitme_runs(tmp_path)
    fitted = tmp_path / "fitted.toml"
    doc = run_json("calibrate", "--machine", "angara-4d", "--app", str(app), "--data",
                   str(runs), "-o", str(fitted))
    values = {c["coefficient"]: c for c in doc["coefficients"]}
    # runs with 1 % noise (seeded): the true coefficients lie within the 95 % intervals
    for c in values.values():
        assert c["ci_low"] < {"c_flops": 12, "c_halo": 8}[c["coefficient"]] < c["ci_high"]
        assert c["ci_high"] - c["ci_low"] < 0.3 * c["value"]
    assert doc["rms_relative_error"] < 0.02 and len(doc["runs"]) == 8
    written = parse_skeleton(fitted.read_text())
    assert float(written.coefficients["c_flops"]) == pytest.approx(values["c_flops"]["value"])
    assert "calibrated by icnperf calibrate" in fitted.read_text()
    text = run("calibrate", "--machine", "angara-4d", "--app", str(app), "--data", str(runs),
               "--fit", "c_flops")
    assert "c_flops" in text and "c_halo" not in text.split("\n\n")[1]


def test_calibrate_app_bad_runs_are_one_line(tmp_path):
    app = tmp_path / "fitme.toml"
    app.write_text(FITME)
    runs = tmp_path / "runs.csv"
    runs.write_text("nodes,size,total_s\n16,1,1.0\n32,1,0.5\n64,1,0.3\n")
    assert "not parameters of fitme" in _bad("calibrate", "--machine", "angara-4d", "--app",
                                             str(app), "--data", str(runs))
    runs.write_text("nodes,n,total_s\n16,128,1.0\n")
    assert "more runs than coefficients" in _bad("calibrate", "--machine", "angara-4d",
                                                 "--app", str(app), "--data", str(runs))


@pytest.mark.parametrize("change, extra, message", [
    (None, ["--param", "n=1e200"], "number too large"),
    (('flops = "8 * n**3 / P"', 'flops = "log2(0)"'), [], "division by zero or an infinite value"),
    (('flops = "8 * n**3 / P"', 'flops = "1e308 * 1e308"'), [], "number too large"),
    ("deep", [], "nested deeper than"),
])
def test_hostile_skeletons_get_one_line_and_exit_2(tmp_path, change, extra, message):
    """Values beyond a float, a logarithm of zero and deeply nested TOML: one line, exit 2
    (they raised OverflowError, TypeError and RecursionError before)."""
    text = JACOBI
    if change == "deep":
        text += "x = " + "[" * 5000 + "]" * 5000 + "\n"
    elif change is not None:
        assert change[0] in text
        text = text.replace(*change)
    path = tmp_path / "app.toml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["predict", "app", str(path), "--machine", "angara-4d",
                                      "--nodes", "16", *extra])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [
    ["predict", "app", "hpcg", "--variant", "optimized", "--machine", "angara-36"],
    ["predict", "app", "jacobi3d", "--machine", "angara-4d", "--nodes", "16..4096:x4"],
    ["explain", "app", "hpcg-optimized", "--machine", "angara-36", "--nodes", "36"],
    ["explain", "app", "jacobi3d", "--machine", "angara-4d", "--nodes", "4096"],
])
def test_app_tables_fit_100_columns(args):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.output.splitlines()) <= 100
# --- bad input that used to end in a traceback ----------------------------------------------


@pytest.mark.parametrize("command", ["predict", "explain"])
@pytest.mark.parametrize("param, problem", [
    ("n=1e200", "number too large at N = 16"),      # 8 n^3 / P = 5e599 FLOP
    ("n=1e400", "beyond the largest number"),
    ("n=1/3", "must be a number (2048, 0.5, 1e6)"),
    ("n=inf", "must be a number"),
])
def test_params_out_of_float_range_or_not_bare_numbers_are_one_line(jacobi, command, param,
                                                                    problem):
    out = _bad(command, "app", jacobi, "--machine", "angara-4d", "--nodes", "16",
               "--param", param)
    assert problem in out


@pytest.mark.parametrize("flops, problem", [
    ("1e308*1e308", "phase 'sweep', key 'flops': number too large at N = 16"),
    ("ceiling(1e300)*ceiling(1e300)", "phase 'sweep', key 'flops': number too large at N = 16"),
    ("log2(0)", "phase 'sweep', key 'flops': division by zero or an infinite value"),
    ("log2(P - 16)", "phase 'sweep', key 'flops': division by zero or an infinite value"),
    ("dims(n, 3, 5)", "dims: the index must be 0..2, not 5 at N = 16"),
])
def test_values_a_float_cannot_hold_are_one_line(tmp_path, flops, problem):
    path = tmp_path / "bad.toml"
    path.write_text(JACOBI.replace('"8 * n**3 / P"', f'"{flops}"'))
    assert problem in _bad("predict", "app", str(path), "--machine", "angara-4d", "--nodes",
                           "16")


def test_deeply_nested_toml_is_one_line(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text('format = 1\nname = "deep"\nnotes = ' + "[" * 5000 + "]" * 5000 + "\n")
    out = _bad("predict", "app", str(path), "--machine", "angara-4d")
    assert "deep.toml: not valid TOML (nested deeper than 32 levels" in out


def test_a_skeleton_too_large_or_not_a_regular_file_is_one_line(tmp_path, monkeypatch):
    path = tmp_path / "big.toml"
    path.write_text(JACOBI)
    monkeypatch.setenv("ICNPERF_MAX_INPUT_BYTES", "100")
    assert "over the 100-byte input limit" in _bad("predict", "app", str(path), "--machine",
                                                   "angara-4d")
    monkeypatch.delenv("ICNPERF_MAX_INPUT_BYTES")
    (tmp_path / "dir.toml").mkdir()
    assert "is a directory" in _bad("predict", "app", str(tmp_path / "dir.toml"), "--machine",
                                    "angara-4d")


def test_an_undecodable_file_name_is_shown_escaped(tmp_path):
    """A name whose bytes are not UTF-8 reaches Python with surrogate escapes; the message
    shows the byte as \\xff, as machine file names do."""
    import os

    name = os.fsdecode(b"jac\xffobi.toml")
    (tmp_path / name).write_text(JACOBI.replace('"8 * n**3 / P"', '"8 * q**3 / P"'))
    out = _bad("predict", "app", str(tmp_path / name), "--machine", "angara-4d")
    assert "jac\\xffobi.toml: phase 'sweep', key 'flops'" in out
    assert "\udcff" not in out


# --- --algorithm all: the hardware tree beside point-to-point --------------------------------


@pytest.mark.parametrize("app, nodes, p2p", [("spmv", "256,4096", "recursive-doubling"),
                                             ("heat", "64,32768", "p2p-tree")])
def test_algorithm_all_gives_the_papers_p2p_over_hw_tree_ratio(app, nodes, p2p):
    """The skeletons' ratio equals the Python models' (model/apps/spmv.py, heat.py, which
    the registered claims of Mukosey 2015 Figs. 9 and 10 evaluate), algorithm by algorithm."""
    from icnperf.data.machine import load_machine
    from icnperf.model.apps import heat, spmv
    from icnperf.model.collectives import Layout
    from icnperf.model.topology.torus import balanced_torus_shape

    doc = run_json("predict", "app", app, "--machine", "angara-4d", "--nodes", nodes,
                   "--algorithm", "all")
    machine = load_machine("angara-4d")
    model = {"spmv": spmv, "heat": heat}[app]
    assert {t["algorithm"] for t in doc["totals"]} == {"hw-tree", p2p}
    assert {r["algorithm"] for r in doc["rows"]} == {"hw-tree", p2p}
    for total in doc["totals"]:
        layout = Layout.torus(balanced_torus_shape(total["nodes"], 4))
        expected = model.predict(machine, layout, algorithm=total["algorithm"]).total_s
        assert total["total_s"] == pytest.approx(expected, rel=1e-9)
        ratio = (model.predict(machine, layout, algorithm=p2p).total_s
                 / model.predict(machine, layout, algorithm="hw-tree").total_s)
        assert total["hw_gain"] == pytest.approx(ratio, rel=1e-9)
    assert max(t["hw_gain"] for t in doc["totals"]) > 1.2      # the tree wins at scale


def test_algorithm_all_prints_a_block_per_algorithm_and_the_ratio_within_100_columns():
    text = run("predict", "app", "heat", "--machine", "angara-4d", "--nodes", "64..32768:x8",
               "--algorithm", "all")
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "every collective phase on the hardware tree (hw-tree):" in text
    assert "every collective phase on its point-to-point algorithm (p2p-tree):" in text
    header = next(line for line in text.splitlines() if "p2p / hw-tree" in line
                  and line.startswith(" nodes"))
    assert "hw-tree" in header and "p2p-tree" in header
    rows = list(csv.DictReader(io.StringIO(run(
        "predict", "app", "heat", "--machine", "angara-4d", "--nodes", "64,512",
        "--algorithm", "all", "--format", "csv"))))
    assert [r["algorithm"] for r in rows] == ["hw-tree"] * 10 + ["p2p-tree"] * 10
    totals = [r for r in rows if r["phase"] == "total"]
    assert totals[0]["hw_gain"] == totals[2]["hw_gain"] and float(totals[0]["hw_gain"]) > 1


def test_algorithm_all_on_a_best_phase_takes_the_fastest_point_to_point(tmp_path):
    path = tmp_path / "best.toml"
    path.write_text(JACOBI.replace('algorithm = "recursive-doubling"', 'algorithm = "best"'))
    doc = run_json("predict", "app", str(path), "--machine", "angara-4d", "--nodes", "256",
                   "--algorithm", "all")
    assert {t["algorithm"] for t in doc["totals"]} == {"hw-tree", "point-to-point"}
    note = next(n for n in doc["notes"] if n.startswith("residual at 256 nodes")
                and "point-to-point" in n)
    assert "hw-tree" not in note.split("of ")[-1]           # the tree is not a candidate


@pytest.mark.parametrize("args, problem", [
    (["jacobi3d", "--machine", "angara-36"], "one process per node"),
    (["jacobi3d", "--machine", "simgrid-torus-4x4x4", "--set", "node.peak_flops=1TFLOP/s",
      "--set", "node.memory_bandwidth=100GB/s"], "no hardware collectives"),
])
def test_algorithm_all_where_the_tree_does_not_apply_is_one_line(args, problem):
    out = _bad("predict", "app", *args, "--algorithm", "all")
    assert "--algorithm all runs every collective phase on hw-tree" in out and problem in out


def test_algorithm_all_needs_a_collective_phase(tmp_path):
    path = tmp_path / "nocoll.toml"
    path.write_text('format = 1\nname = "x"\n[[phase]]\nname = "c"\nflops = "1e9 / P"\n')
    assert "x has no collective phase" in _bad("predict", "app", str(path), "--machine",
                                               "angara-4d", "--algorithm", "all")


# --- explain app: decimals, byte counts, 100 columns ------------------------------------------


def test_explain_app_shows_float_numbers_as_decimals_and_bytes_with_separators(jacobi):
    """36 nodes x 8 processes on angara-36: the 6x6x8 grid's faces are 8 (1024 / 288^(1/3))^2
    = 192,351.2 bytes (not whole), and neighbours on the same node charge O + m / B_host."""
    text = run("explain", "app", jacobi, "--machine", "angara-36", "--nodes", "36")
    assert max(len(line) for line in text.splitlines()) <= 100
    m = 8 * (1024 / 288 ** (1 / 3)) ** 2
    assert f"= {m:,.1f} B per rank" in text                 # 192,351.2
    assert f"O + {m:.10g}/B_host" in text                  # 192351.2037, not p/q
    assert not any(len(word) > 12 and word.replace("/", "").isdigit()
                   for word in text.replace("(", " ").replace("*", " ").split())


def test_explain_app_wide_keeps_each_formula_on_one_line():
    args = ["explain", "app", "hpcg-optimized", "--machine", "angara-36", "--nodes", "36"]
    fitted, wide = run(*args), run(*args, "--wide")
    formula = ("memory_bytes*ppn/(coloring_factor*contiguous_factor*ellpack_factor*"
               "node.memory_bandwidth*node.memory_efficiency)")
    assert any(line.strip() == f"compute       {formula}".strip() or line.endswith(formula)
               for line in wide.splitlines())
    assert formula not in fitted and max(len(line) for line in fitted.splitlines()) <= 100
    assert "".join(formula.split()) in "".join(fitted.split())


def test_explain_app_of_a_library_algorithm_gives_its_time_without_a_formula():
    """best picks an MPI library's linear all-gather on the SimGrid fat tree (timed as
    flows, no closed form): explain app says so instead of refusing the name."""
    text = run("explain", "app", "spmv", "--machine", "simgrid-fattree-64", "--nodes", "8",
               "--set", "node.spmv_rate=1GFLOP/s")
    flowing = " ".join(text.split())
    assert "by linear (best: fastest of" in flowing and "no closed form" in flowing


# --- calibrate --app --------------------------------------------------------------------------


def test_calibrate_app_refuses_options_of_the_machine_fit(tmp_path):
    app, runs = _fitme_runs(tmp_path)
    for extra in (["--data-format", "csv"], ["--hops", "2"], ["--api", "shmem"]):
        out = _bad("calibrate", "--machine", "angara-4d", "--app", str(app), "--data",
                   str(runs), *extra)
        assert f"{extra[0]} does not apply with --app" in out


def test_calibrate_app_to_standard_output_writes_the_skeleton_alone(tmp_path):
    from icnperf.data.skeleton import parse_skeleton

    app, runs = _fitme_runs(tmp_path)
    result = CliRunner().invoke(cli, ["calibrate", "--machine", "angara-4d", "--app", str(app),
                                      "--data", str(runs), "-o", "-"])
    assert result.exit_code == 0, result.output
    fitted = parse_skeleton(result.stdout, "stdout")         # nothing but TOML
    assert float(fitted.coefficients["c_flops"]) == pytest.approx(12, rel=0.05)
    assert "fitted skeleton written to" not in result.output
    assert "c_flops" in result.stderr and "95% CI" in result.stderr


def test_calibrate_app_reads_a_runs_file_named_without_a_path(tmp_path, monkeypatch):
    """``--data runs.txt`` in the current folder: no separator, no .csv, yet a file (not an
    unknown bundled table); bundled table names keep meaning the tables."""
    app, runs = _fitme_runs(tmp_path)
    (tmp_path / "runs.txt").write_text(runs.read_text())
    monkeypatch.chdir(tmp_path)
    doc = run_json("calibrate", "--machine", "angara-4d", "--app", "fitme.toml", "--data",
                   "runs.txt")
    assert len(doc["runs"]) == 8
    out = _bad("calibrate", "--machine", "angara-4d", "--app", "fitme.toml", "--data",
               "angara-latency-16b")
    assert "not parameters of fitme" in out or "nodes" in out   # the bundled table, read


# --- docs/skeleton-format.md shows what the program prints -----------------------------------

DOCS = Path(__file__).resolve().parents[2] / "docs" / "skeleton-format.md"


def test_the_docs_worked_example_is_what_predict_app_prints():
    text = run("predict", "app", "jacobi3d", "--machine", "angara-4d", "--nodes", "4096")
    row = next(line for line in text.splitlines() if line.startswith("4,096"))
    assert row in DOCS.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("old, new, args", [
    ('flops = "8 * n**3 / P"', 'flops = "8 * m**3 / P"', ()),
    ('flops = "8 * n**3 / P"', 'flops = "8 * n**3 / (P"', ()),
    ('flops = "8 * n**3 / P"', 'flop = "8 * n**3 / P"', ()),
    ('halo = { dims = 3, bytes = "8 * (n / P**(1/3))**2" }', 'halo = { dims = 3 }', ()),
    ('flops = "8 * n**3 / P"', "flops = \"__import__('os')\"", ()),
    ('flops = "8 * n**3 / P"', "flops = \"__import__('os').system('ls')\"", ()),
    ('flops = "8 * n**3 / P"', 'flops = "8 * n**3 * (16 - P)"', ()),
    ('bytes = "8 * (n / P**(1/3))**2"', 'bytes = "(20 - P) ** 0.5"', ()),
    ('flops = "8 * n**3 / P"', 'flops = "1e308 * 1e308"', ()),
    ("", "", ("--param", "n=1/3")),
])
def test_the_docs_error_messages_are_the_real_ones(tmp_path, monkeypatch, old, new, args):
    import re

    monkeypatch.chdir(tmp_path)
    Path("jacobi.toml").write_text(JACOBI.replace(old, new) if old else JACOBI)
    message = _bad("predict", "app", "jacobi.toml", "--machine", "angara-4d", "--nodes",
                   "16,32", *args).strip()
    documented = [line for line in DOCS.read_text(encoding="utf-8").splitlines()
                  if line.startswith("icnperf: error: ")]
    assert any(re.fullmatch(".*".join(map(re.escape, line.split("..."))), message)
               for line in documented), message


# --- --placement: nodes on the endpoints of a tree or dragonfly ------------------------------

FAT_TREE = ["--machine", "simgrid-fattree-64", "--set", "node.peak_flops=1TFLOP/s", "--set",
            "node.memory_bandwidth=100GB/s", "--nodes", "16", "--param", "n=256"]


def test_spread_placement_slows_a_halo_on_a_fat_tree():
    """16 nodes of XGFT(2; 8,8; 1,8): linear fills two leaves, so the 2x2x4 grid's x and y
    neighbours share a leaf and only z crosses the spine; spread puts two nodes on each of
    the 8 leaves, so every halo message crosses the spine and the leaves' up links carry
    more: the halo takes longer, the compute does not change; random scatters the nodes
    over all 64 endpoints, also slower than linear."""
    def phases(placement):
        doc = run_json("predict", "app", "jacobi3d", *FAT_TREE, "--placement", placement)
        assert doc["inputs"]["placement"] == placement
        return {r["phase"]: r["time_s"] for r in doc["rows"]}

    linear, spread, scattered = phases("linear"), phases("spread"), phases("random")
    assert spread["sweep"] == linear["sweep"] == scattered["sweep"]
    assert spread["halo"] > 1.2 * linear["halo"]
    assert scattered["halo"] > linear["halo"]
    text = run("predict", "app", "jacobi3d", *FAT_TREE, "--placement", "spread")
    assert text.startswith("jacobi3d on simgrid-fattree-64, spread placement,")


def test_placement_reaches_the_halo_mapping():
    """By hand, jacobi3d's 16 ranks on the 2x2x4 grid (rank r at x = r % 2, y = r // 2 % 2,
    z = r // 4), XGFT(2; 8,8; 1,8) under d-mod-k (up port = destination endpoint mod 8):
    linear puts node i on endpoint i, so only z messages cross leaves (4..7 -> 8..11 and
    back), to four different destinations mod 8: spine hops 2, busiest channel 1. Spread
    puts node i on leaf i % 8 at position i // 8, so every message crosses the spine
    (hops 2) and goes up port 0 (destinations 0..7) or 1 (8..15): leaf 4 sends node 4's
    messages to 5, 6, 0 (port 0) and 8 (port 1) and node 12's to 13, 14, 8 (port 1):
    4 on port 1, the busiest channel."""
    from icnperf.data.machine import load_machine
    from icnperf.data.skeleton import load_skeleton
    from icnperf.model.apps import timing
    from icnperf.api.layouts import layouts_for

    machine = load_machine("simgrid-fattree-64").with_overrides(
        ["node.peak_flops=1TFLOP/s", "node.memory_bandwidth=100GB/s"])
    skeleton = load_skeleton("jacobi3d").with_parameters({"n": 256})
    [layout] = layouts_for(machine.topology, "16", None)
    seen = {}
    for placement in ("linear", "spread"):
        result = timing.run(skeleton, machine, layout.placed(1, placement))
        [halo] = next(p for p in result.phases if p.name == "halo").terms
        seen[placement] = (halo.hops, halo.load)
    assert seen == {"linear": (2, 1), "spread": (2, 4)}


def test_spread_placement_on_a_torus_is_refused_as_in_predict_collective():
    out = _bad("predict", "app", "heat", "--machine", "angara-4d", "--nodes", "64",
               "--placement", "spread")
    assert "spread placement deals nodes over the leaf switches" in out
    collective = _bad("predict", "collective", "allreduce", "--machine", "angara-4d",
                      "--nodes", "64", "--placement", "spread")
    assert out == collective
    assert "--placement does not apply to npb-is" in _bad(
        "predict", "app", "npb-is", "--machine", "angara-36", "--placement", "random")
    assert "hpcg_halo puts ranks on consecutive nodes" in _bad(
        "predict", "app", "hpcg", "--machine", "piz-daint", "--nodes", "64", "--placement",
        "spread")
