"""``icnperf simulate collective``'s runs and rows: one collective simulated flit by flit
on the machine's torus, next to the closed form ``predict collective`` computes.

The machine's parameters become the simulator's cycles and flits (validation/fabric.py:
``fabric_config``); the torus is the machine's own, or reshaped per ``--nodes`` exactly as
``predict collective`` reshapes it (layouts_for: the most balanced shape in the machine's
dimension count). The simulator (sim/collective.py) never sees the formulas; the
prediction comes from model.collectives.collective_time. Every run is checked against the
caps below and the batch against the work limits before the first one starts.
"""

from __future__ import annotations

import math

from icnperf.errors import InputError

MAX_NODES = 4096
"""Largest torus simulated here: the collective simulator is pure Python over the flits in
flight (some tens of thousands of flit moves a second), and a collective's work grows with
the nodes."""

MAX_FLIT_HOPS = 4_000_000
"""Largest estimated work, ceil(m / flit) · nodes · (diameter + 2) flit-channel crossings
(every rank's data over at most a diameter plus its two endpoint channels): the simulator
moves a few tens of thousands of flits per second, so this is a couple of minutes."""

MAX_CYCLES = 5_000_000
"""Longest run simulated here, judged by the model's own completion time in cycles before
starting (the simulator steps every cycle, some 10^5 cycles a second): a machine whose
bandwidths or overheads are far off its router clock is refused at once instead of
running for minutes."""

NOTES = (
    ("cycle = 1 / network.router_clock; router, link, injection and ejection latencies are"
     " rounded to whole cycles; link and host bandwidths become flits per cycle (fractional"
     " rates are kept with a token bucket)"),
    ("software overhead O of the api: the sender's processor is busy floor(O/2) cycles per"
     " message, the receiver's the rest; the hardware tree pays it once (root's send, each"
     " receiver's receive), as a point-to-point message does"),
    ("VC buffers hold network.vc_buffer_flits, or when the machine does not say a packet plus"
     " the credit round trip of their channel (a single stream is then never"
     " credit-limited); collective VCs are store-and-forward per"
     " network.collective_switching, ordinary VCs per network.switching"),
    ("ordinary VCs: network.virtual_channels split over the two dateline classes, 2 (one"
     " per class) when the machine does not say; with one per class a VC held by a packet"
     " whose flits arrive slowly idles a shared link, so large all-gathers whose steps"
     " share channels run above the formula's fair B_link / c sharing (measured on"
     " angara-3d, 32 KiB on 8x8x8: +19 %; 2 per class: +3.5 %)"),
    ("one node per router, rank r on router r (dimension 0 fastest), tree rooted at rank 0;"
     " completion = the last rank holding its whole result"),
)


def _layouts(machine, nodes_text: str | None):
    from icnperf.api.layouts import layouts_for

    layouts = layouts_for(machine.topology, nodes_text, None)
    for layout in layouts:
        if not layout.is_torus:
            raise InputError(f"the collective simulator runs on tori only; {machine.name} is"
                             f" {machine.topology}")
        if layout.endpoints > MAX_NODES:
            raise InputError(f"{layout.text} has {layout.endpoints:,} nodes; the collective"
                             f" simulator takes at most {MAX_NODES:,} (use --nodes)")
    return layouts


def _within_limits(layouts, sizes, flit_bytes: float, fmt: str) -> None:
    """Refuse, before any run, a batch whose estimated work (flit-hops summed over every
    (nodes, size) run) the budget says is too much."""
    import numpy as np

    from icnperf.data.limits import within_limits
    from icnperf.model.budget import collective_simulation_estimate

    flits = np.ceil(np.asarray(sizes, dtype=float) / flit_bytes)
    work = sum(float(flits.sum()) * layout.endpoints * (layout.diameter + 2)
               for layout in layouts)
    within_limits(collective_simulation_estimate(len(layouts) * len(sizes), work, fmt))


def collective_rows(operation: str, machine, overrides: tuple[str, ...],
                    nodes_text: str | None, sizes_text: str, algorithm: str | None,
                    api: str = "mpi", fmt: str = "table"):
    """(rows, inputs) of simulated vs predicted completion times, one row per (nodes,
    size), on ``machine`` (a preset name or file, with ``overrides`` applied, or a loaded
    Machine with them already applied). Every run is checked (per-run caps, then the batch
    against the limits) before the first one starts."""
    from icnperf.data.machine import load_machine
    from icnperf.model.collectives import collective_time, operation_name
    from icnperf.units import parse_range
    from icnperf.validation.fabric import fabric_config
    from icnperf.sim.collective import check_request, simulate_collective

    operation = operation_name(operation)
    if isinstance(machine, str):
        machine = load_machine(machine).with_overrides(list(overrides))
    layouts = _layouts(machine, nodes_text)
    chosen = check_request(operation, algorithm, layouts[0].radices)
    if chosen == "hw-tree" and not machine.get("network.collective_trees"):
        raise InputError(f"machine {machine.name} has no hardware collectives"
                         " (network.collective_trees is not set); choose p2p-tree or"
                         " recursive-doubling")
    config, cycle = fabric_config(machine, api)
    sizes = [float(s) for s in parse_range(sizes_text, "size", default_unit="B")]
    if min(sizes) <= 0:
        raise InputError(f"--bytes must be > 0, not {min(sizes):g}")
    _within_limits(layouts, sizes, config.flit_bytes, fmt)
    planned = []
    for layout in layouts:
        check_request(operation, chosen, layout.radices)
        predicted = collective_time(machine, operation, chosen, sizes, layout=layout,
                                    api=api).time
        for size, model in zip(sizes, predicted):
            work = math.ceil(size / config.flit_bytes) * layout.endpoints * (layout.diameter + 2)
            if work > MAX_FLIT_HOPS:
                raise InputError(f"simulation too large: about {work:,} flit-hops for"
                                 f" {size:g} B on {layout.text} (limit {MAX_FLIT_HOPS:,});"
                                 " use fewer nodes or bytes")
            expected = float(model) / cycle
            if not expected <= MAX_CYCLES:
                raise InputError(f"simulation too long: the model expects about"
                                 f" {expected:,.0f} cycles for {size:g} B on {layout.text}"
                                 f" (limit {MAX_CYCLES:,}); check the machine's bandwidths,"
                                 " latencies and overheads against its router clock")
            planned.append((layout, size, model))
    rows = []
    for layout, size, model in planned:
        run = simulate_collective(layout.radices, operation, size, config, chosen)
        if not run.complete or run.duplicates:
            raise RuntimeError(f"flitsim: {operation} on {layout.text} lost or duplicated"
                               " data")
        simulated = run.cycles * cycle
        rows.append({"nodes": layout.endpoints, "shape": layout.text, "bytes": size,
                     "algorithm": chosen, "simulated_cycles": run.cycles,
                     "simulated_s": simulated, "predicted_s": float(model),
                     "difference_percent": 100 * (simulated - model) / model})
    inputs = {"operation": operation, "machine": machine.name, "set": list(overrides),
              "nodes": nodes_text, "bytes": sizes_text, "algorithm": chosen, "api": api,
              "cycle_s": cycle,
              "fabric": {k: getattr(config, k) for k in config.__dataclass_fields__}}
    return rows, inputs
