"""The calibration problem: what can be fitted, what was measured, and the model's value of
each measured point.

:data:`FITTABLE` and :data:`ALIASES` name the machine keys (and LogGP names) a fit may
vary, :func:`resolve_parameters` turns names into :class:`Parameter` records; the measured
points are :class:`Observations` (built and checked by :func:`observations`): message sizes
in bytes, hops, and values in SI (seconds for ``latency``, bytes/s for the bandwidths,
:data:`QUANTITIES`); :func:`predict` evaluates the point-to-point model,
:func:`icnperf.model.network.p2p_table`, for every point with trial values substituted into
the machine. The model and the LogGP mapping are described in
:mod:`icnperf.model.calibrate`; the LogGP names follow :func:`network.loggp` and
:func:`network.from_loggp` (Alexandrov et al., SPAA 1995).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from icnperf.errors import InputError
from icnperf.model import network

QUANTITIES: dict[str, tuple[str, str]] = {
    "latency": ("latency_s", "s"),
    "bandwidth": ("streaming_bandwidth_Bps", "B/s"),
    "pingpong_bandwidth": ("bandwidth_Bps", "B/s"),
}
"""Measured quantity -> (column of :func:`network.p2p_table` it is compared with, SI unit)."""

_PACKET_FORMAT = ("flit_size", "packet_max_flits", "packet_header_flits")
_OVERHEAD = {api: f"software.{api}_overhead" for api in network.APIS if api != "none"}

FITTABLE: dict[str, str] = {
    **{key: "time" for key in _OVERHEAD.values()},
    **{path: ("bandwidth" if name.endswith("bandwidth") else "time")
       for name, path in network.PARAMETERS.items() if name not in _PACKET_FORMAT},
}
"""Machine key -> ``"time"`` (seconds, >= 0, fitted as t / t_0) or ``"bandwidth"`` (bytes/s,
> 0, fitted as ln(B / B_0)): the continuous parameters of the point-to-point latency model."""

_DISCRETE = {**{network.PARAMETERS[name]: "a packet-format count or size"
                for name in _PACKET_FORMAT},
             "network.switching": "a choice (cut-through or store-and-forward)"}

ALIASES: dict[str, str] = {
    "o": "software.<api>_overhead (holds O = 2o, send + receive)",
    "g": "software.<api>_overhead (the model's gap is max(o, T_ser(1 B)): no key of its own)",
    "G": "network.link_bandwidth (G = P / ((P - H) B_link), the link as bottleneck)",
    "L": "network.injection_latency and network.ejection_latency, tied equal "
         "(from_loggp splits the endpoint part of L evenly)",
}
"""LogGP name -> the machine key(s) it fits (see the module docstring)."""

# --- what is fitted -----------------------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """One fitted number: its label, the machine keys that take its value, and its kind
    (``"time"`` or ``"bandwidth"``, see :data:`FITTABLE`)."""

    label: str
    keys: tuple[str, ...]
    kind: str

    @property
    def positive(self) -> bool:
        return self.kind == "bandwidth"


def resolve_parameters(names: str | Iterable[str], api: str = "mpi") -> tuple[Parameter, ...]:
    """Machine keys and LogGP aliases (``"o"``, ``"g"``, ``"G"``, ``"L"``) -> the parameters
    to fit. ``names`` may be one comma-separated string. The aliases ``o`` and ``g`` resolve
    to ``software.<api>_overhead``. Raises InputError for an empty list, an unknown or
    unfittable key, and two names that set the same key."""
    if api not in network.APIS:
        raise InputError(f"unknown api {api!r}; choose one of {', '.join(network.APIS)}")
    if isinstance(names, str):
        names = names.split(",")
    items = [str(n).strip() for n in names]
    if not items or any(not n for n in items):
        raise InputError("--fit: give one or more comma-separated machine keys "
                         "(e.g. software.mpi_overhead,network.link_bandwidth) or LogGP "
                         "names o, g, G, L")
    parameters: list[Parameter] = []
    owner: dict[str, str] = {}
    for name in items:
        if name in ("o", "g"):
            if api == "none":
                raise InputError(f"--fit {name}: api 'none' has no software overhead to fit; "
                                 "choose api mpi or shmem")
            keys: tuple[str, ...] = (_OVERHEAD[api],)
            label = keys[0]
        elif name == "G":
            keys = ("network.link_bandwidth",)
            label = keys[0]
        elif name == "L":
            keys = ("network.injection_latency", "network.ejection_latency")
            label = "=".join(keys)
        else:
            if name in _DISCRETE:
                raise InputError(f"--fit {name}: {name} is {_DISCRETE[name]}, not a continuous "
                                 "parameter; set it with --set instead of fitting it")
            if name not in FITTABLE:
                raise InputError(
                    f"--fit {name}: not a machine key the point-to-point latency model uses, so "
                    f"no latency or bandwidth measurement can determine it (fittable: "
                    f"{', '.join(FITTABLE)}; LogGP names: o, g, G, L)")
            keys = (name,)
            label = name
        for key in keys:
            if key in owner:
                first = owner[key]
                raise InputError(f"--fit: {first!r} and {name!r} both set {key}; give it once")
            owner[key] = name
        parameters.append(Parameter(label, keys, FITTABLE[keys[0]]))
    return tuple(parameters)


# --- what was measured --------------------------------------------------------------------


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.array(array, dtype=float, copy=True)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class Observations:
    """Measured points: message sizes (bytes), hops, measured values (SI: seconds for
    ``latency``, bytes/s for the bandwidths), the quantity of each point
    (:data:`QUANTITIES`), the interface that measured it (``mpi``, ``shmem`` or ``none``) and
    a label for messages and per-row reports (e.g. ``"pingpong.csv, line 3"``).
    Build with :func:`observations`, which checks and broadcasts."""

    sizes: np.ndarray
    hops: np.ndarray
    values: np.ndarray
    quantities: tuple[str, ...]
    apis: tuple[str, ...]
    labels: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.values)


def _per_point(value, n: int, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,) * n
    items = tuple(str(v) for v in value)
    if len(items) != n:
        raise InputError(f"{what}: {len(items)} given for {n} points")
    return items


def observations(sizes, hops, values, quantity: str | Sequence[str] = "latency",
                 api: str | Sequence[str] = "mpi",
                 labels: Sequence[str] | None = None) -> Observations:
    """Checked :class:`Observations`. ``sizes``, ``hops`` and ``values`` broadcast together;
    ``quantity`` and ``api`` are one value for all points or one per point. Raises
    InputError (one line) for non-numeric, non-finite or negative sizes and hops, and for
    measured values that are not finite and positive."""
    arrays = []
    for name, raw in (("message sizes", sizes), ("hops", hops), ("measured values", values)):
        try:
            array = np.asarray(raw, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"{name} must be numbers") from None
        arrays.append(array)
    try:
        m, h, v = (np.ravel(a) for a in np.broadcast_arrays(*arrays))
    except ValueError:
        raise InputError("message sizes, hops and measured values have different "
                         "lengths") from None
    n = len(v)
    names = tuple(labels) if labels is not None else tuple(f"point {i + 1}" for i in range(n))
    if len(names) != n:
        raise InputError(f"labels: {len(names)} given for {n} points")
    quantities = _per_point(quantity, n, "quantities")
    apis = _per_point(api, n, "apis")
    for i in range(n):
        where = names[i]
        if quantities[i] not in QUANTITIES:
            raise InputError(f"{where}: unknown quantity {quantities[i]!r} (fittable: "
                             f"{', '.join(QUANTITIES)})")
        if apis[i] not in network.APIS:
            raise InputError(f"{where}: unknown api {apis[i]!r}; choose one of "
                             f"{', '.join(network.APIS)}")
        if not (math.isfinite(m[i]) and m[i] >= 0):
            raise InputError(f"{where}: message size {m[i]!r} must be finite and >= 0")
        if not (math.isfinite(h[i]) and h[i] >= 0):
            raise InputError(f"{where}: hops {h[i]!r} must be finite and >= 0")
        if not math.isfinite(v[i]):
            raise InputError(f"{where}: measured {quantities[i]} {v[i]!r} is not finite")
        if v[i] <= 0:
            raise InputError(f"{where}: measured {quantities[i]} {v[i]!r} must be positive")
    return Observations(_frozen(m), _frozen(h), _frozen(v), quantities, apis, names)


# --- the model, evaluated ------------------------------------------------------------------


class _Overlay:
    """A machine with some values replaced: what :func:`network.machine_parameters` reads."""

    def __init__(self, machine, values: Mapping[str, float]):
        self._machine = machine
        self._values = values
        self.name = getattr(machine, "name", "machine")
        self.topology = getattr(machine, "topology", "")

    def require(self, path: str):
        if path in self._values:
            return self._values[path]
        return self._machine.require(path)

    def get(self, path: str, default=None):
        if path in self._values:
            return self._values[path]
        return self._machine.get(path, default)


class _Evaluator:
    """Evaluates :func:`network.p2p_table` for the observations, grouped by interface."""

    def __init__(self, machine, obs: Observations, switching: str | None):
        self.machine = machine
        self.obs = obs
        self.switching = switching
        self.groups = []
        apis = np.array(obs.apis)
        quantities = np.array(obs.quantities)
        for api in dict.fromkeys(obs.apis):
            index = np.flatnonzero(apis == api)
            columns = [(QUANTITIES[q][0], np.flatnonzero(quantities[index] == q))
                       for q in dict.fromkeys(quantities[index])]
            self.groups.append((api, index, columns))
        self.assumptions: tuple[str, ...] = ()

    def __call__(self, values: Mapping[str, float]) -> np.ndarray:
        view = _Overlay(self.machine, values)
        out = np.empty(len(self.obs))
        notes: list[str] = []
        for api, index, columns in self.groups:
            table = network.p2p_table(view, self.obs.sizes[index], self.obs.hops[index], api,
                                      switching=self.switching)
            for column, where in columns:
                out[index[where]] = table.columns[column][where]
            notes += [n for n in table.assumptions if n not in notes]
        self.assumptions = tuple(notes)
        return out


def predict(machine, obs: Observations, values: Mapping[str, float] | None = None,
            switching: str | None = None) -> np.ndarray:
    """The model's value of every observation's quantity, for ``machine`` with ``values``
    (machine key -> SI value) substituted."""
    return _Evaluator(machine, obs, switching)(dict(values or {}))

