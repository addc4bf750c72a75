"""``icnperf.predict_p2p``: latency, bandwidth and message rate of one message per size
(``icnperf predict p2p``)."""

from __future__ import annotations

from typing import Any, Iterator

from icnperf.api import options, values
from icnperf.api.guard import quiet
from icnperf.api.results import Result
from icnperf.errors import InputError


P2P_RANGED = ("latency_s", "hardware_latency_s", "queueing_delay_s", "bandwidth_Bps",
              "streaming_bandwidth_Bps", "message_rate_per_s", "rate_bound_per_s")
"""The predicted quantities of ``predict p2p`` that ``uncertainty`` gives ranges of."""


class P2PResult(Result):
    """``predict p2p``: one row per message size. The model's columns are held as NumPy
    arrays (``columns``); ``rows`` builds the list of row dicts on demand (charged to the
    work budget as a held table), ``iter_rows`` yields them one at a time, as the command
    line streams its JSON and CSV."""

    command = "predict p2p"

    def __init__(self, document: dict, columns: dict, spans: dict | None = None) -> None:
        super().__init__(document)
        self.columns = columns
        """Column name -> NumPy array, SI units (bytes, seconds, bytes/s, 1/s)."""
        self.spans = spans
        """With ``uncertainty``: ranged column name -> (low, high) NumPy arrays (the rows'
        ``<name>_low``, ``<name>_high``); else None."""

    @property
    def names(self) -> list[str]:
        return list(self.columns) + [f"{name}_{end}" for name in (self.spans or {})
                                     for end in ("low", "high")]

    def __len__(self) -> int:
        return len(self.columns["bytes"])

    def _row(self, i: int) -> dict:
        row = {name: float(column[i]) for name, column in self.columns.items()}
        if row["bytes"] == 0:
            row["rate_bound_per_s"] = None  # V/L bounds nothing without payload
        for name, (low, high) in (self.spans or {}).items():
            row[f"{name}_low"] = None if row[name] is None else float(low[i])
            row[f"{name}_high"] = None if row[name] is None else float(high[i])
        return row

    def iter_rows(self) -> Iterator[dict]:
        """The rows one at a time (nothing but the current row is built)."""
        return (self._row(i) for i in range(len(self)))

    @property
    def rows(self) -> list[dict]:
        from icnperf.data.limits import within_limits
        from icnperf.model.budget import p2p_estimate

        within_limits(p2p_estimate(len(self), "table"))
        return list(self.iter_rows())

    def to_dict(self) -> dict:
        return {**super().to_dict(), "rows": self.rows}

    def render(self, fmt: str = "table", wide: bool = False):
        from icnperf.reports.text.predict import p2p_json, p2p_render

        if fmt == "json":
            return p2p_json(self._document, self.columns, self.spans)
        if fmt == "table":
            return p2p_render(self._document, self.rows, self.names, fmt, wide)
        return p2p_render(self._document, self.iter_rows(), self.names, fmt, wide)

    def figure(self):
        from icnperf.reports.result_figures import p2p_figure

        return p2p_figure(self._document["inputs"]["machine"], self.columns)


@quiet
def predict_p2p(machine: Any, *, set: Any = None, bytes: Any = "8..1MiB:x4",
                hops: Any = None, from_: Any = None, to: Any = None, api: str = "mpi",
                ppn: Any = 1, same_node: bool = False, buffers: str = "host",
                from_gpu: Any = None, to_gpu: Any = None, load: Any = 0.0,
                pattern: str = "uniform", uncertainty: bool = False, samples: Any = None,
                seed: Any = None, production: bool = False,
                budget_format: str = "json") -> P2PResult:
    """What ``icnperf predict p2p`` computes, for ``machine`` (a preset name, a machine
    TOML path or ``icnperf.machine(...)``).

    Keywords are the command's options: ``set`` (``{"network.link_latency": 60e-9}`` or
    ``"network.link_latency=60ns"`` items), ``bytes`` (``"8..1MiB:x4"``, a number or a
    list of bytes), ``hops`` (router hops; default the topology's average distance),
    ``from_``/``to`` (endpoints: an index or torus coordinates ``"1,0,2"``), ``api`` (mpi,
    shmem, none), ``ppn`` (processes per node sending at once), ``same_node`` (both ranks
    on one node), ``buffers`` (host or gpu: the machine's GPU-buffer path), ``from_gpu``
    (the sending GPU, with gpu buffers), ``to_gpu`` (the receiving GPU of the scale-up
    domain, with gpu buffers and same_node), ``load`` (background load, a fraction of a
    channel, 0..1) and ``pattern`` (its traffic pattern). ``uncertainty``: each predicted
    quantity's 5-95 % range (:data:`P2P_RANGED`, as ``<name>_low`` and
    ``<name>_high``) over ``samples`` (default 200) draws seeded with ``seed`` (default 0)
    of the machine's inputs within their stated uncertainty. ``production``: the machine's
    ``[production]`` background traffic (as the offered load of ``load``, which it
    replaces) and OS noise: ``latency_s`` the median of the production distribution,
    ``latency_s_low``/``_high`` its 5-95 %, ``empty_latency_s`` the latency without the
    noise (api/production_p2p.py). ``budget_format``: the output
    the work budget prices the rows for (the command line passes its ``--format``; JSON and
    CSV are streamed).
    """
    from icnperf.data.limits import within_limits
    from icnperf.model.budget import p2p_estimate
    from icnperf.model.network import p2p_table
    from icnperf.model.topology.base import PATTERNS
    from icnperf.reports.render import require_finite
    import numpy as np

    hops = options.optional_real(hops, "--hops", low=0)
    api = options.choice(api, options.APIS, "--api")
    ppn = options.integer(ppn, "--ppn", low=1)
    same_node = options.flag(same_node, "--same-node")
    buffers = options.choice(buffers, options.BUFFERS, "--buffers")
    from_gpu = options.optional_integer(from_gpu, "--from-gpu", low=0)
    to_gpu = options.optional_integer(to_gpu, "--to-gpu", low=0)
    load = options.real(load, "--load", low=0, high=1)
    pattern = options.choice(pattern, PATTERNS, "--pattern")
    sampling = options.sampling(uncertainty, samples, seed)
    production = options.flag(production, "--production")
    if production and load:
        raise InputError("--production takes the background load from the machine's"
                         " production.background_utilization: drop --load")
    source = values.endpoint(from_, "--from")
    destination = values.endpoint(to, "--to")
    machine, overrides = values.machine(machine, set)
    if (source is None) != (destination is None):
        raise InputError("give both --from and --to, or neither")
    if same_node and (source is not None or hops is not None or load):
        raise InputError("--same-node puts both ranks on one node: drop --hops, --from/--to"
                         " and --load")
    if buffers != "gpu" and (from_gpu is not None or to_gpu is not None):
        raise InputError("--from-gpu/--to-gpu name GPUs: give --buffers gpu")
    if to_gpu is not None and not same_node:
        raise InputError("--to-gpu names the receiving GPU inside a node: give --same-node"
                         " (between nodes the receiver is on another node)")
    if source is not None:
        if hops is not None:
            raise InputError("give --hops or --from/--to, not both")
        hops = hops_between(machine.topology, source, destination)
    if hops is not None:
        from icnperf.model.topology.spec import parse_spec

        diameter = float(parse_spec(machine.topology).evaluate().diameter)
        if hops > diameter:
            raise InputError(f"--hops {hops:g} exceeds the diameter {diameter:g} of"
                             f" {machine.topology}")
    sizes, recorded = values.sizes(bytes)
    estimate = p2p_estimate(sizes.size, budget_format)
    if sampling is not None:
        from icnperf.model.budget import with_draws

        estimate = with_draws(estimate, sampling.samples)
    within_limits(estimate)

    def table_of(drawn, offered=load, at=hops):
        return p2p_table(drawn, sizes, at, api, processes_per_node=ppn,
                         offered_load=0.0 if same_node else offered, pattern=pattern,
                         same_node=same_node, buffers=buffers, from_gpu=from_gpu or 0,
                         to_gpu=to_gpu)

    spans = None
    if production:
        from icnperf.api import production_p2p as busy

        scheduled = hops is None and not same_node
        if sampling is None:
            columns, spans, table, placement = busy.p2p_point(machine, table_of, pattern,
                                                              scheduled)
        else:
            columns, spans, table, placement = busy.p2p_ranged(
                machine, table_of, pattern, sampling, P2P_RANGED, scheduled)
    else:
        table = table_of(machine)
    if sampling is not None and not production:
        from icnperf.data.machine.sampling import ranges

        def ranged(drawn):
            drawn_columns = table_of(drawn).columns
            return {name: drawn_columns[name] for name in P2P_RANGED}

        spans = ranges(machine, ranged, sampling)
    if not production:
        columns = {name: np.asarray(table.columns[name], dtype=float)
                   for name in table.columns}
    finite = np.ones(len(columns["bytes"]), dtype=bool)
    for name, column in columns.items():
        finite &= np.isfinite(column) | ((name == "rate_bound_per_s")
                                         & (columns["bytes"] == 0))
    document = {"inputs": {"machine": machine.name, "topology": machine.topology,
                           "set": overrides, "bytes": recorded, "hops": hops,
                           "from": source, "to": destination, "api": api,
                           "processes_per_node": ppn, "load": load, "pattern": pattern,
                           "same_node": same_node, "buffers": buffers, "from_gpu": from_gpu,
                           "to_gpu": to_gpu,
                           **({} if sampling is None else
                              {"uncertainty": sampling.as_dict(machine)}),
                           **({"production": dict(machine.production)}
                              if production else {})},
                "assumptions": list(table.assumptions)}
    if production and placement is not None:
        document["inputs"]["placement"] = placement
        document["assumptions"] = [
            busy.pair_placement_note(placement, ranged=sampling is not None)
            if note.startswith("placement:") else note for note in document["assumptions"]]
    result = P2PResult(document, columns, spans)
    if not finite.all():
        require_finite([result._row(int(np.argmin(finite)))], list(columns), "predict p2p",
                       lambda row: f"at {row['bytes']:g} B")
    return result


GRID_FAMILIES = ("torus", "mesh", "hypercube")
"""Families whose endpoints ``--from``/``--to`` can name by coordinates or an index."""




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


def _index(text: str, size: int, what: str) -> int:
    text = text.strip()
    if not text.isdigit() or len(text) > 15:
        raise InputError(f"{what} {text!r}: give an endpoint index")
    if int(text) >= size:
        raise InputError(f"{what} {text!r}: endpoint index must be below {size}")
    return int(text)


def _routed_hops(spec, source: str, destination: str) -> int:
    """Router hops between two endpoints (by index) of a fat tree (NCA) or dragonfly /
    megafly / gdragonfly (minimal routing), through the collectives' layout."""
    from icnperf.model.collectives import Layout

    layout = Layout.from_topology(spec.text)
    size = layout.network_endpoints
    a = _index(source, size, "--from")
    b = _index(destination, size, "--to")
    if a == b:
        return 0
    return layout.traffic([a], [b])[0]


def hops_between(topology: str, source: str, destination: str) -> int:
    """Router hops between two endpoints: dimension-order routing on a torus, mesh or
    hypercube; nearest common ancestor on a fat tree; minimal routing on a dragonfly,
    megafly or gdragonfly (its longest share)."""
    from icnperf.model.topology.spec import parse_spec
    from icnperf.model.topology.torus import hop_distance
    from icnperf.api.layouts import ROUTED_FAMILIES

    spec = parse_spec(topology)
    if spec.family.name in ROUTED_FAMILIES:
        return _routed_hops(spec, source, destination)
    if spec.family.name not in GRID_FAMILIES:
        raise InputError(f"--from/--to name endpoints of "
                         f"{', '.join(GRID_FAMILIES + ROUTED_FAMILIES)};"
                         f" for {spec.text} give --hops")
    radices = spec.params.get("radices") or (2,) * spec.params["n"]
    a = _endpoint(source, radices, "--from")
    b = _endpoint(destination, radices, "--to")
    return int(hop_distance(radices, a, b, wrap=spec.family.name != "mesh"))
