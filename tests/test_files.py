"""icnperf.data.files: bounded, regular-file-only input, TOML depth cap, atomic output, and
text made safe for a terminal (issue #16, inputs and outputs). No subprocesses."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icnperf.data import files
from icnperf.data.files import (
    DEFAULT_MAX_INPUT_BYTES,
    MAX_INPUT_BYTES_VARIABLE,
    MAX_TOML_DEPTH,
    TOMLProblem,
    load_toml,
    max_input_bytes,
    printable,
    read_text_file,
    write_atomically,
)
from icnperf.data.machine import load_machine, parse_machine
from icnperf.data.measurements.bench import load_bench
from icnperf.data.measurements.tables import load_table
from icnperf.errors import DataError, InputError

FAST = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
POSIX = pytest.mark.skipif(os.name != "posix", reason="POSIX file kinds")


def _one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert message and "\n" not in message
    return message


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# ------------------------------------------------------------------------------ reading


def test_regular_file_is_read_and_a_byte_order_mark_dropped(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"\xef\xbb\xbfhello\n")
    assert read_text_file(path, "test file") == "hello\n"


def test_missing_file_and_directory_are_named(tmp_path):
    with pytest.raises(DataError, match="test file '.*nope.txt' not found"):
        read_text_file(tmp_path / "nope.txt", "test file")
    with pytest.raises(DataError, match="is a directory"):
        read_text_file(tmp_path, "test file")
    with pytest.raises(InputError, match="not found"):  # the caller chooses the error type
        read_text_file(tmp_path / "nope.txt", "machine file", error=InputError)


@POSIX
def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "f.toml"
    os.mkfifo(fifo)
    outcome = []

    def read():
        try:
            read_text_file(fifo, "machine file", error=InputError)
        except InputError as error:
            outcome.append(str(error))

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "reading a FIFO blocked"
    assert outcome and "is a FIFO (named pipe); icnperf reads regular files only" in outcome[0]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_endless_device_is_refused():
    with pytest.raises(DataError, match="'/dev/zero' is a character device") as excinfo:
        read_text_file("/dev/zero", "benchmark file")
    _one_line(excinfo)


def test_size_cap_and_its_setting(tmp_path, monkeypatch):
    path = tmp_path / "m.toml"
    path.write_bytes(b"x" * 11)
    monkeypatch.setenv(MAX_INPUT_BYTES_VARIABLE, "10")
    assert max_input_bytes() == 10
    with pytest.raises(DataError) as excinfo:
        read_text_file(path, "machine file")
    message = _one_line(excinfo)
    assert "11 bytes, over the 10-byte input limit" in message
    assert MAX_INPUT_BYTES_VARIABLE in message
    path.write_bytes(b"x" * 10)
    assert read_text_file(path, "machine file") == "x" * 10
    monkeypatch.setenv(MAX_INPUT_BYTES_VARIABLE, "1 KiB")
    assert max_input_bytes() == 1024
    monkeypatch.setenv(MAX_INPUT_BYTES_VARIABLE, "2MB")
    assert max_input_bytes() == 2_000_000
    monkeypatch.delenv(MAX_INPUT_BYTES_VARIABLE)
    assert max_input_bytes() == DEFAULT_MAX_INPUT_BYTES == 64 * 2**20


@pytest.mark.parametrize("setting", ["lots", "0", "0 B", "-5 B", "inf B", "1e3"])
def test_bad_size_setting_is_one_line(monkeypatch, setting):
    monkeypatch.setenv(MAX_INPUT_BYTES_VARIABLE, setting)
    with pytest.raises(InputError, match=MAX_INPUT_BYTES_VARIABLE) as excinfo:
        max_input_bytes()
    _one_line(excinfo)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="no procfs")
def test_cap_holds_for_a_file_longer_than_its_stat_says(monkeypatch):
    # procfs files are regular files whose st_size is 0: only the read loop can stop them
    assert os.stat("/proc/self/status").st_size == 0
    monkeypatch.setenv(MAX_INPUT_BYTES_VARIABLE, "16")
    with pytest.raises(DataError, match="more than 16 bytes"):
        read_text_file("/proc/self/status", "test file")


def test_not_utf8_names_the_byte(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"a,b\n\xe9,1\n")
    with pytest.raises(DataError, match=r"is not UTF-8 text \(byte 4\)"):
        read_text_file(path, "measurement file")


def test_too_long_and_nul_paths_are_one_line_errors(tmp_path):
    with pytest.raises(DataError) as excinfo:
        read_text_file(tmp_path / ("a" * 5000), "test file")
    assert "File name too long" in _one_line(excinfo)
    with pytest.raises(DataError, match="not a valid file name"):
        read_text_file("a\0b.toml", "test file")


# ------------------------------------------------------------------------------ names


def _undecodable_name(directory: Path, stem: bytes, suffix: str) -> Path:
    name = os.fsdecode(stem + suffix.encode())
    path = directory / name
    try:
        path.write_bytes(b"")
    except (OSError, UnicodeEncodeError):  # pragma: no cover - e.g. a UTF-8-only filesystem
        pytest.skip("the file system refuses names that are not UTF-8")
    return path


def test_machine_file_whose_name_is_not_utf8(tmp_path):
    path = _undecodable_name(tmp_path, b"\xff\xfe", ".toml")
    path.write_text('topology = "torus:4x4"\n', encoding="utf-8")
    machine = load_machine(str(path))
    assert machine.name == "\\xff\\xfe"
    assert machine.to_toml().encode("utf-8")  # the name is text that can be written


def test_measurement_csv_whose_name_is_not_utf8(tmp_path):
    path = _undecodable_name(tmp_path, b"run\xff", ".csv")
    path.write_text("message_bytes,latency_s\n8,1.5e-6\n", encoding="utf-8")
    table = load_table(str(path))
    assert table.name == "run\\xff" and table.origin.endswith("run\\xff.csv")
    points = load_bench(str(path))
    assert points.origin.endswith("run\\xff.csv")
    assert [(p.kind, p.bytes, p.value) for p in points] == [("latency", 8, 1.5e-6)]


def test_printable_escapes_what_moves_a_terminal():
    assert printable("angara-3d: 16x16x32 µs") == "angara-3d: 16x16x32 µs"
    assert printable("evil\x1b[31mred\x07") == "evil\\x1b[31mred\\x07"
    assert printable("a\r\tb\x7f\x9b") == "a\\x0d\\x09b\\x7f\\x9b"
    assert printable("right\u202eleft\u2066") == "right\\u202eleft\\u2066"
    assert printable(os.fsdecode(b"\xff\xfe.toml")) == "\\xff\\xfe.toml"
    assert printable("two\nlines") == "two\\nlines"
    assert printable("two\nlines\x1b", newlines=True) == "two\nlines\\x1b"
    assert printable(b"bytes\xff") == "bytes\\xff"


@FAST
@given(st.text())
def test_printable_is_terminal_safe_and_leaves_plain_text_alone(text):
    shown = printable(text)
    shown.encode("utf-8")  # no lone surrogate left
    assert not any(ch in shown for ch in "\x1b\r\n\x07\x00\u202e")
    assert all(ord(ch) >= 0x20 and not 0x7F <= ord(ch) <= 0x9F for ch in shown)
    if not files._UNPRINTABLE_RE.search(text) and "\n" not in text:
        assert shown == text


# ------------------------------------------------------------------------------ TOML


def test_toml_nesting_at_the_cap_is_read_and_one_deeper_refused():
    at_cap = "x = " + "[" * MAX_TOML_DEPTH + "]" * MAX_TOML_DEPTH
    document = load_toml(at_cap)
    depth, value = 0, document["x"]
    while isinstance(value, list):
        depth, value = depth + 1, (value[0] if value else None)
    assert depth == MAX_TOML_DEPTH
    deeper = "x = " + "[" * (MAX_TOML_DEPTH + 1) + "]" * (MAX_TOML_DEPTH + 1)
    with pytest.raises(TOMLProblem, match=f"nested deeper than {MAX_TOML_DEPTH} levels"):
        load_toml(deeper)


@pytest.mark.parametrize("text", [
    "x = " + "[" * 5000 + "]" * 5000,                       # the reproducer 7
    "x = " + "{a = " * 3000 + "1" + "}" * 3000,              # inline tables
    "x" + ".a" * 5000 + " = 1",                              # dotted keys: no bracket at all
    "[" + ".".join(["t"] * 200) + "]\nk = 1",                 # a table header
    "x = " + "[" * 100000,                                   # unclosed, as well
])
def test_deep_toml_is_refused_not_a_recursion_error(text):
    with pytest.raises(TOMLProblem, match="nested deeper than"):
        load_toml(text)


def test_brackets_in_strings_and_comments_do_not_count():
    deep = "[" * 100
    text = (f'a = "{deep}"\nb = \'{deep}\'\nc = """\n{deep}\n"""\n'
            f"d = '''{deep}'''\n# {deep}\ne = \"\\\"{deep}\"\n")
    document = load_toml(text)
    assert document["a"] == document["b"] == document["d"] == deep
    assert document["c"] == deep + "\n" and document["e"] == '"' + deep


def test_toml_byte_order_mark_and_malformed_text():
    assert load_toml('\ufefftopology = "torus:4x4"\n') == {"topology": "torus:4x4"}
    with pytest.raises(TOMLProblem, match="line 1"):
        load_toml("x = = 1")


@FAST
@given(st.text(alphabet='[]{}"\'#=\n ,ax.1\\', max_size=400))
def test_toml_loader_raises_only_its_own_error(text):
    try:
        load_toml(text)
    except TOMLProblem:
        pass


# ------------------------------------------------------------------------------ writing


def test_write_refuses_an_existing_file_unless_forced(tmp_path):
    target = tmp_path / "out.txt"
    write_atomically(target, "one\n")
    assert target.read_text() == "one\n"
    with pytest.raises(InputError, match="exists; pass --force"):
        write_atomically(target, "two\n")
    assert target.read_text() == "one\n"
    write_atomically(target, "two\n", force=True)
    assert target.read_text() == "two\n"
    assert _leftovers(tmp_path) == []


def test_written_file_has_the_usual_permissions(tmp_path):
    umask = os.umask(0o027)
    try:
        write_atomically(tmp_path / "out.txt", "x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "out.txt").st_mode) == 0o666 & ~0o027


@POSIX
def test_dangling_symlink_counts_as_existing(tmp_path, monkeypatch):
    link = tmp_path / "out.txt"
    link.symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError, match="exists; pass --force"):
        write_atomically(link, "text")
    assert link.is_symlink() and not (tmp_path / "nowhere").exists()
    # the atomic step refuses it too, when the early check is passed by
    monkeypatch.setattr(files, "path_exists", lambda path: False)
    with pytest.raises(InputError, match="exists; pass --force"):
        write_atomically(link, "text")
    assert link.is_symlink() and not (tmp_path / "nowhere").exists()
    assert _leftovers(tmp_path) == []


@POSIX
def test_force_never_replaces_a_device_or_directory(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        write_atomically(fifo, "text", force=True)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(InputError, match="not a regular file"):
        write_atomically(tmp_path, "text", force=True)


def test_dash_is_standard_output(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write_atomically("-", "to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("failure", [KeyboardInterrupt, RuntimeError, MemoryError])
def test_any_failure_removes_the_temporary_file(tmp_path, monkeypatch, failure):
    def fail(_descriptor):
        raise failure("injected")

    monkeypatch.setattr(files.os, "fsync", fail)
    with pytest.raises(failure):
        write_atomically(tmp_path / "out.txt", "text")
    assert list(tmp_path.iterdir()) == []


def test_os_failure_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    def fail(_descriptor):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", fail)
    with pytest.raises(InputError, match="No space left on device") as excinfo:
        write_atomically(tmp_path / "out.txt", "text")
    _one_line(excinfo)
    assert list(tmp_path.iterdir()) == []


def test_text_that_cannot_be_encoded_is_refused_before_writing(tmp_path):
    with pytest.raises(InputError, match=r"holds \\xff") as excinfo:
        write_atomically(tmp_path / "out.txt", "cpu = " + os.fsdecode(b"\xff"))
    _one_line(excinfo)
    assert list(tmp_path.iterdir()) == []


def test_refusal_is_atomic_when_another_writer_gets_there_first(tmp_path, monkeypatch):
    """The early check passes; another writer creates the file before ours is placed."""
    target = tmp_path / "report.txt"
    real_link = files._link_into_place

    def other_writer_first(temporary, name):
        name.write_text("the other writer's\n")
        return real_link(temporary, name)

    monkeypatch.setattr(files, "_link_into_place", other_writer_first)
    with pytest.raises(InputError, match="exists; pass --force"):
        write_atomically(target, "ours\n")
    assert target.read_text() == "the other writer's\n"
    assert _leftovers(tmp_path) == []


def test_without_hard_links_the_name_is_claimed_exclusively(tmp_path, monkeypatch):
    def no_links(*_args, **_kwargs):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(files.os, "link", no_links)
    target = tmp_path / "out.txt"
    write_atomically(target, "first\n")
    assert target.read_text() == "first\n"
    handle, temporary = files._create_temporary(tmp_path, "out.txt")
    os.close(handle)
    with pytest.raises(FileExistsError):
        files._link_into_place(temporary, target)
    temporary.unlink()
    assert target.read_text() == "first\n" and _leftovers(tmp_path) == []


def test_two_racing_writers_exactly_one_wins(tmp_path):
    writers = 4
    for round_number in range(25):
        target = tmp_path / f"out{round_number}.txt"
        start = threading.Barrier(writers)
        outcomes: list[str] = [""] * writers

        def write(index):
            start.wait()
            try:
                write_atomically(target, f"writer {index}\n" * 1000)
                outcomes[index] = "won"
            except InputError as error:
                outcomes[index] = str(error)

        threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        winners = [i for i, outcome in enumerate(outcomes) if outcome == "won"]
        assert len(winners) == 1, outcomes
        assert all("exists; pass --force" in o for o in outcomes if o != "won")
        assert target.read_text() == f"writer {winners[0]}\n" * 1000
    assert _leftovers(tmp_path) == []


# ------------------------------------------------------------------------- hostile files


def _in_a_file(data: bytes, name: str, read):
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / name
        path.write_bytes(data)
        try:
            read(str(path))
        except (InputError, DataError):
            pass


@FAST
@given(st.binary(max_size=600))
def test_random_bytes_as_a_machine_file_raise_only_input_errors(data):
    _in_a_file(data, "m.toml", load_machine)


@FAST
@given(st.binary(max_size=600))
def test_random_bytes_as_measurements_raise_only_data_errors(data):
    _in_a_file(data, "t.csv", load_table)
    _in_a_file(data, "b.txt", load_bench)


_TOMLISH = st.lists(st.sampled_from([
    'topology = "torus:4x4"\n', 'name = "m"\n', "[network]\n", "[node]\n",
    'link_latency = "80 ns"\n', "link_latency = 80\n", 'link_bandwidth.value = "1 GB/s"\n',
    'link_bandwidth.source = "x"\n', "x = [[[", "]]]\n", "{", "}", '"', "'''", "\ufeff",
    "\x1b", "notes = ['a']\n", "[node_types.A]\n", "count = 2\n", "=", "\n", "a.b.c = 1\n",
]), max_size=30).map("".join)


@FAST
@given(_TOMLISH)
def test_machine_like_text_raises_only_input_errors(text):
    try:
        machine = parse_machine(text, origin="t.toml")
    except InputError:
        return
    assert parse_machine(machine.to_toml()) == machine

