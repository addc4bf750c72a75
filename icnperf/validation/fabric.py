"""A machine's parameters as the collective simulator's cycles and flits.

The glue between machine files (SI units) and validation/flitsim's collective fabric
(cycles, flits per cycle): used by ``icnperf simulate collective`` and by the registered
simulator cross-checks. It lives outside validation/flitsim so the simulator itself never
reads a machine or the model.
"""

from __future__ import annotations

import math

from icnperf.errors import InputError
from icnperf.model.network import APIS


def _cycles(seconds: float, cycle: float, what: str) -> int:
    value = seconds / cycle
    if not math.isfinite(value) or value < 0:
        raise InputError(f"{what} must be a finite time >= 0")
    return round(value)


def fabric_config(machine, api: str = "mpi"):
    """The simulator's FabricConfig for a machine: cycle = 1 / router_clock.

    Assumes: latencies rounded to whole cycles; network.virtual_channels (default 2) are the
    ordinary VCs, split over the two dateline classes (at least one each), the collective
    subnet's VCUp and VCDown come on top (Mukosey 2015 §2.1); VC buffers of
    network.vc_buffer_flits, or a packet plus the credit round trip when not given; link
    and host bandwidths are payload rates per direction, flit_size bytes per flit; the api's software overhead O (send + receive)
    is split floor(O/2) cycles at the sender, the rest at the receiver; collective VCs
    store-and-forward unless network.collective_switching says cut-through; half-ring ties
    by network.ring_ties (default plus).
    """
    from icnperf.sim.collective_fabric import FabricConfig

    if api not in APIS:
        raise InputError(f"unknown api {api!r}; choose one of {', '.join(APIS)}")
    clock = machine.require("network.router_clock")
    cycle = 1.0 / clock
    flit = machine.require("network.flit_size")
    overhead = 0.0 if api == "none" else machine.require(f"software.{api}_overhead")
    total = _cycles(overhead, cycle, f"software.{api}_overhead")
    collective = machine.get("network.collective_switching", "store-and-forward")
    vcs = int(machine.get("network.virtual_channels", 2))
    depth = machine.get("network.vc_buffer_flits")
    return FabricConfig(
        router_delay=_cycles(machine.require("network.router_latency"), cycle,
                             "network.router_latency"),
        link_delay=_cycles(machine.require("network.link_latency"), cycle,
                           "network.link_latency"),
        injection_delay=_cycles(machine.require("network.injection_latency"), cycle,
                                "network.injection_latency"),
        ejection_delay=_cycles(machine.require("network.ejection_latency"), cycle,
                               "network.ejection_latency"),
        link_rate=machine.require("network.link_bandwidth") * cycle / flit,
        host_rate=machine.require("network.host_bandwidth") * cycle / flit,
        flit_bytes=int(flit),
        packet_flits=int(machine.require("network.packet_max_flits")),
        header_flits=int(machine.require("network.packet_header_flits")),
        send_overhead=total // 2,
        recv_overhead=total - total // 2,
        collective_store_and_forward=collective == "store-and-forward",
        p2p_store_and_forward=machine.get("network.switching") == "store-and-forward",
        vcs_per_class=max(1, vcs // 2),
        buffer_flits=None if depth is None else int(depth),
        ring_ties=machine.get("network.ring_ties", "plus"),
    ), cycle
