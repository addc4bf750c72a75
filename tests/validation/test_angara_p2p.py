"""The Angara 16-byte latencies (Agarkov 2015 Table 2) against the angara-36 preset."""

import pytest

from icnperf.validation.claims import angara_p2p
from icnperf.validation.registry import evaluate

# Hand count for neighbours (1 hop): 300 ns injection + 2 routers x 8 ns + 80 ns link
# + 300 ns ejection + 2 flits (16 B payload + 16 B header) at 75 Gbit/s = 32 / 9.375e9 s.
HARDWARE_16B = 300e-9 + 2 * 8e-9 + 80e-9 + 300e-9 + 32 / (75e9 / 8)


def test_hardware_path_alone_is_within_the_shmem_figure():
    assert angara_p2p._predicted("none") == pytest.approx(HARDWARE_16B, rel=1e-12)
    result = evaluate(next(c for c in angara_p2p.CLAIMS
                           if c.id == "angara-hw-16b-within-shmem"))
    assert (result.predicted, result.kind) == (1.0, "predicted")


def test_latency_claims_are_the_calibrated_ones():
    kinds = {c.id: (c.kind, c.fitted) for c in angara_p2p.CLAIMS}
    assert kinds["angara-shmem-16b-latency"] == ("calibrated",
                                                 "software.shmem_overhead (angara-36)")
    assert kinds["angara-mpi-16b-latency"] == ("calibrated", "software.mpi_overhead (angara-36)")


def test_measured_values_come_from_the_bundled_table():
    assert angara_p2p._measured("SHMEM") == 0.7e-6
    assert angara_p2p._measured("MPI") == 1e-6


@pytest.mark.parametrize("claim", angara_p2p.CLAIMS, ids=lambda c: c.id)
def test_angara_latency_claims_pass(claim):
    assert evaluate(claim).status == "pass"


def test_mpi_prediction_is_hardware_plus_the_preset_overhead():
    assert angara_p2p._predicted("mpi") == pytest.approx(HARDWARE_16B + 300e-9, rel=1e-12)
