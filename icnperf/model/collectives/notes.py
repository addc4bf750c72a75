"""The assumption strings every result carries (:func:`assumptions`): the common
conventions, the placement and topology notes, and the notes of the hardware tree, the
point-to-point tree and the step schedules."""

from __future__ import annotations

from icnperf.model.collectives.fluid import FLOW_RANKS
from icnperf.model.collectives.layout import Layout
from icnperf.model.collectives.registry import TABLE

# --- assumptions ------------------------------------------------------------------------


_COMMON = (
    "m: the operation's data per rank in bytes (all-gather: the whole gathered vector, m/P "
    "from each rank; all-to-all: everything one rank sends, m/P to each rank; barrier: no "
    "data, header-only packets), as Thakur et al.'s n",
    "time: from the first call until the last rank has the result; empty network, all "
    "ranks start together",
)

_LINEAR_PLACEMENT = ("placement: one process per node, rank r on endpoint r, dimension 0 "
                     "varying fastest (linear)")


def _placement_note(layout: Layout, algorithm: str) -> str:
    """The placement assumption: the historical torus/crossbar wording for one process per
    node placed linearly, else processes per node, placement and seed spelled out."""
    ppn = layout.processes_per_node
    if layout.is_default_placement and layout.network is None:
        return _LINEAR_PLACEMENT
    numbering = {"torus": "dimension 0 varying fastest",
                 "crossbar": "endpoints 0..P-1",
                 "node": "one node, no network",
                 "fattree": "endpoints numbered leaf by leaf, k per leaf",
                 "clos": "endpoints numbered leaf by leaf, radix/2 per leaf",
                 "xgft": "endpoints numbered leaf by leaf, m1 per leaf",
                 "rail": "node i owns NIC endpoints i*R..i*R+R-1, NIC j on rail j's leaf; "
                         "rank r sends by NIC (r mod ppn) mod R",
                 "dragonfly": "endpoints numbered router by router, groups in order",
                 "megafly": "endpoints numbered leaf by leaf, groups in order",
                 "dfplus": "endpoints numbered leaf by leaf, groups in order",
                 "gdragonfly": "endpoints numbered router by router (r = i + a*j within a "
                               "group), groups in order"}[layout.family]
    where = {"linear": "node i on endpoint i (linear)",
             "random": f"node i on endpoint perm[i], perm = numpy.random.default_rng("
                       f"{layout.seed}).permutation({layout.network_nodes}) (random, "
                       f"seed {layout.seed})",
             "spread": "node i on leaf switch (group) i mod U, the (i // U)-th endpoint of "
                       "it, U leaf switches (groups) (spread)"}[layout.placement]
    if layout.machine_endpoints:
        where += (f"; a job of {layout.endpoints} nodes on the {layout.machine_endpoints} "
                  "endpoints of the machine as it is, the rest idle")
    ranks = ("one process per node, rank r on node r" if ppn == 1 else
             f"processes_per_node = {ppn}: ranks r..r+{ppn - 1} (r a multiple of {ppn}) on "
             f"node r // {ppn}, {layout.ranks} ranks on {layout.endpoints} nodes")
    note = f"placement: {ranks}; {where}; {numbering}"
    if algorithm in ("hw-tree", "p2p-tree"):
        note += "; the trees span every router, so placement does not change their time"
    return note

_HW_NOTES = (
    "hardware tree: dimension-order (X, Y, Z, W) spanning tree from the root (Mukosey 2015 "
    "§1); depth D = sum floor(k_i/2) = the torus diameter, the same from every root "
    "(torus.spanning_tree_depth)",
    "hardware tree: injection and ejection once, software overhead once (one call); routers "
    "replicate broadcast packets to all children at once and combine reduce packets at no "
    "extra time (Mukosey 2015 gives no Reducer latency)",
    "hardware tree: collective virtual channels are store-and-forward (wait for the whole "
    "packet in every router, Mukosey 2015 §2.1); several packets pipeline through the tree",
    "hardware tree: reduce credits (16 packets in flight per tree, one credit per 8 "
    "packets, Mukosey 2015 §1, §2.4) slow a multi-packet reduce only when the credit loop "
    "exceeds 9 packet times (model/collectives.credit_delay)",
    "hardware tree: all-reduce = reduce to the root, then broadcast from it without an "
    "ejection at the root (Mukosey 2015 §1): one store-and-forward path of 2D hops",
)

_P2P_TREE_NOTES = (
    "point-to-point tree: the hardware tree's edges (neighbouring routers, 1 hop); each "
    "level receives the whole message (ejection, software overhead) and re-sends it "
    "(software overhead, injection): one network.latency(m, 1 hop) per level, no "
    "segmentation",
    "point-to-point tree: a rank sends to its children one after another, deepest subtree "
    "first, each send occupying it for g = max(O/2, T_ser(m)); critical path D T(m, 1) + "
    "t g, t = dimensions of odd radix >= 3 (equally deep halves of a ring)",
    "point-to-point tree: a reduce is the broadcast schedule run backwards (one "
    "combination of m bytes per level)",
)

_STEP_NOTES = (
    "steps are synchronous (Thakur et al.'s model); each step is charged network.latency "
    "of its largest message at its largest hop count",
    "contention: the c messages of a step that share the busiest channel each get "
    "B_link / c (the link serializes them all); the host interface is not shared",
)

_SHARED_HOST_NOTES = (
    "steps are synchronous (Thakur et al.'s model); each step is charged network.latency "
    "of its largest inter-node message at its largest hop count",
    "contention: the c messages of a step that share the busiest channel each get "
    "B_link / c (the link serializes them all); the a inter-node messages leaving or "
    "entering one node in a step share its adapter: B_host / a each, and its endpoint "
    "channel (c >= a)",
    "intra-node messages (two ranks of one node): 0 hops, a copy through host memory "
    "charged O + m / B_host (software overhead and the host interface bandwidth as the "
    "copy bandwidth; no injection, router or ejection); a step takes the longer of its "
    "inter- and intra-node messages",
)


def _topology_note(layout: Layout) -> str:
    """How a non-torus layout maps a step's messages: hops and channel load."""
    family = layout.family
    if family == "node":
        return "topology: one node, every message inside it (no network)"
    if family == "crossbar":
        return f"topology: {layout.text}, every pair 1 hop apart, no shared channels"
    if family in ("fattree", "clos", "xgft", "rail") and layout.tree_routing == "dmodk":
        return (f"topology: {layout.text}, nearest-common-ancestor routing: 2(h-1) "
                "router-router hops between endpoints whose lowest common pod is at level h "
                "(0 on one leaf; tree_routing.hops); dmodk up ports (network.tree_routing: "
                "port floor(d / w1..w_l) mod (w·p), down cable s mod p, SimGrid's "
                "FatTreeZone); channel load of a step: the messages on the busiest channel, "
                "counted exactly over these routes (tree_routing.message_load); a host's "
                "single link to its leaf is its adapter, charged as the host interface")
    if family in ("fattree", "clos", "xgft", "rail"):
        return (f"topology: {layout.text}, nearest-common-ancestor routing: 2(h-1) "
                "router-router hops between endpoints whose lowest common pod is at level h "
                "(0 on one leaf; tree_routing.hops); channel load of a step: the c messages "
                "leaving (entering) a level-l pod share its C_l up (down) channels (k^l in "
                "FT(k,n)), charged ceil(c / C_l) maximised over pods and levels "
                "(tree_routing.message_load, network.tree_routing random): up-ports spread "
                "evenly, the least any up-port choice allows; random up-ports may collide "
                "more (not charged)")
    if family == "dragonfly":
        return (f"topology: {layout.text}, minimal routing (Kim et al. 2008): 0 hops on one "
                "router, 1 within a group, 1 + [s != x] + [d != y] across groups (x, y the "
                "routers holding the group pair's one global link; "
                "dragonfly.dragonfly_route_hops); channel load of a step: the most messages "
                "on one channel, counted exactly over the unique MIN routes (a global "
                "channel carries every message between its two groups; "
                "dragonfly.dragonfly_route_load)")
    if family == "gdragonfly":
        return (f"topology: {layout.text}, minimal routing: rank-1 then rank-2 hop inside a "
                "group; a message between groups split evenly over the group pair's m global "
                "links (local route to the link's owner, the link, local route from its "
                "landing router), charged the hops of its longest share "
                "(dragonfly.gdragonfly_route_hops); channel load of a step: the most messages "
                "on one channel, counted exactly over these shares and the parallel local "
                "links, rounded up (dragonfly.gdragonfly_route_load)")
    if family == "dfplus":
        return (f"topology: {layout.text}, minimal routing: 0 hops on one leaf, 2 within a "
                "group (leaf, spine, leaf; split evenly over the s spines), 3 across groups "
                "(split evenly over the group pair's m global links; plus.DFPlus.hops); "
                "channel load of a step: the most messages on one channel counted over these "
                "splits, rounded up (plus.DFPlus.pattern_load)")
    return (f"topology: {layout.text}, minimal routing: 0 hops on one leaf, 2 within a "
            "group (leaf, spine, leaf), 3 across groups (dragonfly.megafly_route_hops); "
            "channel load of a step: the most messages on one channel, a global channel "
            "carrying every message between its two groups and a leaf-spine channel the "
            "leaf's messages to the groups its spine reaches plus 1/k of those within the "
            "group, rounded up (dragonfly.megafly_route_load)")


def assumptions(operation: str, algorithm: str, layout: Layout, params: dict, api: str,
                source_hops: int = 0) -> tuple[str, ...]:
    """The assumption strings of one result (what :class:`CollectiveResult` carries)."""
    notes = list(_COMMON)
    notes.append(_placement_note(layout, algorithm))
    entry = TABLE[(algorithm, operation)]
    notes.append(f"{algorithm} {operation}: {entry.summary}")
    if entry.steps:
        notes.append(f"{algorithm} {operation} rounds: {entry.steps}")
    notes.extend(entry.notes)
    if layout.is_torus:
        tie = ("+ at a tie" if layout.ring_ties in (None, "plus") else
               "a tie split: + from even ring positions, - from odd (network.ring_ties; "
               "a radix-2 ring is one link)")
        notes.append(f"topology: {layout.text}, dimension-order routing, minimal direction "
                     f"in each ring, {tie}")
    else:
        notes.append(_topology_note(layout))
    if algorithm == "hw-tree":
        notes.extend(_HW_NOTES)
        if operation == "broadcast":
            notes.append("hardware tree: broadcast source "
                         + (f"{source_hops} hops from the root (climbs to it first)"
                            if source_hops else "at the root"))
    elif algorithm == "p2p-tree":
        notes.extend(_P2P_TREE_NOTES)
        if operation == "broadcast":
            notes.append("point-to-point tree: broadcast source "
                         + (f"{source_hops} hops from the root (one message to it first)"
                            if source_hops else "at the root"))
    else:
        notes.extend(_STEP_NOTES if layout.processes_per_node == 1 else _SHARED_HOST_NOTES)
    if api == "none":
        notes.append("software: none (hardware path only)")
    else:
        notes.append(f"software: {api.upper()} overhead software.{api}_overhead per "
                     "point-to-point message (send + receive)"
                     + ("; the hardware collective call pays it once"
                        if algorithm == "hw-tree" else "")
                     + (f"; plus {params['step_overhead']:g} s per step "
                        "(software.mpi_step_overhead)"
                        if params.get("step_overhead") and algorithm != "hw-tree" else ""))
    limit = params.get("eager_limit")
    notes.append("point-to-point switching: "
                 + ("store-and-forward" if params.get("store_and_forward") else "cut-through")
                 + ("; eager protocol at every size" if limit is None else
                    f"; messages of at most {limit:g} B sent eagerly (software.eager_limit)"))
    if algorithm in ("linear", "reduce-bcast"):
        notes.append("flows: the messages sent at once are timed as fluid flows sharing every "
                     "channel and host interface max-min fairly, each after its path latency "
                     "(collectives.fluid); a host posts its sends and takes in its "
                     "messages one after another, half the software overhead each (LogGP's "
                     "o); the step ends with its last flow")
    if limit is not None and algorithm in ("binomial", "reduce-bcast") and operation in (
            "broadcast", "allreduce"):
        notes.append("eager broadcast: at m <= eager_limit every rank's binomial sends leave "
                     "together once it has the data and share its links (fluid flows, "
                     f"up to {FLOW_RANKS} ranks; above that, and above the limit, "
                     "synchronous steps)")
    if operation in ("reduce", "allreduce") and algorithm != "hw-tree":
        gamma = params.get("combine_time", 0)
        notes.append("combining: " + (f"{gamma:g} s per byte at the receiving host"
                                      if gamma else "not charged (combine_time = 0)"))
    return tuple(notes)
