"""The job layouts a busy batch scheduler gives (issue #31, item 4): the machine's layout
of a job with its ``production.node_occupancy``, so that its nodes are the first free nodes
of a machine whose other jobs hold that share (model/scheduled_placement.py: the model,
counts in and counts out), the groups or leaf switches such a placement spans, and the
hops between a two-node job's nodes. Pure: a machine and layouts in, layouts and counts
out; model/production.py draws the placements and mixes their distributions.
"""

from __future__ import annotations

PLACEMENT_DRAWS = 16
"""Draws of a busy scheduler's placement behind a ``--production`` point and its range
(model/production.py); each costs one evaluation of the collective on its placed layout."""


def scheduled_layout(machine, layout, placement: str):
    """The job's layout as a busy batch scheduler places it (module docstring): the
    machine's layout (collectives.machine_layout of ``layout``) with the machine's
    ``production.node_occupancy`` and the random placement that carries it
    (collectives.layout.Layout.occupancy), or None when the machine has no occupancy, the
    command asked another placement than ``linear``, the network is a torus or crossbar,
    or the job has one node. InputError (one line) for an occupancy of 1."""
    from dataclasses import replace

    from icnperf.model.collectives import machine_layout

    from icnperf.errors import InputError

    occupancy = float(machine.production.get("node_occupancy", 0.0))
    if occupancy >= 1:
        raise InputError(f"production.node_occupancy {occupancy:g}: give a share below 1 "
                         "(with every node held no job can start)")
    if not occupancy or placement != "linear":
        return None
    base = machine_layout(machine, layout)
    if base.network is None or base.endpoints < 2:
        return None
    return replace(base, occupancy=occupancy)


def scheduled_pair_hops(machine, draws: int = PLACEMENT_DRAWS, seed: int = 0
                        ) -> tuple[int, ...] | None:
    """Router-to-router hops between the two nodes of a two-node job (a ping-pong's) as a
    busy batch scheduler places it, one per placement draw (seeds ``seed`` onwards): the
    first two free nodes of each drawn machine state (:func:`scheduled_layout`, occupancy
    as the job meets it), routed as ``predict p2p --from/--to`` routes them
    (collectives.layout.Layout.traffic: NCA on a fat tree, minimal on a dragonfly). None
    when the machine has no ``production.node_occupancy`` or its network is a torus or a
    crossbar."""
    from icnperf.model.collectives import machine_layout

    whole = machine_layout(machine)
    if whole.network is None or whole.network_nodes < 2:
        return None
    job = scheduled_layout(machine, whole.on_part(2), "linear")
    if job is None:
        return None
    hops = []
    for k in range(draws):
        first, second = job.placed(1, "random", seed + k).node_endpoints()
        hops.append(int(job.traffic([int(first)], [int(second)])[0]))
    return tuple(hops)


def units_spanned(layout) -> int:
    """Groups (dragonfly, megafly, gdragonfly) or leaf switches (trees) that a placed
    ``layout``'s nodes sit on."""
    from icnperf.model.scheduled_placement import units_of

    return units_of(layout.node_endpoints(), layout._unit_size())
