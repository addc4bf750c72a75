"""``icnperf size`` through Click's CliRunner: tables, JSON, CSV and bad input."""

import csv
import io
import json
import re

import pytest
from click.testing import CliRunner

from icnperf.cli import cli

SMALL_WORKLOAD = """
description = "one small all-reduce"
rationale = "cheap to evaluate"
[[collective]]
name = "ar"
weight = 1000
operation = "allreduce"
bytes = "8 B"
algorithm = ["hw-tree", "recursive-doubling"]
nodes = 64
"""


def invoke(*args):
    return CliRunner().invoke(cli, ["size", *args], catch_exceptions=False)


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL_WORKLOAD)
    return str(path)


def run_json(*args):
    result = invoke(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.slow
def test_nudt_conclusions_with_the_default_workload():
    """The issue's command: among fat tree, dragonfly, megafly and slim fly sized by the NUDT
    rules (Jiang et al.), slim fly needs the fewest routers and megafly the lowest radix."""
    doc = run_json("--endpoints", "100000", "--families", "fattree,dragonfly,megafly,slimfly")
    canonical = doc["scalability"]["canonical"]
    assert canonical["fewest_routers"] == {"family": "slimfly", "spec": "slimfly:q=41,p=31",
                                           "value": 3362}
    assert canonical["lowest_radix"] == {"family": "megafly", "spec": "megafly:k=18",
                                         "value": 36}
    assert {d["family"] for d in doc["designs"]} == {"fattree", "dragonfly", "megafly",
                                                     "slimfly"}
    screened = doc["screened"]
    assert screened["total"] == sum(screened["per_family"].values()) > 10_000
    assert len(doc["designs"]) == screened["evaluated"] == sum(
        screened["evaluated_per_family"].values())
    assert screened["dropped"] == screened["total"] - screened["evaluated"] > 10_000
    assert set(doc["pareto_front"]) <= {d["design"] for d in doc["designs"]}
    for family, tight in doc["proxy_tightness"].items():
        assert 1.0 <= tight["min"] <= tight["median"] <= tight["max"] < 1.5, family


@pytest.mark.slow
def test_shortlist_safe_all_and_a_number(small):
    """safe evaluates few designs, all every one, N tops safe up to N: the front is the
    same design for design; the text says how many were evaluated and why the rest went."""
    args = ("--endpoints", "300", "--workload", small, "--families",
            "torus,fattree,clos,dragonfly,megafly", "--torus-dims", "2,3")
    safe, every = run_json(*args), run_json(*args, "--shortlist", "all")
    total = safe["screened"]["total"]
    assert every["screened"]["evaluated"] == len(every["designs"]) == total
    assert safe["screened"]["evaluated"] < total
    assert safe["pareto_front"] == every["pareto_front"]
    topped = run_json(*args, "--shortlist", str(safe["screened"]["evaluated"] + 5))
    assert topped["screened"]["evaluated"] == safe["screened"]["evaluated"] + 5
    assert topped["pareto_front"] == safe["pareto_front"]
    reasons = {d["evaluated_because"] for d in topped["designs"]}
    assert "--shortlist N: next in proxy order" in reasons
    text = invoke(*args).output
    assert f"Screened {total:,} candidate designs" in text
    evaluated = safe["screened"]["evaluated"]
    assert f"The full workload model evaluated {evaluated:,}" in " ".join(text.split())
    assert "were dropped because an evaluated design costs no more" in " ".join(text.split())
    # one NUDT-rule torus per dimension count, fattree, dragonfly, megafly (clos has none)
    assert sum("NUDT rule" in d["notes"] for d in safe["designs"]) == 5


@pytest.mark.slow
def test_default_table_fits_100_columns_and_wide_keeps_the_old_layout():
    result = invoke("--endpoints", "10000")
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.output.splitlines()) <= 100
    assert "Proxy tightness" in result.output and "\n[1] " in result.output
    wide = invoke("--endpoints", "10000", "--wide")
    header = next(line for line in wide.output.splitlines() if line.startswith("rank"))
    for column in ("rank c*t", "front", "elec. links", "opt. links", "evaluated because"):
        assert column in header
    assert max(len(line) for line in wide.output.splitlines()) > 100


@pytest.mark.slow
def test_processes_give_the_inline_study(small):
    args = ("--endpoints", "200", "--workload", small, "--families",
            "dragonfly,megafly,slimfly", "--shortlist", "all")
    inline = run_json(*args)
    parallel = run_json(*args, "--scheduler", "processes", "--workers", "2", "--no-progress")
    assert parallel["designs"] == inline["designs"]


def test_json_rows_are_consistent(small):
    doc = run_json("--endpoints", "5000", "--workload", small, "--radix-max", "64",
                   "--torus-dims", "2,3")
    designs = doc["designs"]
    assert all(d["endpoints"] >= 5000 and d["radix"] <= 64 for d in designs)
    parts = [k for k in designs[0] if k.startswith("cost_") and k != "cost_x_time"]
    for d in designs:
        assert d["cost"] == pytest.approx(sum(d[k] for k in parts))
        assert d["workload_s"] == pytest.approx(d["term:ar"])
        assert d["cost_x_time"] == pytest.approx(d["cost"] * d["workload_s"])
    times = [d["workload_s"] for d in designs]
    assert times == sorted(times)
    front = {d["design"] for d in designs if d["pareto"]}
    assert front == set(doc["pareto_front"])
    for d in designs:
        dominated = any(o["cost"] <= d["cost"] and o["workload_s"] <= d["workload_s"]
                        and (o["cost"] < d["cost"] or o["workload_s"] < d["workload_s"])
                        for o in designs)
        assert dominated == (d["design"] not in front)


def test_table_and_csv(small):
    result = invoke("--endpoints", "2000", "--workload", small, "--families", "torus,slimfly")
    assert result.exit_code == 0
    assert "Pareto front" in result.output and "crossbar" in result.output
    assert "links, slimfly: in-rack links electrical" in result.output
    result = invoke("--endpoints", "2000", "--workload", small, "--families", "megafly",
                    "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert rows[0]["design"] == "megafly:k=7"  # 7^2 x 50 = 2450 >= 2000 > 6^2 x 37


def test_custom_cost_file_changes_costs(small, tmp_path):
    cost = tmp_path / "cost.toml"
    cost.write_text('unit = "kEUR"\n[router]\nbase = 1\nper_port = 0\n'
                    '[link]\nelectrical = 0\noptical = 0\nendpoint = 0\n'
                    '[adapter]\nper_endpoint = 0\n')
    doc = run_json("--endpoints", "1000", "--workload", small, "--cost", str(cost),
                   "--families", "fattree")
    assert doc["cost_unit"] == "kEUR"
    assert all(d["cost"] == d["routers"] for d in doc["designs"])


def test_output_file_and_force(small, tmp_path):
    target = tmp_path / "study.txt"
    args = ("--endpoints", "1000", "--workload", small, "--families", "megafly")
    assert invoke(*args, "-o", str(target)).exit_code == 0
    assert "megafly:k=6" in target.read_text()
    again = invoke(*args, "-o", str(target))
    assert again.exit_code == 2 and "--force" in again.output
    assert invoke(*args, "-o", str(target), "--force").exit_code == 0


@pytest.mark.parametrize("extra, message", [
    (("--families", "torus,moebius"), "unknown family 'moebius'"),
    (("--torus-dims", "3,x"), "--torus-dims"),
    (("--torus-dims", "40"), "--torus-dims: a 40D torus has at least 2^40 endpoints"),
    (("--radix-max", "4", "--families", "megafly"), "no design"),
    (("--cost", "/nonexistent/cost.toml"), "not found"),
    (("--workload", "/nonexistent/w.toml"), "not found"),
    (("--machine", "no-such-machine"), "no-such-machine"),
    (("--slack", "0.5"), "--slack"),
    (("--shortlist", "0"), "--shortlist"),
    (("--shortlist", "many"), "--shortlist must be safe, all or a whole number"),
    (("--scheduler", "nowhere"), "unknown scheduler 'nowhere'"),
])
def test_bad_options_exit_2_with_one_line(extra, message, small):
    args = ("--endpoints", "1000", "--workload", small, *extra)
    if "--workload" in extra:
        args = ("--endpoints", "1000", *extra)
    result = invoke(*args)
    assert result.exit_code == 2
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("text, message", [
    ("unit = \n", "not valid TOML"),
    ('unit = "USD"\ncolour = 1\n', "unknown key 'colour'"),
    ('unit = "USD"\n[router]\nbase = 1\n', "missing router.per_port"),
])
def test_malformed_cost_file(text, message, small, tmp_path):
    cost = tmp_path / "cost.toml"
    cost.write_text(text)
    result = invoke("--endpoints", "1000", "--workload", small, "--cost", str(cost))
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_workload_asking_for_more_nodes_than_endpoints_uses_all(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text(SMALL_WORKLOAD.replace("nodes = 64", "nodes = 5000"))
    doc = run_json("--endpoints", "1000", "--workload", str(path), "--families", "megafly")
    [term] = doc["terms"]
    assert term["layout"] == "megafly:k=6" and term["design"] == "megafly:k=6"
    assert "asks for 5000 nodes" in term["notes"][0]


def test_duplicate_families_are_sized_once(small):
    doc = run_json("--endpoints", "1000", "--workload", small, "--families", "megafly,megafly")
    assert [d["design"] for d in doc["designs"]] == ["megafly:k=6"]


def small_study(small, families="torus,fattree,megafly,slimfly"):
    from icnperf.api.sizing import load_study

    return load_study(2000, families, "2,3", 64, None, small, None)


def test_html_sections_figures_and_tables(small):
    from icnperf.api.study_rows import study_view
    from icnperf.reports.text.size_html import study_sections
    from icnperf.reports.document import render_document

    study, cost_model, workload, machine = small_study(small)
    sections = study_sections(study_view(study, cost_model, workload, machine))
    assert [s.title for s in sections] == ["Ranked designs", "Cost", "Workload",
                                           "Assumptions and notes"]
    figures = [f for s in sections for f in s.figures]
    assert {t.type for f in figures for t in f.data} <= {"scatter", "bar"}
    scatter = sections[0].figures[0]
    line = next(t for t in scatter.data if t.name == "Pareto front")
    assert list(line.x) == [r.cost for r in study.front]
    assert list(line.y) == [r.workload_s for r in study.front]
    bars = sections[1].figures[0].data
    totals = [sum(b.y[i] for b in bars) for i in range(len(study.results))]
    assert totals == pytest.approx([r.cost for r in study.results])
    ranked = sections[0].tables[0]
    assert len(ranked.rows) == len(study.results)
    html = render_document("Sizing study", sections)
    assert "slimfly:q=" in html and "Pareto front" in html


def test_the_study_view_adds_up_to_its_rows(small):
    """What the table and page read (api.study_rows.study_view): each design's weighted
    term seconds add up to its workload time, its cost parts to its cost; the narrow
    table's terms show the front and the NUDT-rule designs; the front runs cheapest
    first."""
    from icnperf.api.study_rows import study_view

    study, *inputs = small_study(small)
    view = study_view(study, *inputs)
    rows = view["rows"]
    assert len(rows) == len(study.results) > 1
    assert len(view["flags"]) == len(view["term_seconds"]) == len(view["cost_parts"]) \
        == len(view["shown"]) == len(rows)
    for row, seconds, parts, flags, shown in zip(rows, view["term_seconds"],
                                                 view["cost_parts"], view["flags"],
                                                 view["shown"]):
        assert sum(seconds) == pytest.approx(row["workload_s"])
        assert sum(parts) == pytest.approx(row["cost"])
        assert shown == (row["pareto"] or "NUDT rule" in flags)
        assert row["notes"] == "; ".join(flags)
    costs = [point["cost"] for point in view["front"]]
    assert costs == sorted(costs) and len(costs) == sum(row["pareto"] for row in rows)
    assert view["term_names"] == ["ar"] and view["endpoints"] == 2000


def test_html_study_is_written_whole_and_not_over_an_existing_file(small, tmp_path):
    target = tmp_path / "study.html"
    args = ("--endpoints", "1000", "--workload", small, "--families", "megafly,torus",
            "-o", str(target))
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    page = target.read_text(encoding="utf-8")
    assert page.lstrip().lower().startswith("<!doctype html") and page.rstrip().endswith(
        "</html>")
    assert page.count('class="plotly-graph-div') >= 2
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]   # no temp files
    again = invoke(*args)
    assert again.exit_code == 2 and "--force" in again.output
    assert target.read_text(encoding="utf-8") == page


def test_families_without_a_design_are_named(small):
    result = invoke("--endpoints", "100000", "--workload", small, "--radix-max", "40",
                    "--families", "megafly,slimfly")
    assert result.exit_code == 0
    assert "No design within radix 40: slimfly" in result.output


def test_ranks_share_ties_and_count_from_one():
    import numpy as np

    from icnperf.model.sizing.study import _ranks

    assert _ranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [3, 1, 3, 2]


def test_user_text_in_the_html_study_is_escaped(tmp_path):
    """A workload term named with markup shows as text: no live <a> in Plotly's labels."""
    hostile = tmp_path / "hostile.toml"
    hostile.write_text(SMALL_WORKLOAD.replace('name = "ar"',
                                              'name = "<a href=\\"https://evil.example\\">x</a>"'))
    target = tmp_path / "study.html"
    result = invoke("--endpoints", "1000", "--workload", str(hostile), "--families", "torus",
                    "-o", str(target))
    assert result.exit_code == 0, result.output
    page = target.read_text(encoding="utf-8")
    around = [page[max(0, m.start() - 40):m.start()]
              for m in re.finditer(r"evil\.example", page)]
    assert around                                      # the name is there, as text
    for text in around:
        assert "&lt;a href" in text
        assert "<a href" not in text and "\\u003ca" not in text


def test_html_study_refuses_a_format(small, tmp_path):
    result = CliRunner().invoke(cli, ["size", "--endpoints", "1000", "--workload", small,
                                      "--format", "csv", "-o", str(tmp_path / "s.html")])
    assert result.exit_code == 2 and "does not apply to an HTML page" in result.output
    assert not (tmp_path / "s.html").exists()


def test_tapered_trees_state_their_saving(small):
    doc = run_json("--endpoints", "500", "--workload", small, "--families", "xgft",
                   "--radix-max", "32")
    tapers = doc["tapers"]
    assert {(t["levels"], t["taper"]) for t in tapers} == {(2, 1), (2, 2), (2, 3), (2, 4),
                                                           (3, 1), (3, 2), (3, 3), (3, 4)}
    designs = {d["design"]: d for d in doc["designs"]}
    for row in tapers:
        full = next(t for t in tapers if t["levels"] == row["levels"] and t["taper"] == 1)
        assert row["saving"] == pytest.approx(1 - row["cost"] / full["cost"])
        assert designs[row["spec"]]["cost"] == row["cost"]
        assert designs[row["spec"]]["evaluated_because"].startswith(("the cheapest xgft",
                                                                     "no evaluated",
                                                                     "the family"))
    # the cheapest 1:1 three-level tree m=kxkxs, tapered t:1 (t | k), is in the space with
    # fewer top switches and cables, so the cheapest t:1 tree costs less
    full = next(t for t in tapers if t["levels"] == 3 and t["taper"] == 1)
    k = int(re.match(r"xgft:m=(\d+)x", full["spec"]).group(1))
    for row in tapers:
        if row["levels"] == 3 and row["taper"] > 1 and k % row["taper"] == 0:
            assert row["saving"] > 0


HEAT_WORKLOAD = """
description = "the heat solver"
rationale = "test"
[[app]]
name = "heat"
weight = 1
app = "{app}"
algorithm = ["hw-tree", "recursive-doubling"]
nodes = 64
[app.problem]
cells = 1048576
steps = 100
"""


def test_a_workload_naming_the_heat_skeleton_sizes_as_the_heat_model(tmp_path):
    """The bundled heat skeleton (by path, relative to the workload's folder) and the
    built-in heat model give the same front and the same workload time on every design both
    evaluate; the skeleton's screen, bounding it phase by phase, evaluates about as many
    (61 and 62 of 856 when this was written)."""
    import shutil
    from importlib import resources

    shutil.copy(str(resources.files("icnperf").joinpath("data", "apps", "heat.toml")),
                tmp_path / "heat-skeleton.toml")
    docs = []
    for app in ("heat", "heat-skeleton.toml"):
        path = tmp_path / f"{app}.w.toml"
        path.write_text(HEAT_WORKLOAD.format(app=app))
        docs.append(run_json("--endpoints", "128", "--workload", str(path), "--machine",
                             "angara-4d"))
    model, skeleton = docs
    assert skeleton["pareto_front"] == model["pareto_front"]
    times = {d["design"]: d["workload_s"] for d in skeleton["designs"]}
    shared = [d for d in model["designs"] if d["design"] in times]
    assert len(shared) == len(model["designs"]) > 10
    for d in shared:
        assert times[d["design"]] == pytest.approx(d["workload_s"], rel=1e-9)
    assert skeleton["screened"]["evaluated"] <= 2 * model["screened"]["evaluated"]


@pytest.mark.parametrize("app, problem, message", [
    ("no-such-app", "", "app 1 ('job'): unknown application 'no-such-app'"),
    ("gone.toml", "", "app 1 ('job'): skeleton file"),
    ("jacobi3d", "q = 1", "app 1 ('job'): jacobi3d: unknown parameter 'q'"),
])
def test_bad_skeleton_in_a_workload_is_one_line_naming_it(tmp_path, app, problem, message):
    path = tmp_path / "w.toml"
    path.write_text(f'[[app]]\nname = "job"\nweight = 1\napp = "{app}"\n[app.problem]\n'
                    f"{problem}\n")
    result = invoke("--endpoints", "64", "--workload", str(path))
    assert result.exit_code == 2, result.output
    assert f"{path}: {message}" in result.output
    assert len(result.output.strip().splitlines()) == 1
