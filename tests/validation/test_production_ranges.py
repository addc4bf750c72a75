"""validate's production coverage (issue #31's goal): the claims on presets with
[production] values against their --uncertainty --production range and --production
point; the others counted as left out, with why."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import replace

import pytest

from icnperf.validation.claim import Claim
from icnperf.validation.production import (Busy, production_coverage, production_point,
                                           production_range, production_results)

BUSY = ["production.noise_frequency=1 kHz", "production.noise_duration=20 us",
        "production.background_utilization=0.3", "production.node_occupancy=0"]
"""Hypothetical values; the busy scheduler's placement off (one placement: the linear)."""


def _claim(busy_on, machine="fugaku", measured=1e-3, kind="predicted", cid="x"):
    return Claim(cid, "test", "q", measured, "s", 0.1, "relative", lambda: 1.0,
                 kind=kind, tolerance_reason="test", machine=machine,
                 predict_on=lambda m: 1.0, busy_on=busy_on)


def test_point_is_the_binomial_median_by_hand():
    # fugaku: f = 2.5 Hz, d = 25 us. 10 steps of 0.1 ms on 1000 ranks:
    # q = 1 - exp(-1000 x 2.5 x 1e-4) = 1 - exp(-0.25); P(K <= 1) = e^-2.5 + 10 q e^-2.25
    # = 0.0821 + 0.2331 = 0.315 < 0.5; + P(K = 2) = 45 q^2 e^-2 = 0.298 -> 0.613: K = 2,
    # so the median is 1 ms + 2 x 25 us
    q = -math.expm1(-0.25)
    assert math.exp(-2.5) + 10 * q * math.exp(-2.25) == pytest.approx(0.3152, abs=1e-4)
    claim = _claim(lambda m, _draw: Busy(1e-3, steps=10, ranks=1000))
    assert production_point(claim) == pytest.approx(1.05e-3, rel=1e-12)
    rate = _claim(lambda m, _draw: Busy(1e-3, steps=10, ranks=1000, value_of=lambda t: 8 / t))
    assert production_point(rate) == pytest.approx(8 / 1.05e-3, rel=1e-12)
    low, high = production_range(claim)
    assert low <= 1.05e-3 <= high
    assert production_range(claim) == (low, high)                     # seeded


def test_stream_is_not_delayed():
    claim = _claim(lambda m, _draw: Busy(2e-3, value_of=lambda t: 4.0 / t))
    assert production_point(claim) == pytest.approx(2000.0)


def test_fugaku_pingpong_by_hand():
    # 4 MiB at about 0.63 ms: q = 1 - exp(-2 x 2.5 Hz x 0.63 ms) = 0.3 % < 50 %, so the
    # median is the empty machine's latency (fugaku has no background utilisation); over
    # the draws f <= 5 Hz and t <= 1.2 ms give q <= 1.2 % < 5 %, so neither end of the 5-95 %
    # range moves: the production range is the empty machine's range
    from icnperf.validation.claims.real_machines import CLAIMS
    from icnperf.validation.ranges import range_of

    claim = next(c for c in CLAIMS if c.id == "fugaku-imb-pingpong-4mib")
    empty = claim.predict()
    assert -math.expm1(-2 * 2.5 * empty) < 0.004
    assert production_point(claim) == pytest.approx(empty, rel=1e-12)
    low, high = production_range(claim)
    assert high < 1.2e-3 and -math.expm1(-2 * 5.0 * high) < 0.05
    assert (low, high) == pytest.approx(range_of(claim), rel=1e-12)
    assert low <= claim.measured <= high


def test_busy_collective_is_predict_collective_production():
    import icnperf
    from icnperf.data.machine import load_machine
    from icnperf.model.production import production_quantiles
    from icnperf.validation.claims.real_machines import _busy_collective

    busy = _busy_collective(load_machine("piz-daint").with_overrides(BUSY), "allreduce",
                            "recursive-doubling", 8, 16)
    assert (busy.steps, busy.ranks) == (4, 16)              # lg 16 steps on 16 ranks
    (row,) = icnperf.predict_collective("piz-daint", "allreduce", nodes="16", bytes="8",
                                        algorithm="recursive-doubling", production=True,
                                        set=BUSY).to_dict()["rows"]
    assert busy.time_s == pytest.approx(row["empty_time_s"], rel=1e-12)
    assert production_quantiles(busy.time_s, busy.steps, busy.ranks,
                                queueing_per_step=busy.queueing_per_step_s,
                                frequency=1000.0, duration=20e-6) == pytest.approx(
        (row["time_s_low"], row["time_s"], row["time_s_high"]), rel=1e-12)


def test_registry_wants_predict_on_beside_busy_on():
    from icnperf.validation.registry import problems

    bad = replace(_claim(lambda m, _draw: Busy(1.0)), machine=None, predict_on=None)
    assert any("busy_on" in p for p in problems([bad]))
    assert problems([_claim(lambda m, _draw: Busy(1.0))]) == []


def test_coverage_counts_apart_and_says_why():
    # summit and sequoia carry no [production] values; an open claim counts as post hoc
    claims = [_claim(lambda m, _draw: Busy(1e-3), measured=1e-3, cid="in"),
              _claim(lambda m, _draw: Busy(1e-3), measured=2e-3, cid="out"),
              _claim(lambda m, _draw: Busy(1e-3), machine="summit", cid="summit"),
              _claim(lambda m, _draw: Busy(1e-3), machine="sequoia", kind="post-hoc", cid="bgq"),
              _claim(lambda m, _draw: Busy(1e-3), kind="calibrated", cid="cal"),
              replace(_claim(lambda m, _draw: Busy(1e-3), measured=1.2e-3, cid="open"),
                      open_reason="seen", open_tolerance=0.5),
              _claim(None, cid="unmodelled")]
    results = production_results(claims)
    assert [c["id"] for c in results["checks"]] == ["in", "out", "open"]
    assert [c["kind"] for c in results["checks"]] == ["predicted", "predicted", "post-hoc"]
    assert results["checks"][2]["registered_kind"] == "predicted"
    assert results["unmodelled"] == [{"id": "unmodelled", "kind": "predicted"}]
    counts = production_coverage(results)
    assert counts["predicted"] == {"ranged": 4, "claims": 2, "inside": 1,
                                   "median_width": 1.0, "point_within": 1,
                                   "without_production": {"summit": 1}, "unmodelled": 1}
    assert counts["post-hoc"] == {"ranged": 2, "claims": 1, "inside": 0,
                                  "median_width": 1.0, "point_within": 1,
                                  "without_production": {"sequoia": 1}, "unmodelled": 0}
    assert counts["calibrated"] == {"claims": 1}


def _validate(*args):
    from click.testing import CliRunner

    from icnperf.cli import cli

    return CliRunner().invoke(cli, ["validate", *args])


def test_table_on_fugaku():
    result = _validate("--only", "fugaku-*")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("production ranges"))
    text = " ".join(line.strip() for line in lines[at + 3:at + 6])
    # fugaku's 4 MiB PingPong and injection rate, both inside (test_fugaku_pingpong_by_hand)
    assert text.startswith("predicted: 2 of 2 measurements inside their range; median width"
                           " (high/low) 2.04; 2 of 2 points within 30 %")
    assert "2 calibrated not counted" in text
    assert "post hoc" not in text                          # no post-hoc claim on fugaku
    assert all(len(line) <= 100 for line in lines)


def test_lines_say_why_nothing_is_counted():
    from icnperf.reports.text.validate import production_text

    results = production_results([_claim(lambda m, _draw: Busy(1e-3), machine="summit"),
                                  _claim(lambda m, _draw: Busy(1e-3), machine="sequoia",
                                         kind="post-hoc"),
                                  _claim(lambda m, _draw: Busy(1e-3), machine="summit",
                                         kind="post-hoc")])
    text = " ".join(production_text({"sampling": {"samples": 200, "seed": 0,
                                                  "quantiles": [0.05, 0.95]},
                                     "point_tolerance": 0.3, "checks": results["checks"],
                                     "unmodelled": [],
                                     "coverage": production_coverage(results)}).split())
    assert ("predicted: 0 of 1 counted: no [production] values on their presets "
            "(summit 1)") in text
    assert ("post hoc: 0 of 2 counted: no [production] values on their presets "
            "(sequoia 1, summit 1)") in text


def test_open_piz_daint_claims_count_as_post_hoc():
    # all four ranged Piz Daint claims outside the calibrations are open (osu_bw and the
    # 6-node all-reduce registered as predicted): the production coverage counts them
    # post hoc. The 16-node all-reduce's point by hand: 4 steps of T/4 = 1.36 us on 16
    # ranks at 495 Hz: q = 1 - exp(-16 x 495 x 1.36e-6) = 1.1 %, P(no hit) = 0.958 >= 1/2,
    # so the median adds no detour (and piz-daint has no background): the empty machine's
    from icnperf.validation.claims.real_machines import CLAIMS

    claim = next(c for c in CLAIMS if c.id == "piz-daint-osu-allreduce-8b-16n")
    q = -math.expm1(-16 * 495 * claim.predict() / 4)
    assert (1 - q) ** 4 > 0.95
    # under piz-daint's busy scheduler (node_occupancy 0.96) the point is the median over
    # the placement draws, as predict collective --production computes it: above the
    # linear placement's empty time (the nodes sit on more routers and groups)
    import icnperf

    (row,) = icnperf.predict_collective("piz-daint", "allreduce", nodes="16", bytes="8",
                                        algorithm="recursive-doubling",
                                        production=True).to_dict()["rows"]
    assert production_point(claim) == pytest.approx(row["time_s"], rel=1e-12)
    assert production_point(claim) > claim.predict() == pytest.approx(row["empty_time_s"])
    result = _validate("--only", "piz-daint-*", "--format", "json")
    production = json.loads(result.output)["production"]
    assert {c["id"]: c["kind"] for c in production["checks"]} == {
        "piz-daint-osu-bw-4mib": "post-hoc", "piz-daint-osu-allreduce-8b-6n": "post-hoc",
        "piz-daint-osu-allreduce-8b-16n": "post-hoc",
        "piz-daint-osu-alltoall-8b-16n": "post-hoc"}
    assert production["coverage"]["predicted"]["ranged"] == 0
    assert production["coverage"]["post-hoc"]["claims"] == 4


def test_json_csv_and_html_carry_it(tmp_path):
    doc = json.loads(_validate("--only", "fugaku-*", "--format", "json").output)
    production = doc["production"]
    assert production["point_tolerance"] == 0.3
    assert production["sampling"] == {"samples": 200, "seed": 0, "quantiles": [0.05, 0.95]}
    assert [c["id"] for c in production["checks"]] == ["fugaku-imb-pingpong-4mib",
                                                       "fugaku-tofud-injection"]
    check = production["checks"][0]
    for field in ("measured", "production", "point_error", "point_within", "production_low",
                  "production_high", "inside", "width", "machine", "unit", "kind"):
        assert field in check
    assert production["coverage"]["predicted"]["inside"] == 2
    assert production["unmodelled"] == []
    assert production["coverage"]["predicted"]["ranged"] == 2

    rows = list(csv.DictReader(io.StringIO(
        _validate("--only", "fugaku-*", "--format", "csv").output)))
    by_id = {r["id"]: r for r in rows}
    assert float(by_id["fugaku-imb-pingpong-4mib"]["production"]) == pytest.approx(
        check["production"])
    assert by_id["fugaku-imb-pingpong-4mib"]["production_inside"] == "True"
    assert by_id["fugaku-imb-pingpong-8b"]["production"] == ""     # calibrated: not counted

    page = tmp_path / "v.html"
    assert _validate("--only", "fugaku-*", "-o", str(page)).exit_code == 0
    html = page.read_text()
    assert "Production ranges" in html and "fugaku-tofud-injection" in html
    assert "2 of 2 points within 30 %" in html


def test_no_block_without_real_machine_claims():
    result = _validate("--only", "nudt-*")
    assert result.exit_code == 0
    assert "production ranges" not in result.output


@pytest.mark.parametrize("cid, options, field, scale", [
    ("alps-osu-gpu-latency-4mib", {"bytes": 4194304, "hops": 0, "buffers": "gpu"},
     "latency_s", 1e6),
    ("lumi-g-osu-gpu-multi-lat-8b", {"bytes": 8, "hops": 0, "buffers": "gpu", "ppn": 8},
     "latency_s", 1e6),
    ("lumi-g-osu-bw-cupy-ipc-4mib", {"bytes": 4194304, "same_node": True, "buffers": "gpu",
                                     "from_gpu": 0, "to_gpu": 1},
     "streaming_bandwidth_Bps", 1e-9),
    ("lumi-osu-bw-4mib", {"bytes": 4194304, "hops": 0}, "streaming_bandwidth_Bps", 1e-9),
])
def test_point_is_predict_p2p_production(cid, options, field, scale):
    import icnperf
    from icnperf.validation.registry import all_claims

    claim = next(c for c in all_claims() if c.id == cid)
    preset = claim.machine
    (row,) = icnperf.predict_p2p(preset, production=True, **options).rows
    assert production_point(claim) == pytest.approx(row[field] * scale, rel=1e-12)


def test_hierarchical_lumi_claims_are_charged_as_predict_collective_production():
    # LUMI's 128 ranks a node on 2 nodes: 14 node-local rounds on 256 ranks, 1 leaders'
    # exchange on 2 (the one step that waits the background)
    import icnperf
    from icnperf.data.machine import load_machine
    from icnperf.model.production import grouped_quantiles
    from icnperf.validation.claims.real_machines import _busy_collective

    machine = load_machine("lumi").with_overrides(BUSY)
    busy = _busy_collective(machine, "allreduce", "recursive-doubling", 8, 2, 128)
    assert [(g.steps, g.ranks) for g in busy.noise_groups] == [(14, 256), (1, 2)]
    assert (busy.steps, busy.waiting) == (15, 1)
    (row,) = icnperf.predict_collective("lumi", "allreduce", nodes="2", ppn=128, bytes="8",
                                        algorithm="recursive-doubling", production=True,
                                        set=BUSY).to_dict()["rows"]
    assert busy.time_s == pytest.approx(row["empty_time_s"], rel=1e-12)
    assert grouped_quantiles(busy.time_s, busy.noise_groups, waiting_steps=busy.waiting,
                             queueing_per_step=busy.queueing_per_step_s, frequency=1000.0,
                             duration=20e-6) == pytest.approx(
        (row["time_s_low"], row["time_s"], row["time_s_high"]), rel=1e-12)


def test_lumi_g_claims_are_charged_in_microseconds():
    # LUMI-G 4 nodes x 8 GCDs: 6 node-local rounds on 32 ranks; the library's pick among 4
    # leaders (recursive doubling at 8 bytes): lg 4 = 2 steps on 4 ranks
    import icnperf
    from icnperf.data.machine import load_machine
    from icnperf.validation.claims.osu_gpu_collectives import gpu_allreduce_busy

    busy = gpu_allreduce_busy(4, load_machine("lumi-g"))
    assert [(g.steps, g.ranks) for g in busy.noise_groups] == [(6, 32), (2, 4)]
    assert busy.waiting == 2
    (row,) = icnperf.predict_collective("lumi-g", "allreduce", nodes="4", ppn=8, bytes="8",
                                        buffers="gpu", algorithm="auto",
                                        production=True).to_dict()["rows"]
    assert busy.value(busy.time_s) == pytest.approx(row["empty_time_s"] * 1e6, rel=1e-12)


def test_every_real_machine_claim_with_a_range_has_a_charge():
    # the five hierarchical all-reduces (LUMI-G 8 GCDs a node, LUMI 128 ranks a node) count
    from icnperf.validation.claims import osu_gpu_collectives, real_machines

    results = production_results(real_machines.CLAIMS + osu_gpu_collectives.CLAIMS)
    assert results["unmodelled"] == []
    ids = {c["id"] for c in results["checks"]}
    assert {"lumi-g-osu-gpu-allreduce-8b-2n", "lumi-g-osu-gpu-allreduce-8b-4n",
            "lumi-osu-allreduce-8b-1n-128ppn", "lumi-osu-allreduce-8b-2n-128ppn",
            "lumi-osu-allreduce-8b-4n-128ppn"} <= ids
