"""Claims on GPU buffers (icnperf/validation/claims/gpu_buffers.py): registered with kinds
and reasons, one published latency per machine calibrating its GPU-buffer overhead, the
calibrations in place, the held-out claims evaluated."""

from __future__ import annotations

import pytest

from icnperf.data.machine import load_machine
from icnperf.model.network import p2p_table
from icnperf.validation import registry
from icnperf.validation.claims import gpu_buffers as G

HELD_OUT = [c for c in G.CLAIMS if c.kind == "predicted" and not c.open_reason]


def test_registered_once_with_kinds_and_reasons():
    ids = [c.id for c in registry.all_claims()]
    for claim in G.CLAIMS:
        assert ids.count(claim.id) == 1
        assert claim.tolerance_reason and claim.source
    calibrated = {c.id: c.fitted for c in G.CLAIMS if c.kind == "calibrated"}
    assert calibrated == {
        "alps-osu-gpu-latency-256b": "software.gpu_mpi_overhead (alps preset)",
        "lumi-g-osu-gpu-latency-8b": "software.gpu_mpi_overhead (lumi-g preset)"}
    assert len(HELD_OUT) == 9
    # the model's values were known when these two were written: post hoc, not predictions
    assert {c.id for c in G.CLAIMS if c.kind == "post-hoc"} == {
        "lumi-g-osu-bw-cupy-4mib", "lumi-g-osu-bw-cupy-ipc-4mib"}


def test_calibrations_reproduce_their_figures():
    # alps: 256 B on one switch, 2590 ns of overhead over the hardware path
    alps = load_machine("alps")
    bare = alps.with_overrides(["software.gpu_mpi_overhead=0ns"])
    hardware = float(p2p_table(bare, [256], 0, "mpi", buffers="gpu").columns["latency_s"][0])
    assert hardware + 2590e-9 == pytest.approx(3.75e-6, rel=0.01)
    # the preset's sources name the figure they were fitted to
    assert "3.75" in alps.source("software.gpu_mpi_overhead")
    assert "2.5" in load_machine("lumi-g").source("software.gpu_mpi_overhead")


@pytest.mark.parametrize("claim", [c for c in G.CLAIMS if not c.open_reason],
                         ids=lambda c: c.id)
def test_claims_pass(claim):
    assert registry.evaluate(claim).status == "pass"


def test_open_claims_state_why():
    opened = {c.id: c for c in G.CLAIMS if c.open_reason}
    assert set(opened) == {"lumi-g-osu-gpu-multi-lat-8b", "lumi-g-osu-bw-cupy-ipc-4mib"}
    for claim in opened.values():
        assert registry.evaluate(claim).status == "open"


def test_gcd_pair_stream_is_the_in_package_links_peak():
    # GCD 0 -> 1: 4 links x 50 GB/s; a 4 MiB copy (84 us) outlasts half the 1340 ns overhead
    assert G.gpu_pair_stream("lumi-g", 4194304, 0, 1) == pytest.approx(200e9, rel=1e-12)
