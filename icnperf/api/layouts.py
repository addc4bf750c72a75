"""The job layouts a command runs on, read from its ``--nodes`` and ``--shape``: one per
node count for ``predict`` (:func:`layouts_for`), one for ``explain`` and ``crossover``
(:func:`layout_for`)."""

from __future__ import annotations

import re

from icnperf.errors import InputError

ROUTED_FAMILIES = ("fattree", "clos", "xgft", "rail", "dragonfly", "megafly", "gdragonfly",
                   "dfplus")
"""Families whose endpoints ``--from``/``--to`` name by index (hops of their routing), and
on which ``--nodes`` runs a job on part of the machine as it is."""


def layouts_for(topology: str, nodes_text: str | None, shape_text: str | None,
                system_nodes: int | None = None):
    """Layouts to evaluate: the machine's own job (``Layout.machine_job``: its
    ``system_nodes`` on a larger fat tree or dragonfly), a fixed --shape, or per node count of
    --nodes one balanced torus shape in the machine's dimension count (Mukosey 2015 §3.1
    sweeps) or, on a fat tree or dragonfly, a job of that many nodes on the machine as it
    is (Layout.on_part); 1 node is Layout.one_node (no network)."""
    from icnperf.model.collectives import Layout
    from icnperf.model.topology.spec import parse_spec
    from icnperf.model.topology.torus import job_torus_shape
    from icnperf.units import parse_range

    if shape_text is not None:
        shape = parse_spec(f"torus:{shape_text}").params["radices"]
        if nodes_text is not None:
            nodes = parse_range(nodes_text, "count")
            product = 1
            for k in shape:
                product *= k
            if len(nodes) != 1 or int(nodes[0]) != product:
                raise InputError(f"--shape {shape_text} has {product} nodes, --nodes says"
                                 f" {nodes_text}; give one node count equal to the shape's")
        return [Layout.torus(shape)]
    if nodes_text is None:
        return [Layout.machine_job(topology, system_nodes)]
    spec = parse_spec(topology)
    counts = [int(n) for n in parse_range(nodes_text, "count")]
    if spec.family.name in ROUTED_FAMILIES:
        machine = Layout.from_topology(spec.text)
        return [Layout.one_node() if n == 1 else machine.on_part(n) for n in counts]
    if spec.family.name not in ("torus", "hypercube"):
        raise InputError(f"--nodes takes torus, fat-tree and dragonfly machines; "
                         f"{spec.text} is a {spec.family.name}")
    dims = len(spec.params["radices"]) if "radices" in spec.params else spec.params["n"]
    return [Layout.one_node() if n == 1 else Layout.torus(job_torus_shape(n, dims))
            for n in counts]


def parse_shape(text: str) -> tuple[int, ...]:
    """``16x16x32`` -> (16, 16, 32); InputError unless every radix is a whole number >= 2."""
    parts = re.split(r"[x×X]", text.strip())
    if not all(p.strip().isdigit() for p in parts) or not all(int(p) >= 2 for p in parts):
        raise InputError(f"bad --shape {text!r}: write torus radices like 16x16x32 (each a "
                         "whole number >= 2)")
    return tuple(int(p) for p in parts)


def layout_for(topology: str, nodes: int | None, shape: str | None,
               system_nodes: int | None = None):
    """The layout of a collective: ``--shape`` if given (checked against ``--nodes``), else
    the machine's torus reshaped to ``--nodes`` (:func:`layouts_for`: balanced radices in
    its dimension count), or a job of ``--nodes`` on a fat tree or dragonfly as it is, else
    the machine's own job (``Layout.machine_job``: ``system_nodes`` of a larger network)."""
    from icnperf.model.collectives import Layout

    if shape is not None:
        layout = Layout.torus(parse_shape(shape))
        if nodes is not None and nodes != layout.endpoints:
            raise InputError(f"--shape {shape} has {layout.endpoints} nodes, not --nodes "
                             f"{nodes}")
        return layout
    base = Layout.from_topology(topology)
    if nodes is None:
        return Layout.machine_job(topology, system_nodes)
    if nodes == base.endpoints:
        return base
    return layouts_for(topology, str(nodes), None)[0]
