"""``icnperf predict p2p``: latency, bandwidth and message rate of one message per size."""

from __future__ import annotations

from icnperf.errors import InputError
from icnperf.render import Column, aligned_table, csv_text, json_text, number

GRID_FAMILIES = ("torus", "mesh", "hypercube")
"""Families whose endpoints ``--from``/``--to`` can name (coordinates or an index)."""


def _quantity(kind: str, digits: int = 3):
    from icnperf.units import format_quantity

    return lambda value: format_quantity(value, kind, digits)


P2P_COLUMNS = (
    Column("bytes", "size", _quantity("size")),
    Column("hops", "hops", number(3)),
    Column("packets", "packets", number()),
    Column("latency_s", "latency", _quantity("time")),
    Column("hardware_latency_s", "hardware part", _quantity("time")),
    Column("bandwidth_Bps", "ping-pong bw", _quantity("bandwidth")),
    Column("streaming_bandwidth_Bps", "streaming bw", _quantity("bandwidth")),
    Column("message_rate_per_s", "msg rate (1/s)", number(3)),
    Column("rate_bound_per_s", "V/L bound (1/s)", number(3)),
)


def _endpoint(text: str, radices: tuple[int, ...], what: str):
    """An endpoint as coordinates: "3" is an index, "1,0,2" coordinates (dimension 0 first)."""
    from icnperf.model.topology.torus import endpoint_coordinates

    parts = [p.strip() for p in text.split(",")]
    if not all(p.isdigit() for p in parts):
        raise InputError(f"{what} {text!r}: give an endpoint index or coordinates like 1,0,2")
    values = [int(p) for p in parts]
    if len(values) == 1:
        total = 1
        for k in radices:
            total *= k
        if values[0] >= total:
            raise InputError(f"{what} {text!r}: endpoint index must be below {total}")
        return endpoint_coordinates(radices, values[0])
    if len(values) != len(radices) or any(v >= k for v, k in zip(values, radices)):
        shape = "x".join(map(str, radices))
        raise InputError(f"{what} {text!r}: coordinates must be {len(radices)} values within"
                         f" {shape}")
    return values


def hops_between(topology: str, source: str, destination: str) -> int:
    """Router hops between two endpoints of a torus, mesh or hypercube machine (DOR)."""
    from icnperf.model.topology.spec import parse_spec
    from icnperf.model.topology.torus import hop_distance

    spec = parse_spec(topology)
    if spec.family.name not in GRID_FAMILIES:
        raise InputError(f"--from/--to name endpoints of {', '.join(GRID_FAMILIES)} only;"
                         f" for {spec.text} give --hops")
    radices = spec.params.get("radices") or (2,) * spec.params["n"]
    a = _endpoint(source, radices, "--from")
    b = _endpoint(destination, radices, "--to")
    return int(hop_distance(radices, a, b, wrap=spec.family.name != "mesh"))


def p2p_text(machine_name: str, overrides: tuple[str, ...], sizes_text: str,
             hops: float | None, source: str | None, destination: str | None, api: str,
             processes_per_node: int, fmt: str) -> str:
    """The rendered ``predict p2p`` table for one machine."""
    from icnperf.machine import load_machine
    from icnperf.model.network import p2p_table
    from icnperf.units import parse_range

    machine = load_machine(machine_name).with_overrides(list(overrides))
    if (source is None) != (destination is None):
        raise InputError("give both --from and --to, or neither")
    if source is not None:
        if hops is not None:
            raise InputError("give --hops or --from/--to, not both")
        hops = hops_between(machine.topology, source, destination)
    sizes = parse_range(sizes_text, "size", default_unit="B")
    table = p2p_table(machine, sizes, hops, api, processes_per_node=processes_per_node)
    names = list(table.columns)
    rows = [{name: float(table.columns[name][i]) for name in names}
            for i in range(len(table.columns["bytes"]))]
    if fmt == "json":
        return json_text({"inputs": {"machine": machine.name, "topology": machine.topology,
                                     "set": list(overrides), "bytes": sizes_text,
                                     "hops": hops, "from": source, "to": destination,
                                     "api": api, "processes_per_node": processes_per_node},
                          "assumptions": list(table.assumptions), "rows": rows})
    if fmt == "csv":
        return csv_text(rows, names)
    header = f"{machine.name} ({machine.topology}), api {api}\n\n"
    notes = "\n".join(f"  - {a}" for a in table.assumptions)
    return f"{header}{aligned_table(rows, P2P_COLUMNS)}\n\nassumptions:\n{notes}\n"
