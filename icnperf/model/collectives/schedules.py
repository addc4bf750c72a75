"""The step schedules of the textbook point-to-point algorithms (binomial,
recursive-doubling, ring, Rabenseifner, Bruck as Thakur et al. describe them): the rounds
of each algorithm, their mapping onto a layout (:func:`schedule`, cached, yielding
:class:`Step` tuples) and the time of a schedule (:func:`schedule_time`, with
:func:`intra_node_time` for messages within a node)."""

from __future__ import annotations

import hashlib
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model import network, ops
from icnperf.model.collectives import structured
from icnperf.model.collectives.layout import Layout
from icnperf.model.collectives.registry import TABLE


class Step(NamedTuple):
    """``count`` identical communication steps: every rank taking part sends one message of
    ``fraction`` · m bytes (the largest of the step), the farthest pair of nodes ``hops``
    apart, at most ``load`` messages on one channel; ``combine`` says the receiver reduces
    the data it receives. ``host`` is the most inter-node messages through one node's
    adapter (1 with one process per node; 0 when no message leaves its node) and ``intra``
    says some message joins two ranks of one node (an intra-node copy). ``blocks`` > 0:
    the vector is split into that many blocks of whole elements, the last holding the
    remainder, and the step's largest message is ``fraction`` · blocks of them, the last
    included (:func:`split_bytes`); 0: bytes divide evenly. ``last``: (hops, load, host,
    intra) of the messages that carry the last block, mapped on their own (None: every
    message may)."""

    count: int
    fraction: Fraction
    hops: int
    load: int
    combine: bool
    host: int = 1
    intra: bool = False
    blocks: int = 0
    last: tuple[int, int, int, bool] | None = None


def _pow2_floor(p: int) -> int:
    return 1 << (p.bit_length() - 1)


def _log2_ceil(p: int) -> int:
    return (p - 1).bit_length()


class _Rounds:
    """Collects the rounds of a schedule. A round is either explicit messages
    (``sources[i]`` sends to ``destinations[i]``) or a whole-job pattern kept unbuilt: every
    rank r sending to r + d mod P (``shift``) or r XOR d (``xor``) for each d of
    ``offsets``, one round per offset, counted in structure (collectives.structured)."""

    def __init__(self, ranks: int):
        self.ranks = ranks
        self.entries: list[tuple] = []

    def add(self, fraction, combine, sources, destinations, count=1, blocks=0, last=None,
            key=None):
        """``count`` rounds in which ``sources[i]`` sends fraction * m to
        ``destinations[i]``; a round without messages is dropped. ``blocks``: the vector's
        whole-element blocks (Step.blocks), 0 for an even split; ``last``: a boolean mask
        of the messages carrying the last block (None: any may). ``key``: (name of the
        messages, name of the last block's carriers) when the algorithms name them (the
        same name for the same messages at one P, so their mapping is shared without
        hashing the arrays), else None."""
        sources = np.asarray(sources, dtype=np.int64)
        destinations = np.asarray(destinations, dtype=np.int64)
        if len(sources) and count > 0:
            self.entries.append((count, Fraction(fraction), bool(combine), sources,
                                 destinations, int(blocks),
                                 None if last is None else np.asarray(last, dtype=bool),
                                 key or (None, None)))

    def add_pattern(self, fraction, combine, kind: str, offsets, count=1):
        """``count`` rounds per offset d of ``offsets`` (each 0 < d < P) in which every
        rank r sends fraction * m to r + d mod P (``kind`` shift) or r XOR d (xor)."""
        offsets = np.asarray(offsets, dtype=np.int64).ravel()
        if len(offsets) and count > 0:
            self.entries.append((count, Fraction(fraction), bool(combine), kind, offsets,
                                 0, None, (None, None)))

    def _expanded(self):
        ranks = np.arange(self.ranks, dtype=np.int64)
        for count, fraction, combine, src, dst, blocks, last, _ in self.entries:
            if isinstance(src, str):
                for d in dst.tolist():
                    target = (ranks + d) % self.ranks if src == "shift" else ranks ^ d
                    yield (count, fraction, combine, ranks, target), blocks, last
            else:
                yield (count, fraction, combine, src, dst), blocks, last

    @property
    def rounds(self) -> list[tuple[int, Fraction, bool, np.ndarray, np.ndarray]]:
        """Every round as (count, fraction, combine, sources, destinations), patterns
        built out (O(P) per offset)."""
        return [r for r, _, _ in self._expanded()]

    @property
    def blocks(self) -> list[int]:
        return [b for _, b, _ in self._expanded()]

    @property
    def last(self) -> list[np.ndarray | None]:
        return [x for _, _, x in self._expanded()]


def _fold(p: int):
    """MPICH's reduction of a non-power-of-two P to p' = 2^floor(lg P) ranks (Thakur et al.
    §4.4): with r = P - p', ranks 0, 2, ..., 2r - 2 send their data to the next (odd) rank
    and sit out; the survivors are the odd ranks below 2r and every rank from 2r on. Returns
    (p', pre-step sources, pre-step destinations, map survivor number -> rank)."""
    p2 = _pow2_floor(p)
    r = p - p2
    even = np.arange(0, 2 * r, 2, dtype=np.int64)
    new = np.arange(p2, dtype=np.int64)
    actual = np.where(new < r, 2 * new + 1, new + r)
    return p2, even, even + 1, actual


def _binomial_bcast(rounds: _Rounds, p: int, fraction=1):
    for t in reversed(range(_log2_ceil(p))):
        mask = 1 << t
        src = np.arange(0, p, 2 * mask, dtype=np.int64)
        dst = src + mask
        keep = dst < p
        rounds.add(fraction, False, src[keep], dst[keep], key=(("binomial-down", p, t), None))


def _binomial_reduce(rounds: _Rounds, p: int):
    for t in range(_log2_ceil(p)):
        mask = 1 << t
        src = np.arange(mask, p, 2 * mask, dtype=np.int64)
        rounds.add(1, True, src, src - mask, key=(("binomial-up", p, t), None))


def _binomial_scatter(rounds: _Rounds, p: int):
    # MPICH scatter for the long-message broadcast: the sender passes the blocks of the
    # receiver's subtree, min(mask, P - dst) blocks of m/P; the step is charged its largest.
    for t in reversed(range(_log2_ceil(p))):
        mask = 1 << t
        src = np.arange(0, p, 2 * mask, dtype=np.int64)
        dst = src + mask
        keep = dst < p
        if keep.any():
            blocks = int(np.minimum(mask, p - dst[keep]).max())
            rounds.add(Fraction(blocks, p), False, src[keep], dst[keep],
                       key=(("binomial-down", p, t), None))


def _ring(rounds: _Rounds, p: int, steps: int, combine: bool):
    rounds.add_pattern(Fraction(1, p), combine, "shift", [1], count=steps)


def _bruck_allgather(rounds: _Rounds, p: int):
    for t in range(_log2_ceil(p)):
        d = 1 << t
        rounds.add_pattern(Fraction(min(d, p - d), p), False, "shift", [p - d])


def _recursive_doubling_allgather(rounds: _Rounds, p: int):
    # power-of-two P: step k exchanges 2^k blocks of m/P with r XOR 2^k; otherwise Bruck's
    # algorithm (MPICH's fallback for short all-gathers, Thakur et al. §4.1)
    if p & (p - 1):
        _bruck_allgather(rounds, p)
        return
    for t in range(p.bit_length() - 1):
        rounds.add_pattern(Fraction(1 << t, p), False, "xor", [1 << t])


def _pairwise_alltoall(rounds: _Rounds, p: int):
    # MPICH's pairwise exchange (Thakur et al. §4.5): step i = 1 .. P-1, rank r sends its
    # block for r XOR i (P a power of two) or r + i mod P (otherwise), m/P bytes
    power = p & (p - 1) == 0
    rounds.add_pattern(Fraction(1, p), False, "xor" if power else "shift", np.arange(1, p))


def _recursive_doubling_allreduce(rounds: _Rounds, p: int, fraction=1):
    p2, pre_src, pre_dst, actual = _fold(p)
    rounds.add(fraction, True, pre_src, pre_dst, key=(("fold-in", p), None))
    for t in range(p2.bit_length() - 1):
        _exchange(rounds, actual, p2, 1 << t, fraction, True)
    rounds.add(fraction, False, pre_dst, pre_src, key=(("fold-out", p), None))


def _exchange(rounds, actual, p2, mask, fraction, combine, blocks=0, last=None,
              last_name=None):
    if len(actual) == rounds.ranks and not blocks:
        # no fold (P a power of two): survivor s is rank s, every rank exchanges with r ^ mask
        rounds.add_pattern(fraction, combine, "xor", [mask])
        return
    # survivor s is rank actual[s]; its partner s ^ mask
    partner = np.arange(p2, dtype=np.int64) ^ mask
    rounds.add(fraction, combine, actual, actual[partner], blocks=blocks, last=last,
               key=(("exchange", rounds.ranks, mask), last_name))


def _rabenseifner(rounds: _Rounds, p: int, to_root: bool):
    # The vector is cut into p' blocks of whole elements, count // p' each and the rest in
    # the last (MPICH's cnts, as SMPI's rab_rdb): a step's largest message is one holding
    # the last block (blocks=p2). In the halving at distance 2^t the lower survivor of a
    # pair keeps the lower half of its window and sends the upper, so the window of
    # survivor s still holds block p'-1 after step t when bits 0..t of s are all 1: at step
    # t the senders of that block are the survivors whose bits 0..t-1 are 1 and bit t is 0;
    # in the all-gather at distance 2^t, those whose bits 0..t are all 1.
    p2, pre_src, pre_dst, actual = _fold(p)
    rounds.add(1, True, pre_src, pre_dst, key=(("fold-in", p), None))
    steps = p2.bit_length() - 1
    new = np.arange(p2, dtype=np.int64)
    # reduce-scatter by recursive halving: partner distance 1, 2, 4, ..., halves of m
    for t in range(steps):
        low = (1 << t) - 1
        _exchange(rounds, actual, p2, 1 << t, Fraction(1, 2 << t), True, blocks=p2,
                  last=(new & ((2 << t) - 1)) == low, last_name=("halving-last", p, t))
    if to_root:
        # binomial gather of the p' blocks to survivor 0 (which sender holds the last block
        # is not tracked: any may)
        for t in range(steps):
            mask = 1 << t
            senders = np.arange(mask, p2, 2 * mask, dtype=np.int64)
            rounds.add(Fraction(mask, p2), False, actual[senders], actual[senders - mask],
                       blocks=p2, key=(("gather", p, t), None))
    else:
        # all-gather by recursive doubling: the same pairs in reverse order
        for t in reversed(range(steps)):
            full = (2 << t) - 1
            _exchange(rounds, actual, p2, 1 << t, Fraction(1, 2 << t), False, blocks=p2,
                      last=(new & full) == full, last_name=("doubling-last", p, t))
        rounds.add(1, False, pre_dst, pre_src, key=(("fold-out", p), None))


def _rounds(algorithm: str, operation: str, p: int) -> _Rounds:
    rounds = _Rounds(p)
    power = p & (p - 1) == 0
    if algorithm == "binomial":
        if operation in ("reduce", "allreduce"):
            _binomial_reduce(rounds, p)
        if operation in ("broadcast", "allreduce"):
            _binomial_bcast(rounds, p)
    elif algorithm == "recursive-doubling":
        if operation == "allgather":
            _recursive_doubling_allgather(rounds, p)
        elif operation == "broadcast":
            _binomial_scatter(rounds, p)
            _recursive_doubling_allgather(rounds, p)
        elif operation == "allreduce":
            _recursive_doubling_allreduce(rounds, p)
        elif operation == "barrier":
            _recursive_doubling_allreduce(rounds, p, fraction=0)
    elif algorithm == "ring":
        if operation == "allgather":
            _ring(rounds, p, p - 1, False)
        elif operation == "allreduce":
            _ring(rounds, p, p - 1, True)
            _ring(rounds, p, p - 1, False)
        elif operation == "broadcast":
            _binomial_scatter(rounds, p)
            _ring(rounds, p, p - 1, False)
    elif algorithm == "rabenseifner":
        _rabenseifner(rounds, p, to_root=operation == "reduce")
    elif algorithm == "linear":
        ranks = np.arange(p, dtype=np.int64)
        if operation in ("allgather", "alltoall"):
            src, dst = np.repeat(ranks, p), np.tile(ranks, p)
            keep = src != dst
            rounds.add(Fraction(1, p), False, src[keep], dst[keep])
        elif operation == "broadcast":
            rounds.add(1, False, np.zeros(p - 1, dtype=np.int64), ranks[1:])
        elif operation == "reduce":
            rounds.add(1, True, ranks[1:], np.zeros(p - 1, dtype=np.int64))
    elif algorithm == "pairwise":
        if operation == "alltoall":
            _pairwise_alltoall(rounds, p)
        else:
            rounds.add_pattern(Fraction(1, p), False, "shift", np.arange(1, p))
    elif algorithm == "reduce-bcast":
        rounds.add(1, True, np.arange(1, p, dtype=np.int64), np.zeros(p - 1, dtype=np.int64))
        _binomial_bcast(rounds, p)
    elif algorithm == "bruck":
        if operation == "allgather":
            _bruck_allgather(rounds, p)
        elif operation == "alltoall":
            blocks = np.arange(p)
            for t in range(_log2_ceil(p)):
                sent = int(np.count_nonzero(blocks & (1 << t)))
                rounds.add_pattern(Fraction(sent, p), False, "shift", [1 << t])
        elif operation == "barrier":
            for t in range(_log2_ceil(p)):
                rounds.add_pattern(0, False, "shift", [1 << t])
    return rounds


@lru_cache(maxsize=64)
def schedule_rounds(algorithm: str, operation: str, p: int) -> tuple[tuple, ...]:
    """The rounds :func:`schedule` maps, in its order, patterns built out: (count,
    fraction, combine, sources, destinations, blocks, last) each, ``last`` the boolean mask
    of the messages carrying the last block (None: any may). They depend on P alone, so a
    caller mapping them onto many layouts at once (model/sizing/batched.py) builds them
    once; cached, read-only."""
    rounds = _rounds(algorithm, operation, p)
    return tuple((*r, blocks, last) for r, blocks, last in rounds._expanded())


_TRAFFIC: dict[tuple, tuple[int, int, int, bool]] = {}
"""layout.rank_traffic of message patterns already mapped (algorithms share many
patterns)."""


def _traffic(layout: Layout, src: np.ndarray, dst: np.ndarray,
             name=None) -> tuple[int, int, int, bool]:
    if name is None:
        name = hashlib.blake2b(src.tobytes() + b"|" + dst.tobytes(), digest_size=20).digest()
    key = (layout, name)
    if key not in _TRAFFIC:
        if len(_TRAFFIC) >= 8192:
            _TRAFFIC.clear()
        _TRAFFIC[key] = layout.rank_traffic(src, dst)
    return _TRAFFIC[key]


def _pattern_traffic(layout: Layout, kind: str, offsets: np.ndarray) -> list[tuple]:
    """layout.rank_traffic of a pattern round per offset (collectives.structured), cached
    as :func:`_traffic`."""
    digest = hashlib.blake2b(kind.encode() + b"|" + offsets.tobytes(), digest_size=20).digest()
    key = (layout, digest)
    if key not in _TRAFFIC:
        if len(_TRAFFIC) >= 8192:
            _TRAFFIC.clear()
        count = structured.shift_traffic if kind == "shift" else structured.xor_traffic
        _TRAFFIC[key] = count(layout, offsets)
    return _TRAFFIC[key]


@lru_cache(maxsize=512)
def schedule(algorithm: str, operation: str, layout: Layout) -> tuple[Step, ...]:
    """The steps of a point-to-point algorithm on a layout, identical steps merged.

    Each round's messages (MPICH's algorithms as Thakur et al. describe them over the
    ``layout.ranks`` ranks, rank r on endpoint ``layout.rank_endpoints()[r]``) are mapped
    with ``layout.rank_traffic``: the step is charged the largest hop count of its
    inter-node messages, the largest number of them on one channel (both maxima, so an
    upper bound when different messages attain them), the most of them through one node's
    adapter, and whether any message stays within a node. Rounds are listed in
    :data:`TABLE`'s notes; numeric only (the topology is fixed), cached.
    """
    key = (algorithm, operation)
    if key not in TABLE or TABLE[key].steps is None:
        raise InputError(f"{algorithm} has no step schedule for {operation}")
    merged: dict[tuple, int] = {}
    rounds = _rounds(algorithm, operation, layout.ranks)
    for count, fraction, combine, src, dst, blocks, last, (name, last_name) in rounds.entries:
        if isinstance(src, str):
            # equal rounds counted before a step key (which hashes its Fraction) is made:
            # a pairwise pattern has P - 1 rounds and few distinct ones; first-seen order
            # is kept, so the steps come out as before
            for traffic, times in Counter(_pattern_traffic(layout, src, dst)).items():
                step = (fraction, *traffic[:2], combine, *traffic[2:], blocks, None)
                merged[step] = merged.get(step, 0) + count * times
            continue
        hops, load, host, intra = _traffic(layout, src, dst, name)
        carriers = None if last is None else _traffic(layout, src[last], dst[last], last_name)
        step = (fraction, hops, load, combine, host, intra, blocks, carriers)
        merged[step] = merged.get(step, 0) + count
    return tuple(Step(count, *step) for step, count in merged.items())


def step_bytes(m, fraction: Fraction):
    """fraction · m, the bytes of a step's message of an m-byte operation (m as it comes:
    a number, an array or a SymPy expression; exact for the fractions 0 and 1)."""
    if fraction == 0:
        return 0 * m
    if fraction == 1:
        return m
    return m * fraction.numerator / fraction.denominator


def split_bytes(m, fraction: Fraction, blocks: int, element_size):
    """Bytes of the largest message of a step that sends ``fraction`` · blocks of the
    ``blocks`` blocks of an m-byte vector cut in whole elements (MPICH's and SMPI's
    Rabenseifner, Thakur et al. §4.4's cnts):

        c = ceil(m / e) elements, q = floor(c / B) per block, the last block q + (c mod B);
        bytes = min(m, e · (k·q + c mod B)),  k = fraction · B

    With c a multiple of B this is fraction · m (the even split); with fewer elements than
    blocks (q = 0) every step carries all c elements, held in the last block."""
    return _split(m, fraction, blocks, element_size)[0]


def _split(m, fraction: Fraction, blocks: int, element_size):
    """(:func:`split_bytes`, the bytes of a message of the same step without the last
    block: min(m, e·k·q))."""
    k = int(fraction * blocks)
    count = ops.ceil(m / element_size)
    per_block = ops.floor(count / blocks)
    rest = count - per_block * blocks
    return (ops.minimum(m, element_size * (k * per_block + rest)),
            ops.minimum(m, element_size * k * per_block))


def intra_node_time(m, *, host_bandwidth, software_overhead=0):
    """Time of one m-byte message between two ranks of one node (s):

        T_intra(m) = O + m / B_host

    0 router hops: the message is a copy through the node's memory, charged the software
    overhead O (send + receive, as an inter-node message) and m bytes at the host interface
    bandwidth B_host (a stand-in for the copy bandwidth, which machine files do not give);
    no injection, router or ejection latency.
    """
    return software_overhead + m / host_bandwidth


def schedule_time(m, steps, *, flit_size, packet_max_flits, packet_header_flits,
                  injection_latency, ejection_latency, router_latency, link_latency,
                  link_bandwidth, host_bandwidth, software_overhead=0, store_and_forward=0,
                  combine_time=0, element_size=None, step_overhead=0):
    """Time of a step schedule (s):

        T = Σ_steps count · [ max(T(f·m, h; B_link / c, B_host / a), T_intra(f·m))
                              + γ · f·m  (if the step combines) + O_step ]

    T = network.latency (software overhead, injection, h + 1 routers, h links, ejection,
    serialization); f = the step's fraction of m, h its hops, c its channel load: the c
    messages sharing a channel each get B_link / c of it (so the shared link serializes all
    c); a = the step's ``host``, the most inter-node messages through one node's adapter
    (1 with one process per node: the host interface is then not shared; the term is left
    out when a = 0, no message leaving its node); T_intra = :func:`intra_node_time`, only
    in steps with a message between two ranks of one node. γ = ``combine_time`` seconds per
    byte. A step that splits the vector in whole elements (``Step.blocks``), when
    ``element_size`` is given (numeric parameters; the symbolic form keeps f·m), is the
    longer of its two kinds of message: those carrying the last block, :func:`split_bytes`
    each, charged their own hops, channel load and adapter sharing (``Step.last``), and
    the others, e·k·q bytes (header only when q = 0), charged the whole step's; a channel
    shared between the two kinds is charged within each kind only (exact when the others
    carry no elements). Without ``Step.last`` the largest size takes the whole step's
    traffic.
    O_step = ``step_overhead``: the library's software time per step beyond its messages'
    overhead O (software.mpi_step_overhead, absent 0), charged to every step, which is
    LogGP's exchange step when O_step = 0 (docs/mpi-algorithms.md, "A step against half a
    ping-pong"; network.loggp_view.exchange_step).
    Steps are synchronous: a step starts when the previous one has ended everywhere
    (Thakur et al.'s model). On a full crossbar (h = 1, c = 1) with a linear T(n) = α + nβ
    this is exactly Thakur et al.'s α-β-γ form of the algorithm, α = T(0, 1) and β its
    per-byte slope (tests/model/test_collectives.py).
    """
    net = {"flit_size": flit_size, "packet_max_flits": packet_max_flits,
           "packet_header_flits": packet_header_flits,
           "injection_latency": injection_latency, "ejection_latency": ejection_latency,
           "router_latency": router_latency, "link_latency": link_latency}
    total = 0
    def timed(size, hops, load, host, intra):
        time = None
        if host:
            rate = host_bandwidth if host == 1 else host_bandwidth / host
            time = network.latency(size, hops, **net, host_bandwidth=rate,
                                   link_bandwidth=link_bandwidth / max(load, 1),
                                   software_overhead=software_overhead,
                                   store_and_forward=store_and_forward)
        if intra:
            copy = intra_node_time(size, host_bandwidth=host_bandwidth,
                                   software_overhead=software_overhead)
            time = copy if time is None else ops.maximum(time, copy)
        if time is not None and combine:
            time = time + combine_time * size
        return time

    for step in steps:
        combine = step.combine
        traffic = (step.hops, step.load, step.host, step.intra)
        if step.blocks and element_size is not None:
            size, others = _split(m, step.fraction, step.blocks, element_size)
            time = timed(size, *(step.last or traffic))
            if step.last is not None:
                rest = timed(others, *traffic)
                time = rest if time is None else time if rest is None else ops.maximum(
                    time, rest)
        else:
            time = timed(step_bytes(m, step.fraction), *traffic)
        if time is None:
            continue
        total = total + step.count * (time + step_overhead)
    return total
