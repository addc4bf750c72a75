"""measurements.py and the bundled tables: transcriptions, exclusions, the schema check."""

import configparser
import fnmatch
import math
import re
import shutil
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icnperf.errors import DataError
from icnperf.data.measurements.tables import (
    DIMENSIONLESS,
    EXCLUDED,
    METHODS,
    SUFFIX_UNITS,
    TEXT,
    MeasurementTable,
    list_tables,
    load_table,
    parse_sidecar,
    read_csv_text,
)
from icnperf.units import parse_quantity

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROOT = Path(__file__).resolve().parents[1]
BUNDLED_DIR = ROOT / "icnperf" / "data" / "measurements"
DATA = Path(__file__).resolve().parent / "data" / "measurements"
SI_UNITS = {"s", "B", "B/s", "Hz", "FLOP/s"}

BUNDLED = {
    "npb-is-gige-class-c",
    "npb-is-ib-qdr-class-c",
    "npb-is-ib-qdr-class-d",
    "angara-latency-16b",
    "angara-collectives-fig7",
    "angara-spmv-fig9",
    "angara-heat-fig10",
    "angara-hpcg-36-nodes",
    "angara-allgather-sim-vs-cluster",
    "k-computer-hpcg",
    "fugaku-hpcg",
    "fugaku-imb-pingpong",
    "tofud-cluster2018",
    "aries-xc-whitepaper",
    "piz-daint-osu-reframe",
    "piz-daint-osu-bw-reframe",
    "piz-daint-node-reframe",
    "lumi-osu-reframe",
    "lumi-osu-bw-reframe",
    "alps-osu-gpu-reframe",
    "alps-osu-bw-gpu-reframe",
    "lumi-g-osu-bw-cupy-reframe",
    "lumi-g-rccl-tests-reframe",
    "nccl-tests-h100-a100-references",
    "nccl-tests-ndr-per-nic",
    "hpcg-list-2021-06",
    "hpcg-list-2023-11",
    "sequoia-allreduce-bgq",
    "simgrid-collectives-cm02",
    "booksim-saturation-summary",
    "booksim-uniform-runs",
    "booksim-uniform-overload",
    "booksim-uniform-unstable",
}
PUBLISHED = ("k-computer-hpcg", "fugaku-hpcg", "hpcg-list-2021-06", "hpcg-list-2023-11",
             "sequoia-allreduce-bgq", "fugaku-imb-pingpong", "tofud-cluster2018",
             "aries-xc-whitepaper", "piz-daint-osu-reframe", "piz-daint-osu-bw-reframe",
             "piz-daint-node-reframe", "lumi-osu-reframe", "lumi-osu-bw-reframe",
             "alps-osu-gpu-reframe", "alps-osu-bw-gpu-reframe",
             "lumi-g-osu-bw-cupy-reframe", "lumi-g-rccl-tests-reframe",
             "nccl-tests-h100-a100-references", "nccl-tests-ndr-per-nic")
"""Tables of published measurements on real machines (not from the seed papers): cited by
URL instead of a seed file."""
REFERENCE_RUNS = {"simgrid-collectives-cm02", "booksim-saturation-summary",
                  "booksim-uniform-runs", "booksim-uniform-overload", "booksim-uniform-unstable"}
"""Tables of reference runs of independent simulators (SimGrid, BookSim2), not of a paper."""
NPB = ("npb-is-gige-class-c", "npb-is-ib-qdr-class-c", "npb-is-ib-qdr-class-d")
CLAIMS = (
    "angara-collectives-fig7",
    "angara-spmv-fig9",
    "angara-heat-fig10",
    "angara-hpcg-36-nodes",
    "angara-allgather-sim-vs-cluster",
)


def _row(table, **where):
    """The one row of ``table`` whose columns equal ``where``."""
    hits = [r for r in table.rows() if all(r[k] == v for k, v in where.items())]
    assert len(hits) == 1, f"{table.name}: {len(hits)} rows match {where}"
    return hits[0]


def _one_line_error(excinfo) -> str:
    message = str(excinfo.value)
    assert "\n" not in message and "\r" not in message
    assert message.strip() == message and message
    return message


# ------------------------------------------------------------------------ bundled tables


def test_list_tables_names_every_bundled_csv():
    listed = dict(list_tables())
    assert set(listed) == BUNDLED
    on_disk = {p.stem for p in BUNDLED_DIR.glob("*.csv")}
    assert set(listed) == on_disk
    assert {p.stem for p in BUNDLED_DIR.glob("*.toml")} == on_disk  # a sidecar for each
    assert all(title.strip() for title in listed.values())
    assert [name for name, _ in list_tables()] == sorted(listed)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_every_bundled_table_loads_and_validates(name):
    table = load_table(name)
    assert table.name == name and len(table) >= 1
    prov = table.provenance
    if name in PUBLISHED:
        assert re.fullmatch(r"https?://\S+", prov["source"]["url"])
    elif name not in REFERENCE_RUNS:
        assert re.fullmatch(r"[0-9]{3}_[0-9a-f]{16}\.txt", prov["source"]["seed"])
    assert prov["source"]["citation"].strip() and prov["source"]["location"].strip()
    assert prov["method"]["how"] in METHODS and prov["method"]["details"].strip()
    assert set(prov["columns"]) == set(table.columns)
    for column, values in table.columns.items():
        unit = table.units[column]
        assert unit == prov["columns"][column]["unit"]
        assert prov["columns"][column]["description"].strip()
        suffix_unit = next((u for s, u in SUFFIX_UNITS.items() if column.endswith(s)), None)
        if suffix_unit:
            assert unit == suffix_unit
        else:
            assert unit in (DIMENSIONLESS, TEXT)
        if unit == TEXT:
            assert isinstance(values, tuple) and all(isinstance(v, str) for v in values)
        else:
            assert isinstance(values, np.ndarray) and np.all(np.isfinite(values))
            if unit in SI_UNITS:
                assert np.all(values >= 0)
    # the same file by path, with its sidecar next to it, gives the same table
    by_path = load_table(str(BUNDLED_DIR / f"{name}.csv"))
    assert by_path.rows() == table.rows() and dict(by_path.units) == dict(table.units)


@pytest.mark.parametrize("name", NPB)
def test_npb_tables_share_one_shape(name):
    table = load_table(name)
    assert list(table.columns) == [
        "processes", "nodes", "processes_per_node", "total_s", "collective_s", "p2p_s", EXCLUDED
    ]
    # processes is the row's own nodes x processes-per-node, never the printed label
    assert np.array_equal(table["processes"], table["nodes"] * table["processes_per_node"])
    assert table["processes"].dtype == np.int64
    assert table.provenance["source"]["seed"] == "004_17c4801674b2d80a.txt"
    # every exclusion reason is explained in the sidecar
    for reason in table.excluded_rows()[EXCLUDED]:
        assert table.provenance["exclusions"][reason].strip()


def test_gige_class_c_transcription_and_regrouping():
    table = load_table("npb-is-gige-class-c")
    assert len(table) == 16
    groups = {p: int(np.sum(table["processes"] == p)) for p in (4, 8, 16, 32, 64)}
    assert groups == {4: 3, 8: 4, 16: 4, 32: 3, 64: 2}
    # the rows printed under shifted labels, counted by their own nodes x ppn
    assert _row(table, nodes=8, processes_per_node=1)["processes"] == 8
    assert _row(table, nodes=8, processes_per_node=1)["total_s"] == 10.79
    assert _row(table, nodes=16, processes_per_node=1)["processes"] == 16
    assert _row(table, nodes=16, processes_per_node=2)["processes"] == 32
    first = _row(table, nodes=1, processes_per_node=4)
    assert (first["total_s"], first["collective_s"], first["p2p_s"]) == (14.11, 5.99, 1.32)
    assert _row(table, nodes=4, processes_per_node=1)["collective_s"] == 12.1
    # the bold (fastest) total of each process count, as printed, is the group's minimum
    included = table.included()
    for processes, fastest in {4: 14.11, 8: 10.79, 16: 10.6, 32: 9.83, 64: 15.15}.items():
        mask = included["processes"] == processes
        assert included["total_s"][mask].min() == fastest


def test_gige_64_16_4_is_flagged_and_excluded():
    table = load_table("npb-is-gige-class-c")
    flagged = _row(table, processes=64, nodes=16, processes_per_node=4)
    assert (flagged["total_s"], flagged["collective_s"], flagged["p2p_s"]) == (48.77, 48.41, 3.12)
    assert flagged["collective_s"] + flagged["p2p_s"] > flagged["total_s"]
    assert flagged[EXCLUDED] == "collective + p2p exceeds total"
    excluded = table.excluded_rows()
    assert len(excluded) == 1 and len(table.included()) == 15
    assert excluded.lines == (17,)  # line 17 of the CSV (header is line 1)


def test_ib_class_c_copy_row_is_excluded_with_reason():
    table = load_table("npb-is-ib-qdr-class-c")
    genuine = _row(table, processes=4, nodes=1, processes_per_node=4)
    assert (genuine["total_s"], genuine["collective_s"], genuine["p2p_s"]) == (5.19, 0.98, 0.94)
    assert genuine[EXCLUDED] == ""
    copy = _row(table, processes=16, nodes=4, processes_per_node=4)
    assert (copy["total_s"], copy["collective_s"], copy["p2p_s"]) == (5.19, 0.98, 0.94)
    assert copy[EXCLUDED] == "copy of the 4/1/4 row"
    assert "copy" in table.provenance["exclusions"]["copy of the 4/1/4 row"]
    included = table.included()
    assert len(included) == 8 and EXCLUDED in included.columns
    assert all(reason == "" for reason in included[EXCLUDED])
    assert _row(table, nodes=1, processes_per_node=8)["total_s"] == 2.8
    assert _row(table, nodes=2, processes_per_node=8)["collective_s"] == 3.04


def test_ib_class_d_garbled_rows_are_excluded():
    table = load_table("npb-is-ib-qdr-class-d")
    garbled = table.excluded_rows()
    assert sorted(garbled["total_s"].tolist()) == [6360, 6360, 7121]
    assert _row(table, nodes=1, processes_per_node=8)["collective_s"] == 3506  # as printed
    assert _row(table, nodes=4, processes_per_node=4)[EXCLUDED] == "garbled: copy of the 4/1/4 row"
    included = table.included()
    assert len(included) == 6 and included["total_s"].max() == 112.31
    shifted = _row(table, nodes=8, processes_per_node=1)  # printed under the label 16
    assert shifted["processes"] == 8 and shifted["total_s"] == 61.86


@pytest.mark.parametrize("name", NPB)
def test_npb_included_rows_are_nearly_self_consistent(name):
    """Collective + p2p time fits in the total for every used row, to the 1 % the GigE
    sidecar documents for its two kept rows that exceed it by 0.12 s."""
    included = load_table(name).included()
    parts = included["collective_s"] + included["p2p_s"]
    assert np.all(parts <= included["total_s"] * 1.01)


def test_angara_latency_table_2():
    table = load_table("angara-latency-16b")
    assert _row(table, api="SHMEM")["latency_s"] == parse_quantity("0.7 us", "time")
    assert _row(table, api="MPI")["latency_s"] == parse_quantity("1 us", "time")
    assert set(table["message_bytes"].tolist()) == {16} and set(table["nodes"].tolist()) == {2}
    assert table.units["latency_s"] == "s" and table.units["message_bytes"] == "B"


def test_angara_collectives_fig7_ratios():
    table = load_table("angara-collectives-fig7")
    stated = {(r["operation"], r["torus"]): r["speedup"] for r in table.rows()}
    assert stated[("broadcast", "2x2x2")] == 2.39
    assert stated[("broadcast", "16x16x32")] == 6.97
    assert stated[("broadcast", "8x8x8x16")] == 6.18
    for row in table.rows():
        shape = [int(k) for k in row["torus"].split("x")]
        assert row["nodes"] == math.prod(shape) and row["dims"] == len(shape)
        assert row["message_bytes"] == 256
        assert row["relation"] == ("stated" if row["operation"] == "broadcast" else "approx")
        if row["operation"] == "all-reduce":  # "approximately the same" as broadcast
            assert row["speedup"] == stated[("broadcast", row["torus"])]


def test_published_hpcg_tables_match_their_quotes():
    k = load_table("k-computer-hpcg")
    assert list(k["nodes"]) == [82944] * 3
    assert list(k["hpcg_flop_per_s"]) == [460.754e12, 602e12, 603e12]
    fugaku = load_table("fugaku-hpcg")
    assert _row(fugaku, list="ISC20")["nodes"] == 138240
    assert _row(fugaku, list="ISC20")["hpcg_flop_per_s"] == 13400e12
    assert _row(fugaku, list="ISC22")["nodes"] == 158976
    listed = load_table("hpcg-list-2021-06")
    for row in listed.rows():
        assert row["nodes"] * row["cores_per_node"] == row["cores"]
    assert _row(listed, system="Summit")["hpcg_flop_per_s"] == 2925.75e12
    assert _row(load_table("hpcg-list-2023-11"), system="Frontier")["hpcg_flop_per_s"] == 14.05e15


def test_unverified_sequoia_allreduce_is_excluded():
    table = load_table("sequoia-allreduce-bgq")
    assert len(table) == 1 and len(table.included()) == 0
    row = table.rows()[0]
    assert row["processes"] == row["nodes"] * row["processes_per_node"] == 1572864


def test_angara_application_claims():
    spmv = load_table("angara-spmv-fig9").rows()
    assert spmv == [{
        "nodes": 2048, "dims": 4, "torus": "", "matrix_rows": 20_480_000,
        "nonzeros_per_row": 10, "speedup": 1.28, "relation": "max-over-nodes", "kind": "text",
    }]
    heat = load_table("angara-heat-fig10")
    at_32768 = {r["grid_cells"]: r["speedup"] for r in heat.rows() if r["nodes"] == 32768}
    assert at_32768 == {40_960_000: 3.0, 81_920_000: 2.7, 163_840_000: 2.7}
    onset = [r for r in heat.rows() if r["relation"] == "onset"]
    assert {r["nodes"] for r in onset} == {64} and {r["speedup"] for r in onset} == {1.0}
    assert set(heat["dims"].tolist()) == {4}
    hpcg = _row(load_table("angara-hpcg-36-nodes"), nodes=36)
    assert hpcg["speedup"] == 1.39 and hpcg["processes_per_node"] == 8
    assert (hpcg["local_nx"], hpcg["local_ny"], hpcg["local_nz"]) == (16, 16, 16)
    agree = load_table("angara-allgather-sim-vs-cluster")
    assert agree["nodes"].tolist() == [2, 4, 8]
    assert set(agree["relative_difference"].tolist()) == {0.0896}
    assert set(agree["relation"]) == {"at-most"}
    assert "not given" in " ".join(agree.provenance["notes"])


@pytest.mark.parametrize("name", CLAIMS)
def test_claim_tables_say_where_each_value_was_read(name):
    table = load_table(name)
    assert set(table["kind"]) <= {"text", "figure"}
    assert table.provenance["source"]["seed"] in ("000_b6777a07b5f0a153.txt",
                                                  "003_85875a86952f4222.txt")
    assert table.provenance["method"]["how"] == "stated-in-text"


def test_package_data_covers_the_bundled_files():
    """setup.cfg's package_data globs ship every bundled file, and the installed package
    (editable here) finds them through importlib.resources."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    globs = [g.strip() for g in config["options.package_data"]["icnperf"].split(",")]
    bundled = [p for p in BUNDLED_DIR.iterdir() if p.suffix in (".csv", ".toml")]
    assert bundled
    for path in bundled:
        relative = path.relative_to(ROOT / "icnperf").as_posix()
        assert any(fnmatch.fnmatch(relative, g) for g in globs), relative
    installed = resources.files("icnperf").joinpath("data", "measurements")
    assert {e.name for e in installed.iterdir()} >= {p.name for p in bundled}


# -------------------------------------------------------------------------- the table API


def test_table_is_read_only():
    table = load_table("npb-is-ib-qdr-class-c")
    with pytest.raises(ValueError):
        table["total_s"][0] = 1.0
    with pytest.raises(TypeError):
        table.columns["total_s"] = np.zeros(9)  # type: ignore[index]
    with pytest.raises(TypeError):
        table.provenance["title"] = "changed"  # type: ignore[index]
    with pytest.raises(AttributeError):
        table.name = "other"  # type: ignore[misc]
    with pytest.raises(KeyError, match="no column 'latency_s'"):
        table["latency_s"]


def test_included_without_excluded_column_keeps_every_row():
    table = load_table("angara-heat-fig10")
    assert EXCLUDED not in table.columns
    assert table.included().rows() == table.rows()
    assert len(table.excluded_rows()) == 0


def test_user_table_with_sidecar():
    table = load_table(DATA / "good-pingpong.csv")
    assert table.name == "good-pingpong" and table.title == "Ping-pong latency on a test cluster"
    assert table["message_bytes"].dtype == np.int64
    assert table["latency_s"].tolist()[:3] == [1.2e-6, 2.5e-6, 0.8e-6]
    assert len(table.included()) == 3
    assert table.provenance["row_notes"][0]["note"] == "Rerun pending."


def test_user_table_without_sidecar_infers_units():
    table = load_table(str(DATA / "good-nosidecar.csv"))
    assert dict(table.units) == {
        "nodes": "1", "torus": "text", "total_s": "s", "speedup": "1", "excluded": "text"
    }
    assert table["total_s"].tolist() == [1.5, 0.3, 0.25]
    assert table["torus"] == ("2x2x2", "16x16x32", "4x4x4")  # surrounding spaces stripped
    assert table.included()["nodes"].tolist() == [8.0, 8192.0]
    assert table.provenance == {} and table.title == "good-nosidecar"


def test_a_path_named_like_a_bundled_table_is_read_as_the_file(tmp_path, monkeypatch):
    """A file in the working directory named like a bundled table is that file when given
    as a path (``Path`` drops the ``./`` of ``./angara-latency-16b``); the bare name
    stays the bundled table."""
    shutil.copy(DATA / "good-nosidecar.csv", tmp_path / "angara-latency-16b")
    monkeypatch.chdir(tmp_path)
    for given in (Path("./angara-latency-16b"), Path("angara-latency-16b"),
                  "./angara-latency-16b"):
        table = load_table(given)
        assert table["total_s"].tolist() == [1.5, 0.3, 0.25], given
        assert table.provenance == {}
    assert load_table("angara-latency-16b").provenance["title"].startswith("Angara")
    with pytest.raises(DataError, match="not found"):
        load_table(Path("npb-is-gige-class-c"))


def test_read_csv_text_accepts_a_parsed_sidecar():
    bundled = load_table("angara-latency-16b")
    text = (BUNDLED_DIR / "angara-latency-16b.csv").read_text(encoding="utf-8")
    again = read_csv_text(text, "copy.csv", sidecar=bundled.provenance, name="copy")
    assert again.rows() == bundled.rows() and again.title == bundled.title


# ------------------------------------------------------------------------- malformed files


@pytest.mark.parametrize(
    "file, where, problem",
    [
        ("bad-empty.csv", "bad-empty.csv:", "empty file"),
        ("bad-header-only.csv", "bad-header-only.csv:", "no data rows"),
        ("bad-duplicate-column.csv", "line 1, column 'nodes'", "duplicate header column"),
        ("bad-missing-header-name.csv", "line 1", "header column 2 has no name"),
        ("bad-ragged-row.csv", "line 3", "3 values but the header has 2 columns"),
        ("bad-nonnumeric.csv", "line 3, column 'latency_s'", "'fast' is not a number"),
        ("bad-nan.csv", "line 2, column 'total_s'", "not a finite number"),
        ("bad-inf.csv", "line 3, column 'speedup'", "not a finite number"),
        ("bad-negative-time.csv", "line 3, column 'collective_s'", "negative time"),
        ("bad-decimal-comma.csv", "line 2, column 'total_s'", "decimal separator"),
        ("bad-undeclared-unit.csv", "line 1, column 'p2p_s'", "no unit declared"),
        ("bad-unexplained-exclusion.csv", "line 3, column 'excluded'", "not explained"),
        ("bad-unit-not-si.csv", "bad-unit-not-si.toml, line 12, column 'latency_s'", "not SI"),
    ],
)
def test_malformed_files_raise_one_line_data_errors(file, where, problem):
    with pytest.raises(DataError) as excinfo:
        load_table(str(DATA / file))
    message = _one_line_error(excinfo)
    assert where in message and problem in message
    assert file.replace(".csv", "") in message  # names the file


def test_bundled_table_without_sidecar_is_an_error(tmp_path, monkeypatch):
    shutil.copy(BUNDLED_DIR / "angara-latency-16b.csv", tmp_path / "orphan.csv")
    monkeypatch.setattr("icnperf.data.measurements.tables._bundled_dir", lambda: tmp_path)
    with pytest.raises(DataError) as excinfo:
        load_table("orphan")
    message = _one_line_error(excinfo)
    assert "orphan.csv" in message and "orphan.toml is missing" in message
    with pytest.raises(DataError, match="orphan.toml is missing"):
        list_tables()


def test_unknown_names_and_missing_files():
    with pytest.raises(DataError, match="unknown measurement table 'npb'.*npb-is-gige-class-c"):
        load_table("npb")
    with pytest.raises(DataError, match="not found"):
        load_table("no/such/file.csv")
    with pytest.raises(DataError, match="give a bundled table name"):
        load_table("  ")


def _sidecar(**columns: str) -> str:
    body = "".join(
        f'[columns.{name}]\nunit = "{unit}"\ndescription = "d"\n' for name, unit in columns.items()
    )
    return ('title = "t"\n[source]\ncitation = "c"\nlocation = "l"\n'
            '[method]\nhow = "measured"\ndetails = "d"\n' + body)


@pytest.mark.parametrize(
    "csv_text, sidecar, fragment",
    [
        ("a_s\n1\n", _sidecar(a_s="1"), "suffix says 's'"),
        ("latency\n1\n", _sidecar(latency="s"), "need a unit suffix"),
        ("a\n1\n", _sidecar(a="furlongs"), "unknown unit 'furlongs'"),
        ("a\n1\n", _sidecar(a="1", b="1"), "column 'b': column declared"),
        ("excluded\nx\n", _sidecar(excluded="1"), "must be declared unit = 'text'"),
        ("a\n1\n", _sidecar(a="1") + "[exclusions]\nunused = \"why\"\n", "no row"),
        ("a\n1\n", _sidecar(a="1").replace('how = "measured"', 'how = "guessed"'),
         "method.how 'guessed'"),
        ("a\n1\n", _sidecar(a="1").replace('title = "t"', 'title = ""'), "'title'"),
        ("a\n1\n", _sidecar(a="1") + "colour = 3\n", "unknown key 'colour'"),
        ("a\n1\n", "title = [", "malformed TOML"),
        ("a\n1.5\n", _sidecar(a="1") + "integer = true\n", "not a whole number"),
        ("a\n0\n", _sidecar(a="1") + "minimum = 1\n", "below the declared minimum"),
        ("a\nz\n", _sidecar(a="text") + 'choices = ["x", "y"]\n', "not one of 'x', 'y'"),
        ("a\n1\n", _sidecar(a="1") + '[[row_notes]]\nwhere = { a = 2 }\nnote = "n"\n',
         "matches no row"),
        ('a,b\n1,"x\n', None, "CSV syntax error"),
        ('a\n"x"y\n', None, "CSV syntax error"),
        ("a b\n1\n", None, "column names are lower-case"),
        ("\n\na\n1\n", None, "header must be the first line"),
        ("a_bytes\n-1\n", None, "negative value in B"),
        ("a_s\n1 us\n", None, "no unit text"),
        ("a\n\nnan\n", None, "not a finite number"),
        ("a_s,b\n,1\n", None, "empty value in a numeric column"),
        ("a\n1e999\n", None, "too large"),
    ],
)
def test_schema_errors_are_one_line(csv_text, sidecar, fragment):
    with pytest.raises(DataError) as excinfo:
        read_csv_text(csv_text, "t.csv", sidecar=sidecar, sidecar_origin="t.toml")
    message = _one_line_error(excinfo)
    assert fragment in message and ("t.csv" in message or "t.toml" in message)


def test_blank_lines_bom_and_crlf_are_accepted():
    table = read_csv_text("\ufeffa,b_s\r\n1,2\r\n\r\n3,4\r\n", "t.csv")
    assert table["a"].tolist() == [1.0, 3.0] and table.lines == (2, 4)


def test_parse_sidecar_requires_the_provenance_fields():
    with pytest.raises(DataError, match=r"\[source\] needs a non-empty 'location'"):
        parse_sidecar(_sidecar(a="1").replace('location = "l"\n', ""), "x.toml")
    doc = parse_sidecar(_sidecar(a="1"), "x.toml")
    assert doc["notes"] == [] and doc["exclusions"] == {} and doc["row_notes"] == []


def test_table_constructor_checks_its_own_invariants():
    with pytest.raises(ValueError, match="rows"):
        MeasurementTable("t", "t", {"a": np.zeros(2), "b": np.zeros(3)},
                         {"a": "1", "b": "1"}, {})
    with pytest.raises(ValueError, match="units"):
        MeasurementTable("t", "t", {"a": np.zeros(2)}, {}, {})


# ----------------------------------------------------------------------------- properties


def _check_table(table: MeasurementTable) -> None:
    assert len(table.lines) == len(table)
    assert set(table.units) == set(table.columns)
    for column, values in table.columns.items():
        assert len(values) == len(table)
        if table.units[column] == TEXT:
            assert isinstance(values, tuple)
        else:
            assert np.all(np.isfinite(values))
            if table.units[column] in SI_UNITS:
                assert np.all(np.asarray(values) >= 0)
    assert len(table.included()) + len(table.excluded_rows()) == len(table)


@FAST
@given(st.text(max_size=300))
def test_any_text_gives_a_table_or_a_data_error(text):
    try:
        table = read_csv_text(text, "random.csv")
    except DataError as err:
        assert "\n" not in str(err) and str(err).startswith("random.csv")
    else:
        _check_table(table)


_NAMES = st.sampled_from(["nodes", "total_s", "message_bytes", "torus", "excluded", "speedup",
                          "rate_bytes_per_s", "Bad", "", "nodes"])
_CELLS = st.sampled_from(["1", "2.5", "-3", "0", "1e-6", "nan", "-inf", "1e400", "", " 4 ",
                          "x", "2x2x2", '"1,5"', '"a""b"', "5,19", "\"", "copy", "1_0", "٣"])


@FAST
@given(
    header=st.lists(_NAMES, min_size=1, max_size=5),
    rows=st.lists(st.lists(_CELLS, min_size=0, max_size=6), max_size=6),
    with_sidecar=st.booleans(),
)
def test_csv_like_text_gives_a_table_or_a_data_error(header, rows, with_sidecar):
    text = "\n".join([",".join(header)] + [",".join(r) for r in rows]) + "\n"
    sidecar = _sidecar(nodes="1", total_s="s", excluded="text") if with_sidecar else None
    try:
        table = read_csv_text(text, "gen.csv", sidecar=sidecar, sidecar_origin="gen.toml")
    except DataError as err:
        assert "\n" not in str(err)
    else:
        _check_table(table)


@FAST
@given(data=st.data())
def test_damaged_sidecars_give_a_table_or_a_data_error(data):
    name = data.draw(st.sampled_from(sorted(BUNDLED)))
    csv_text = (BUNDLED_DIR / f"{name}.csv").read_text(encoding="utf-8")
    lines = (BUNDLED_DIR / f"{name}.toml").read_text(encoding="utf-8").splitlines()
    drop = data.draw(st.sets(st.integers(0, len(lines) - 1), max_size=3))
    damaged = "\n".join(line for i, line in enumerate(lines) if i not in drop)
    try:
        table = read_csv_text(csv_text, f"{name}.csv", sidecar=damaged,
                              sidecar_origin=f"{name}.toml")
    except DataError as err:
        assert "\n" not in str(err)
    else:
        _check_table(table)
