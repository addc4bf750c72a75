"""``icnperf simulate traffic``: batches (--seeds, --scheduler, --workers, progress) and
every simulated family, routing, pattern, packet size and router pipeline next to the
closed forms.

Runs are kept tiny (networks of 16 to 200 endpoints, a few thousand cycles) so the file
stays fast.
"""

from __future__ import annotations

import json
import math
import socket
import statistics

import pytest
from click.testing import CliRunner

from icnperf import runner
from icnperf.cli import cli

BASE = ["simulate", "traffic", "--topology", "torus:4x4", "--rates", "0.2,0.6",
        "--warmup", "100", "--measure", "200", "--drain", "200"]


def invoke(*extra: str):
    return CliRunner().invoke(cli, [*BASE, *extra])


def test_replicates_are_the_single_seed_runs_and_rows_summarize_them():
    """--seeds 3 --seed 5 runs seeds 5, 6, 7 per rate; each replicate equals a lone
    --seed run, and the row's mean and min..max are recomputed here from the replicates."""
    batch = invoke("--seed", "5", "--seeds", "3", "--format", "json", "--scheduler",
                   "processes", "--workers", "2")
    assert batch.exit_code == 0, batch.output
    doc = json.loads(batch.stdout)
    runs = doc["runs"]
    assert [(r["rate"], r["seed"]) for r in runs] == [
        (0.2, 5), (0.2, 6), (0.2, 7), (0.6, 5), (0.6, 6), (0.6, 7)]
    single = json.loads(invoke("--seed", "6", "--format", "json").stdout)["rows"]
    for rate_index, row in enumerate(single):
        replicate = runs[rate_index * 3 + 1]
        for key in ("average_latency", "p99_latency", "accepted", "accepted_min", "packets"):
            assert replicate[key] == row[key]
    for rate_index, row in enumerate(doc["rows"]):
        mine = runs[rate_index * 3:rate_index * 3 + 3]
        latencies = [r["average_latency"] for r in mine]
        accepted = [r["accepted"] for r in mine]
        assert len(set(latencies)) > 1  # the seeds really differ
        assert row["seeds"] == 3
        assert row["average_latency"] == pytest.approx(statistics.fmean(latencies))
        assert (row["average_latency_lo"], row["average_latency_hi"]) == (
            min(latencies), max(latencies))
        assert row["accepted"] == pytest.approx(statistics.fmean(accepted))
        assert (row["accepted_lo"], row["accepted_hi"]) == (min(accepted), max(accepted))
        assert row["packets"] == sum(r["packets"] for r in mine)
    assert doc["inputs"]["seeds"] == 3
    assert any("a range, not a confidence interval" in n for n in doc["notes"])


def test_one_seed_keeps_todays_table_and_more_seeds_add_ranges():
    one = invoke("--seed", "1", "--wide")          # headers whole, one table
    assert one.exit_code == 0, one.output
    assert "sim avg latency" in one.stdout and "min..max" not in one.stdout
    three = invoke("--seeds", "3", "--wide")
    assert three.exit_code == 0, three.output
    assert "3 seeds per rate" in three.stdout
    assert "sim avg latency (mean)" in three.stdout and "min..max" in three.stdout


def test_csv_with_seeds_carries_the_spread():
    result = invoke("--seeds", "2", "--format", "csv")
    assert result.exit_code == 0, result.output
    header = result.stdout.splitlines()[0].split(",")
    assert {"seeds", "average_latency_lo", "average_latency_hi", "accepted_lo",
            "accepted_hi"} <= set(header)
    assert len(result.stdout.splitlines()) == 3  # header + 2 rates


def test_permutation_replicates_compare_each_seed_with_its_own_permutation():
    """The seeded permutation's bound depends on the seed: the row's model columns are the
    mean of each seed's own prediction (recomputed here from the lone-seed runs)."""
    args = ("--traffic", "permutation", "--rates", "0.3", "--format", "json")
    batch = json.loads(invoke(*args, "--seeds", "2").stdout)
    lone = [json.loads(invoke(*args, "--seed", str(s)).stdout)["rows"][0] for s in (0, 1)]
    row = batch["rows"][0]
    for key in ("zero_load_latency", "predicted_accepted"):
        assert row[key] == pytest.approx(statistics.fmean(r[key] for r in lone))
    assert any("its own permutation" in n for n in batch["notes"])


def test_progress_bar_goes_to_stderr_only():
    result = invoke("--seeds", "2", "--progress", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert "4/4" in result.stderr and "[###" in result.stderr
    assert "[" not in result.stdout and "4/4" not in result.stdout
    quiet = invoke("--seeds", "2", "--format", "csv")
    assert quiet.stderr == ""  # not a terminal under CliRunner
    assert quiet.stdout == result.stdout


def test_a_single_run_shows_its_cycles():
    """One rate, one seed: the bar counts cycles (warm-up + measure + drain), and ends full
    even when the drain stops early."""
    result = CliRunner().invoke(cli, ["simulate", "traffic", "--topology", "torus:4x4",
                                      "--rates", "0.1", "--warmup", "1000", "--measure",
                                      "1000", "--drain", "1000", "--progress"])
    assert result.exit_code == 0, result.output
    assert "(cycles)" in result.stderr and "3000/3000" in result.stderr
    assert "(cycles)" not in result.stdout


@pytest.mark.parametrize("extra,message", [
    (["--scheduler", "threads"], "unknown scheduler 'threads'"),
    (["--scheduler", "tcp://nohost"], "'tcp://nohost' is not a Dask scheduler address"),
    (["--seeds", "0"], "--seeds"),
    (["--scheduler", "processes", "--workers", "0"], "--workers"),
    # raised inside a worker process by the simulator itself, carried back unchanged
    (["--scheduler", "processes", "--workers", "2", "--measure", "0"],
     "measure must be a whole number of cycles"),
])
def test_bad_batch_options_are_one_line_exit_2(extra, message):
    result = invoke(*extra)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_unreachable_dask_scheduler_is_one_line_exit_2(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(runner, "CONNECT_TIMEOUT", 1.0)
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    result = invoke("--scheduler", address)
    assert result.exit_code == 2
    assert f"cannot reach the Dask scheduler at {address}" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# --- every simulated family, routing, pattern and packet size (issue #6 item 4) ----------

LOW = ["--rates", "0.02", "--warmup", "300", "--measure", "4000", "--drain", "1000",
       "--format", "json"]


def run_json(*args: str) -> dict:
    result = CliRunner().invoke(cli, ["simulate", "traffic", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("topology,routing,traffic,vcs", [
    ("torus:4x4x4", "dor", "uniform", 2),
    ("torus:4x4x4", "dor", "transpose", 2),
    ("mesh:4x4", "dor", "asymmetric", 2),
    ("hypercube:5", "dor", "bit-complement", 2),
    ("fattree:k=2,n=3", "random", "uniform", 2),
    ("fattree:k=2,n=3", "dmodk", "asymmetric", 2),
    ("clos:radix=8,levels=2", "random", "permutation", 2),
    ("dragonfly:p=2,a=4,h=2", "min", "uniform", 3),
    ("dragonfly:p=2,a=4,h=2", "min", "hotspot", 3),
    ("dragonfly:p=2,a=4,h=2", "valiant", "uniform", 6),
    ("slimfly:q=5", "min", "uniform", 2),
])
def test_zero_load_column_matches_the_simulator_at_a_low_rate(topology, routing, traffic,
                                                              vcs):
    """At 0.02 flits/endpoint/cycle queueing is negligible, so the simulated mean latency
    must be the model's T0 = 2*terminal + (H+1)*router + H*link = 2 + (H+1) + H cycles
    within 3 % (the measured packets' hop counts scatter around H: about 1 % noise). H
    comes from the model only (valiant: the intermediate-router average of MIN hops; MIN's
    H there would be 40 % low)."""
    doc = run_json("--topology", topology, "--routing", routing, "--traffic", traffic,
                   "--vcs", str(vcs), *LOW)
    row, model = doc["rows"][0], doc["model"]
    hops = model["mean_hops"]
    assert model["zero_load_latency"] == pytest.approx(2 + (hops + 1) + hops)
    assert row["average_latency"] == pytest.approx(model["zero_load_latency"], rel=0.03)
    assert doc["inputs"]["routing"] == routing and doc["inputs"]["traffic"] == traffic


def test_hand_derived_mean_hops_transpose_is_not_bit_complement():
    """torus:4x4x4, DOR. Ring of 4: distances 0,1,2,1 from a node, mean 1 over uniform
    pairs. Transpose (x0,x1,x2) -> (x2,x1,x0) moves in dims 0 and 2 only: H = 2, T0 = 7;
    its busiest channel carries 2 flows (torus.dor_traffic), bound 1/2. Bit-complement
    x -> 3-x is 1 ring step for every x (0->3 over the wraparound, 1->2, 2->1, 3->0) in
    all three dims: H = 3, T0 = 9."""
    transpose = run_json("--topology", "torus:4x4x4", "--traffic", "transpose", *LOW)
    complement = run_json("--topology", "torus:4x4x4", "--traffic", "bit-complement", *LOW)
    assert transpose["model"]["mean_hops"] == 2.0
    assert transpose["model"]["zero_load_latency"] == 7.0
    assert transpose["model"]["gamma_max"] == 2.0
    assert transpose["model"]["saturation_bound"] == 0.5
    assert complement["model"]["mean_hops"] == 3.0
    assert complement["model"]["zero_load_latency"] == 9.0


def test_multi_flit_packets_add_l_minus_1_cycles():
    """An L-flit packet's tail arrives L-1 cycles after its head (one flit per cycle)."""
    one = run_json("--topology", "torus:4x4", *LOW)
    four = run_json("--topology", "torus:4x4", "--packet-flits", "4", *LOW)
    assert four["model"]["zero_load_latency"] - one["model"]["zero_load_latency"] == 3
    assert four["model"]["zero_load_latency"] == 2 + 3 + 2 + 3  # H = 2 on a 4x4 torus
    assert four["rows"][0]["average_latency"] == pytest.approx(10, rel=0.03)
    assert four["inputs"]["packet_flits"] == 4


def test_pipeline_stages_set_the_router_delay():
    """Stages 1+1+1+1 = 4 cycles per router: T0 = 2 + (H+1)*4 + H = 2 + 12 + 2 = 16 on
    a 4x4 torus (H = 2)."""
    doc = run_json("--topology", "torus:4x4", "--routing-delay", "1", "--vc-alloc-delay",
                   "1", "--switch-alloc-delay", "1", "--switch-traversal-delay", "1", *LOW)
    assert doc["model"]["zero_load_latency"] == 16
    assert doc["rows"][0]["average_latency"] == pytest.approx(16, rel=0.03)
    inputs = doc["inputs"]
    assert (inputs["routing_delay_cycles"], inputs["vc_alloc_delay_cycles"],
            inputs["switch_alloc_delay_cycles"], inputs["switch_traversal_delay_cycles"],
            inputs["router_delay_cycles"]) == (1, 1, 1, 1, 4)


def test_queueing_and_estimate_columns_follow_the_model_formulas():
    """torus:4x4 uniform, default router: H = 2, T0 = 7; gamma_max = 0.75 (ring of 4, self
    included: a quarter of the packets take 1 step +, a quarter 2 steps + at the tie, 0.25 +
    0.5 per + channel). Saturation estimate by hand (docs/saturation.md): P = 5 ports,
    separable matching 1 - 0.8^5 = 0.67232, Karol's factor (2 - sqrt 2)/(1 - 1/e) with one
    VC per dateline class, load balance (4 x 16 x 2 / 64 + 1) / 5 = 0.6 of the ejection
    port's 1, so E = 1 - (1 - 0.67232 kappa) 0.6; the ejection port caps at E, every other
    ceiling is higher (channel E/0.75, one VC passing E flits/cycle over 0.75). The M/D/1
    wait rho*s/(2(1-rho)) on the H router channels at rho = lambda*gamma/eta and on the 2
    endpoint channels at rho = lambda/eta, s = 1 cycle, eta = estimate/bound; infinite (JSON
    null) at 0.95 > the estimate."""
    doc = run_json("--topology", "torus:4x4", "--rates", "0.3,0.95", "--warmup", "100",
                   "--measure", "300", "--drain", "200", "--format", "json")
    model = doc["model"]
    assert model["gamma_max"] == 0.75 and model["saturation_bound"] == 1.0
    kappa = (2 - math.sqrt(2)) / (1 - math.exp(-1))
    estimate = 1 - (1 - (1 - 0.8**5) * kappa) * 0.6
    assert model["saturation_estimate"] == pytest.approx(estimate, rel=1e-12)
    assert "router_efficiency" not in model and "efficiency_bound" not in model
    rate = 0.3
    rho = rate * 0.75 / estimate

    def wait(r):
        return r / (2 * (1 - r))

    low, high = doc["rows"]
    assert low["queueing_latency"] == pytest.approx(7 + 2 * wait(rho)
                                                    + 2 * wait(rate / estimate))
    assert low["queueing_diff"] == pytest.approx(low["average_latency"]
                                                 - low["queueing_latency"])
    assert low["estimate_accepted"] == 0.3
    assert high["estimate_accepted"] == pytest.approx(estimate)
    assert high["predicted_accepted"] == 0.95
    assert high["queueing_latency"] is None  # infinite
    assert high["estimate_diff"] == pytest.approx(high["accepted"] - estimate)


def test_hotspot_bound_is_the_hot_ejection_channel_and_json_carries_the_options():
    """dragonfly:p=2,a=4,h=2 has N = 72 endpoints; F = 0.2 of the packets to K = 3 hot
    endpoints: a hot endpoint receives (1 - 0.2) + 0.2*72/3 = 5.6 flits per cycle per
    unit injection, so the bound is 1/5.6; the router channels' gamma_max of the mix is
    n/a (null)."""
    doc = run_json("--topology", "dragonfly:p=2,a=4,h=2", "--vcs", "3", "--traffic",
                   "hotspot", "--hotspot-fraction", "0.2", "--hotspot-nodes", "3", *LOW)
    assert doc["inputs"]["hotspot_fraction"] == 0.2 and doc["inputs"]["hotspot_nodes"] == 3
    assert doc["model"]["hot_endpoints"] == [0, 1, 2]
    assert doc["model"]["ejection_load"] == pytest.approx(5.6)
    assert doc["model"]["saturation_bound"] == pytest.approx(1 / 5.6)
    assert doc["model"]["gamma_max"] is None
    assert doc["rows"][0]["queueing_latency"] is None
    assert any("hot endpoints' ejection channel" in n for n in doc["notes"])


def test_no_model_figure_is_shown_as_n_a_with_a_note():
    """The model has no slim fly route function, so a permutation's H is unknown."""
    result = CliRunner().invoke(cli, ["simulate", "traffic", "--topology", "slimfly:q=5",
                                      "--traffic", "permutation", "--rates", "0.05",
                                      "--warmup", "100", "--measure", "300", "--drain",
                                      "200"])
    assert result.exit_code == 0, result.output
    assert "mean hops -, gamma_max -, saturation bound -" in result.stdout
    assert "other patterns n/a" in result.stdout


@pytest.mark.parametrize("args,message", [
    (["--topology", "torus:4x4", "--routing", "ugal"],
     "routing 'ugal' does not exist for torus (choose from dor)"),
    (["--topology", "dragonfly:p=2,a=4,h=2", "--routing", "nca"],
     "'nca' does not exist for dragonfly (choose from min, valiant, ugal, ugal-hops)"),
    (["--topology", "torus:4x4", "--traffic", "shuffle"], "--traffic: unknown pattern"),
    (["--topology", "dragonfly:p=2,a=4,h=2", "--vcs", "6", "--traffic", "tornado"],
     "tornado traffic needs a torus or mesh"),
    (["--topology", "dragonfly:p=2,a=4,h=2", "--routing", "valiant"],
     "needs at least 6 VCs per port"),
    (["--topology", "torus:4x4", "--traffic", "hotspot", "--hotspot-fraction", "0"],
     "--hotspot-fraction"),
    (["--topology", "torus:4x4", "--traffic", "hotspot", "--hotspot-fraction", "1.5"],
     "--hotspot-fraction"),
    (["--topology", "torus:4x4", "--traffic", "hotspot", "--hotspot-nodes", "17"],
     "--hotspot-nodes: the hot endpoints must be a whole number in 1..16"),
    (["--topology", "torus:4x4", "--traffic", "hotspot", "--hotspot-nodes", "0"],
     "--hotspot-nodes"),
    (["--topology", "torus:4x4", "--hotspot-nodes", "2"], "apply only to --traffic hotspot"),
    (["--topology", "torus:4x4", "--routing-delay", "-1"], "routing delay must be"),
    (["--topology", "torus:4x4", "--router-delay", "3", "--routing-delay", "1",
      "--switch-alloc-delay", "1"], "is not the sum of the stage delays"),
    (["--topology", "megafly:k=4"], "the simulator has no 'megafly' topology"),
])
def test_bad_routing_pattern_and_hotspot_are_one_line_exit_2(args, message):
    result = CliRunner().invoke(cli, ["simulate", "traffic", *args, "--rates", "0.1",
                                      "--warmup", "10", "--measure", "10", "--drain", "0"])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_router_presets_set_the_timing_and_options_override_them():
    """--router nudt: 4 one-cycle stages, 50-cycle links, 5-cycle endpoint links, so on a
    4x4 torus (uniform, mean hops H = 2 with self included: 32/16) the zero-load latency is
    2*5 + (2+1)*4 + 2*50 = 122 cycles; --link-delay 10 overrides one value: 2*5 + 12 + 20 =
    42."""
    base = ["simulate", "traffic", "--topology", "torus:4x4", "--rates", "0.02", "--warmup",
            "100", "--measure", "100", "--drain", "100", "--format", "json"]
    nudt = json.loads(CliRunner().invoke(cli, [*base, "--router", "nudt"]).stdout)
    assert nudt["model"]["zero_load_latency"] == pytest.approx(122)
    assert nudt["inputs"]["vcs"] == 8 and nudt["inputs"]["buffer_flits"] == 300
    assert nudt["inputs"]["link_delay_cycles"] == 50
    faster = json.loads(CliRunner().invoke(cli, [*base, "--router", "nudt", "--link-delay",
                                                 "10"]).stdout)
    assert faster["model"]["zero_load_latency"] == pytest.approx(42)
    bad = CliRunner().invoke(cli, [*base, "--router", "cray"])
    assert bad.exit_code == 2 and "unknown router preset 'cray'" in bad.output


def test_header_shows_the_bound_beside_the_estimate():
    """The header carries the bound and the estimate; with --router booksim (random
    direction at a k/2 tie) the 8x8 torus's uniform bound is BookSim's 1.0, not 0.8."""
    base = ["simulate", "traffic", "--rates", "0.1", "--warmup", "10", "--measure", "10",
            "--drain", "10"]
    result = CliRunner().invoke(cli, [*base, "--topology", "torus:8x8", "--router", "booksim"])
    assert result.exit_code == 0, result.output
    head = " ".join(result.stdout.split("\n\n")[0].split())
    assert "gamma_max 1, saturation bound 1, saturation estimate 0." in head
    result = CliRunner().invoke(cli, [*base, "--topology", "torus:8x8"])
    head = " ".join(result.stdout.split("\n\n")[0].split())
    assert "gamma_max 1.25, saturation bound 0.8, saturation estimate 0." in head


def test_booksim_router_matches_its_zero_load_and_takes_the_new_options():
    """--router booksim on an 8x8 torus with BookSim's 2-cycle links: T0 = 3 + 4R + 2(R-1)
    with R = H + 1 = 5 routers on average (H = 4: average distance x (N-1)/N), so 31 cycles
    (BookSim2 measured 31.2 at 0.05); the model column adds BookSim's injection-channel
    cycle. --global-link-delay / --internal-speedup / --global-wiring / --allocator /
    --dateline / --ring-ties reach the inputs."""
    base = ["simulate", "traffic", "--rates", "0.05", "--warmup", "1000", "--measure", "2000",
            "--drain", "1000", "--format", "json"]
    doc = run_json(*base[2:], "--topology", "torus:8x8", "--router", "booksim",
                   "--link-delay", "2")
    assert doc["model"]["zero_load_latency"] == pytest.approx(31)
    assert doc["rows"][0]["average_latency"] == pytest.approx(31, rel=0.02)
    inputs = doc["inputs"]
    assert (inputs["allocator"], inputs["vcs"], inputs["dateline"], inputs["ring_ties"]) == (
        "islip", 4, "dimension", "random")
    assert any("BookSim's injection channel" in n for n in doc["notes"])
    df = run_json(*base[2:], "--topology", "dragonfly:p=2,a=4,h=2", "--router", "booksim",
                  "--vcs", "3", "--buffer", "32", "--link-delay", "10", "--global-link-delay",
                  "100", "--global-wiring", "absolute", "--internal-speedup", "2", "--routing",
                  "ugal")
    assert df["inputs"]["global_link_delay_cycles"] == 100
    assert df["inputs"]["internal_speedup"] == 2.0
    assert df["inputs"]["global_wiring"] == "absolute"
    assert any("global links take 100 cycles" in n for n in df["notes"])
    assert any("internal speedup 2" in n for n in df["notes"])


@pytest.mark.parametrize("args,message", [
    (["--topology", "torus:4x4", "--internal-speedup", "2"], "needs the islip router"),
    (["--topology", "torus:4x4", "--allocator", "islip"], "give the stage delays"),
    (["--topology", "torus:4x4", "--router", "booksim", "--arbiter", "age"],
     "round-robin only"),
    (["--topology", "torus:4x4", "--global-wiring", "absolute"], "applies to dragonflies"),
    (["--topology", "dragonfly:p=2,a=4,h=2", "--routing", "ugal", "--vcs", "2"],
     "needs at least 3 VCs"),
    (["--topology", "dragonfly:p=2,a=4,h=2", "--global-link-delay", "0"], "global link delay"),
])
def test_bad_router_options_are_one_line_exit_2(args, message):
    result = CliRunner().invoke(cli, ["simulate", "traffic", *args, "--rates", "0.1",
                                      "--warmup", "10", "--measure", "10", "--drain", "0"])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_xgft_runs_beside_its_closed_forms():
    """An XGFT(2; 4,4; 1,4) tree: uniform traffic (self included) leaves a leaf with
    probability 12/16, so each leaf's 4 endpoints put 3 flits/cycle on its 4 up channels:
    gamma_max = 0.75 by hand, and the mean hop count 2 x 0.75 = 1.5."""
    result = CliRunner().invoke(cli, ["simulate", "traffic", "--topology", "xgft:m=4x4,w=1x4",
                                      "--routing", "dmodk", "--rates", "0.1", "--warmup",
                                      "100", "--measure", "200", "--drain", "200"])
    assert result.exit_code == 0, result.output
    assert "mean hops 1.5, gamma_max 0.75" in result.output


def test_global_link_delay_needs_a_dragonfly():
    result = CliRunner().invoke(cli, ["simulate", "traffic", "--topology", "torus:8x8",
                                      "--rates", "0.1", "--global-link-delay", "5"])
    assert result.exit_code == 2
    assert "dragonflies" in result.output and "torus:8x8 is a torus" in result.output


def test_machine_gives_the_router_and_options_override_it():
    """nudt-generic sets network.virtual_channels = 8 and vc_buffer_flits = 300: they reach
    the simulated router over the default preset, and --vcs overrides the machine."""
    base = ["--topology", "torus:4x4", "--rates", "0.1", "--warmup", "10", "--measure", "10",
            "--drain", "10", "--format", "json"]
    doc = run_json(*base, "--machine", "nudt-generic")
    assert (doc["inputs"]["vcs"], doc["inputs"]["buffer_flits"]) == (8, 300)
    doc = run_json(*base, "--machine", "nudt-generic", "--vcs", "4")
    assert (doc["inputs"]["vcs"], doc["inputs"]["buffer_flits"]) == (4, 300)
