"""One topology's metrics as ``icnperf topology`` prints them (:func:`topology_document`),
the saturation estimate's routers taken from a machine or the simulator's default router.
Also what ``explain saturation`` and the machine report read a topology's figures from."""

from __future__ import annotations

from icnperf.errors import InputError


def topology_document(spec_text: str, tree_routing: str | None = None,
                      machine_name: str | None = None, overrides=(), machine=None) -> dict:
    """All metrics of one spec as a plain dict (the JSON layout of ``icnperf topology``,
    model.topology.summary); ``tree_routing`` picks a fat tree's up-port rule. The
    saturation estimate per pattern uses the routers of ``machine`` (a loaded Machine) or
    ``machine_name`` (loaded, with ``overrides``), or the simulator's default router."""
    from icnperf.model.topology.saturation import machine_router
    from icnperf.model.topology.spec import parse_spec
    from icnperf.model.topology.summary import topology_summary

    spec = parse_spec(spec_text)
    metrics = spec.evaluate(tree_routing)
    router = None
    if machine is not None:
        router = machine_router(machine)
    elif machine_name is not None:
        from icnperf.data.machine import load_machine

        router = machine_router(load_machine(machine_name).with_overrides(list(overrides)))
    elif overrides:
        raise InputError("--set needs --machine (it overrides a machine's keys)")
    return topology_summary(spec, metrics, router)
