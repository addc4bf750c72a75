"""Map a pure function over a list of tasks: in this process, local processes, or Dask.

``run_map(function, tasks, scheduler=...)`` returns ``[function(t) for t in tasks]`` in task
order whichever scheduler runs them, so a deterministic function gives the same numbers
everywhere. Only module-level functions and picklable tasks are sent to other processes.

Schedulers (the ``--scheduler`` option's text):

* ``inline`` — one after the other in this process;
* ``processes`` — a ``concurrent.futures.ProcessPoolExecutor`` of ``workers`` processes
  (default: the CPU count, never more than the tasks);
* ``local-cluster`` — a Dask ``LocalCluster`` of ``workers`` single-threaded worker
  processes, started for this map and closed afterwards;
* ``tcp://host:port`` — the Dask scheduler already running at that address (its workers
  must have icnperf installed).

Dask (``pip install 'icnperf[dask]'``) is imported only for the last two. A task raising
``InputError`` (or any ``IcnperfError``) re-raises that error here; the remaining tasks are
cancelled. Progress is a bar on standard error, never standard output.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from icnperf.errors import InputError

SCHEDULERS = ("inline", "processes", "local-cluster", "tcp://host:port")
CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a ``tcp://`` Dask scheduler before giving up."""


@dataclass(frozen=True)
class Scheduler:
    """A parsed ``--scheduler`` value: ``kind`` is inline, processes, local-cluster or tcp."""

    kind: str
    address: str | None = None


def parse_scheduler(text: str) -> Scheduler:
    """``"processes"`` -> Scheduler("processes"); ``"tcp://h:8786"`` -> Scheduler("tcp", ...).

    Raises InputError naming the text when it is none of SCHEDULERS.
    """
    value = str(text).strip()
    if value in ("inline", "processes", "local-cluster"):
        return Scheduler(value)
    if value.startswith("tcp://"):
        host, sep, port = value[len("tcp://"):].rpartition(":")
        if sep and host and port.isdigit() and 1 <= int(port) <= 65535 and "/" not in host:
            return Scheduler("tcp", value)
        raise InputError(f"--scheduler: {text!r} is not a Dask scheduler address"
                         " (expected tcp://host:port, port 1..65535)")
    raise InputError(f"--scheduler: unknown scheduler {text!r} (choose from"
                     f" {', '.join(SCHEDULERS)})")


def _worker_count(workers: int | None, tasks: int) -> int:
    if workers is None:
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"--workers: must be a whole number >= 1, got {workers!r}")
    return max(1, min(workers, tasks))


def parallel_workers(scheduler: str, workers: int | None, tasks: int) -> int:
    """How many of ``tasks`` run at once on this machine: 1 inline (and on a remote
    ``tcp://`` cluster, whose workers use their own machines), else the worker processes
    (``workers``, default the CPU count, at most one per task). InputError for a bad
    scheduler or worker count."""
    kind = parse_scheduler(scheduler).kind
    if kind in ("inline", "tcp"):
        return 1
    return _worker_count(workers, max(1, tasks))


def _show_progress(progress: bool | None, tasks: int) -> bool:
    if progress is not None:
        return bool(progress)
    return tasks > 1 and sys.stderr.isatty()


class Progress:
    """A one-line text bar on standard error: ``label [#####-----] 5/10``.

    Redrawn in place with a carriage return after each finished task; a newline at the end.
    """

    WIDTH = 30

    def __init__(self, total: int, label: str, enabled: bool):
        self.total, self.label, self.enabled, self.done = total, label, enabled, 0
        self._draw()

    def advance(self, count: int = 1) -> None:
        self.done += count
        self._draw()

    def _draw(self) -> None:
        if not self.enabled:
            return
        filled = self.WIDTH * self.done // max(self.total, 1)
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        head = f"{self.label} " if self.label else ""
        sys.stderr.write(f"\r{head}[{bar}] {self.done}/{self.total}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def run_map(function: Callable[[Any], Any], tasks: Sequence[Any], scheduler: str = "inline",
            workers: int | None = None, progress: bool | None = None,
            label: str = "") -> list:
    """``[function(task) for task in tasks]``, run by ``scheduler``, results in task order.

    ``workers``: processes for ``processes`` / ``local-cluster`` (default the CPU count);
    ignored inline and on a ``tcp://`` cluster. ``progress``: True shows a bar on standard
    error, False never, None when standard error is a terminal and there is more than one
    task. ``label`` prefixes the bar.
    """
    where = parse_scheduler(scheduler)
    tasks = list(tasks)
    count = _worker_count(workers, len(tasks))
    bar = Progress(len(tasks), label, _show_progress(progress, len(tasks)))
    try:
        if not tasks:
            return []
        if where.kind == "inline":
            return _inline(function, tasks, bar)
        if where.kind == "processes":
            return _processes(function, tasks, count, bar)
        return _dask(function, tasks, where, count, bar)
    finally:
        bar.close()


def _inline(function, tasks, bar: Progress) -> list:
    results = []
    for task in tasks:
        results.append(function(task))
        bar.advance()
    return results


def _processes(function, tasks, workers: int, bar: Progress) -> list:
    from concurrent.futures import ProcessPoolExecutor, as_completed

    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        futures = [pool.submit(function, task) for task in tasks]
        for future in as_completed(futures):
            future.result()  # raises the task's own error at once
            bar.advance()
        return [future.result() for future in futures]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _dask(function, tasks, where: Scheduler, workers: int, bar: Progress) -> list:
    try:
        import distributed
    except ImportError:
        raise InputError(f"--scheduler {where.address or where.kind} needs Dask:"
                         " pip install 'icnperf[dask]'") from None
    cluster = None
    try:
        if where.kind == "local-cluster":
            import logging

            cluster = distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=logging.CRITICAL)
            client = distributed.Client(cluster)
        else:
            try:
                client = distributed.Client(where.address, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as error:
                reason = str(error).splitlines()[0] if str(error) else type(error).__name__
                raise InputError(f"--scheduler: cannot reach the Dask scheduler at"
                                 f" {where.address} ({reason})") from None
        try:
            futures = client.map(function, tasks, pure=False)
            for future in distributed.as_completed(futures):
                future.result()  # raises the task's own error at once
                bar.advance()
            return client.gather(futures)
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
