"""The issue #16 reproducers about files, through Click's CliRunner: hostile inputs end in
one line on standard error and exit status 2 (or a correct result), outputs are whole or
absent, and what reaches the terminal is escaped."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.data.files import MAX_INPUT_BYTES_VARIABLE

POSIX = pytest.mark.skipif(os.name != "posix", reason="POSIX file kinds")
HAS_DEV_ZERO = pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")


def run(*args, env=None):
    return CliRunner().invoke(cli, list(args), env=env)


def assert_bad_input(result, *fragments):
    """Exit status 2, no traceback, exactly one line on standard error naming the problem."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("icnperf: error: "), result.stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def files_in(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


# -------------------------------------------------------------------- item 3: inputs


@HAS_DEV_ZERO
def test_machine_from_dev_zero():
    assert_bad_input(run("machine", "/dev/zero"), "'/dev/zero' is a character device")


@HAS_DEV_ZERO
def test_calibrate_from_dev_zero():
    assert_bad_input(run("calibrate", "--machine", "angara-36", "--data", "/dev/zero"),
                     "benchmark file '/dev/zero' is a character device")


@HAS_DEV_ZERO
def test_size_cost_and_workload_from_dev_zero():
    assert_bad_input(run("size", "--endpoints", "1000", "--cost", "/dev/zero"),
                     "cost file '/dev/zero' is a character device")
    assert_bad_input(run("size", "--endpoints", "1000", "--workload", "/dev/zero"),
                     "workload file '/dev/zero' is a character device")


@POSIX
def test_machine_from_a_fifo_does_not_hang(tmp_path):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(run("machine", str(fifo))),
                              daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "icnperf machine FIFO blocked"
    assert_bad_input(outcome[0], "is a FIFO (named pipe)")


@POSIX
def test_fifo_sidecar_beside_a_csv_is_named(tmp_path):
    data = tmp_path / "pingpong.csv"
    data.write_text("message_bytes,latency_s\n8,1.5e-6\n1024,2.5e-6\n")
    os.mkfifo(tmp_path / "pingpong.toml")
    assert_bad_input(run("calibrate", "--machine", "angara-36", "--data", str(data)),
                     "sidecar", "is a FIFO")


def test_machine_directory_is_named(tmp_path):
    (tmp_path / "d.toml").mkdir()
    assert_bad_input(run("machine", str(tmp_path / "d.toml")), "is a directory")


def test_input_over_the_size_cap_names_the_setting(tmp_path):
    machine = tmp_path / "m.toml"
    machine.write_text('topology = "torus:4x4"\n' + "# padding\n" * 20)
    line = assert_bad_input(run("machine", str(machine), env={MAX_INPUT_BYTES_VARIABLE: "100"}),
                            "over the 100-byte input limit", MAX_INPUT_BYTES_VARIABLE)
    assert "m.toml" in line
    raised = run("machine", str(machine), env={MAX_INPUT_BYTES_VARIABLE: "1KiB"})
    assert raised.exit_code == 0 and "topology: torus:4x4" in raised.stdout


def test_osu_output_over_the_size_cap(tmp_path):
    data = tmp_path / "big.txt"
    data.write_text("# OSU MPI Latency Test v7.3\n# Size  Latency (us)\n"
                    + "".join(f"{8 * (1 + i % 1000)} 1.5\n" for i in range(2000)))
    assert_bad_input(run("calibrate", "--machine", "angara-36", "--data", str(data),
                         env={MAX_INPUT_BYTES_VARIABLE: "10000"}), "input limit")


# ------------------------------------------------------------- item 7: deep TOML


def test_deeply_nested_toml_is_one_line(tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text('topology = "torus:4x4"\nx = ' + "[" * 5000 + "]" * 5000 + "\n")
    assert_bad_input(run("machine", str(deep)), "deep.toml: malformed TOML: nested deeper")


def test_deeply_nested_cost_toml_is_one_line(tmp_path):
    deep = tmp_path / "cost.toml"
    deep.write_text("x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n")
    assert_bad_input(run("size", "--endpoints", "1000", "--cost", str(deep)),
                     "is not valid TOML: nested deeper")


def test_deeply_nested_sidecar_is_one_line(tmp_path):
    data = tmp_path / "t.csv"
    data.write_text("message_bytes,latency_s\n8,1.5e-6\n")
    (tmp_path / "t.toml").write_text("title = " + "[" * 500 + "]" * 500 + "\n")
    assert_bad_input(run("calibrate", "--machine", "angara-36", "--data", str(data)),
                     "t.toml: malformed TOML: nested deeper")


# ------------------------------------------------- item 4: names that are not UTF-8


def _undecodable(directory: Path, raw: bytes) -> Path:
    path = directory / os.fsdecode(raw)
    try:
        path.write_bytes(b"")
    except (OSError, UnicodeEncodeError):  # pragma: no cover
        pytest.skip("the file system refuses names that are not UTF-8")
    return path


def test_machine_file_named_in_bytes_that_are_not_utf8(tmp_path):
    machine = _undecodable(tmp_path, b"\xff\xfe.toml")
    machine.write_text('topology = "torus:4x4"\n')
    out = tmp_path / "out.txt"
    result = run("machine", str(machine), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("\\xff\\xfe: \ntopology: torus:4x4")
    assert not [n for n in files_in(tmp_path) if n.endswith(".tmp")]
    shown = run("machine", str(machine))
    assert shown.exit_code == 0 and shown.stdout.startswith("\\xff\\xfe: ")


def test_output_named_in_bytes_that_are_not_utf8(tmp_path):
    out = tmp_path / os.fsdecode(b"r\xe9sultat.txt")
    result = run("machine", "angara-3d", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "wrote " in result.stderr and "\\xe9" in result.stderr
    assert os.fsencode(out.name) in os.listdir(os.fsencode(tmp_path))


def test_set_value_that_is_not_utf8_cannot_reach_a_file(tmp_path):
    out = tmp_path / "cal.toml"
    result = run("machine", "angara-3d", "--set", "node.cpu=" + os.fsdecode(b"\xff"),
                 "-o", str(out))
    assert_bad_input(result, "cal.toml", "\\xff")
    assert files_in(tmp_path) == []


# -------------------------------------------------------------- lesser: BOM, outputs


def test_byte_order_mark_is_accepted(tmp_path):
    machine = tmp_path / "bom.toml"
    machine.write_bytes(b'\xef\xbb\xbfname = "bom"\ntopology = "torus:4x4"\n')
    result = run("machine", str(machine), "--format", "json")
    assert result.exit_code == 0, result.output
    assert '"name": "bom"' in result.stdout and '"topology": "torus:4x4"' in result.stdout


@POSIX
def test_dangling_symlink_is_not_replaced_without_force(tmp_path):
    link = tmp_path / "out.txt"
    link.symlink_to(tmp_path / "elsewhere.txt")
    assert_bad_input(run("machine", "angara-3d", "-o", str(link)), "exists; pass --force")
    assert link.is_symlink() and not (tmp_path / "elsewhere.txt").exists()
    assert files_in(tmp_path) == ["out.txt"]


def test_dash_means_standard_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("machine", "angara-3d", "-o", "-")
    assert result.exit_code == 0
    assert result.stdout.startswith("angara-3d: ") and "wrote" not in result.stderr
    csv = run("topology", "torus:4x4", "--format", "csv", "-o", "-")
    assert csv.exit_code == 0 and csv.stdout.startswith("metric,value\n")
    assert files_in(tmp_path) == []


def test_second_writer_without_force_is_refused_and_the_first_file_kept(tmp_path):
    out = tmp_path / "t.txt"
    assert run("topology", "torus:4x4", "-o", str(out)).exit_code == 0
    first = out.read_text()
    assert_bad_input(run("topology", "torus:8x8", "-o", str(out)), "exists; pass --force")
    assert out.read_text() == first
    assert run("topology", "torus:8x8", "-o", str(out), "--force").exit_code == 0
    assert out.read_text() != first and "torus:8x8" in out.read_text()
    assert files_in(tmp_path) == ["t.txt"]


# ---------------------------------------------------------- control characters shown


@pytest.mark.parametrize("line, key, shown", [
    ('name = "evil\\u001b[31mred\\u0007"', "name", "\\x1b"),
    ('description = "bidi \\u202e txt"', "description", "\\u202e"),
    ('notes = ["title\\u001b]0;owned\\u0007"]', "notes", "\\x1b"),
    ('notes = ["line\\rover"]', "notes", "\\x0d"),
])
def test_control_characters_in_a_machine_are_refused_in_one_line(tmp_path, line, key, shown):
    """Issue #25: names, descriptions and notes are shown on one line as written, so a
    control or bidirectional character is refused where the file is read (it was escaped
    on the terminal only, and a newline in a name became a line of a written TOML file);
    the message shows the character escaped."""
    machine = tmp_path / "evil.toml"
    machine.write_text(f'{line}\ntopology = "torus:4x4"\n')
    for fmt in ("table", "csv", "json"):
        result = run("machine", str(machine), "--format", fmt)
        assert_bad_input(result, f"'{key}'", shown, "control or bidirectional")
        assert not any(ch in result.output for ch in "\x1b\x07\r\u202e"), fmt


def test_control_characters_in_a_set_item_do_not_reach_the_error_line():
    result = run("machine", "angara-3d", "--set", "network.link_latency=\x1b[2J80")
    line = assert_bad_input(result, "link_latency")
    assert "\x1b" not in line


def test_control_characters_in_a_calibrated_machine_name_are_refused(tmp_path):
    machine = tmp_path / "evil.toml"
    machine.write_text((Path(__file__).parents[2] / "icnperf/data/machines/angara-36.toml")
                       .read_text().replace('name = "angara-36"', 'name = "x\\u001b[2Jy"'))
    data = Path(__file__).parents[1] / "data" / "bench" / "osu_latency.txt"
    result = run("calibrate", "--machine", str(machine), "--data", str(data))
    assert_bad_input(result, "'name'", "\\x1b")
    assert "\x1b" not in result.output
