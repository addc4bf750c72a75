"""Machine parameters of the collective formulas: :func:`collective_parameters` (numeric,
from a Machine) and :func:`symbolic_collective_parameters` (SymPy), plus the helpers that
pick the network keys a formula takes (``_NETWORK_KEYS``, ``_pick``) and bind a parameter
dict to a formula's keywords (``_bind``)."""

from __future__ import annotations

import math
from typing import Callable

from icnperf.errors import InputError
from icnperf.model import network, ops

_NETWORK_KEYS = ("flit_size", "packet_max_flits", "packet_header_flits", "injection_latency",
                 "ejection_latency", "router_latency", "link_latency", "link_bandwidth",
                 "host_bandwidth")
_PACKET_KEYS = ("flit_size", "packet_max_flits", "packet_header_flits")
_SERIAL_KEYS = _PACKET_KEYS + ("link_bandwidth", "host_bandwidth")


def _pick(values: dict, keys) -> dict:
    return {key: values[key] for key in keys}


# --- parameters -------------------------------------------------------------------------


ELEMENT_SIZE = 8.0
"""Bytes of one element of a collective's data when the caller gives none: a double
(MPI_DOUBLE). MPI libraries split vectors and count elements in whole elements."""


STEP_OVERHEAD_KEY = "software.mpi_step_overhead"
"""The machine key of the per-step cost of an MPI collective beyond its messages' overhead
(docs/mpi-algorithms.md, "A step against half a ping-pong")."""


def collective_parameters(machine, api: str = "mpi", *, combine_time: float = 0.0,
                          element_size: float = ELEMENT_SIZE) -> dict:
    """network.machine_parameters plus the collective ones: ``combine_time`` (γ, seconds per
    byte reduced at a host; not in the machine files, default 0), ``element_size`` (bytes
    of one element, default 8: a double; Rabenseifner's whole-element split), and when the
    machine has
    hardware collectives (``network.collective_trees``) ``collective_trees`` and
    ``collective_store_and_forward`` (1 unless ``network.collective_switching`` says
    cut-through); for hardware other than Angara's tree ``collective_hardware``
    (:func:`collective_hardware`) and ``collective_credits`` = 0 (no Angara reduce credits)
    and, for switch aggregation, ``aggregation_payload`` and ``aggregation_window`` (absent:
    1);
    ``eager_limit`` (bytes) when the machine sets software.eager_limit; ``step_overhead``
    (seconds per step of a point-to-point algorithm, :data:`STEP_OVERHEAD_KEY`) when api is
    ``mpi`` and the machine sets it (absent: not in the dict, and the formulas charge 0)."""
    params = network.machine_parameters(machine, api)
    if not (math.isfinite(combine_time) and combine_time >= 0):
        raise InputError(f"combine_time must be finite and >= 0, not {combine_time!r}")
    params["combine_time"] = combine_time
    if not (math.isfinite(element_size) and element_size > 0):
        raise InputError(f"element_size must be finite and > 0 bytes, not {element_size!r}")
    params["element_size"] = float(element_size)
    eager = machine.get("software.eager_limit")
    if eager is not None:
        params["eager_limit"] = eager
    step = machine.get(STEP_OVERHEAD_KEY) if api == "mpi" else None
    if step is not None:
        params["step_overhead"] = step
    trees = machine.get("network.collective_trees")
    hardware = collective_hardware(machine)
    if hardware is not None:
        if trees:
            params["collective_trees"] = trees
        if hardware != "angara-tree":
            # Angara's tree (the formulas' defaults) keeps the parameters it always had
            params["collective_hardware"] = hardware
            params["collective_credits"] = 0
        mode = machine.get("network.collective_switching", "store-and-forward")
        params["collective_store_and_forward"] = 1 if mode == "store-and-forward" else 0
        if hardware == "switch-aggregation":
            params["aggregation_payload"] = float(machine.require(
                "network.aggregation_payload"))
            params["aggregation_window"] = machine.get("network.aggregation_window", 1)
    return params


def collective_hardware(machine) -> str | None:
    """The machine's collective hardware (hardware.HARDWARE): network.collective_hardware,
    absent: ``angara-tree`` when network.collective_trees is set, else None (none). A tree
    kind (angara-tree, torus-router) without collective_trees is None too."""
    hardware = machine.get("network.collective_hardware")
    trees = machine.get("network.collective_trees")
    if hardware is None:
        return "angara-tree" if trees else None
    if hardware != "switch-aggregation" and not trees:
        return None
    return hardware


def symbolic_collective_parameters() -> dict:
    """network.symbolic_parameters plus γ (combine_time), O_step (step_overhead), s_c
    (collective store-and-forward, 0 or 1) and N_t (collective trees); imports SymPy."""
    params = network.symbolic_parameters()
    params["combine_time"] = ops.symbols("gamma")
    params["step_overhead"] = ops.symbols("O_step")
    params["collective_store_and_forward"] = ops.symbols("s_c", integer=True)
    params["collective_trees"] = ops.symbols("N_t", positive=True, integer=True)
    return params


def _bind(function: Callable, params: dict) -> dict:
    return network.bind(function, params)
