"""Python values give the rows the same text gives, and ``inputs`` records them normalised;
bad input raises InputError with the command line's one-line message (Click's checks
included), never SystemExit, never printing; warnings are silenced only inside a call."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import icnperf
from cli_outputs import cli_error
from icnperf.errors import InputError


def test_sizes_as_numbers_give_the_rows_of_the_text():
    by_text = icnperf.predict_p2p("angara-36", bytes="8,1KiB,1MiB")
    by_value = icnperf.predict_p2p("angara-36", bytes=[8, 1024, 1048576.0])
    assert by_value.rows == by_text.rows
    assert by_value.inputs["bytes"] == [8, 1024, 1048576.0]
    assert by_text.inputs["bytes"] == "8,1KiB,1MiB"
    # a NumPy array and a single number work too
    assert icnperf.predict_p2p("angara-36", bytes=np.array([8.0])).rows == by_text.rows[:1]
    assert icnperf.predict_p2p("angara-36", bytes=1024).rows == by_text.rows[1:2]


def test_set_as_si_numbers_equals_set_as_text():
    text = icnperf.predict_p2p("angara-36", set="network.link_latency=60ns", bytes=8)
    value = icnperf.predict_p2p("angara-36", set={"network.link_latency": 60e-9}, bytes=8)
    assert value.rows == text.rows
    assert value.inputs["set"] == ["network.link_latency=6e-08"]
    base = icnperf.predict_p2p("angara-36", bytes=8)
    assert base.rows[0]["latency_s"] != text.rows[0]["latency_s"]


def test_a_loaded_machine_is_accepted_with_its_own_overrides():
    slow = icnperf.machine("angara-4d", set={"network.link_latency": "1us"})
    assert slow.name == "angara-4d" and slow.get("network.link_latency") == pytest.approx(1e-6)
    by_object = icnperf.predict_collective(slow, "allreduce", nodes=[8, 64], bytes=256,
                                           algorithm="ring")
    by_text = icnperf.predict_collective("angara-4d", "allreduce", nodes="8,64",
                                         set="network.link_latency=1us", algorithm="ring")
    assert by_object.rows == by_text.rows
    assert by_object.inputs["nodes"] == [8, 64]


def test_params_as_a_dict():
    by_dict = icnperf.predict_app("angara-4d", "jacobi3d", nodes=64, param={"n": 512})
    by_text = icnperf.predict_app("angara-4d", "jacobi3d", nodes="64", param="n=512")
    assert by_dict.rows == by_text.rows and by_dict.totals == by_text.totals
    assert by_dict.inputs["parameters"]["n"] == 512


@pytest.mark.parametrize("call,args", [
    (lambda: icnperf.predict_p2p("angara-36", ppn=0),
     ("predict", "p2p", "--machine", "angara-36", "--ppn", "0")),
    (lambda: icnperf.predict_p2p("angara-36", api="bad"),
     ("predict", "p2p", "--machine", "angara-36", "--api", "bad")),
    (lambda: icnperf.predict_p2p("angara-36", load=2),
     ("predict", "p2p", "--machine", "angara-36", "--load", "2")),
    (lambda: icnperf.predict_p2p("angara-36", hops="x"),
     ("predict", "p2p", "--machine", "angara-36", "--hops", "x")),
    (lambda: icnperf.predict_p2p("nosuch"), ("predict", "p2p", "--machine", "nosuch")),
    (lambda: icnperf.predict_collective("angara-36", "frobnicate"),
     ("predict", "collective", "frobnicate", "--machine", "angara-36")),
    (lambda: icnperf.predict_collective("angara-36", "allreduce", placement="weird"),
     ("predict", "collective", "allreduce", "--machine", "angara-36", "--placement",
      "weird")),
    (lambda: icnperf.predict_app("angara-36", "hpcg", variant="weird"),
     ("predict", "app", "hpcg", "--machine", "angara-36", "--variant", "weird")),
    (lambda: icnperf.predict_app("angara-4d", "spmv", rows="1e9x"),
     ("predict", "app", "spmv", "--machine", "angara-4d", "--rows", "1e9x")),
    (lambda: icnperf.predict_app("ib-qdr-cluster", "npb-is"),
     ("predict", "app", "npb-is", "--machine", "ib-qdr-cluster")),
    (lambda: icnperf.topology("torus:0x4"), ("topology", "torus:0x4")),
    (lambda: icnperf.topology("torus:4x4", tree_routing="up"),
     ("topology", "torus:4x4", "--tree-routing", "up")),
])
def test_bad_input_gives_the_command_lines_message(call, args, capsys):
    with pytest.raises(InputError) as caught:
        call()
    assert str(caught.value) == cli_error(*args)
    assert isinstance(caught.value, ValueError)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_python_values_that_are_not_numbers_are_refused():
    with pytest.raises(InputError, match="--bytes"):
        icnperf.predict_p2p("angara-36", bytes=[8, "x"])
    with pytest.raises(InputError, match="finite"):
        icnperf.predict_p2p("angara-36", bytes=float("nan"))
    with pytest.raises(InputError, match="--ppn"):
        icnperf.predict_p2p("angara-36", ppn=2.5)
    with pytest.raises(InputError, match="machine"):
        icnperf.predict_p2p(42)


def test_warnings_are_silenced_inside_a_call_only():
    from icnperf.api.guard import quiet

    @quiet
    def overflowing():
        return np.float64(1e308) * np.float64(10)

    before = list(warnings.filters)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert overflowing() == np.inf
        with pytest.raises(RuntimeWarning):
            np.float64(1e308) * np.float64(10)
        with pytest.raises(InputError, match="not a finite number"):
            icnperf.predict_p2p("angara-36", set={"network.link_latency": 1e308}, hops=3)
        with pytest.raises(RuntimeWarning):
            np.float64(1e308) * np.float64(10)
    assert warnings.filters == before


def test_the_work_budget_applies(monkeypatch):
    # placed at random, the ring's messages are mapped one by one on 4,096 nodes
    monkeypatch.setenv("ICNPERF_MAX_SECONDS", "1")
    with pytest.raises(InputError) as caught:
        icnperf.predict_collective("angara-3d", "allgather", nodes=4096, bytes="8KiB",
                                   algorithm="ring", placement="random")
    message = str(caught.value)
    assert "over the limit of 1 s" in message
    assert message == cli_error("predict", "collective", "allgather", "--machine",
                                "angara-3d", "--nodes", "4096", "--bytes", "8KiB",
                                "--algorithm", "ring", "--placement", "random", "--format",
                                "json")


def test_table_and_csv_are_the_command_lines():
    from click.testing import CliRunner

    from icnperf.cli import cli

    result = icnperf.predict_collective("piz-daint", "allreduce", nodes=16, bytes="8,1MiB",
                                        algorithm="auto")
    args = ["predict", "collective", "allreduce", "--machine", "piz-daint", "--nodes", "16",
            "--bytes", "8,1MiB", "--algorithm", "auto"]
    table = CliRunner().invoke(cli, args).output
    assert result.table() == table and "auto: recursive-doubling" in table
    assert result.to_csv() == CliRunner().invoke(cli, [*args, "--format", "csv"]).output
    assert result.table(wide=True) == CliRunner().invoke(cli, [*args, "--wide"]).output


def test_importing_the_command_line_loads_no_numpy():
    probe = ("import sys, icnperf.cli, icnperf;"
             " print(sorted(m for m in ('numpy', 'scipy', 'sympy', 'plotly')"
             " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True).stdout.strip()
    assert out == "[]"


def test_import_icnperf_imports_the_api_on_first_use():
    probe = ("import sys, icnperf; before = 'icnperf.api' in sys.modules;"
             " f = icnperf.predict_p2p; print(before, 'icnperf.api' in sys.modules,"
             " 'predict_p2p' in dir(icnperf))")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True).stdout.strip()
    assert out == "False True True"
    with pytest.raises(AttributeError):
        icnperf.no_such_function


def test_no_api_submodule_is_named_like_a_function():
    import pkgutil

    import icnperf.api

    modules = {m.name for m in pkgutil.iter_modules(icnperf.api.__path__)}
    assert not modules & set(icnperf.api.__all__)
    for name in icnperf.api.__all__:
        assert callable(getattr(icnperf, name))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.integers(0, 1 << 30), min_size=1, max_size=5),
       nodes=st.lists(st.sampled_from([8, 16, 64, 128]), min_size=1, max_size=2, unique=True))
def test_python_values_equal_their_text(sizes, nodes):
    """Numbers give the rows their text gives (bare numbers are bytes and counts)."""
    text = ",".join(str(s) for s in sizes)
    assert icnperf.predict_p2p("angara-36", bytes=sizes).rows == \
        icnperf.predict_p2p("angara-36", bytes=text).rows
    data = [max(s, 1) for s in sizes[:2]]  # a collective moves at least a byte
    by_value = icnperf.predict_collective("angara-4d", "allreduce", nodes=nodes,
                                          bytes=data, algorithm="ring")
    by_text = icnperf.predict_collective("angara-4d", "allreduce",
                                         nodes=",".join(map(str, nodes)),
                                         bytes=",".join(str(s) for s in data),
                                         algorithm="ring")
    assert by_value.rows == by_text.rows
    assert by_value.inputs["nodes"] == nodes
