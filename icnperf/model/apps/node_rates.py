"""Single-node compute rates of the bundled kernels derived from the node's roofline, for a
machine that has no measured one.

The spmv and heat skeletons compute at a measured single-node rate (``node.spmv_rate``,
``node.stencil_rate``: the Angara papers' 591 MFLOP/s and ~11 GFLOP/s). A machine without
one gets the roofline rate of the kernel (Williams, Waterman and Patterson, "Roofline: an
insightful visual performance model for multicore architectures", CACM 2009):

    R = min(node.peak_flops, node.memory_efficiency · node.memory_bandwidth · I)

with the kernel's arithmetic intensity I (FLOP per byte of DRAM traffic):

* SpMV in CSR at d = 10 non-zeros per row (the spmv skeleton's default and the Angara
  paper's): 2·d FLOP per row over d·12 + 12 bytes (an 8-byte value and a 4-byte column index
  per non-zero, an 8-byte y entry and a 4-byte row pointer per row, x from cache; Williams
  et al., "Optimization of sparse matrix-vector multiplication on emerging multicore
  platforms", SC 2007): I = 20 / 132 FLOP/B.
* The 2D 9-point heat stencil: 17 FLOP per cell over 24 bytes (the old value read, the new
  one written and its write-allocate read, neighbours from cache: the layer condition of
  Hager and Wellein, "Introduction to High Performance Computing for Scientists and
  Engineers", 2010, for Jacobi sweeps): I = 17 / 24 FLOP/B.

A roofline is an upper bound: the Angara node's measured SpMV rate (591 MFLOP/s) is about a
tenth of its roofline, so a derived rate is said to be derived wherever it is used, and a
measured one always replaces it. The node's CPU memory is used (the skeletons are the
papers' C/OpenMP kernels), never an accelerator's. Two cases read otherwise: on the GPU
presets ``node.peak_flops`` counts the GPUs, not the CPUs (it caps no bundled rate: each is
memory-bound there), and on a unified-memory node (``node.gpu_memory = unified``, el-capitan)
``node.memory_bandwidth`` is the APUs' whole HBM, of which the CPU cores' achievable share
is not known, so the derived rate there is an upper bound by more than the usual margin.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping, NamedTuple

from icnperf.model.constants import Constant, register
from icnperf.model.constants import value as constant_value

__all__ = ["DERIVATIONS", "Derivation", "derive", "derived_rates", "machine_rate"]

_INPUTS = ("node.peak_flops", "node.memory_bandwidth", "node.memory_efficiency")


class Derivation(NamedTuple):
    """A kernel's arithmetic intensity (``flops`` per ``bytes`` of DRAM traffic) and the
    words that say where it comes from."""

    kernel: str
    flops: int
    bytes: int
    basis: str


DERIVATIONS: dict[str, Derivation] = {
    "node.spmv_rate": Derivation(
        "SpMV", 20, 132,
        "CSR at 10 non-zeros per row: 12 B per non-zero + 12 B per row, Williams et al. "
        "SC 2007"),
    "node.stencil_rate": Derivation(
        "heat stencil", 17, 24,
        "17 FLOP per cell, 24 B per cell: read, write and write-allocate, Hager and "
        "Wellein 2010"),
}
"""Machine keys that can be derived, with the intensity of their kernel."""

BYTES_STATED: dict[str, Constant] = {
    "node.spmv_rate": register(Constant(
        "apps.node_rates.spmv_bytes", 132, "derived", "alternatives", (132, 212),
        "132 B per row is the compulsory traffic with x from cache; with no reuse of x each "
        "non-zero also reads its 8-byte x entry from memory, 212 B (Williams et al. SC "
        "2007 bound SpMV between the two)")),
    "node.stencil_rate": register(Constant(
        "apps.node_rates.stencil_bytes", 24, "derived", "alternatives", (16, 24),
        "24 B per cell with the write-allocate read, 16 B when the stores stream past the "
        "cache (non-temporal stores; GPUs write whole lines without reading them)")),
}
"""The DRAM bytes per unit of each derivation as a constant with its uncertainty
(model/constants.py): the traffic counted depends on cache reuse and store policy."""


def derive(path: str, values: Mapping, brief: bool = False) -> tuple[float, str] | None:
    """(rate in FLOP/s, note) of ``path`` from the node values in ``values`` (keys
    ``node.peak_flops``, ``node.memory_bandwidth``, ``node.memory_efficiency``, SI), or None
    when ``path`` is not derivable or a value is missing. ``brief``: the note gives only
    the numbers (for a node type after the [node] note)."""
    derivation = DERIVATIONS.get(path)
    if derivation is None or any(values.get(key) is None for key in _INPUTS):
        return None
    peak, bandwidth, efficiency = (float(values[key]) for key in _INPUTS)
    traffic = int(constant_value(BYTES_STATED[path].name))
    derivation = derivation._replace(bytes=traffic)
    memory = efficiency * bandwidth * float(Fraction(derivation.flops, derivation.bytes))
    rate = min(peak, memory)
    bound = "peak" if peak <= memory else "memory"
    numbers = (f"min({peak / 1e9:.4g} GFLOP/s, {efficiency:g} x {bandwidth / 1e9:.4g} GB/s x "
               f"{derivation.flops}/{derivation.bytes}) = {rate / 1e9:.4g} GFLOP/s")
    if brief:
        return rate, f"{path} derived likewise: {numbers} ({bound}-bound)"
    note = (f"{path} derived, the machine has no measured rate: {derivation.kernel} roofline "
            f"min(node.peak_flops, node.memory_efficiency x node.memory_bandwidth x "
            f"{derivation.flops}/{derivation.bytes} FLOP/B) = {numbers} ({bound}-bound; "
            f"{derivation.basis}); an upper bound, a measured rate (--set {path}=...) "
            "replaces it")
    return rate, note


def derived_rates(paths, values: Mapping, brief: bool = False
                  ) -> dict[str, tuple[float, str]]:
    """Every path of ``paths`` absent from ``values`` that :func:`derive` can supply:
    path -> (rate, note)."""
    out = {}
    for path in sorted(paths):
        if values.get(path) is None:
            found = derive(path, values, brief)
            if found is not None:
                out[path] = found
    return out


def machine_rate(machine, path: str) -> tuple[float, str | None]:
    """(rate, note) of ``path`` on ``machine`` (anything with ``get`` and ``require``, as
    icnperf.data.machine.Machine): the machine's measured value with no note, else the
    derived one with its note; the machine's missing-key InputError when neither exists."""
    value = machine.get(path)
    if value is not None:
        return float(value), None
    found = derive(path, {key: machine.get(key) for key in _INPUTS})
    if found is None:
        machine.require(path)
    return found
