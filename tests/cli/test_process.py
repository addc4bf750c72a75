"""The console command's process settings (cli/process.py): applied by the command's
entry point, leaving a user's own OPENBLAS_NUM_THREADS alone, and never by the API."""

import gc
import os
import subprocess
import sys

from icnperf.cli.process import BLAS_THREADS, GC_THRESHOLDS

PROBE = ("import gc, os, sys; from icnperf.cli.process import prepare; prepare(); "
         "print(gc.get_threshold(), os.environ['OPENBLAS_NUM_THREADS'])")


def _probe(env: dict) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def test_prepare_sets_the_collector_and_blas_threads():
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert _probe(env) == "(100000, 50, 100) 1"
    assert GC_THRESHOLDS == (100000, 50, 100) and BLAS_THREADS == "1"


def test_a_users_blas_threads_are_kept():
    assert _probe({**os.environ, "OPENBLAS_NUM_THREADS": "3"}).endswith(" 3")


def test_the_api_leaves_the_process_alone():
    import icnperf

    before = gc.get_threshold()
    blas = os.environ.get("OPENBLAS_NUM_THREADS")
    icnperf.predict_p2p("lumi", bytes="8")
    assert gc.get_threshold() == before != GC_THRESHOLDS
    assert os.environ.get("OPENBLAS_NUM_THREADS") == blas
