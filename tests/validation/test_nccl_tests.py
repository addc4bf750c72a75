"""The nccl-tests / rccl-tests claims: registered, held out, their readings from the tables
and their statuses at registration."""

from __future__ import annotations

import pytest

from icnperf.validation.claim import evaluate
from icnperf.validation.claims.nccl_tests import CLAIMS, auto_busbw
from icnperf.validation.registry import all_claims


def test_registered_and_post_hoc():
    """The model took the mechanisms their first results pointed to, so all four count
    apart from the predictions (claims/nccl_tests.py)."""
    ids = {c.id for c in all_claims()}
    for claim in CLAIMS:
        assert claim.id in ids
        assert claim.kind == "post-hoc" and claim.tolerance == 0.25


def test_readings_from_the_sources():
    measured = {c.id: c.measured for c in CLAIMS}
    assert measured["lumi-g-rccl-allreduce-busbw-128mib"] == pytest.approx(85.0)
    assert measured["dgx-h100-nccl-allreduce-busbw-1node"] == pytest.approx(470.0)
    assert measured["dgx-a100-nccl-allreduce-busbw-1node"] == pytest.approx(240.0)
    assert measured["dgx-h100-nccl-ring-busbw-2nodes"] == pytest.approx(8 * 47.0)


def test_statuses():
    # open at registration: lumi-g (48.9 GB/s, one xGMI ring) and dgx-h100 one node (699
    # GB/s, NVLS at the link rate); both within their unchanged bands since the packed xGMI
    # rings, the library's per-link rates and NCCL's NVLS efficiency (95.7 and 489.9 GB/s)
    status = {c.id: evaluate(c).status for c in CLAIMS}
    assert status == {"lumi-g-rccl-allreduce-busbw-128mib": "pass",
                      "dgx-h100-nccl-allreduce-busbw-1node": "pass",
                      "dgx-h100-nccl-ring-busbw-2nodes": "pass",
                      "dgx-a100-nccl-allreduce-busbw-1node": "pass"}


def test_lumi_g_ring_is_bounded_by_the_nics():
    # Under RCCL 2.12.12 (the reference's) RCCL runs its rings on 16 GCDs: the packed xGMI
    # rings (4 x 36 = 144 GB/s) exceed the node's four 25 GB/s NICs, so busbw stays below
    # 100 GB/s and above one xGMI link's 50
    assert 50.0 < auto_busbw("lumi-g", "rccl", "allreduce", 2, 2.0 ** 27, "2.12.12") < 100.0


def test_lumi_g_under_the_presets_rccl_picks_the_tree_bound_by_its_chain():
    # The preset's RCCL 2.20.5 (tuning model 3: the two-node tree at 1.75) picks the tree;
    # its chain moves 2 S over B_up = 144 GB/s, S / 72 GB/s, above the NICs' S / 100 GB/s:
    # busbw below 2 x 15/16 x 72 = 135 GB/s, above the ring's 100
    busbw = auto_busbw("lumi-g", "rccl", "allreduce", 2, 2.0 ** 27)
    assert 100.0 < busbw < 2 * 15 / 16 * 72


def test_osu_gpu_allreduce_claims_at_registration():
    from icnperf.validation.claims.osu_gpu_collectives import CLAIMS as OSU

    status = {c.id: (c.measured, evaluate(c).status) for c in OSU}
    assert status == {"lumi-g-osu-gpu-allreduce-8b-2n": (pytest.approx(6.0), "open"),
                      "lumi-g-osu-gpu-allreduce-8b-4n": (pytest.approx(10.5), "pass")}
