"""The console command's process settings: how its memory allocator, cyclic garbage
collector and BLAS threads behave. A command is a short-lived process that builds large
NumPy arrays and hundreds of thousands of small objects and frees them as it goes; the
interpreter's and C library's defaults are tuned for long-lived programs and cost it CPU
time for no memory saved (measured, README "The whole machine"). Only the console command
applies them (:func:`prepare`, from cli.root.main): the Python API leaves the caller's
process as it is.
"""

from __future__ import annotations

import ctypes
import gc
import os

GC_THRESHOLDS = (100_000, 50, 100)
"""gc.set_threshold: a young collection every 100,000 container allocations, not
CPython's 700, the older generations' counts scaled alike. Rows and arrays are freed by
reference counting; the frequent passes over a large live heap (a sizing study's designs
and results) found nothing to free and took a fifth of `size --endpoints 5000 --families
dragonfly,torus --torus-dims 3 --shortlist all`. Cycles are still collected, later."""

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
"""glibc's mallopt parameter numbers (malloc.h)."""

TRIM_THRESHOLD = 64 << 20
MMAP_THRESHOLD = 32 << 20
"""Bytes: freed memory at the top of the heap is returned to the system only beyond
64 MiB, and blocks of up to 32 MiB (glibc's own largest dynamic threshold on 64-bit
systems) come from the heap rather than each from a fresh mapping. With glibc's
defaults an array freed and allocated again, as the mappers do per round, is unmapped
and mapped anew, and every page faults in again: `predict app jacobi3d --machine
fugaku --nodes 158976` took 325,000 page faults (about 0.45 s of system time) and takes
35,000 with these, at the same peak memory (167 MB); the 5,000-endpoint sizing study's
peak grows 6 % (337 -> 356 MB)."""

BLAS_THREADS = "1"
"""OPENBLAS_NUM_THREADS unless the user set it: the models multiply no matrix large
enough to share, while OpenBLAS starts one thread per core when NumPy is first imported
(inside the commands, after this is set), and they cost about 0.1 s CPU of the jacobi3d
command above."""


def prepare() -> None:
    """Apply the settings above to this process (glibc's allocator only where the C
    library has mallopt: elsewhere, Windows and macOS among them, it is left alone)."""
    gc.set_threshold(*GC_THRESHOLDS)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", BLAS_THREADS)
    try:
        mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    except (OSError, TypeError):
        mallopt = None
    if mallopt is not None:
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
