"""The machine report page: sections, figures, escaping, machines lacking parameters.

Validation is left out here (validation=False): its checks are tested on their own in
tests/validation and tests/reports/test_validation_page.py, and take seconds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from icnperf.api import machine_sections
from icnperf.api.pages import report
from icnperf.data.machine import Machine, load_machine
from icnperf.model.network import p2p_table
from icnperf.reports import machine_report
from icnperf.reports.figures import crossings


@pytest.fixture(scope="module")
def angara4d_page():
    return report("angara-4d", validation=False)


def _apps_section(machine, name):
    return machine_report.apps_section(machine_sections.app_results([machine], [name]))


def _titles(page: str) -> list[str]:
    return re.findall(r"<h2>(.*?)</h2>", page)


def _figure_count(page: str) -> int:
    return len(re.findall(r'<div id="figure-\d+" class="plotly-graph-div"', page))


def test_sections_and_self_contained(angara4d_page, network_loads, tag_count):
    assert _titles(angara4d_page) == [
        "Machine summary", "Topology", "Point-to-point", "Collectives vs node count",
        "Application scaling", "Formulas (angara-4d)"]
    # topology 1, p2p 3, collectives 2 operations, 2 apps x (shares + totals) = 10 figures
    assert _figure_count(angara4d_page) == 10
    assert tag_count(angara4d_page, "script") == 1 + 10
    assert tag_count(angara4d_page, "math") == 3
    assert network_loads(angara4d_page) == []
    assert '"type":"scattergl"' not in angara4d_page.split("</script>", 1)[1]


def test_apps_without_measured_rates_say_they_are_derived():
    """angara-36 has no node.spmv_rate / node.stencil_rate: its roofline rates are derived
    and the notes say so; angara-4d's measured rates carry no such note."""
    section = _apps_section(load_machine("angara-36"), "angara-36")
    assert len(section.figures) == 4
    assert "angara-36: spmv computes at the node's roofline rate, derived: the machine has " \
           "no measured node.spmv_rate" in section.notes
    assert any(n.startswith("angara-36: heat computes at the node's roofline rate")
               for n in section.notes)
    measured = _apps_section(load_machine("angara-4d"), "angara-4d")
    assert not any("roofline" in n for n in measured.notes)


def test_apps_absent_with_the_reason_when_nothing_gives_a_rate(tmp_path):
    """No measured rate and no memory values to derive one: notes say why, no figures."""
    angara = load_machine("angara-36")
    bare = Machine("bare", angara.topology, network=angara.network,
                   node={"peak_flops": 1e11}, software=angara.software)
    section = _apps_section(bare, "bare")
    assert section.figures == []
    assert any(n.startswith("bare: no spmv predictions: machine 'bare' has no"
                            " node.spmv_rate") for n in section.notes)


def test_p2p_table_cells_are_the_model_values(angara4d_page):
    """The 1 KiB row's latency equals p2p_table's own value (µs, 4 significant digits)."""
    machine = load_machine("angara-4d")
    latency_us = float(p2p_table(machine, [1024.0], None, "mpi").columns["latency_s"][0]) * 1e6
    row = re.search(r"<td class=\"text\">angara-4d</td><td class=\"num\">1,024</td>"
                    r"<td class=\"num\">[^<]*</td><td class=\"num\">([^<]*)</td>", angara4d_page)
    assert row is not None
    assert row.group(1) == f"{latency_us:.4g}"


def test_node_layouts_double_up_to_the_machine():
    """angara-4d (8x8x8x16 = 8192 nodes, 4D): 16, 32, ..., 4096 balanced, then its own."""
    layouts = machine_sections.node_layouts(load_machine("angara-4d"))
    assert [layout.endpoints for layout in layouts] == [16 * 2 ** i for i in range(10)]
    assert layouts[-1].text == "torus:8x8x8x16"
    three = machine_sections.node_layouts(load_machine("angara-36"))
    assert [layout.endpoints for layout in three] == [8, 16, 32, 36]
    # a fat tree larger than the machine: its 4,608 nodes (system.nodes), not 11,664
    (summit,) = machine_sections.node_layouts(load_machine("summit"))
    assert (summit.endpoints, summit.network_endpoints) == (4608, 11664)


def test_machine_without_p2p_keys_says_why(network_loads, tmp_path):
    """A machine file without flit and latency keys: the page still renders, and says so."""
    gige = load_machine("gige-cluster")
    bare = Machine("bare", gige.topology,
                   network={k: gige.network[k] for k in ("link_bandwidth", "switching")},
                   software={"mpi_latency": gige.software["mpi_latency"]})
    path = tmp_path / "bare.toml"
    path.write_text(bare.to_toml())
    page = report(str(path), validation=False)
    assert "bare: no point-to-point predictions: machine bare lacks" in page
    assert "bare: no broadcast predictions" in page
    assert "No machine has the parameters." in page
    assert network_loads(page) == []


def test_compare_overlays_machines(network_loads):
    page = report("angara-36", compare=("gige-cluster",), validation=False)
    assert "icnperf report: angara-36 vs gige-cluster" in page
    assert "angara-36: hw-tree" in page  # trace names carry the machine when comparing
    assert network_loads(page) == []


def test_user_text_from_a_machine_file_is_escaped(tmp_path, network_loads):
    """Name and notes with markup come out as text, in the page and in the Plotly labels
    (Plotly renders a subset of HTML in labels, <a href> included, so labels are escaped
    before Plotly's JSON encoding, which would only turn '<' into \\u003c)."""
    preset = Path(machine_report.__file__).parents[1] / "data" / "machines" / "angara-36.toml"
    evil = '<img src=x onerror=alert(1)><a href="https://evil.example">x</a>'
    source = preset.read_text(encoding="utf-8")
    source = source.replace('name = "angara-36"', f"name = '{evil}'")
    source = source.replace("notes = [", f"notes = [\n    '{evil}',")
    path = tmp_path / "evil.toml"
    path.write_text(source, encoding="utf-8")
    page = report(str(path), validation=False)
    assert (evil in page) is False
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert '"name":"&lt;img src=x onerror=alert(1)&gt;' in page
    assert ("\\u003cimg" in page) is False
    assert network_loads(page) == []


def test_crossings_found_by_log_interpolation():
    """y = x meets y = 4 at x = 4 (between samples 2 and 8, exactly in log space)."""
    points = crossings([2, 8], [2, 8], [4, 4])
    assert points == [pytest.approx((4.0, 4.0))]
    assert crossings([1, 2], [1, 2], [3, 3]) == []
    # equal at 2 and 4, then apart: no crossing; below, equal at 2, above: crossing at 2
    assert crossings([1, 2, 4, 8], [1, 1, 1, 1], [1, 1, 1, 2]) == []
    assert crossings([1, 2, 4], [1, 2, 3], [2, 2, 2]) == [(2, 2)]


def test_validation_section_keeps_the_fast_closed_form_claims():
    """Every registered claim is either in the report's section or left to the validation
    page as a simulator or application-level check; the table has one row per kept claim."""
    from icnperf.validation.registry import all_claims

    kept = [c.id for c in all_claims() if c.runs == "closed-form"]
    section = machine_report.validation_section(machine_sections.validation_results())
    assert [row[0] for row in section.tables[0].rows] == kept
    assert any(i.startswith("angara-fig7-") for i in kept)
    assert not any(i.startswith(("hpcg-", "npb-is-", "angara-fig10-")) for i in kept)
    assert len(section.figures) == 1
