"""Issue #16's reproducers, each run as a fresh ``python -m icnperf`` process under a memory
limit (RLIMIT_AS, 3 GB of address space) and a timeout (20 s): each must end with a one-line
error and exit status 2, or with a correct, bounded result; never a traceback, never a file
left behind (the inputs and a requested output apart). About 15 s in all (each refusal
comes within a second or two of starting), so not marked slow.

The default limits of icnperf/model/budget.py apply (2 GB, 3 minutes): a refusal comes
from the estimate, made before any work, not from the test's own limits.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

import icnperf

ADDRESS_SPACE = 3 * 1024**3
"""RLIMIT_AS of each run: NumPy, SciPy and Numba reserve address space well beyond what
they touch, so this is above the 2 GB the budget allows the request itself."""

TIMEOUT = 20.0
"""Seconds each run may take (the issue asks for 10 on the project's machine; shared CI
machines get twice that)."""

ROOT = str(Path(icnperf.__file__).resolve().parent.parent)


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def icnperf_run(folder: Path, *args: str, limits: dict | None = None
                ) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICNPERF_MAX")}
    env.update(limits or {})
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "icnperf", *args], cwd=folder, env=env,
                          capture_output=True, timeout=TIMEOUT, preexec_fn=_limit)


def _osu(rows: int) -> str:
    lines = ["# OSU MPI Latency Test v7.3", "# Size  Latency (us)"]
    lines += [f"{8 * (1 + i % 1000)} 1.5" for i in range(rows)]
    return "\n".join(lines) + "\n"


def _deep_toml() -> str:
    return 'topology = "torus:4x4"\nx = ' + "[" * 5000 + "]" * 5000 + "\n"


# (id, arguments, files to create {name: text, None for a FIFO, "->target" for a symbolic
# link}, words the one-line error must hold, or must not when they start with "!")
REFUSED = [
    ("1-calibrate-1M-rows", ["calibrate", "--machine", "angara-36", "--data", "big.txt"],
     {"big.txt": _osu(1_000_000)}, ["1,000,003 data rows", "limit"]),
    ("2-size-radix-10000", ["size", "--endpoints", "1000", "--radix-max", "10000"], {},
     ["--radix-max", "1024"]),
    ("2-size-radix-1000000", ["size", "--endpoints", "1000", "--radix-max", "1000000"], {},
     ["--radix-max"]),
    ("3-machine-dev-zero", ["machine", "/dev/zero"], {}, ["character device"]),
    ("3-calibrate-dev-zero", ["calibrate", "--machine", "angara-36", "--data", "/dev/zero"],
     {}, ["character device"]),
    ("3-machine-fifo", ["machine", "./f"], {"f": None}, ["FIFO"]),
    ("5-collective-product", ["predict", "collective", "allreduce", "--machine", "angara-3d",
                              "--nodes", "8..2097152:x2", "--bytes", "1..1000000:1"], {},
     ["19 node counts", "1,000,000 sizes", "memory"]),
    ("6-seeds", ["simulate", "traffic", "--topology", "torus:4x4", "--rates", "0.1",
                 "--seeds", "1000000000", "--warmup", "10", "--measure", "10"], {},
     ["1,000,000,000 runs", "limit"]),
    ("7-deep-toml", ["machine", "./deep.toml"], {"deep.toml": _deep_toml()}, ["nested"]),
    ("8-negative-seed", ["simulate", "traffic", "--topology", "torus:4x4", "--rates", "0.1",
                         "--seed", "-1"], {}, ["--seed"]),
    ("9-simulate-1e8-cycles", ["simulate", "traffic", "--topology", "torus:16x16", "--rates",
                               "0.3", "--warmup", "0", "--measure", "100000000", "--drain",
                               "0"], {}, ["100,000,000 cycles", "memory"]),
    ("9-report-node-cap", ["report", "--machine", "angara-3d", "--set",
                           "topology=torus:128x128x128", "-o", "r.html"], {},
     ["2,097,152 nodes", "ICNPERF_MAX_SECONDS"]),
    ("underflowing-bandwidth", ["predict", "p2p", "--machine", "angara-36", "--set",
                                "network.link_bandwidth=1e-320 GB/s"], {}, ["too small"]),
    ("size-below-one-byte", ["predict", "p2p", "--machine", "angara-36", "--bytes", "0.5"],
     {}, ["below one byte"]),
    ("size-endpoints-1e12", ["size", "--endpoints", "1e12"], {},
     ["--endpoints", "--slack", "!fattree"]),
    ("local-not-a-mesh", ["predict", "app", "hpcg", "--machine", "angara-36", "--local",
                          "0x4x4"], {}, ["--local", "!mesh"]),
    ("scipy-overflow", ["calibrate", "--machine", "angara-36", "--data", "huge.txt"],
     {"huge.txt": "# OSU MPI Latency Test v7.3\n# Size  Latency (us)\n8 1e300\n16 1e-300\n"
                  "64 1e300\n"}, ["overflow"]),
    ("load-past-saturation", ["predict", "p2p", "--machine", "angara-4d", "--load", "0.45"],
     {}, ["saturation"]),
    ("overflowing-result", ["predict", "p2p", "--machine", "angara-36", "--set",
                            "network.link_bandwidth=1e-300 GB/s", "--bytes", "1e20"], {},
     ["not a finite number"]),
    # the same kinds, further out
    ("app-node-sweep", ["predict", "app", "spmv", "--machine", "angara-3d", "--nodes",
                        "8..2097152:x2"], {}, ["predict app spmv"]),
    ("rates-million", ["simulate", "traffic", "--topology", "torus:4x4", "--rates",
                       "0.000001..1:0.000001", "--warmup", "1", "--measure", "1", "--drain",
                       "1"], {}, ["1,000,000 runs"]),
    ("workers-100000", ["simulate", "traffic", "--topology", "torus:8x8", "--rates",
                        "0.01..1:0.01", "--scheduler", "processes", "--workers", "100000"],
     {}, ["100 runs", "memory"]),
    ("collective-sim-sweep", ["simulate", "collective", "broadcast", "--machine", "angara-3d",
                              "--nodes", "8..4096:x2", "--bytes", "1..2KiB:1",
                              "--algorithm", "p2p-tree"], {}, ["20,480 runs"]),
    ("crossover-range", ["crossover", "collective", "allreduce", "--machine", "angara-3d",
                         "--faster", "hw-tree", "--slower", "p2p-tree", "--factor", "2",
                         "--range", "8..1000000:1"], {}, ["crossover", "node counts"]),
    ("size-space", ["size", "--endpoints", "100000", "--slack", "100", "--radix-max",
                    "1024"], {}, ["candidate designs", "dragonfly"]),
    ("compare-many-radices", ["compare-topologies", "--radix",
                              ",".join(str(r) for r in range(2, 1025))], {},
     ["1,023 radix limits"]),
    ("dangling-link", ["report", "--machine", "angara-36", "-o", "link.html"],
     {"link.html": "->missing.html"}, ["exists", "--force"]),
]


def _make(folder: Path, files: dict) -> set[str]:
    for name, text in files.items():
        path = folder / name
        if text is None:
            os.mkfifo(path)
        elif text.startswith("->"):
            path.symlink_to(text[2:])
        else:
            path.write_text(text)
    return set(files)


def _one_line_error(result: subprocess.CompletedProcess) -> str:
    err = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    assert result.returncode == 2, (result.returncode, err[-2000:])
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("icnperf") and "error" in lines[0], lines[0]
    assert result.stdout == b""
    return lines[0]


@pytest.mark.parametrize("args, files, words", [case[1:] for case in REFUSED],
                         ids=[case[0] for case in REFUSED])
def test_refused_in_one_line(tmp_path, args, files, words):
    inputs = _make(tmp_path, files)
    line = _one_line_error(icnperf_run(tmp_path, *args))
    for word in words:
        if word.startswith("!"):
            assert word[1:] not in line, line
        else:
            assert word in line, line
    assert {p.name for p in tmp_path.iterdir()} == inputs
    if "link.html" in files:
        assert os.readlink(tmp_path / "link.html") == "missing.html"


def test_p2p_million_sizes_streams_in_bounded_memory_and_is_timed(tmp_path):
    """Reproducer 5: a million sizes as JSON. The rows now stream into the output (about
    500 MB estimated instead of 7 GB) through json's C encoder, so what remains is time:
    about 40 s estimated (about 20 s measured), within the default 3 minutes; under a 20 s
    limit it is refused at once, naming it."""
    args = ["predict", "p2p", "--machine", "angara-36", "--bytes", "1..1000000:1",
            "--format", "json"]
    line = _one_line_error(icnperf_run(tmp_path, *args,
                                       limits={"ICNPERF_MAX_SECONDS": "20"}))
    assert "1,000,000 message sizes" in line and "ICNPERF_MAX_SECONDS" in line, line
    assert "memory" not in line, line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_calibrate_24000_rows_is_a_bounded_fit(tmp_path):
    """Reproducer 1: the thin SVD keeps memory linear; the fit ends and reports its two
    parameters (the data are 1.5 us at every size, so no bandwidth term at all)."""
    (tmp_path / "big.txt").write_text(_osu(24_000))
    result = icnperf_run(tmp_path, "calibrate", "--machine", "angara-36", "--data", "big.txt",
                         "--format", "json")
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    document = json.loads(result.stdout)
    assert len(document["points"]) == 24_000
    assert {p["parameter"] for p in document["parameters"]} == {
        "software.mpi_overhead", "network.link_bandwidth"}
    assert {p.name for p in tmp_path.iterdir()} == {"big.txt"}


def test_one_more_byte_never_arrives_sooner(tmp_path):
    """Reproducer 10, end to end: 241 bytes (a full packet and a 1-byte one) under load."""
    result = icnperf_run(tmp_path, "predict", "p2p", "--machine", "angara-36", "--load",
                         "0.5", "--bytes", "240,241", "--format", "json")
    assert result.returncode == 0, result.stderr.decode()
    rows = json.loads(result.stdout)["rows"]
    assert [r["packets"] for r in rows] == [1, 2]
    assert rows[1]["latency_s"] > rows[0]["latency_s"]


def test_an_undecodable_file_name_is_read_and_written(tmp_path):
    """Reproducer 4: a machine file named by two bytes that are not UTF-8 is read, the
    output written whole, no temporary file left."""
    name = os.fsencode(tmp_path) + b"/\xff\xfe.toml"
    with open(name, "w") as out:
        out.write('topology = "torus:4x4"\n')
    result = icnperf_run(tmp_path, "machine", os.fsdecode(b"./\xff\xfe.toml"), "-o",
                         "out.txt")
    assert result.returncode == 0, result.stderr.decode()
    assert "torus:4x4" in (tmp_path / "out.txt").read_text()
    assert sorted(os.listdir(os.fsencode(tmp_path))) == [b"out.txt", b"\xff\xfe.toml"]


def test_control_characters_of_a_machine_name_are_escaped(tmp_path):
    (tmp_path / "evil.toml").write_text('name = "x\\u001b[2Jevil"\ntopology = "torus:4x4"\n')
    result = icnperf_run(tmp_path, "machine", "./evil.toml")
    assert result.returncode == 0, result.stderr.decode()
    assert b"\x1b" not in result.stdout and b"\\x1b[2Jevil" in result.stdout


def test_a_byte_order_mark_is_accepted_and_dash_is_standard_output(tmp_path):
    (tmp_path / "bom.toml").write_text('\ufefftopology = "torus:4x4"\n')
    result = icnperf_run(tmp_path, "machine", "./bom.toml", "-o", "-")
    assert result.returncode == 0, result.stderr.decode()
    assert b"torus:4x4" in result.stdout
    assert {p.name for p in tmp_path.iterdir()} == {"bom.toml"}
