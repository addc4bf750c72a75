"""The cycle-driven fabric under the collective simulator: channels, router input buffers,
credits, the spanning tree's Reducer and the endpoints' processors.

Micro-architecture (what the simulator knows; no closed form is used):

* Time is counted in router cycles. A channel carries ``rate`` flits per cycle (a token
  bucket: ``rate`` tokens a cycle, one per flit sent; an idle channel keeps at most
  max(1, rate), a busy one carries its fraction over). A flit sent in cycle t occupies
  the wire for that cycle and arrives downstream at t + 1 + ``latency``; a credit comes
  back ``latency`` cycles after its flit left the buffer. Cycles in which no channel can
  move a flit are skipped to the next event.
* Channels: the endpoint's injection channel (host -> router; payload flits only: the
  router-side adapter adds the header when the first payload flit arrives), router-router
  links (payload + header flits) and the ejection channel (router -> host; payload flits,
  the header is stripped with the first one). Hosts always accept ejected flits.
* Virtual channels: ordinary p2p traffic uses two dateline classes per link (class 1 on and
  after a ring's wraparound link, deadlock-free DOR); the collective subnet has VCUp and
  VCDown (Mukosey 2015 §2.1). Each VC has a FIFO input buffer of ``buffer_flits`` at the
  downstream router; a sender needs a credit per flit. A VC carries one packet at a time
  (a packet holds it from head to tail); flits of different VCs share the link's bandwidth,
  the older request first.
* Routers: a packet at the head of its input FIFO is routed ``router_delay`` cycles after
  its head flit arrived (cut-through, ordinary VCs) or after its tail arrived
  (store-and-forward, the collective VCs: Mukosey 2015 §2.1 'waiting until the whole packet is
  in the buffer'). It then requests its output channels; a broadcast packet requests all
  of them at once (replication on distinct outputs) and frees a buffer flit when every copy
  has sent it. The packet behind it in the FIFO is routed only once it has left
  (head-of-line blocking).
* Reducer (VCUp): a routed reduce packet is copied into the router's Reducer (its buffer
  flits are freed); when the Reducer holds packet j of the local host and of every child it
  forms the combined packet j (values summed, no extra delay) and sends it up. A child may
  send reduce packets j < its window (16 ReduceIds, Mukosey 2015 §1); after sending 8 combined
  packets up a parent returns a credit for 8 more to each child (Mukosey 2015 §2.4), which
  arrives after the link and router delays plus one cycle.
* Hosts: one processor per endpoint; sending a message keeps it busy ``send_overhead``
  cycles, after which the message's packets queue at the injection channel; a message is
  delivered ``recv_overhead`` cycles after its last payload flit was ejected (the processor
  does one thing at a time).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from icnperf.errors import InputError
from icnperf.sim.network import GridNetwork

VC_UP = 1000
VC_DOWN = 1001
"""VC numbers of the collective subnet; ordinary VCs are numbered c · n + i for dateline
class c (0, 1) and index i < n = ``vcs_per_class``."""

REDUCE_WINDOW = 16
CREDIT_PACKETS = 8


@dataclass(frozen=True)
class FabricConfig:
    """Router, channel and endpoint parameters in router cycles and flits.

    ``link_rate`` / ``host_rate``: flits per cycle on a router-router link / on the host
    injection and ejection channels; ``*_delay``: cycles; ``buffer_flits``: flits per VC
    input buffer (None: sized per channel to a packet plus the credit round trip,
    packet_flits + ceil(2 · latency · rate), so a lone stream never waits for credits);
    ``vcs_per_class``: ordinary VCs per dateline class, a packet taking any free one of its
    class at each channel (the collective subnet has one VCUp and one VCDown);
    ``send_overhead`` / ``recv_overhead``: processor cycles per message;
    ``reduce_window`` / ``credit_packets``: the ReduceId window and credit size;
    ``ring_ties``: ordinary packets half a ring away go + (``plus``) or + from even and -
    from odd ring positions (``split``), as model/topology/torus.RING_TIES."""

    router_delay: int = 4
    link_delay: int = 40
    injection_delay: int = 150
    ejection_delay: int = 150
    link_rate: float = 1.0
    host_rate: float = 1.0
    flit_bytes: int = 16
    packet_flits: int = 16
    header_flits: int = 1
    buffer_flits: int | None = None
    send_overhead: int = 0
    recv_overhead: int = 0
    collective_store_and_forward: bool = True
    p2p_store_and_forward: bool = False
    reduce_window: int = REDUCE_WINDOW
    credit_packets: int = CREDIT_PACKETS
    vcs_per_class: int = 1
    ring_ties: str = "plus"

    def __post_init__(self):
        for name in ("router_delay", "link_delay", "injection_delay", "ejection_delay",
                     "send_overhead", "recv_overhead"):
            value = getattr(self, name)
            if not (isinstance(value, (int, np.integer)) and value >= 0):
                raise InputError(f"flitsim: {name} must be a whole number of cycles >= 0,"
                                 f" not {value!r}")
        for name in ("link_rate", "host_rate"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise InputError(f"flitsim: {name} must be > 0 flits/cycle, not {value!r}")
        if not (self.flit_bytes >= 1 and self.header_flits >= 0
                and self.packet_flits > self.header_flits):
            raise InputError("flitsim: packets need flit_bytes >= 1 and more flits than"
                             " header flits")
        if self.buffer_flits is not None and self.buffer_flits < self.packet_flits:
            raise InputError(f"flitsim: buffer_flits ({self.buffer_flits}) must hold a whole"
                             f" packet ({self.packet_flits} flits)")
        if not (isinstance(self.vcs_per_class, (int, np.integer)) and self.vcs_per_class >= 1):
            raise InputError(f"flitsim: vcs_per_class must be a whole number >= 1, not"
                             f" {self.vcs_per_class!r}")
        if not (1 <= self.credit_packets <= self.reduce_window):
            raise InputError("flitsim: need 1 <= credit_packets <= reduce_window")
        if self.ring_ties not in ("plus", "split"):
            raise InputError(f"flitsim: ring_ties must be plus or split, not "
                             f"{self.ring_ties!r}")

    def buffer_for(self, latency: int, rate: float) -> int:
        """Flits per VC buffer behind a channel of this latency and rate."""
        if self.buffer_flits is not None:
            return self.buffer_flits
        return self.packet_flits + math.ceil(2 * latency * rate)

    def payload_flits(self, nbytes: float) -> int:
        """Payload flits of a message: ceil(bytes / flit), at least one."""
        return max(1, math.ceil(nbytes / self.flit_bytes - 1e-12))

    def packet_payloads(self, nbytes: float) -> list[int]:
        """Payload flits of each packet of a message (full packets, then the rest)."""
        total = self.payload_flits(nbytes)
        full = self.packet_flits - self.header_flits
        sizes = [full] * (total // full)
        if total % full:
            sizes.append(total % full)
        return sizes


class Packet:
    """One packet: ``kind`` 'unicast', 'down' (broadcast) or 'up' (reduce)."""

    __slots__ = (
        "dst",
        "flits",
        "index",
        "kind",
        "message",
        "nbytes",
        "payload",
        "src",
        "value",
    )

    def __init__(self, kind, src, dst, payload, header, message, index, value=None,
                 nbytes=0.0):
        self.kind = kind
        self.src = src
        self.dst = dst
        self.payload = payload
        self.flits = payload + header
        self.message = message
        self.index = index
        self.value = value
        self.nbytes = nbytes


class _Slot:
    """A packet held in one buffer: a router input VC, the Reducer or a host."""

    __slots__ = (
        "arrived",
        "channel",
        "dim",
        "outs",
        "packet",
        "ready",
        "released",
        "routed",
        "router",
        "vc",
    )

    def __init__(self, packet, router, channel, vc, arrived=0, dim=-1):
        self.packet = packet
        self.router = router
        self.channel = channel
        self.vc = vc
        self.arrived = arrived
        self.released = 0
        self.outs = []
        self.ready = None
        self.routed = False
        self.dim = dim


class _Transfer:
    """A packet crossing one channel: flits ``offset`` .. ``offset + count - 1`` of it."""

    __slots__ = (
        "channel",
        "count",
        "dest",
        "offset",
        "order",
        "sent",
        "slot",
        "vc",
        "vclass",
    )

    def __init__(self, slot, channel, vclass, offset, count, order, vc=None):
        self.slot = slot
        self.channel = channel
        self.vclass = vclass
        self.vc = vc
        self.offset = offset
        self.count = count
        self.sent = 0
        self.dest = None
        self.order = order

    @property
    def progress(self) -> int:
        """Flits of the source slot this transfer no longer needs."""
        if self.sent >= self.count:
            return self.slot.packet.flits
        return self.offset + self.sent if self.sent else 0


class _Channel:
    __slots__ = (
        "busy_vc",
        "cap",
        "credits",
        "dim",
        "flits",
        "kind",
        "latency",
        "port",
        "port_id",
        "queue",
        "rate",
        "router",
        "tokens",
        "wrap",
    )

    def __init__(self, kind, router, port, rate, latency, credits, wrap=False, dim=-1):
        self.kind = kind
        self.router = router
        self.port = port
        self.rate = rate
        self.cap = rate + 1.0
        self.latency = latency
        self.tokens = 0.0
        self.credits = credits
        self.queue = []
        self.busy_vc = {}
        self.wrap = wrap
        self.dim = dim
        self.flits = 0
        self.port_id = -1


class Fabric:
    """The torus's channels, routers and hosts; algorithms drive it through :meth:`send`,
    :meth:`inject_broadcast`, :meth:`inject_reduce` and the ``on_deliver`` callback."""

    def __init__(self, network: GridNetwork, config: FabricConfig, *,
                 on_deliver: Callable | None = None, on_packet: Callable | None = None,
                 max_cycles: int = 50_000_000):
        if not network.wrap:
            raise InputError("flitsim: the collective simulator needs a torus")
        self.net = network
        self.cfg = config
        self.on_deliver = on_deliver
        self.on_packet = on_packet
        self.max_cycles = max_cycles
        self.now = 0
        self._times: list[int] = []
        self._buckets: dict[int, list] = {}
        self._order = 0
        self._active: dict[int, _Channel] = {}
        self._pending: list[_Channel] = []
        self._stepping = False
        R = network.routers
        neighbour, wraps = network.links()
        self.neighbour = neighbour
        def buffers(latency, rate):
            keys = [*range(2 * config.vcs_per_class), VC_UP, VC_DOWN]
            return dict.fromkeys(keys, config.buffer_for(latency, rate))

        self.channels: list[_Channel] = []
        self.injection, self.ejection = [], []
        self.radices = tuple(network.radices)
        self.terminal = 2 * len(self.radices)
        self.strides = [math.prod(self.radices[:d]) for d in range(len(self.radices))]
        self.link = np.full((R, self.terminal + 1), -1, dtype=np.int64)
        for r in range(R):
            self.injection.append(self._add(_Channel("inj", r, self.terminal,
                                                     config.host_rate,
                                                     config.injection_delay,
                                                     buffers(config.injection_delay,
                                                             config.host_rate))))
            self.ejection.append(self._add(_Channel("ej", r, self.terminal,
                                                    config.host_rate, config.ejection_delay,
                                                    None)))
            for p in range(self.terminal):
                if neighbour[r, p] >= 0:
                    self.link[r, p] = self._add(_Channel(
                        "link", r, p, config.link_rate, config.link_delay,
                        buffers(config.link_delay, config.link_rate),
                        bool(wraps[r, p]), p // 2)).port_id
        self._fifo: dict[tuple[int, int], list[_Slot]] = {}
        self.cpu_free = [0] * R
        self._host_got: dict[tuple[int, object], int] = {}
        self.tree_parent = None
        self.tree_children = None
        self._reducer = None

    def _add(self, channel: _Channel) -> _Channel:
        channel.port_id = len(self.channels)
        self.channels.append(channel)
        return channel

    # --- events -----------------------------------------------------------------------

    def at(self, time: int, function: Callable, *args) -> None:
        """Run ``function(*args)`` at cycle ``time`` (not before now); events of one cycle
        run in the order they were scheduled."""
        time = max(time, self.now)
        bucket = self._buckets.get(time)
        if bucket is None:
            bucket = self._buckets[time] = []
            heapq.heappush(self._times, time)
        bucket.append((function, args))

    def run(self) -> int:
        """Advance until no event and no flit is left; returns the last busy cycle."""
        last = 0
        while self._times or self._active:
            while self._times and self._times[0] <= self.now:
                for function, args in self._buckets.pop(heapq.heappop(self._times)):
                    function(*args)
                last = self.now
            wanted = self._step()
            if wanted:
                last = self.now
                self.now += 1
            elif self._times:
                self.now = max(self.now + 1, self._times[0])
            elif self._active:
                raise RuntimeError("flitsim: deadlock - flits wait with no event pending")
            if self.now > self.max_cycles:
                raise InputError(f"flitsim: collective did not finish in {self.max_cycles:,}"
                                 " cycles")
        return last

    # --- channels ---------------------------------------------------------------------

    def _enqueue(self, transfer: _Transfer) -> None:
        channel = self.channels[transfer.channel]
        channel.queue.append(transfer)
        if self._stepping:
            self._pending.append(channel)
        else:
            self._active[transfer.channel] = channel

    def _step(self) -> bool:
        """Every active channel sends what its tokens, credits and flits allow; True when
        some channel had a flit it could send (so the next cycle must be simulated)."""
        wanted = False
        self._stepping = True
        for ch in list(self._active.values()):
            ch.tokens = min(ch.cap, ch.tokens + ch.rate)
            before = ch.tokens
            for tr in list(ch.queue):
                vc = tr.vc if tr.vc is not None else self._free_vc(ch, tr)
                if vc is None:
                    continue
                holder = ch.busy_vc.get(vc)
                if holder is not None and holder is not tr:
                    continue
                n = self._sendable(ch, tr, vc)
                if n <= 0:
                    continue
                wanted = True
                n = min(n, int(ch.tokens))
                if n <= 0:
                    break
                ch.tokens -= n
                tr.vc = vc
                self._send(ch, tr, n)
                if tr.sent >= tr.count:
                    ch.queue.remove(tr)
                    ch.busy_vc.pop(tr.vc, None)
                else:
                    ch.busy_vc[tr.vc] = tr
            if ch.tokens == before:
                ch.tokens = min(ch.tokens, max(1.0, ch.rate))
            if not ch.queue:
                del self._active[ch.port_id]
        self._stepping = False
        for ch in self._pending:
            self._active[ch.port_id] = ch
        self._pending.clear()
        return wanted

    def _sendable(self, ch: _Channel, tr: _Transfer, vc) -> int:
        n = min(tr.slot.arrived - (tr.offset + tr.sent), tr.count - tr.sent)
        if ch.credits is not None:
            n = min(n, ch.credits[vc])
        return n

    def _free_vc(self, ch: _Channel, tr: _Transfer):
        """VC allocation: the first VC of the packet's class that no packet holds and that
        has a credit (None: wait)."""
        n = self.cfg.vcs_per_class
        for vc in range(tr.vclass * n, (tr.vclass + 1) * n):
            if vc not in ch.busy_vc and (ch.credits is None or ch.credits[vc] > 0):
                return vc
        return None

    def _send(self, ch: _Channel, tr: _Transfer, n: int) -> None:
        if tr.sent == 0:
            tr.dest = self._open_destination(ch, tr)
        tr.sent += n
        ch.flits += n
        if ch.credits is not None:
            ch.credits[tr.vc] -= n
        self.at(self.now + 1 + ch.latency, self._arrive, tr.dest, ch, n)
        self._release(tr.slot)

    def _open_destination(self, ch: _Channel, tr: _Transfer) -> _Slot:
        packet = tr.slot.packet
        if ch.kind == "ej":
            return _Slot(packet, None, ch.port_id, tr.vc)
        router = ch.router if ch.kind == "inj" else int(self.neighbour[ch.router, ch.port])
        slot = _Slot(packet, router, ch.port_id, tr.vc, dim=ch.dim)
        self._fifo.setdefault((ch.port_id, tr.vc), []).append(slot)
        return slot

    def _release(self, slot: _Slot) -> None:
        """Free the slot's buffer flits that every copy has sent; credits flow upstream."""
        if slot.router is None or not slot.outs:
            return
        done = min(out.progress for out in slot.outs)
        self._free(slot, done)

    def _free(self, slot: _Slot, upto: int) -> None:
        if upto > slot.released:
            channel = self.channels[slot.channel]
            freed = upto - slot.released
            slot.released = upto
            self.at(self.now + channel.latency, self._credit, channel, slot.vc, freed)
            if slot.released >= slot.packet.flits:
                self._leave_fifo(slot)

    def _credit(self, channel: _Channel, vc: int, n: int) -> None:
        channel.credits[vc] += n

    # --- routers ----------------------------------------------------------------------

    def _arrive(self, slot: _Slot, channel: _Channel, n: int) -> None:
        packet = slot.packet
        if channel.kind == "inj":
            slot.arrived = (slot.arrived or packet.flits - packet.payload) + n
        else:
            slot.arrived += n
        if channel.kind == "ej":
            if slot.arrived >= packet.payload:
                self._host_receive(channel.router, packet)
            return
        saf = (self.cfg.collective_store_and_forward if packet.kind != "unicast"
               else self.cfg.p2p_store_and_forward)
        if slot.ready is None and (slot.arrived >= packet.flits or (not saf and slot.arrived)):
            slot.ready = self.now + self.cfg.router_delay
            self._try_route((slot.channel, slot.vc))

    def _try_route(self, key) -> None:
        fifo = self._fifo.get(key)
        if not fifo:
            return
        head = fifo[0]
        if head.routed or head.ready is None:
            return
        if head.ready > self.now:
            self.at(head.ready, self._try_route, key)
            return
        head.routed = True
        self._route(head)

    def _leave_fifo(self, slot: _Slot) -> None:
        key = (slot.channel, slot.vc)
        fifo = self._fifo.get(key)
        if fifo and fifo[0] is slot:
            fifo.pop(0)
            if fifo:
                self._try_route(key)
            else:
                del self._fifo[key]

    def _out(self, slot: _Slot, channel: int, vclass: int) -> None:
        ch = self.channels[channel]
        header = slot.packet.flits - slot.packet.payload
        offset, count = ((header, slot.packet.payload) if ch.kind in ("inj", "ej")
                         else (0, slot.packet.flits))
        self._order += 1
        fixed = vclass if vclass in (VC_UP, VC_DOWN) else None
        tr = _Transfer(slot, channel, vclass, offset, count, self._order, fixed)
        slot.outs.append(tr)
        self._enqueue(tr)

    def _route(self, slot: _Slot) -> None:
        packet, r = slot.packet, slot.router
        if packet.kind == "unicast":
            port = self._dor_port(r, packet.dst)
            if port == self.terminal:
                self._out(slot, self.ejection[r].port_id, 0)
                return
            ch = self.channels[int(self.link[r, port])]
            same = slot.dim == ch.dim and slot.vc // self.cfg.vcs_per_class == 1
            self._out(slot, ch.port_id, 1 if (ch.wrap or same) else 0)
        elif packet.kind == "down":
            for child in self.tree_children[r]:
                self._out(slot, int(self.link[r, child[1]]), VC_DOWN)
            if r != packet.src:
                self._out(slot, self.ejection[r].port_id, VC_DOWN)
        else:
            self._free(slot, packet.flits)
            self._reducer.accept(r, packet)

    def _dor_port(self, r: int, dst: int) -> int:
        """Dimension-order routing: the lowest dimension whose coordinate differs, the
        minimal way round its ring, a tie (distance exactly k/2, met only on a packet's
        first hop in that ring) by ``cfg.ring_ties`` (a radix-2 ring is one link, always
        +); the endpoint port 2n at the destination. Port 2d is + in dimension d, 2d + 1 is
        -."""
        for d, k in enumerate(self.radices):
            here = (r // self.strides[d]) % k
            there = (dst // self.strides[d]) % k
            if here != there:
                forward = 2 * ((there - here) % k)
                plus = forward < k or (forward == k and (self.cfg.ring_ties == "plus"
                                                         or here % 2 == 0 or k == 2))
                return 2 * d + (0 if plus else 1)
        return self.terminal

    # --- hosts ------------------------------------------------------------------------

    def _host_receive(self, host: int, packet: Packet) -> None:
        if self.on_packet is not None:
            self.on_packet(host, packet, self.now)
        key = (host, packet.message)
        got = self._host_got.get(key, 0) + 1
        self._host_got[key] = got
        if got == packet.message.packets:
            start = max(self.now, self.cpu_free[host])
            self.cpu_free[host] = start + self.cfg.recv_overhead
            self.at(self.cpu_free[host], self._deliver, host, packet.message)

    def _deliver(self, host: int, message) -> None:
        if self.on_deliver is not None:
            self.on_deliver(host, message, self.now)

    def start_message(self, host: int, message, at: int | None = None) -> int:
        """The host's processor sends ``message`` (its packets come from
        ``message.make_packets``) after the send overhead; returns the cycle the packets
        reach the injection queue."""
        start = max(self.now if at is None else at, self.cpu_free[host])
        self.cpu_free[host] = start + self.cfg.send_overhead
        self.at(self.cpu_free[host], self._inject, host, message)
        return self.cpu_free[host]

    def _inject(self, host: int, message) -> None:
        vc = {"unicast": 0, "down": VC_DOWN, "up": VC_UP}[message.kind]
        for packet in message.make_packets(self.cfg):
            slot = _Slot(packet, None, None, vc, arrived=packet.flits)
            self._out(slot, self.injection[host].port_id, vc)

    # --- the collective tree ------------------------------------------------------------

    def build_tree(self, root: int) -> None:
        """The dimension-ordered spanning tree from ``root`` (Mukosey 2015 §1): a router's
        parent is its neighbour towards the root in the highest dimension where their
        coordinates differ, along the DOR direction (+ at a tie, whatever ``cfg.ring_ties``
        says: the tree is the hardware's, built as model/topology/torus builds it)."""
        coords = self.net.coords
        k = self.radices
        R = self.net.routers
        parent = [-1] * R
        children: list[list[tuple[int, int]]] = [[] for _ in range(R)]
        for v in range(R):
            if v == root:
                continue
            differ = np.nonzero(coords[v] != coords[root])[0]
            d = int(differ[-1])
            forward = int((coords[v, d] - coords[root, d]) % k[d])
            plus = 2 * forward <= k[d]
            step = -1 if plus else 1
            u = v + int(((coords[v, d] + step) % k[d] - coords[v, d]) * self.strides[d])
            parent[v] = u
            port = 2 * d + (0 if plus else 1)
            if self.neighbour[u, port] != v:
                raise RuntimeError("flitsim: spanning tree link mismatch")
            children[u].append((v, port))
        self.tree_parent, self.tree_children = parent, children
        self._reducer = _Reducer(self, root)

    def depth(self, v: int) -> int:
        d = 0
        while self.tree_parent[v] >= 0:
            v = self.tree_parent[v]
            d += 1
        return d


class _Reducer:
    """The routers' combining units for one reduce (or all-reduce) on the tree."""

    def __init__(self, fabric: Fabric, root: int):
        self.f = fabric
        self.root = root
        self.got: dict[tuple[int, int], list] = {}
        self.waiting: dict[int, list[Packet]] = {}
        self.sent = [0] * fabric.net.routers
        self.allowed = [fabric.cfg.reduce_window] * fabric.net.routers
        self.message = None
        """The result's message (what hosts count packets of); set by the algorithm."""
        self.then_broadcast = False

    def accept(self, router: int, packet: Packet) -> None:
        key = (router, packet.index)
        entry = self.got.setdefault(key, [0, 0])
        entry[0] += 1
        entry[1] = entry[1] + packet.value
        if entry[0] == len(self.f.tree_children[router]) + 1:
            del self.got[key]
            combined = Packet("up", router, self.f.tree_parent[router], packet.payload,
                              packet.flits - packet.payload, self.message or packet.message,
                              packet.index, entry[1], packet.nbytes)
            self.waiting.setdefault(router, []).append(combined)
            self._drain(router)

    def _drain(self, router: int) -> None:
        queue = self.waiting.get(router, [])
        queue.sort(key=lambda p: p.index)
        while queue and queue[0].index == self.sent[router] and (
                router == self.root or self.sent[router] < self.allowed[router]):
            packet = queue.pop(0)
            self._send_up(router, packet)

    def _send_up(self, router: int, packet: Packet) -> None:
        f = self.f
        self.sent[router] += 1
        slot = _Slot(packet, router, None, VC_UP, arrived=packet.flits)
        slot.released = packet.flits
        if router == self.root:
            if self.then_broadcast:
                packet.kind = "down"
                packet.src = -1
                slot.vc = VC_DOWN
                f._route(slot)
            else:
                f._out(slot, f.ejection[router].port_id, VC_UP)
        else:
            f._out(slot, self._up_channel(router, f.tree_parent[router]), VC_UP)
        if self.sent[router] % f.cfg.credit_packets == 0:
            delay = f.cfg.link_delay + f.cfg.router_delay + 1
            for child, _ in f.tree_children[router]:
                f.at(f.now + delay, self._credit, child)

    def _up_channel(self, router: int, parent: int) -> int:
        row = self.f.neighbour[router]
        ports = np.nonzero(row == parent)[0]
        return int(self.f.link[router, int(ports[0])])

    def _credit(self, child: int) -> None:
        self.allowed[child] += self.f.cfg.credit_packets
        self._drain(child)
