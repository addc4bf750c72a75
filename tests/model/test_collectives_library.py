"""The algorithms MPI libraries' rules name (scatter + recursive-doubling broadcast, pairwise
and linear all-to-all) against a brute-force replay of the data each rank holds, and their
alpha-beta forms on a crossbar derived by hand."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from icnperf.model import collectives as C
from icnperf.model.collectives import fluid

from tests.model.test_collectives import ALPHA, BETA, GAMMA, LINEAR

RANKS = range(2, 18)


def _rounds(algorithm, operation, p):
    return C._rounds(algorithm, operation, p).rounds


def _scatter_holdings(p):
    """Blocks each rank holds after MPICH's binomial scatter from rank 0, replayed block by
    block: a parent passes a child the blocks of the child's subtree [child, child + mask)
    cut at P; returns (holdings, blocks sent per step)."""
    holds = [set(range(p))] + [set() for _ in range(p - 1)]
    sent = []
    for t in reversed(range((p - 1).bit_length())):
        mask = 1 << t
        most = 0
        for src in range(0, p, 2 * mask):
            dst = src + mask
            if dst < p:
                blocks = set(range(dst, min(dst + mask, p)))
                assert blocks <= holds[src]
                holds[dst] |= blocks
                most = max(most, len(blocks))
        if most:
            sent.append(most)
    return holds, sent


@pytest.mark.parametrize("p", RANKS)
def test_scatter_recursive_doubling_broadcast_delivers_every_block(p):
    holds, scatter = _scatter_holdings(p)
    assert all(holds[r] >= {r} for r in range(p))
    rounds = _rounds("recursive-doubling", "broadcast", p)
    # the scatter's rounds carry the most blocks a sender passes, as fractions of m
    assert [r[1] for r in rounds[:len(scatter)]] == [Fraction(b, p) for b in scatter]
    mine = [{r} for r in range(p)]              # after the scatter rank r needs only its own
    gather = rounds[len(scatter):]
    for count, fraction, combine, src, dst in gather:
        assert count == 1 and not combine
        incoming = [set() for _ in range(p)]
        for s, d in zip(src.tolist(), dst.tolist()):
            if p & (p - 1) == 0:
                incoming[d] |= mine[s]                 # recursive doubling: all it holds
                assert len(mine[s]) == fraction * p
            else:
                # Bruck: rank s passes its first blocks s, s + 1, ... (mod P), which it holds
                blocks = {b % p for b in range(s, s + int(fraction * p))}
                assert blocks <= mine[s]
                incoming[d] |= blocks
        for r in range(p):
            mine[r] |= incoming[r]
    assert all(h == set(range(p)) for h in mine)
    if p & (p - 1) == 0:
        assert len(gather) == p.bit_length() - 1
    else:
        assert len(gather) == math.ceil(math.log2(p))


@pytest.mark.parametrize("p", RANKS)
def test_pairwise_alltoall_sends_each_block_once(p):
    rounds = _rounds("pairwise", "alltoall", p)
    assert len(rounds) == p - 1
    pairs = set()
    for count, fraction, combine, src, dst in rounds:
        assert (count, fraction, combine) == (1, Fraction(1, p), False)
        assert sorted(src.tolist()) == list(range(p))
        assert sorted(dst.tolist()) == list(range(p))   # each rank receives one block
        assert not np.any(src == dst)
        pairs |= set(zip(src.tolist(), dst.tolist()))
    assert pairs == {(s, d) for s in range(p) for d in range(p) if s != d}


@pytest.mark.parametrize("p", [4, 8, 16])
def test_pairwise_alltoall_partners_are_xor_on_a_power_of_two(p):
    for i, (_, _, _, src, dst) in enumerate(_rounds("pairwise", "alltoall", p), start=1):
        assert list(dst) == [r ^ i for r in range(p)]


@pytest.mark.parametrize("p", RANKS)
def test_crossbar_forms_by_hand(p):
    layout = C.Layout.crossbar(p)
    n = p * 3 * 2.0 ** 12
    lg = math.ceil(math.log2(p))
    # scatter (lg P steps, (P-1)/P n in all) then an all-gather of lg P steps and the same
    # bytes, for P a power of two (recursive doubling) or not (Bruck)
    rd = C.evaluate("broadcast", "recursive-doubling", n, layout, LINEAR)
    assert float(rd) == pytest.approx(2 * lg * ALPHA + 2 * (p - 1) / p * n * BETA, rel=1e-12)
    # pairwise: P - 1 steps of one block of n/P
    pw = C.evaluate("alltoall", "pairwise", n, layout, LINEAR)
    assert float(pw) == pytest.approx((p - 1) * (ALPHA + n / p * BETA), rel=1e-12)


def test_linear_alltoall_is_the_linear_allgather_pattern():
    for p in (2, 5, 16):
        a = _rounds("linear", "alltoall", p)
        b = _rounds("linear", "allgather", p)
        assert len(a) == len(b) == 1
        assert a[0][1] == Fraction(1, p) and len(a[0][3]) == p * (p - 1)
        assert np.array_equal(a[0][3], b[0][3]) and np.array_equal(a[0][4], b[0][4])
    assert fluid.rank_limit("linear", "alltoall") == fluid.rank_limit("linear", "allgather")


# --- Rabenseifner in whole elements (issue #15) --------------------------------------------


def _smpi_rabenseifner_sends(count, pof2):
    """Elements each survivor sends per step of SMPI's allreduce_rab_rdb (and MPICH's
    reduce_scatter_allgather), replayed from its index arithmetic: cnts = count // pof2 per
    block, the rest in the last; the halving keeps the lower half at the lower rank; the
    all-gather mirrors it. Returns one list of pof2 send counts per step."""
    cnts = [count // pof2] * (pof2 - 1) + [count - (count // pof2) * (pof2 - 1)]
    steps = []
    state = {}
    for r in range(pof2):
        state[r] = {"send_idx": 0, "recv_idx": 0, "last_idx": pof2}
    mask = 1
    while mask < pof2:
        sends = []
        for r in range(pof2):
            s = state[r]
            partner = r ^ mask
            if r < partner:
                s["send_idx"] = s["recv_idx"] + pof2 // (mask * 2)
                sends.append(sum(cnts[s["send_idx"]:s["last_idx"]]))
            else:
                s["recv_idx"] = s["send_idx"] + pof2 // (mask * 2)
                sends.append(sum(cnts[s["send_idx"]:s["recv_idx"]]))
        for r in range(pof2):
            s = state[r]
            s["send_idx"] = s["recv_idx"]
        steps.append(sends)
        mask <<= 1
        if mask < pof2:
            for r in range(pof2):
                state[r]["last_idx"] = state[r]["recv_idx"] + pof2 // mask
    mask >>= 1
    while mask > 0:
        sends = []
        for r in range(pof2):
            s = state[r]
            partner = r ^ mask
            if r < partner:
                if mask != pof2 // 2:
                    s["last_idx"] = s["last_idx"] + pof2 // (mask * 2)
                s["recv_idx"] = s["send_idx"] + pof2 // (mask * 2)
                sends.append(sum(cnts[s["send_idx"]:s["recv_idx"]]))
            else:
                s["recv_idx"] = s["send_idx"] - pof2 // (mask * 2)
                sends.append(sum(cnts[s["send_idx"]:s["last_idx"]]))
        for r in range(pof2):
            if r > r ^ mask:
                state[r]["send_idx"] = state[r]["recv_idx"]
        steps.append(sends)
        mask >>= 1
    return steps


@pytest.mark.parametrize("p", RANKS)
@pytest.mark.parametrize("count", [1, 3, 32, 100, 257, 4096])
def test_rabenseifner_split_matches_the_smpi_replay(p, count):
    from icnperf.model.collectives.schedules import split_bytes, _split

    element = 8
    m = count * element
    pof2 = 1 << (p.bit_length() - 1)
    replay = _smpi_rabenseifner_sends(count, pof2)
    rounds = C._rounds("rabenseifner", "allreduce", p)
    split = [(r, last) for r, b, last in zip(rounds.rounds, rounds.blocks, rounds.last) if b]
    assert len(split) == len(replay)
    for ((_, fraction, _, _, _), last), sends in zip(split, replay):
        assert split_bytes(m, fraction, pof2, element) == element * max(sends)
        # the carriers of the last block send the most; the others send k·q elements
        big, others = _split(m, fraction, pof2, element)
        assert all(sends[r] == big / element for r in np.flatnonzero(last))
        assert all(sends[r] == others / element for r in np.flatnonzero(~last))


def test_rabenseifner_even_split_is_unchanged_when_the_blocks_divide():
    layout = C.Layout.torus((4, 4, 4))
    params = {**LINEAR, "element_size": 8.0}
    for m in (4096.0, 65536.0):                     # 512 and 8192 doubles over 64 blocks
        with_elements = C.evaluate("allreduce", "rabenseifner", m, layout, params)
        assert float(with_elements) == float(C.evaluate("allreduce", "rabenseifner", m,
                                                        layout, LINEAR))


def test_rabenseifner_with_fewer_elements_than_ranks_carries_them_all():
    # 32 doubles over 64 ranks on a crossbar: 12 steps, each carrying the whole 256 B, the
    # 6 halving steps combining it
    p, m = 64, 256.0
    got = C.evaluate("allreduce", "rabenseifner", m, C.Layout.crossbar(p),
                     {**LINEAR, "element_size": 8.0})
    assert float(got) == pytest.approx(12 * (ALPHA + m * BETA) + 6 * m * GAMMA, rel=1e-12)
