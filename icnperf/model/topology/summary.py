"""One topology's metrics as one plain record (what ``icnperf topology`` prints): the
structure, channel loads and throughput bound per traffic pattern, and the saturation
estimate of ``saturation.py`` for given routers."""

from __future__ import annotations

from icnperf.model.topology.base import PATTERNS
from icnperf.model.topology.saturation import DEFAULT_ROUTER, saturation_of

ESTIMATE_NOTE = (
    "saturation estimate: the channel-load bound (throughput) as an input-queued VC router"
    " reaches it (model/topology/saturation.py, docs/saturation.md: allocator matching,"
    " head-of-line blocking, dateline VC classes, load balance, speedup, VC turnaround,"
    " credit round trip) for the machine's routers (--machine: network.virtual_channels,"
    " vc_buffer_flits, switch_allocator, internal_speedup, router_pipeline_cycles,"
    " router_link_latency, packet_max_flits) or the simulator's default router (2 VCs x 8"
    " flits, separable allocator, one-cycle router and links, 1-flit packets); patterns"
    " other than uniform on grids take the load balance as 1 (the pessimistic end)")


def _count(value) -> int | float:
    """A count as an int when it is whole (JSON prints 128, not 128.0)."""
    value = float(value)
    return int(value) if value.is_integer() else value


def topology_summary(spec, metrics, router: dict | None = None) -> dict:
    """All metrics of one parsed ``spec`` (spec.TopologySpec) and its evaluated ``metrics``
    (base.Metrics) as a plain dict of Python numbers (the JSON layout of ``icnperf
    topology``): counts, hops, channel load (flits/cycle), throughput bound and saturation
    estimate (flits/endpoint/cycle) per pattern, keyed in base.PATTERNS' order; ``router``
    the routers of the estimate (saturation.machine_router's keys) [default: the
    simulator's default router, saturation.DEFAULT_ROUTER]."""
    m = metrics
    router = dict(DEFAULT_ROUTER) if router is None else router
    estimate = {p: float(saturation_of(spec.family.name, spec.params, m, p, router)
                         ["saturation_estimate"]) for p in PATTERNS}
    return {
        "family": spec.family.name,
        "spec": spec.text,
        "routers": int(m.routers),
        "endpoints": int(m.endpoints),
        "radix": int(m.radix),
        "links": int(m.links),
        "diameter": int(m.diameter),
        "average_distance": float(m.average_distance),
        "bisection_links": _count(m.bisection_links),
        "channel_load": {p: float(m.channel_load[p]) for p in PATTERNS},
        "throughput": {p: float(m.throughput[p]) for p in PATTERNS},
        "saturation_estimate": estimate,
        "router": router,
        "notes": list(m.notes) + [ESTIMATE_NOTE],
    }
