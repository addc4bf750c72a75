"""machine.py: presets, the TOML format, overrides, round trips and the errors users can cause."""

import json
import math
import pickle
from pathlib import Path

import pytest

from icnperf.errors import InputError
from icnperf.data.machine import (
    NODE_TYPE_KEYS,
    SCHEMA,
    Machine,
    list_presets,
    load_machine,
    parse_machine,
    write_machine,
)
from icnperf.model.topology.spec import parse_spec
from icnperf.units import KINDS

PRESETS = [
    "angara-3d",
    "angara-4d",
    "angara-36",
    "skif-aurora-torus",
    "ib-qdr-cluster",
    "gige-cluster",
    "simgrid-fattree-64",
    "simgrid-fattree-64-tapered",
    "simgrid-torus-4x4x4",
    "nudt-generic",
    "fugaku",
    "k-computer",
    "sequoia",
    "piz-daint",
    "lumi",
    "frontier",
    "summit",
    "dgx-a100",
    "dgx-h100",
    "dgx-b200",
    "gb200-nvl72",
    "alps",
    "lumi-g",
    "el-capitan",
    "jupiter",
    "juwels-booster",
    "aurora",
    "perlmutter",
]
PRESET_DIR = Path(__file__).resolve().parents[1] / "icnperf" / "data" / "machines"


def _write(tmp_path, text, name="m.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _error(tmp_path, text, name="m.toml"):
    path = _write(tmp_path, text, name)
    with pytest.raises(InputError) as info:
        load_machine(path)
    message = str(info.value)
    assert "\n" not in message
    assert name in message  # every file error names the file
    return message


# -------------------------------------------------------------------------------- schema


def test_schema_kinds_are_known():
    for section, keys in SCHEMA.items():
        for name, key in keys.items():
            assert key.section == section and key.name == name and key.meaning
            assert key.kind in KINDS or key.kind in ("choice", "text")
            assert (key.kind == "choice") == bool(key.choices)
            if key.unit:
                assert key.unit in KINDS[key.kind].units


# ------------------------------------------------------------------------------- presets


def test_list_presets_names_every_bundled_file():
    names = [name for name, _ in list_presets()]
    assert names == sorted(PRESETS)
    assert names == sorted(p.stem for p in PRESET_DIR.glob("*.toml"))
    assert all(description for _, description in list_presets())


@pytest.mark.parametrize("name", PRESETS)
def test_preset_loads_validates_and_cites_every_value(name):
    machine = load_machine(name)
    assert machine.name == name
    assert machine.topology and machine.description
    paths = ["topology"]
    for section in SCHEMA:
        paths += [f"{section}.{key}" for key in getattr(machine, section)]
    for type_name, node_type in machine.node_types.items():
        paths += [f"node_types.{type_name}.count"]
        paths += [f"node_types.{type_name}.{key}" for key in node_type.params]
    for path in paths:
        assert machine.source(path), f"{name}: {path} has no source"
    for section, key, value, text, source in machine.rows():
        assert text and source


@pytest.mark.parametrize("name", PRESETS)
def test_preset_round_trips_through_toml(name, tmp_path):
    machine = load_machine(name)
    assert parse_machine(machine.to_toml()) == machine
    path = tmp_path / f"{name}.toml"
    write_machine(machine, path)
    assert load_machine(str(path)) == machine


@pytest.mark.parametrize("name", PRESETS)
def test_preset_topology_parses(name):
    parse_spec(load_machine(name).topology)


def test_angara_values_match_the_paper_table():
    """Mukosey 2015 §3, Table 'Parameters of the evaluated supercomputer'."""
    for name, shape in (("angara-3d", (16, 16, 32)), ("angara-4d", (8, 8, 8, 16))):
        m = load_machine(name)
        assert m.topology == "torus:" + "x".join(map(str, shape))
        assert math.prod(shape) == 8192
        assert m.network["link_latency"] == 80e-9
        assert m.network["injection_latency"] == m.network["ejection_latency"] == 300e-9
        assert m.network["router_clock"] == 500e6
        assert m.network["flit_size"] == 16
        assert m.network["packet_max_flits"] * m.network["flit_size"] == 256
        assert m.network["link_bandwidth"] == 75e9 / 8
        assert m.network["collective_switching"] == "store-and-forward"
        assert m.node["peak_flops"] == 140.8e9
        assert m.node["spmv_rate"] == 591e6
        assert m.node["stencil_rate"] == 11e9


def test_angara_36_keeps_the_node_mix():
    """Agarkov 2015 Tables 1-2: 24 type A + 12 type B nodes, 6988.8 GFLOP/s in total."""
    m = load_machine("angara-36")
    assert {name: t.count for name, t in m.node_types.items()} == {"A": 24, "B": 12}
    total = sum(t.count * t.params.get("peak_flops", m.node["peak_flops"])
                for t in m.node_types.values())   # type B states its peak in [node]
    assert total == pytest.approx(6988.8e9, rel=1e-12)
    shape = [int(k) for k in m.topology.split(":")[1].split("x")]
    assert math.prod(shape) == 36
    assert m.software["shmem_latency"] == 0.7e-6 and m.software["mpi_latency"] == 1e-6
    assert m.node["processes_per_node"] == 8


def test_nudt_generic_is_in_cycles():
    m = load_machine("nudt-generic")
    assert m.topology == "dragonfly:p=4,a=8,h=4"
    assert m.network["router_pipeline_cycles"] == 4
    assert (m.network["terminal_link_latency"], m.network["router_link_latency"]) == (5, 50)
    assert (m.network["virtual_channels"], m.network["vc_buffer_flits"]) == (8, 300)
    assert m.network["packet_max_flits"] == 1
    # the paper gives no clock: 1 GHz is assumed, so each time is the paper's cycles in ns
    assert m.network["router_clock"] == 1e9
    assert m.network["router_latency"] == pytest.approx(4 / 1e9, rel=1e-12)
    assert m.network["link_latency"] == pytest.approx(50 / 1e9, rel=1e-12)
    assert m.network["injection_latency"] == pytest.approx(5 / 1e9, rel=1e-12)
    assert "assumed" in m.source("network.router_clock")
    # one 16-byte flit per 1 ns cycle: 16 GB/s (128 Gbit/s), in bytes per second
    assert m.network["link_bandwidth"] == pytest.approx(16 * 1e9, rel=1e-12)


# ------------------------------------------------------------------------------ the object


def test_machine_is_immutable_hashable_and_picklable():
    m = load_machine("angara-3d")
    with pytest.raises(AttributeError):
        m.name = "x"
    with pytest.raises(TypeError):
        m.network["link_latency"] = 1.0
    assert hash(m) == hash(load_machine("angara-3d"))
    assert pickle.loads(pickle.dumps(m)) == m


def test_as_dict_is_json():
    data = json.loads(json.dumps(load_machine("angara-36").as_dict()))
    assert data["network"]["link_latency"] == 80e-9
    assert data["node_types"]["A"]["count"] == 24


def test_rows_show_units_and_sources():
    rows = {(s, k): (v, text, src) for s, k, v, text, src in load_machine("angara-3d").rows()}
    assert rows["network", "link_latency"][:2] == (80e-9, "80 ns")
    assert rows["network", "link_bandwidth"][1] == "75 Gbit/s"
    assert rows["node", "peak_flops"][1] == "140.8 GFLOP/s"
    assert "Mukosey 2015" in rows["network", "link_latency"][2]


def test_require_explains_a_missing_value_with_the_syntax_not_a_number():
    m = Machine("x", "torus:4x4", network={"router_link_latency": 50})
    assert m.require("network.router_link_latency") == 50
    missing = (r"has no network\.link_latency.*--set network\.link_latency=VALUE with a unit "
               r"such as ns$")
    with pytest.raises(InputError, match=missing):
        m.require("network.link_latency")
    assert m.get("network.link_latency") is None and m.get("topology") == m.topology
    for path, syntax in (("node.peak_flops", "VALUE with a unit such as GFLOP/s"),
                         ("node.cores", "COUNT"),
                         ("network.switching", "cut-through|store-and-forward"),
                         ("node.memory_efficiency", "VALUE")):
        with pytest.raises(InputError) as error:
            m.require(path)
        assert str(error.value).endswith(f"--set {path}={syntax}")


def test_constructor_validates():
    with pytest.raises(InputError, match="unknown key 'network.nosuch'"):
        Machine("x", "torus:4x4", network={"nosuch": 1.0})
    with pytest.raises(InputError, match="negative"):
        Machine("x", "torus:4x4", network={"link_latency": -1.0})
    with pytest.raises(InputError, match="whole number"):
        Machine("x", "torus:4x4", network={"packet_max_flits": 2.5})
    with pytest.raises(InputError, match="topology"):
        Machine("x", "4x4")


# ------------------------------------------------------------------------------ overrides


def test_overrides_parse_units_and_record_provenance():
    base = load_machine("angara-3d")
    m = base.with_overrides(
        ["network.link_latency=60ns", "network.packet_max_flits=8", "topology=torus:8x8x8",
         "node.memory_bandwidth = 60 GB/s", "network.switching=store-and-forward"]
    )
    assert m.network["link_latency"] == 60e-9
    assert m.network["packet_max_flits"] == 8 and isinstance(m.network["packet_max_flits"], int)
    assert m.topology == "torus:8x8x8"
    assert m.node["memory_bandwidth"] == 60e9
    assert m.source("network.link_latency") == "--set network.link_latency=60ns"
    assert base.network["link_latency"] == 80e-9  # the original is untouched
    assert parse_machine(m.to_toml()) == m


def test_overrides_of_node_types():
    m = load_machine("angara-36").with_overrides(
        ["node_types.A.count=30", "node_types.C.count=2", "node_types.C.cores=64"]
    )
    assert m.node_types["A"].count == 30
    assert m.node_types["C"].count == 2 and m.node_types["C"].params["cores"] == 64
    assert set(NODE_TYPE_KEYS) >= {"count", "cores", "peak_flops"}


@pytest.mark.parametrize(
    "item, fragment",
    [
        ("network.nosuch=1", "unknown key 'network.nosuch' (known: link_latency"),
        ("netwrk.link_latency=1ns", "unknown section 'netwrk'"),
        ("network.link_latency=fast", "does not start with a number"),
        ("network.link_latency=60", "no unit; write e.g. '60 ns'"),
        ("network.link_latency=-60ns", "negative"),
        ("network.link_bandwidth=0 Gbit/s", "must be greater than 0"),
        ("network.switching=wormhole", "not one of: cut-through, store-and-forward"),
        ("network.packet_max_flits=2.5", "whole number"),
        ("network", "expected SECTION.KEY=VALUE"),
        ("=5", "expected SECTION.KEY=VALUE"),
        ("network.link_latency.x=1ns", "expected SECTION.KEY"),
        ("topology=torus 4x4", "unknown topology family"),
        ("topology=torus:0x3", "radix 0 in dimension 1 must be >= 2"),
        ("node_types.C.cores=4", "set node_types.C.count as well"),
        ("node_types.A.nosuch=4", "unknown key 'node_types.A.nosuch'"),
    ],
)
def test_bad_overrides(item, fragment):
    with pytest.raises(InputError) as info:
        load_machine("angara-36").with_overrides([item])
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_with_values_for_calibration():
    m = load_machine("angara-3d").with_values(
        {"network.router_latency": 12e-9}, source="calibrated to Fig. 7"
    )
    assert m.network["router_latency"] == 12e-9
    assert m.source("network.router_latency") == "calibrated to Fig. 7"
    with pytest.raises(InputError):
        m.with_values({"network.router_latency": -1.0}, source="x")


# ------------------------------------------------------------------------------ file format

_MINIMAL = 'topology = "torus:4x4"\n'


def test_minimal_file_and_all_value_layouts(tmp_path):
    text = (
        'topology = { value = "torus:4x4", source = "chosen" }\n'
        'notes = "one note"\n'
        "[network]\n"
        'link_latency = "80 ns"\n'
        'router_latency = { value = "10 ns", source = "inline table" }\n'
        'flit_size.value = "16 B"\n'
        'flit_size.source = "dotted keys"\n'
        "packet_max_flits = 16\n"
        "router_link_latency = 0\n"
        "[network.host_bandwidth]\n"
        'value = "8 GB/s"\n'
        'source = "sub-table"\n'
    )
    m = load_machine(_write(tmp_path, text, "my-machine.toml"))
    assert m.name == "my-machine"  # no name: the file's stem
    assert m.network["link_latency"] == 80e-9 and m.source("network.link_latency") == ""
    assert m.source("network.router_latency") == "inline table"
    assert m.source("network.flit_size") == "dotted keys"
    assert m.source("network.host_bandwidth") == "sub-table"
    assert m.source("topology") == "chosen" and m.notes == ("one note",)
    assert parse_machine(m.to_toml()) == m


def test_malformed_toml_names_file_and_line(tmp_path):
    message = _error(tmp_path, 'topology = "torus:4x4"\nnot = [valid toml\n', "broken.toml")
    assert "malformed TOML" in message and "line 2" in message


def test_unknown_key_names_file_line_and_key(tmp_path):
    message = _error(tmp_path, _MINIMAL + '[network]\nlink_latncy = "80 ns"\n', "typo.toml")
    assert "line 3" in message and "'network.link_latncy'" in message
    assert "link_latency" in message  # lists the known keys


def test_unknown_section_is_named(tmp_path):
    message = _error(tmp_path, _MINIMAL + "[netwrk]\nx = 1\n")
    assert "'netwrk'" in message and "line 2" in message


def test_missing_unit_is_named(tmp_path):
    message = _error(tmp_path, _MINIMAL + "[network]\nlink_latency = 80\n")
    assert "network.link_latency: 80 has no unit; write e.g. '80 ns'" in message


def test_missing_unit_in_text_is_named(tmp_path):
    message = _error(tmp_path, _MINIMAL + '[node]\npeak_flops = "140.8"\n')
    assert "node.peak_flops" in message and "no unit" in message


def test_negative_values_are_rejected(tmp_path):
    message = _error(tmp_path, "[network]\nlink_latency = -5\n", "negative.toml")
    assert "network.link_latency" in message and "negative" in message
    message = _error(tmp_path, _MINIMAL + '[network]\nlink_latency = "-5 ns"\n')
    assert "negative" in message


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('[network]\nlink_latency = "80 ns"\n', "no 'topology'"),
        ('topology = "torus 4x4"\n', "unknown topology family"),
        (_MINIMAL + 'colour = "red"\n', "unknown key 'colour'"),
        (_MINIMAL + "format = 2\n", "format 2 is not supported"),
        (_MINIMAL + "[network]\nswitching = \"wormhole\"\n", "not one of"),
        (_MINIMAL + "[network]\npacket_max_flits = 0\n", "must be greater than 0"),
        (_MINIMAL + "[network]\npacket_max_flits = 2.5\n", "whole number"),
        (_MINIMAL + "[network]\npacket_max_flits = true\n", "must be a number"),
        (_MINIMAL + '[network]\nlink_latency = { value = "8 ns", src = "x" }\n', "'source'"),
        (_MINIMAL + '[network]\nlink_latency = "80 furlongs"\n', "unknown unit 'furlongs'"),
        (_MINIMAL + '[node_types.A]\ncores = 4\n', "has no 'count'"),
        (_MINIMAL + 'name = ""\n', "'name' must be non-empty"),
        (_MINIMAL + "notes = 5\n", "'notes' must be text"),
        (_MINIMAL + "network = 5\n", "must be a table"),
    ],
)
def test_invalid_files(tmp_path, text, fragment):
    assert fragment in _error(tmp_path, text)


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_machine(str(tmp_path / "missing.toml"))
    with pytest.raises(InputError, match="is a directory"):
        load_machine(str(tmp_path) + "/")
    (tmp_path / "latin1.toml").write_bytes(b'topology = "torus:4x4"\n# \xe9\n')
    with pytest.raises(InputError, match="not UTF-8"):
        load_machine(str(tmp_path / "latin1.toml"))
    with pytest.raises(InputError, match=r"unknown machine preset 'nosuch'.*angara-3d"):
        load_machine("nosuch")
    with pytest.raises(InputError, match="unknown machine preset"):
        load_machine("..")


# --------------------------------------------------------------------------------- writing


def test_write_machine_is_atomic_and_refuses_to_overwrite(tmp_path):
    m = load_machine("angara-36")
    path = tmp_path / "out.toml"
    write_machine(m, path)
    with pytest.raises(InputError, match="exists; pass --force"):
        write_machine(load_machine("angara-3d"), path)
    assert load_machine(str(path)) == m
    write_machine(load_machine("angara-3d"), path, overwrite=True)
    assert load_machine(str(path)).name == "angara-3d"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.toml"]  # no temporaries left


def test_write_machine_into_missing_directory_fails_cleanly(tmp_path):
    with pytest.raises(InputError, match="cannot write"):
        write_machine(load_machine("angara-3d"), tmp_path / "nowhere" / "out.toml")
    assert list(tmp_path.iterdir()) == []


def test_to_toml_escapes_text(tmp_path):
    m = Machine(
        'odd "name"',
        "torus:2x2",
        description='quote" back\\slash # not a comment',
        node={"cpu": "µ-core ✓"},
        provenance={"node.cpu": 'said "so"'},
        notes=("a", 'b "c"'),
    )
    assert parse_machine(m.to_toml()) == m


def test_to_toml_escapes_control_characters_that_the_parser_then_refuses():
    """A Machine built in Python may hold a newline or DEL in its description: the file
    written keeps it inside the string (no new TOML line), and reading it back refuses it
    in one line (names and descriptions are shown on the terminal as written)."""
    m = Machine("m", "torus:2x2", description='a\nname = "evil"\x7f\u202e')
    text = m.to_toml()
    assert 'description = "a\\u000aname = \\"evil\\"\\u007f\\u202e"' in text
    assert not any(line.startswith("name = \"evil") for line in text.splitlines())
    with pytest.raises(InputError, match="control or bidirectional character"):
        parse_machine(text)


def test_format_doc_lists_every_key():
    doc = (Path(__file__).resolve().parents[1] / "docs" / "machine-format.md").read_text("utf-8")
    for section, keys in SCHEMA.items():
        assert f"### [{section}]" in doc
        for name in keys:
            assert f"| `{name}` |" in doc, f"docs/machine-format.md lacks {section}.{name}"


def test_numpy_numbers_are_stored_as_python_numbers():
    np = pytest.importorskip("numpy")
    m = load_machine("angara-3d").with_values(
        {"network.packet_max_flits": np.int64(8), "network.link_latency": np.float64(6e-8)},
        source="calibration",
    )
    assert type(m.network["packet_max_flits"]) is int
    assert type(m.network["link_latency"]) is float
    assert parse_machine(m.to_toml()) == m


REAL = ["fugaku", "k-computer", "sequoia", "piz-daint", "lumi", "frontier", "summit"]


@pytest.mark.parametrize("name", REAL)
def test_real_machine_presets_name_their_system_and_run_point_to_point(name):
    from icnperf.model.network import p2p_table

    machine = load_machine(name)
    assert machine.system["name"] and machine.system["site"]
    assert 2010 <= machine.system["year"] <= 2023
    assert machine.software["mpi_library"] in ("mpich", "openmpi")
    assert machine.node["nics_per_node"] >= 1 and 0 < machine.node["memory_efficiency"] <= 1
    latency = p2p_table(machine, [8, 1 << 20], 1).columns["latency_s"]
    assert 0 < latency[0] < latency[1]


def test_machines_listing_shows_system_site_and_year():
    from icnperf.api import machines

    rows = {r["name"]: r for r in machines().to_dict()["machines"]}
    assert (rows["fugaku"]["system"], rows["fugaku"]["year"]) == ("Fugaku", "2020")
    assert rows["summit"]["site"].startswith("ORNL")
    assert rows["angara-3d"]["system"] == ""


def test_fractions_and_new_keys_are_checked(tmp_path):
    assert "above its maximum 1" in _error(
        tmp_path, 'topology = "torus:4x4"\n[node]\nmemory_efficiency = 1.5\n')
    assert "nic_attachment" in _error(
        tmp_path, 'topology = "torus:4x4"\n[node]\nnic_attachment = "everywhere"\n')
    m = load_machine(_write(tmp_path, 'topology = "torus:4x4"\n[system]\nname = "x"\nyear = 2024\n'
                            '[software]\nmpi_library = "mpich"\n'))
    assert m.system == {"name": "x", "year": 2024} and m.software["mpi_library"] == "mpich"
    assert parse_machine(m.to_toml()) == m
