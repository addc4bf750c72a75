"""The formulas' parameters: read from a machine, as SymPy symbols, and bound to a formula.

:data:`PARAMETERS` names the machine key of each formula parameter;
:func:`machine_parameters` reads them (SI: seconds, bytes, bytes/s; the packet format as
counts) plus the software overhead of a messaging interface (:data:`APIS`) and the
switching flag; :func:`symbolic_parameters` gives the same names as SymPy symbols for
``icnperf explain``; :func:`bind` picks from one dict the keywords a formula takes. The
keys and their units are those of the machine format (docs/machine-format.md).
"""

from __future__ import annotations

import inspect
from functools import lru_cache
from collections.abc import Callable, Mapping

from icnperf.errors import InputError
from icnperf.model import ops

APIS = ("mpi", "shmem", "none")
"""Messaging interfaces: MPI and SHMEM charge their software overhead; ``none`` is the bare
hardware path."""

PARAMETERS: dict[str, str] = {
    "flit_size": "network.flit_size",
    "packet_max_flits": "network.packet_max_flits",
    "packet_header_flits": "network.packet_header_flits",
    "injection_latency": "network.injection_latency",
    "ejection_latency": "network.ejection_latency",
    "router_latency": "network.router_latency",
    "link_latency": "network.link_latency",
    "link_bandwidth": "network.link_bandwidth",
    "host_bandwidth": "network.host_bandwidth",
}
"""Formula parameter name -> the machine key it is read from. Two more parameters come from
elsewhere: ``software_overhead`` (``software.<api>_overhead``, 0 for api ``none``) and
``store_and_forward`` (``network.switching``)."""

_OVERHEAD_KEYS = {"mpi": "software.mpi_overhead", "shmem": "software.shmem_overhead"}


# --- machine -> numbers, symbols --------------------------------------------------------


def _require_all(machine, paths) -> list:
    """machine.require(path) for every path; one InputError naming every missing key (the
    key's own message, with its ``--set`` hint, when only one is missing)."""
    values, errors = [], {}
    for path in paths:
        try:
            values.append(machine.require(path))
        except InputError as error:
            errors[path] = error
            values.append(None)
    if len(errors) == 1:
        raise next(iter(errors.values()))
    if errors:
        raise InputError(f"machine {machine.name} lacks {len(errors)} parameters this model"
                         f" needs: {', '.join(errors)} (add them to its file or pass"
                         " --set SECTION.KEY=VALUE)")
    return values


def machine_parameters(machine, api: str = "mpi", switching: str | None = None) -> dict:
    """The formula parameters of :data:`PARAMETERS` read from a machine, plus
    ``software_overhead`` (by api) and ``store_and_forward`` (0/1, from ``switching`` or
    ``network.switching``).

    ``machine`` is anything with ``require(path)`` (icnperf.data.machine.Machine). Missing keys
    raise one InputError naming each key and the ``--set`` that supplies it.
    """
    if api not in APIS:
        raise InputError(f"unknown api {api!r}; choose one of {', '.join(APIS)}")
    if switching is not None and switching not in ("cut-through", "store-and-forward"):
        raise InputError(
            f"unknown switching {switching!r}; choose cut-through or store-and-forward")
    paths = list(PARAMETERS.values())
    if api != "none":
        paths.append(_OVERHEAD_KEYS[api])
    if switching is None:
        paths.append("network.switching")
    values = dict(zip(paths, _require_all(machine, paths)))
    params = {name: values[path] for name, path in PARAMETERS.items()}
    if params["packet_max_flits"] <= params["packet_header_flits"]:
        raise InputError(
            f"machine {machine.name!r}: network.packet_max_flits "
            f"({params['packet_max_flits']}) must exceed network.packet_header_flits "
            f"({params['packet_header_flits']}) to leave room for payload"
        )
    params["software_overhead"] = 0.0 if api == "none" else values[_OVERHEAD_KEYS[api]]
    mode = switching if switching is not None else values["network.switching"]
    params["store_and_forward"] = 1 if mode == "store-and-forward" else 0
    return params


def symbolic_parameters() -> dict:
    """The same parameters as :func:`machine_parameters` as SymPy symbols (imports SymPy):
    f, P, H, t_inj, t_ej, t_r, t_l, B_link, B_host, O and s (store-and-forward, 0 or 1)."""
    names = {
        "flit_size": "f",
        "packet_max_flits": "P",
        "packet_header_flits": "H",
        "injection_latency": "t_inj",
        "ejection_latency": "t_ej",
        "router_latency": "t_r",
        "link_latency": "t_l",
        "link_bandwidth": "B_link",
        "host_bandwidth": "B_host",
        "software_overhead": "O",
        "store_and_forward": "s",
    }
    out = {}
    for name, symbol in names.items():
        extra = {}
        if name in ("flit_size", "packet_max_flits", "link_bandwidth", "host_bandwidth"):
            extra["positive"] = True
        if name in ("packet_max_flits", "packet_header_flits", "store_and_forward"):
            extra["integer"] = True
        out[name] = ops.symbols(symbol, **extra)
    return out


def bind(function: Callable, params: Mapping) -> dict:
    """The entries of ``params`` that ``function`` takes as keyword-only parameters, so that
    one parameter dict serves every formula: ``latency(m, h, **bind(latency, params))``."""
    return {name: params[name] for name in _keyword_only(function) if name in params}


@lru_cache(maxsize=None)
def _keyword_only(function: Callable) -> tuple[str, ...]:
    """The names of ``function``'s keyword-only parameters, in order (read once per
    function: inspect.signature took about a tenth of a sizing study's full model)."""
    return tuple(p.name for p in inspect.signature(function).parameters.values()
                 if p.kind is inspect.Parameter.KEYWORD_ONLY)

