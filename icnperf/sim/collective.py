"""One collective operation on a torus, simulated cycle by cycle on the fabric of
:mod:`collective_fabric` (which states the router and endpoint micro-architecture).

Algorithms (ranks = endpoints, rank r on router r, dimension 0 fastest):

* ``hw-tree``: the Angara collective subnet (Mukosey 2015 §1-2). ``broadcast``: the root's host
  injects the message on VCDown; every router replicates each packet to its tree children
  and its own host. ``reduce``: every host injects its contribution on VCUp; routers combine
  (sum) and send up; the root ejects the result to its host. ``allreduce``: the root's
  combined packets go straight down the tree (no ejection at the root) to every host.
* ``p2p-tree``: ``broadcast`` by point-to-point messages over the same tree's edges; a host
  that has the whole message sends it to its children one after another, deepest subtree
  first (ties: port order).
* ``recursive-doubling``: ``allgather`` for a power-of-two rank count (Thakur et al.); at
  step s rank r sends the 2^s blocks of its group to rank r XOR 2^s, as soon as it holds
  them (no global step barrier); messages follow DOR and compete for links flit by flit.

Completion: the cycle the last host has its whole result (after its receive overhead).
Nothing here knows the closed-form model: it is compared in commands/simulate_collective.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from icnperf.errors import InputError
from icnperf.sim.collective_fabric import Fabric, FabricConfig, Packet
from icnperf.sim.network import GridNetwork

SIMULATED = {
    "hw-tree": ("broadcast", "reduce", "allreduce"),
    "p2p-tree": ("broadcast",),
    "recursive-doubling": ("allgather",),
}
"""Algorithm -> operations the collective simulator runs."""

DEFAULT_ALGORITHM = {"broadcast": "hw-tree", "reduce": "hw-tree", "allreduce": "hw-tree",
                     "allgather": "recursive-doubling"}


class Message:
    """What a host sends: ``nbytes`` in packets of ``kind`` (unicast, down, up)."""

    __slots__ = (
        "_sizes",
        "blocks",
        "dst",
        "kind",
        "nbytes",
        "packets",
        "src",
        "step",
        "values",
    )

    def __init__(self, kind, src, dst, nbytes, config: FabricConfig, blocks=(), step=0,
                 values=None):
        self.kind = kind
        self.src = src
        self.dst = dst
        self.nbytes = nbytes
        self._sizes = config.packet_payloads(nbytes)
        self.packets = len(self._sizes)
        self.blocks = tuple(blocks)
        self.step = step
        self.values = values

    def make_packets(self, config: FabricConfig) -> list[Packet]:
        full = (config.packet_flits - config.header_flits) * config.flit_bytes
        out = []
        for index, payload in enumerate(self._sizes):
            nbytes = min(full, self.nbytes - index * full)
            value = None if self.values is None else self.values[index]
            out.append(Packet(self.kind, self.src, self.dst, payload, config.header_flits,
                              self, index, value, nbytes))
        return out


@dataclass
class CollectiveRun:
    """A simulated collective: completion ``cycles``, each host's finishing cycle, what the
    hosts received (bytes per host, duplicates) and, for reductions, the values."""

    operation: str
    algorithm: str
    radices: tuple[int, ...]
    nbytes: float
    cycles: int
    host_cycles: dict[int, int]
    bytes_received: dict[int, float]
    duplicates: int
    complete: bool
    values: dict[int, list] = field(default_factory=dict)
    expected_values: list = field(default_factory=list)
    link_flits: int = 0
    tree_depth: int = 0


def check_request(operation: str, algorithm: str | None, radices) -> str:
    """The algorithm to run (the operation's default when None); InputError otherwise."""
    if operation not in DEFAULT_ALGORITHM:
        raise InputError(f"unknown collective operation {operation!r}; choose one of"
                         f" {', '.join(DEFAULT_ALGORITHM)}")
    algorithm = algorithm or DEFAULT_ALGORITHM[operation]
    if algorithm not in SIMULATED:
        raise InputError(f"unknown algorithm {algorithm!r}; the collective simulator runs"
                         f" {', '.join(SIMULATED)}")
    if operation not in SIMULATED[algorithm]:
        raise InputError(f"the simulator runs {algorithm} for"
                         f" {', '.join(SIMULATED[algorithm])} only, not {operation}")
    nodes = 1
    for k in radices:
        nodes *= k
    if algorithm == "recursive-doubling" and nodes & (nodes - 1):
        raise InputError(f"recursive-doubling all-gather is simulated for a power-of-two"
                         f" node count, not {nodes}")
    return algorithm


def simulate_collective(radices, operation: str, nbytes: float, config: FabricConfig,
                        algorithm: str | None = None, root: int = 0) -> CollectiveRun:
    """Simulate one collective of ``nbytes`` (per rank for broadcast/reduce/allreduce; the
    whole gathered vector for allgather, m / P from each rank) on a torus of ``radices``."""
    algorithm = check_request(operation, algorithm, radices)
    if not nbytes > 0:
        raise InputError(f"message size must be > 0 bytes, not {nbytes!r}")
    network = GridNetwork(radices, wrap=True)
    if not 0 <= root < network.routers:
        raise InputError(f"root {root} is not a node of the torus {radices}")
    runner = {"hw-tree": _HardwareTree, "p2p-tree": _P2PTree,
              "recursive-doubling": _RecursiveDoubling}[algorithm]
    return runner(network, operation, nbytes, config, root).run()


class _Algorithm:
    def __init__(self, network, operation, nbytes, config, root):
        self.net = network
        self.op = operation
        self.nbytes = nbytes
        self.cfg = config
        self.root = root
        self.fabric = Fabric(network, config, on_deliver=self.deliver,
                             on_packet=self.packet)
        self.done: dict[int, int] = {}
        self.got: dict[int, float] = {}
        self.seen: set = set()
        self.duplicates = 0
        self.values: dict[int, list] = {}
        self.expected: list = []

    def packet(self, host, packet, now):
        key = (host, id(packet.message), packet.index)
        if key in self.seen:
            self.duplicates += 1
        self.seen.add(key)
        self.got[host] = self.got.get(host, 0.0) + packet.nbytes
        if packet.value is not None:
            self.values.setdefault(host, []).append((packet.index, packet.value))

    def deliver(self, host, message, now):
        self.done[host] = now

    def receivers(self) -> list[int]:
        return [h for h in range(self.net.routers) if h != self.root]

    def complete(self) -> bool:
        return all(h in self.done for h in self.receivers())

    def run(self) -> CollectiveRun:
        fabric = self.fabric
        fabric.build_tree(self.root)
        self.start()
        fabric.run()
        receivers = self.receivers()
        cycles = max((self.done.get(h, 0) for h in receivers), default=0)
        values = {h: [v for _, v in sorted(vals)] for h, vals in self.values.items()}
        return CollectiveRun(self.op, self.name, self.net.radices, self.nbytes, cycles,
                             dict(self.done), dict(self.got), self.duplicates,
                             self.complete(), values, self.expected,
                             sum(ch.flits for ch in fabric.channels if ch.kind == "link"),
                             max(fabric.depth(v) for v in range(self.net.routers)))


class _HardwareTree(_Algorithm):
    name = "hw-tree"

    def receivers(self):
        if self.op == "broadcast":
            return super().receivers()
        if self.op == "reduce":
            return [self.root]
        return list(range(self.net.routers))

    def start(self):
        f, cfg = self.fabric, self.cfg
        if self.op == "broadcast":
            f.start_message(self.root, Message("down", self.root, -1, self.nbytes, cfg), 0)
            return
        f._reducer.then_broadcast = self.op == "allreduce"
        f._reducer.message = Message("up", self.root, -1, self.nbytes, cfg)
        count = len(cfg.packet_payloads(self.nbytes))
        contributions = [[(h + 1) * 1000 + j for j in range(count)]
                         for h in range(self.net.routers)]
        self.expected = [sum(c[j] for c in contributions) for j in range(count)]
        for h in range(self.net.routers):
            f.start_message(h, Message("up", h, -1, self.nbytes, cfg,
                                       values=contributions[h]), 0)


class _P2PTree(_Algorithm):
    name = "p2p-tree"

    def start(self):
        f = self.fabric
        self.order = {}
        heights = {}
        for v in sorted(range(self.net.routers), key=f.depth, reverse=True):
            kids = f.tree_children[v]
            heights[v] = 1 + max((heights[c] for c, _ in kids), default=-1)
        for v in range(self.net.routers):
            kids = sorted(f.tree_children[v], key=lambda cp: (-heights[cp[0]], cp[1]))
            self.order[v] = [c for c, _ in kids]
        self.send_children(self.root)

    def send_children(self, host):
        for child in self.order[host]:
            self.fabric.start_message(host, Message("unicast", host, child, self.nbytes,
                                                    self.cfg))

    def deliver(self, host, message, now):
        super().deliver(host, message, now)
        self.send_children(host)


class _RecursiveDoubling(_Algorithm):
    name = "recursive-doubling"

    def start(self):
        P = self.net.routers
        self.steps = P.bit_length() - 1
        self.block = self.nbytes / P
        self.blocks = [{h} for h in range(P)]
        self.received = [set() for _ in range(P)]
        self.have = [0] * P
        self.sent = [0] * P
        for h in range(P):
            self.send_ready(h)

    def receivers(self):
        return list(range(self.net.routers))

    def send_ready(self, host):
        while self.sent[host] <= self.have[host] and self.sent[host] < self.steps:
            s = self.sent[host]
            first = host & ~((1 << s) - 1)
            group = range(first, first + (1 << s))
            if not all(b in self.blocks[host] for b in group):
                raise RuntimeError("flitsim: recursive doubling sends blocks it lacks")
            message = Message("unicast", host, host ^ (1 << s), len(group) * self.block,
                              self.cfg, blocks=group, step=s)
            self.fabric.start_message(host, message)
            self.sent[host] += 1

    def deliver(self, host, message, now):
        mine = self.blocks[host]
        self.duplicates += sum(1 for b in message.blocks if b in mine)
        mine.update(message.blocks)
        self.received[host].add(message.step)
        while self.have[host] < self.steps and self.have[host] in self.received[host]:
            self.have[host] += 1
        self.send_ready(host)
        if len(mine) == self.net.routers:
            self.done[host] = now

    def complete(self):
        return all(len(b) == self.net.routers for b in self.blocks)

    def packet(self, host, packet, now):
        self.got[host] = self.got.get(host, 0.0) + packet.nbytes
