"""Sparse matrix-vector product y = A·x with an all-gather of y (Mukosey 2015 §3.2).

One iteration on P nodes (bulk-synchronous, one process per node):

    T_iter = T_comp + T_allgather(8·N)

* **Decomposition**: the N rows are block-distributed (Mukosey 2015 §3.2, eq. 1); when P does
  not divide N the first N mod P nodes get ceil(N/P) rows and the others floor(N/P)
  (:func:`rows_per_node`). The step waits for the slowest node: ceil(N/P) rows.
* **Compute**: T_comp = 2·d·ceil(N/P) / R_spmv (one multiply and one add per non-zero;
  d = non-zeros per row). R_spmv defaults to the machine's ``node.spmv_rate`` (the paper's
  measured 591 MFLOP/s on a Xeon E5-2660), else the node's SpMV roofline
  (:mod:`.node_rates`, said in the notes); :func:`rate_from_memory_bandwidth` derives a
  bandwidth-bound rate from ``node.memory_bandwidth`` instead and is used only when the
  caller passes ``spmv_rate="memory"``.
* **All-gather** of y, 8-byte doubles: m = 8·N bytes, the whole gathered vector
  (model/collectives's convention: m / P from each rank). The time is
  :func:`icnperf.model.collectives.collective_time` of ``allgather``, so the formulas live
  there (one formula, one place): ``hw-tree`` = every node broadcasts its part on one of
  the 16 hardware trees, roots spread evenly (Mukosey 2015 §3.2), bounded by every node's
  ejection of the P - 1 other parts and by each tree root's output channel;
  ``recursive-doubling`` (the paper's point-to-point algorithm, Thakur et al.) =
  lg P synchronous exchanges, each step's messages mapped onto the torus with their
  channel load c (a link shared by c messages gives each B_link / c). Every node must
  receive the whole vector, so both variants move the same bytes per node; the gain lies in
  link contention and bandwidth, not latency. Unequal parts (remainder rows) are taken as
  equal m / P (they differ by 8 bytes).
* No point-to-point part: ``p2p_s`` = 0.

The official FLOP count of a run is 2·N·d per iteration.
"""

from __future__ import annotations

import math
import numbers

from icnperf.errors import InputError
from icnperf.model import collectives
from icnperf.model.apps import node_rates
from icnperf.model.apps.base import AppResult
from icnperf.model.collectives import Layout

__all__ = ["BYTES_PER_ELEMENT", "BYTES_PER_NONZERO", "BYTES_PER_ROW", "compute_time",
           "flops_per_iteration", "predict", "rate_from_memory_bandwidth", "rows_per_node"]

BYTES_PER_ELEMENT = 8
"""Bytes of one vector element: double precision (assumed: Mukosey 2015 does not state the
element size; 8-byte doubles for SpMV and heat)."""

BYTES_PER_NONZERO = 12.0
"""Memory traffic per non-zero of a CSR matrix: an 8-byte value and a 4-byte column index
(the x entries are taken to come from cache). Standard CSR accounting, e.g. Williams et
al., 'Optimization of sparse matrix-vector multiplication on emerging multicore
platforms', SC 2007."""

BYTES_PER_ROW = 12.0
"""Memory traffic per row of a CSR matrix: the 8-byte y entry written and a 4-byte row
pointer read (same source as BYTES_PER_NONZERO)."""


def _whole(value, what: str, minimum: int = 1) -> int:
    """``value`` as an int >= ``minimum`` (ints and NumPy integers only); InputError
    otherwise. Shared by the application models."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{what} must be a whole number >= {minimum}, not {value!r}")
    value = int(value)
    if value < minimum:
        raise InputError(f"{what} must be a whole number >= {minimum}, not {value}")
    return value


def rows_per_node(rows: int, nodes: int) -> tuple[int, ...]:
    """Rows on each node of a block distribution: the first rows mod nodes nodes get
    ceil(rows / nodes), the others floor(rows / nodes). InputError if a node would get no
    row."""
    rows = _whole(rows, "rows")
    nodes = _whole(nodes, "nodes")
    if nodes > rows:
        raise InputError(f"{rows} rows cannot be split over {nodes} nodes (a node would "
                         f"get no row)")
    base, extra = divmod(rows, nodes)
    return tuple(base + 1 if i < extra else base for i in range(nodes))


def _row_range(rows: int, nodes: int) -> tuple[int, int]:
    """(fewest, most) rows of :func:`rows_per_node` (floor and ceil of N/P), with its
    checks, without a tuple of every node's count."""
    rows = _whole(rows, "rows")
    nodes = _whole(nodes, "nodes")
    if nodes > rows:
        raise InputError(f"{rows} rows cannot be split over {nodes} nodes (a node would "
                         f"get no row)")
    return rows // nodes, -(-rows // nodes)


def flops_per_iteration(rows: int, nonzeros_per_row: int) -> float:
    """Official FLOP count of one product: 2·N·d (a multiply and an add per non-zero)."""
    return 2.0 * rows * nonzeros_per_row


def rate_from_memory_bandwidth(memory_bandwidth: float, nonzeros_per_row: int = 10, *,
                               bytes_per_nonzero: float = BYTES_PER_NONZERO,
                               bytes_per_row: float = BYTES_PER_ROW) -> float:
    """Bandwidth-bound SpMV rate (FLOP/s): R = 2·d·B_mem / (d·b_nz + b_row).

    A row of d non-zeros does 2d FLOP and moves d·b_nz + b_row bytes (CSR: value + column
    index per non-zero, y entry + row pointer per row). With the angara-4d preset (51.2
    GB/s, d = 10): 2·10·51.2e9 / 132 = 7.76 GFLOP/s, an upper bound: the paper measured
    591 MFLOP/s (irregular access to x), which is why the default is ``node.spmv_rate``.
    """
    if not (memory_bandwidth > 0 and bytes_per_nonzero > 0 and bytes_per_row >= 0):
        raise InputError("memory bandwidth and bytes per non-zero must be > 0")
    d = _whole(nonzeros_per_row, "non-zeros per row")
    return 2.0 * d * memory_bandwidth / (d * bytes_per_nonzero + bytes_per_row)


def compute_time(rows: int, nodes: int, nonzeros_per_row: int, rate: float) -> float:
    """Compute time of one product on the slowest node (s): 2·d·ceil(N/P) / R."""
    if not rate > 0:
        raise InputError(f"SpMV rate must be > 0 FLOP/s, not {rate!r}")
    most = _row_range(rows, nodes)[1]
    return 2.0 * nonzeros_per_row * most / rate


def _rate(machine, spmv_rate, nonzeros_per_row) -> tuple[float, str]:
    if spmv_rate is None:
        rate, derived = node_rates.machine_rate(machine, "node.spmv_rate")
        if derived is not None:
            return rate, f"compute rate: {derived}"
        return rate, f"compute rate: node.spmv_rate = {rate / 1e6:g} MFLOP/s (measured rate)"
    if spmv_rate == "memory":
        bandwidth = float(machine.require("node.memory_bandwidth"))
        rate = rate_from_memory_bandwidth(bandwidth, nonzeros_per_row)
        return rate, (f"compute rate: bandwidth-bound {rate / 1e9:.3g} GFLOP/s from "
                      f"node.memory_bandwidth = {bandwidth / 1e9:g} GB/s, "
                      f"{BYTES_PER_NONZERO:g} B per non-zero + {BYTES_PER_ROW:g} B per row")
    try:
        rate = float(spmv_rate)
    except (TypeError, ValueError):
        raise InputError(f"spmv_rate must be a number, 'memory' or None, not "
                         f"{spmv_rate!r}") from None
    if not (math.isfinite(rate) and rate > 0):
        raise InputError(f"spmv_rate must be > 0 FLOP/s, not {spmv_rate!r}")
    return rate, f"compute rate: {rate / 1e6:g} MFLOP/s (given)"


def predict(machine, layout: Layout | None = None, *, algorithm: str = "hw-tree",
            rows: int = 20_480_000, nonzeros_per_row: int = 10, iterations: int = 1,
            api: str = "mpi", spmv_rate=None) -> AppResult:
    """Time of ``iterations`` products y = A·x followed by an all-gather of y on the
    layout's P nodes (default: the machine's topology). ``algorithm`` is any all-gather
    algorithm of model/collectives (``hw-tree``, ``recursive-doubling``, ``ring``,
    ``bruck``); ``spmv_rate``: None (``node.spmv_rate``), ``"memory"``
    (:func:`rate_from_memory_bandwidth`) or a rate in FLOP/s. See the module docstring."""
    rows = _whole(rows, "rows")
    d = _whole(nonzeros_per_row, "non-zeros per row")
    iterations = _whole(iterations, "iterations")
    if d > rows:
        raise InputError(f"{d} non-zeros per row exceed the {rows} columns")
    if layout is None:
        layout = Layout.from_topology(machine.topology)
    nodes = layout.endpoints
    rate, rate_note = _rate(machine, spmv_rate, d)
    fewest, most = _row_range(rows, nodes)
    compute = compute_time(rows, nodes, d, rate)
    m = BYTES_PER_ELEMENT * rows
    gathered = collectives.collective_time(machine, "allgather", algorithm, [m],
                                           layout=layout, api=api)
    collective = float(gathered.time[0])
    iteration = compute + collective
    extra = rows % nodes
    spread = (f"all {nodes} nodes get {most} rows" if extra == 0 else
              f"{extra} node(s) get {most} rows, {nodes - extra} get {fewest} "
              "(the first N mod P nodes take one more); the step waits for the slowest node")
    host = machine.get("network.host_bandwidth")
    notes = (
        f"SpMV (Mukosey 2015 §3.2): N = {rows} rows, d = {d} non-zeros per row, on {nodes} "
        f"nodes ({layout.text}), one process per node",
        f"rows block-distributed: {spread}",
        f"compute: 2·d·ceil(N/P) = {2 * d * most} FLOP per node per iteration",
        rate_note,
        f"all-gather of y: {m} bytes (8-byte doubles), {algorithm}, "
        "model/collectives (parts taken equal, m/P each)",
        *(() if host is None else (
            f"every node takes in the whole vector, so the all-gather runs at most at the "
            f"host interface's network.host_bandwidth = {host / 1e9:g} GB/s (where the "
            "value comes from: the machine's provenance)",)),
        *gathered.assumptions,
        "no point-to-point part; bulk-synchronous: compute, then all-gather",
    )
    return AppResult("spmv", nodes, layout.text, algorithm, iterations, compute, 0.0,
                     collective, iteration, iterations * iteration,
                     iterations * flops_per_iteration(rows, d), notes)
