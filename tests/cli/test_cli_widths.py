"""Every terminal table fits 100 columns by default; ``--wide`` keeps the full layout.

Each command runs three times through Click's CliRunner: by default, with ``--wide`` and
with ``--format json``. The long texts (sources, notes, assumptions, statements) are read
from the JSON, an output the layout does not touch, and must appear whole on one line of
the wide output and, wrapped, in the default output; every word of the wide output must
still be in the default one, so fitting loses nothing, numbers included.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from icnperf.cli import cli

WIDTH = 100
BENCH = Path(__file__).resolve().parents[1] / "data" / "bench"
TINY_TRAFFIC = ["--topology", "torus:4x4", "--rates", "0.1,0.4", "--warmup", "300",
                "--measure", "300", "--drain", "300"]

COMMANDS = {
    "machines": ["machines"],
    "machine": ["machine", "angara-4d", "--set", "network.link_latency=60ns"],
    "topology": ["topology", "dragonfly:p=4,a=8,h=4"],
    "compare-topologies": ["compare-topologies", "--radix", "16,32,64"],
    "predict p2p": ["predict", "p2p", "--machine", "angara-3d", "--load", "0.05", "--pattern",
                    "tornado", "--ppn", "4"],
    "predict collective": ["predict", "collective", "allreduce", "--machine", "angara-4d",
                           "--nodes", "64..4096:x4", "--bytes", "8,256,64KiB"],
    "predict collective auto": ["predict", "collective", "allreduce", "--machine", "summit",
                                "--nodes", "16,200", "--bytes", "8,64KiB",
                                "--algorithm", "auto"],
    "place": ["place", "--app", "npb-is", "--procs", "64", "--machine", "ib-qdr-cluster"],
    "calibrate": ["calibrate", "--machine", "angara-36", "--data",
                  str(BENCH / "osu_latency.txt")],
    "explain collective": ["explain", "collective", "allreduce", "--algorithm", "rabenseifner",
                           "--machine", "angara-3d", "--all-symbols", "--bytes", "64KiB"],
    "crossover collective": ["crossover", "collective", "allreduce", "--machine", "angara-4d",
                             "--faster", "hw-tree", "--slower", "p2p-tree", "--factor", "3"],
    "simulate traffic": ["simulate", "traffic", *TINY_TRAFFIC, "--seeds", "2"],
    "simulate collective": ["simulate", "collective", "broadcast", "--machine", "angara-3d",
                            "--nodes", "64,512"],
    "predict app": ["predict", "app", "hpcg", "--variant", "optimized", "--machine",
                    "angara-36"],
    "predict app all": ["predict", "app", "spmv", "--machine", "angara-4d", "--nodes",
                        "16..8192:x4", "--algorithm", "all"],
    "predict app all hpcg": ["predict", "app", "hpcg", "--machine", "angara-36", "--nodes",
                             "8..36:x2", "--algorithm", "all"],
    "predict app fat tree": ["predict", "app", "jacobi3d", "--machine", "simgrid-fattree-64",
                             "--set", "node.peak_flops=140.8GFLOP/s", "--set",
                             "node.memory_bandwidth=51.2GB/s", "--nodes", "8..64:x2"],
    "explain app": ["explain", "app", "hpcg-optimized", "--machine", "angara-36", "--nodes",
                    "36"],
    "explain app heat": ["explain", "app", "heat", "--machine", "angara-4d", "--nodes",
                         "4096", "--algorithm", "p2p-tree"],
    "explain app fat tree": ["explain", "app", "spmv", "--machine", "simgrid-fattree-64",
                             "--nodes", "48", "--set", "node.spmv_rate=591MFLOP/s"],
}

SLOW_COMMANDS = {"explain collective"}
"""Commands of COMMANDS that take tens of seconds (run with the slow tests)."""

LONG_TEXT_KEYS = {"description", "source", "notes", "assumptions", "statement"}


def _long_texts(node, under_text_key: bool = False) -> list[str]:
    """Strings of more than 60 characters found under LONG_TEXT_KEYS in a JSON document."""
    if isinstance(node, dict):
        return [t for key, value in node.items()
                for t in _long_texts(value, under_text_key or key in LONG_TEXT_KEYS)]
    if isinstance(node, list):
        return [t for value in node for t in _long_texts(value, under_text_key)]
    return [node] if under_text_key and isinstance(node, str) and len(node) > 60 else []


def _run(args: list[str]) -> str:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("args", [
    pytest.param(args, id=name, marks=[pytest.mark.slow] if name in SLOW_COMMANDS else [])
    for name, args in COMMANDS.items()])
def test_default_fits_100_columns_and_wide_keeps_the_full_text(args):
    fitted, wide = _run(args), _run([*args, "--wide"])
    texts = _long_texts(json.loads(_run([*args, "--format", "json"])))
    assert texts, "the command's JSON should carry long text to check"

    too_wide = [line for line in fitted.splitlines() if len(line) > WIDTH]
    assert not too_wide, f"{len(too_wide)} lines over {WIDTH} columns, e.g. {too_wide[0]!r}"
    assert max(len(line) for line in wide.splitlines()) > WIDTH    # the full layout

    wide_lines = wide.splitlines()
    flowing = " ".join(fitted.split())
    for text in texts:
        assert any(text in line for line in wide_lines), f"not whole in --wide: {text!r}"
        assert " ".join(text.split()) in flowing, f"lost by fitting: {text!r}"

    def words(text: str) -> set[str]:     # rules and "- " bullets are layout, not text;
        # a formula may break after its operators (explain app): compare the pieces
        split = [w for w in re.split(r"\s+|(?<=[*/,])", text) if w]
        return {w.strip("'") for w in split} - {w for w in split if set(w) == {"-"}}

    assert words(wide) - {""} <= words(fitted)
