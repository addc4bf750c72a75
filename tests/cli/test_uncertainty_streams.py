"""``--uncertainty`` ranges depend on each input's seed, path and sample count only
(data/machine/sampling.py, docs/machine-format.md "Uncertainty"): a preset written back
with to_toml(), the same file with its keys in another order, or with an unrelated value
added, gives the same ranges; the correlation rule of solved sums still holds."""

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.data.machine import load_machine, parse_machine
from icnperf.data.machine.sampling import draws

SAMPLES = "25"

COMMANDS = {
    "p2p": ("predict", "p2p", "--bytes", "8,64KiB,4MiB", "--hops", "2"),
    "collective": ("predict", "collective", "allreduce", "--nodes", "4,16", "--bytes",
                   "8,1MiB"),
    "app": ("predict", "app", "hpcg", "--nodes", "8"),
}


def _spans(command: str, machine: str, *extra: str) -> list[dict]:
    """The *_low/*_high fields of every row (and total) of ``command``'s JSON on
    ``machine``, with the point values beside them."""
    args = [*COMMANDS[command], "--machine", machine, *extra, "--uncertainty", "--samples",
            SAMPLES, "--format", "json"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    rows = doc["rows"] + doc.get("totals", [])
    spans = [{k: v for k, v in row.items()
              if k.endswith(("_low", "_high")) or f"{k}_low" in row} for row in rows]
    assert spans and all(spans), command
    return spans


def _written(tmp_path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return str(path)


def _reordered(text: str) -> str:
    """``text`` (a to_toml() file) with its tables in reverse order and each table's keys
    in reverse order; the top-level lines stay first, as TOML requires."""
    head, *tables = re.split(r"\n(?=\[)", text.rstrip("\n"))
    out = [head]
    for table in reversed(tables):
        header, *lines = table.split("\n")
        groups: list[list[str]] = []
        for line in lines:
            if not line:
                continue
            name = re.match(r"[A-Za-z_0-9-]+", line)[0]
            if groups and groups[-1][0].startswith((f"{name}.", f"{name} ")):
                groups[-1].append(line)
            else:
                groups.append([line])
        out.append("\n".join([header, *(line for group in reversed(groups)
                                        for line in group)]))
    return "\n\n".join(out) + "\n"


@pytest.mark.parametrize("name,commands", [
    ("lumi", ("p2p", "collective", "app")),         # a solved MPI overhead, [production]
    ("fugaku", ("p2p", "collective", "app")),       # a solved value solved from a solved one
    ("angara-36", ("p2p", "app")),                  # node types, two solved overheads
    ("dgx-h100", ("p2p", "collective")),
])
def test_a_preset_and_its_written_back_copy_give_the_same_ranges(tmp_path, name, commands):
    machine = load_machine(name)
    copy = _written(tmp_path, name, machine.to_toml())
    assert list(parse_machine(machine.to_toml()).uncertainty) != list(machine.uncertainty)
    for command in commands:
        assert _spans(command, copy) == _spans(command, name), command


@pytest.mark.parametrize("name", ["fugaku", "piz-daint"])
def test_reordering_a_files_keys_leaves_the_ranges(tmp_path, name):
    machine = load_machine(name)
    text = _reordered(machine.to_toml())
    again = parse_machine(text, name)
    assert again == machine
    assert list(again.uncertainty) != list(machine.uncertainty)
    assert list(again.uncertainty)[0] != list(machine.uncertainty)[0]
    path = _written(tmp_path, name, text)
    for command in ("p2p", "collective"):
        assert _spans(command, path) == _spans(command, name), command


def test_adding_an_unrelated_value_leaves_the_other_ranges(tmp_path):
    """A measured stencil rate (a placeholder, x2) on LUMI is read by no p2p or collective
    formula: their ranges stay as they were, the solved MPI overhead's among them."""
    text = load_machine("lumi").to_toml()
    added = text.replace("\n[node]\n", '\n[node]\nstencil_rate.value = "40 GFLOP/s"\n'
                         'stencil_rate.kind = "placeholder"\n', 1)
    assert added != text
    machine = parse_machine(added, "lumi")
    assert "node.stencil_rate" in draws(machine, 2, 0)
    path = _written(tmp_path, "lumi", added)
    for command in ("p2p", "collective"):
        assert _spans(command, path) == _spans(command, "lumi"), command


MINIMAL = '''name = "m"
topology = "torus:4x4"
[network]
{extra}injection_latency.value = "{inj}"
injection_latency.kind = "placeholder"
ejection_latency.value = "100 ns"
ejection_latency.kind = "placeholder"
[software]
mpi_overhead.value = "800 ns"
mpi_overhead.kind = "calibrated"
mpi_overhead.uncertainty = "0.1 us"
mpi_overhead.solved_with = ["network.injection_latency", "network.ejection_latency"]
'''


def test_a_values_draws_follow_its_path_and_spread_not_its_neighbours():
    """The same path with the same spread draws the same multipliers on two machines that
    differ in everything else; the solved overhead keeps its measured sum in both."""
    small = parse_machine(MINIMAL.format(extra="", inj="100 ns"))
    other = parse_machine(MINIMAL.format(
        extra='link_latency.value = "5 ns"\nlink_latency.kind = "chosen"\n'
              'router_latency.value = "20 ns"\nrouter_latency.kind = "placeholder"\n',
        inj="300 ns"))
    a, b = draws(small, 400, 3), draws(other, 400, 3)
    assert np.allclose(a["network.injection_latency"] / 100e-9,
                       b["network.injection_latency"] / 300e-9, rtol=1e-12)
    assert np.array_equal(a["network.ejection_latency"], b["network.ejection_latency"])
    for drawn, nominal_sum in ((a, 1.0e-6), (b, 1.2e-6)):
        total = drawn["software.mpi_overhead"] + drawn["network.injection_latency"] + \
            drawn["network.ejection_latency"]
        # the measured sum, +-0.1 us, whatever the placeholders drew (none reach 0 here)
        assert total.min() >= nominal_sum - 0.1e-6 - 1e-15
        assert total.max() <= nominal_sum + 0.1e-6 + 1e-15
    # the two sums are drawn from one stream (the solved value's path): the same uniform
    # offsets from their nominal sums
    offset_a = a["software.mpi_overhead"] + a["network.injection_latency"] + \
        a["network.ejection_latency"] - 1.0e-6
    offset_b = b["software.mpi_overhead"] + b["network.injection_latency"] + \
        b["network.ejection_latency"] - 1.2e-6
    assert np.allclose(offset_a, offset_b, atol=1e-15)
    # a value's first draws do not depend on how many are asked for
    assert np.array_equal(draws(small, 50, 3)["network.ejection_latency"],
                          a["network.ejection_latency"][:50])


def test_node_types_draw_apart():
    """angara-36's two node types state their peaks alike (stated, +-2 %): keyed by their
    own paths, the types' draws are independent, not one multiplier for both (type B's
    peak is [node]'s, the type-B node)."""
    machine = load_machine("angara-36")
    drawn = draws(machine, 400, 0)
    a = drawn["node_types.A.peak_flops"] / machine.get_path("node_types.A.peak_flops")
    b = drawn["node.peak_flops"] / machine.get_path("node.peak_flops")
    assert a.min() >= 0.98 and a.max() <= 1.02 and b.min() >= 0.98 and b.max() <= 1.02
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.2


def test_type_b_moves_with_its_node_values():
    """angara-36's [node] is the type-B node (the file says so): type B states its peak and
    memory bandwidth only there, so each draw gives the type the drawn [node] values, one
    quantity drawn once, not two copies drawn apart."""
    from icnperf.data.machine.sampling import sample_machines
    from icnperf.model.apps.hpcg import _node_types

    machine = load_machine("angara-36")
    drawn = draws(machine, 50, 0)
    assert "node_types.B.peak_flops" not in drawn and "node.peak_flops" in drawn
    assert "node_types.B.memory_bandwidth" not in drawn and "node.memory_bandwidth" in drawn
    for m in sample_machines(machine, 20, 0):
        ((_, _, bw),) = [t for t in _node_types(m) if t[0] == "B"]
        assert bw == m.node["memory_efficiency"] * m.node["memory_bandwidth"]


def test_no_two_inputs_of_a_preset_share_a_stream():
    """Each input's stream is seeded by the CRC-32 of its name: within any preset, its drawn
    paths and the model's constants have distinct CRC-32s, so no two inputs of one
    prediction draw the same numbers."""
    import zlib

    from icnperf.data.machine import list_presets
    from icnperf.model import constants

    constant_names = set(constants.draws(1, 0))
    for name, _ in list_presets():
        names = set(draws(load_machine(name), 1, 0)) | constant_names
        assert len({zlib.crc32(n.encode()) for n in names}) == len(names), name
