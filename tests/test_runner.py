"""runner.run_map: scheduler parsing, task order, identical results across schedulers,
errors and the progress bar."""

from __future__ import annotations

import io
import socket
import sys
import time

import pytest

from icnperf import runner
from icnperf.errors import InputError
from icnperf.runner import Scheduler, parse_scheduler, run_map


def _square_late_first(x: int) -> int:
    """x*x; smaller x sleep longer, so in parallel the last tasks finish first."""
    time.sleep(0.02 * (6 - x))
    return x * x


def _fail_on_three(x: int) -> int:
    if x == 3:
        raise InputError(f"task {x} is bad")
    return x


def _small_simulations() -> list[tuple]:
    """2 rates x 2 seeds on a 4x4 torus, short phases: a deterministic, cheap workload."""
    from icnperf.sim import RouterConfig

    router = RouterConfig(arbiter="age")
    return [("torus:4x4", "dor", "uniform", rate, router, 100, 200, 200, seed, None)
            for rate in (0.2, 0.6) for seed in (0, 1)]


def _numbers(results: list[dict]) -> list[dict]:
    """Each run's figures without its wall-clock time (the only thing allowed to differ)."""
    return [{k: v for k, v in r.items() if k != "wall_seconds"} for r in results]


@pytest.mark.parametrize("text,expected", [
    ("inline", Scheduler("inline")),
    ("processes", Scheduler("processes")),
    ("local-cluster", Scheduler("local-cluster")),
    ("tcp://10.0.0.5:8786", Scheduler("tcp", "tcp://10.0.0.5:8786")),
    ("tcp://scheduler.example:1", Scheduler("tcp", "tcp://scheduler.example:1")),
    (" processes ", Scheduler("processes")),
])
def test_parse_scheduler(text, expected):
    assert parse_scheduler(text) == expected


@pytest.mark.parametrize("text,message", [
    ("threads", "unknown scheduler 'threads'"),
    ("Inline", "unknown scheduler 'Inline'"),
    ("", "unknown scheduler ''"),
    ("tcp://", "'tcp://' is not a Dask scheduler address"),
    ("tcp://host", "'tcp://host' is not"),
    ("tcp://:8786", "'tcp://:8786' is not"),
    ("tcp://host:0", "port 1..65535"),
    ("tcp://host:70000", "port 1..65535"),
    ("tcp://host:port", "'tcp://host:port' is not"),
    ("tcp://host/x:8786", "is not a Dask scheduler address"),
])
def test_bad_scheduler_strings_name_the_text(text, message):
    with pytest.raises(InputError) as error:
        parse_scheduler(text)
    assert message in str(error.value) and "\n" not in str(error.value)
    with pytest.raises(InputError):
        run_map(abs, [1], scheduler=text)


@pytest.mark.parametrize("workers", [0, -2, True, 1.5, "2"])
def test_bad_worker_counts(workers):
    with pytest.raises(InputError, match="--workers"):
        run_map(abs, [1, 2], scheduler="processes", workers=workers)


@pytest.mark.parametrize("scheduler", ["inline", "processes"])
def test_results_in_task_order(scheduler):
    tasks = list(range(6))
    assert run_map(_square_late_first, tasks, scheduler, workers=2) == [0, 1, 4, 9, 16, 25]


def test_empty_task_list():
    assert run_map(abs, [], "processes") == []


@pytest.mark.parametrize("scheduler", ["inline", "processes"])
def test_task_input_error_propagates_as_itself(scheduler):
    with pytest.raises(InputError, match="^task 3 is bad$"):
        run_map(_fail_on_three, [1, 2, 3, 4], scheduler, workers=2)


def test_same_seeds_same_numbers_inline_and_processes():
    """The simulator is deterministic per seed, so where it runs must not matter; the two
    seeds must differ (else the comparison could not fail)."""
    from icnperf.api.traffic_runs import _simulate_task

    tasks = _small_simulations()
    inline = _numbers(run_map(_simulate_task, tasks, "inline"))
    pooled = _numbers(run_map(_simulate_task, tasks, "processes", workers=2))
    assert pooled == inline
    assert inline[0]["average_latency"] != inline[1]["average_latency"]
    assert [r["seed"] for r in inline] == [0, 1, 0, 1]
    assert [r["rate"] for r in inline] == [0.2, 0.2, 0.6, 0.6]


@pytest.mark.slow
def test_same_seeds_same_numbers_on_a_dask_local_cluster():
    """Issue #7: a LocalCluster with 2 workers gives the in-process numbers."""
    pytest.importorskip("distributed")
    from icnperf.api.traffic_runs import _simulate_task

    tasks = _small_simulations()
    inline = _numbers(run_map(_simulate_task, tasks, "inline"))
    clustered = _numbers(run_map(_simulate_task, tasks, "local-cluster", workers=2))
    assert clustered == inline
    with pytest.raises(InputError, match="^task 3 is bad$"):
        run_map(_fail_on_three, [1, 3], "local-cluster", workers=1)


def test_missing_dask_is_an_input_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import now raises ImportError
    with pytest.raises(InputError, match=r"pip install 'icnperf\[dask\]'"):
        run_map(abs, [1], "local-cluster")
    with pytest.raises(InputError, match="tcp://127.0.0.1:8786 needs Dask"):
        run_map(abs, [1], "tcp://127.0.0.1:8786")


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_dask_scheduler_is_one_line(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(runner, "CONNECT_TIMEOUT", 1.0)
    address = f"tcp://127.0.0.1:{_unused_port()}"
    with pytest.raises(InputError) as error:
        run_map(abs, [1, 2], address)
    text = str(error.value)
    assert text.startswith(f"--scheduler: cannot reach the Dask scheduler at {address}")
    assert "\n" not in text


def test_progress_bar_on_stderr_only(capsys):
    assert run_map(abs, [-1, -2, -3], progress=True, label="squares") == [1, 2, 3]
    out, err = capsys.readouterr()
    assert out == ""
    assert "squares [" in err and "3/3" in err and err.endswith("\n")


@pytest.mark.parametrize("progress", [None, False])
def test_no_progress_bar_when_off_or_not_a_terminal(capsys, progress):
    """Under pytest standard error is captured, not a terminal: None means no bar."""
    run_map(abs, [-1, -2, -3], progress=progress, label="squares")
    assert capsys.readouterr() == ("", "")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("tasks,shown", [([-1, -2, -3], True), ([-1], False)])
def test_default_progress_on_a_terminal_only_for_several_tasks(monkeypatch, tasks, shown):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    run_map(abs, tasks, label="squares")
    assert ("squares [" in terminal.getvalue()) is shown
