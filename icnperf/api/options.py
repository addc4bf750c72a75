"""The checks the command line's options make, as the API makes them: choices, ranges and
counts, each refused with the one-line message the command line prints after ``error:``.

The choices live here once; ``icnperf.cli`` builds its Click options from them (so the two
cannot drift), and the API runs the same checks on values a Python caller gives. Click's
wording is kept word for word ("Invalid value for '--ppn': 0 is not in the range x>=1."),
so a script sees the message a shell user sees. Nothing here imports NumPy: the command
line imports this module to build its options.
"""

from __future__ import annotations

from typing import Any, Sequence

from icnperf.errors import InputError

APIS = ("mpi", "shmem", "none")
"""``--api``: the software overhead charged (MPI, SHMEM, none = hardware only)."""

PLACEMENTS = ("linear", "spread", "random")
"""``--placement``: nodes on endpoints in order, round-robin over leaf switches or groups,
or a random permutation (seed 0)."""

CCL_APIS = ("nccl", "rccl")
"""``api="nccl"|"rccl"`` of predict and explain collective and of calibrate: the GPU
collective libraries (icnperf.api.ccl)."""

BUFFERS = ("host", "gpu")
"""``--buffers``: message buffers in host memory or in GPU memory (the machine's GPU-buffer
path)."""

COMPUTES = ("cpu", "gpu")
"""``predict app --compute``: the skeleton's compute on the CPUs as written, or on the
roofline of the node's accelerators."""

HIERARCHIES = ("node", "flat")
"""``--hierarchy``: node-aware collectives or the algorithm over every rank."""

HPCG_VARIANTS = ("reference", "optimized")
"""``--variant`` of ``predict app hpcg``."""

VARY = ("nodes", "bytes")
"""``--vary`` of ``crossover``: solve for the node count or the message size."""

TREE_ROUTINGS = ("random", "dmodk")
"""``--tree-routing`` of ``topology``: a fat tree's up-port rule."""

GLOBAL_WIRINGS = ("relative", "absolute")
"""``simulate traffic --global-wiring``: a dragonfly's inter-group wiring."""

ARBITERS = ("round-robin", "age")
"""``simulate traffic --arbiter``: the separable allocators' priority."""

ALLOCATORS = ("separable", "islip")
"""``simulate traffic --allocator``."""

DATELINES = ("crossing", "dimension")
"""``simulate traffic --dateline``: the torus VC classes."""

RING_TIES = ("plus", "random")
"""``simulate traffic --ring-ties``: the direction at a distance of exactly k/2."""

CALIBRATION_APIS = ("mpi", "shmem")
"""``calibrate --api``: the software path the benchmark measured."""

DATA_FORMATS = ("osu", "imb", "csv")
"""``calibrate --data-format``: OSU micro-benchmarks, Intel MPI Benchmarks, a CSV."""

MAX_RADIX = 1024
"""Largest ``size --radix-max``: four times the largest router radix built today (256
ports), and compare-topologies' own bound."""

MAX_SEED = 2**63 - 1
"""The largest ``--seed``."""


def _invalid(option: str, text: str) -> InputError:
    return InputError(f"Invalid value for '{option}': {text}")


def choice(value: Any, choices: Sequence[str], option: str) -> str:
    """``value`` when it is one of ``choices``; else Click's message for ``option``."""
    if isinstance(value, str) and value in choices:
        return value
    listed = ", ".join(repr(c) for c in choices)
    raise _invalid(option, f"{value!r} is not one of {listed}.")


def optional_choice(value: Any, choices: Sequence[str], option: str) -> str | None:
    """:func:`choice`, with None (the option not given) passed through."""
    return None if value is None else choice(value, choices, option)


def integer(value: Any, option: str, low: int | None = None,
            high: int | None = None) -> int:
    """A whole number within [``low``, ``high``]: an int, a whole float or its text ("4");
    Click's IntRange messages otherwise (its INT messages when no bound is given)."""
    kind = "integer range" if low is not None or high is not None else "integer"
    if isinstance(value, bool):
        raise _invalid(option, f"{value!r} is not a valid {kind}.")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise _invalid(option, f"{value!r} is not a valid {kind}.") from None
    if not isinstance(value, int):
        raise _invalid(option, f"{value!r} is not a valid {kind}.")
    if (low is not None and value < low) or (high is not None and value > high):
        raise _out_of_range(option, str(value), low, high)
    return value


def _out_of_range(option: str, shown: str, low, high) -> InputError:
    """Click's IntRange/FloatRange message for a value outside [``low``, ``high``]."""
    bounds = f"x>={low}" if high is None else f"{low}<=x<={high}"
    return _invalid(option, f"{shown} is not in the range {bounds}.")


def optional_integer(value: Any, option: str, low: int | None = None,
                     high: int | None = None) -> int | None:
    """:func:`integer`, with None passed through."""
    return None if value is None else integer(value, option, low, high)


def real(value: Any, option: str, low: float | None = None,
         high: float | None = None) -> float:
    """A number within [``low``, ``high``]: an int, a float or its text ("0.3"); Click's
    FloatRange messages otherwise (its FLOAT messages when no bound is given; a NaN is in
    no range)."""
    kind = "float range" if low is not None or high is not None else "float"
    if isinstance(value, bool):
        raise _invalid(option, f"{value!r} is not a valid {kind}.")
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        raise _invalid(option, f"{value!r} is not a valid {kind}.") from None
    if (low is not None and not number >= low) or (high is not None and not number <= high):
        raise _out_of_range(option, repr(number), low, high)
    return number


def optional_real(value: Any, option: str, low: float | None = None,
                  high: float | None = None) -> float | None:
    """:func:`real`, with None passed through."""
    return None if value is None else real(value, option, low, high)


def count(value: Any, option: str) -> int:
    """A whole count as the command line's counts read it ("100000", "1e5") or an int;
    the message of ``icnperf.cli.common.Count`` otherwise."""
    if isinstance(value, bool):
        raise _invalid(option, f"{value!r} is not a count")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    from icnperf.units import parse_quantity

    try:
        return int(parse_quantity(str(value), "count"))
    except InputError as error:
        raise _invalid(option, str(error)) from None


def optional_count(value: Any, option: str) -> int | None:
    """:func:`count`, with None passed through."""
    return None if value is None else count(value, option)


def flag(value: Any, option: str) -> bool:
    """A yes/no option: True or False (a flag on the command line)."""
    if isinstance(value, bool):
        return value
    raise InputError(f"{option} is a flag: give True or False, not {value!r}")


def sampling(uncertainty: Any, samples: Any, seed: Any):
    """The :class:`icnperf.data.machine.sampling.Sampling` of ``uncertainty`` with
    ``samples`` draws (default 200) and ``seed`` (default 0); None without it (``samples``
    or ``seed`` alone are refused)."""
    uncertainty = flag(uncertainty, "--uncertainty")
    samples = optional_integer(samples, "--samples", low=1)
    seed = optional_integer(seed, "--seed", low=0)
    if not uncertainty:
        if samples is not None or seed is not None:
            raise InputError("--samples and --seed go with --uncertainty")
        return None
    from icnperf.data.machine.sampling import DEFAULT_SAMPLES, Sampling

    return Sampling(DEFAULT_SAMPLES if samples is None else samples,
                    0 if seed is None else seed)
