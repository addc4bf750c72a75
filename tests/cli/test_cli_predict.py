"""``icnperf predict p2p`` through Click's CliRunner."""

import json
import math

import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.api.point_to_point import hops_between


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_hops_between_grid_endpoints():
    assert hops_between("torus:3x3x4", "0,0,0", "2,2,3") == 3      # 1 + 1 + 1 round the rings
    assert hops_between("mesh:3x3x4", "0,0,0", "2,2,3") == 7       # 2 + 2 + 3
    assert hops_between("torus:3x3x4", "0", "35") == 3             # index 35 = (2,2,3)
    assert hops_between("hypercube:4", "0", "15") == 4


def test_p2p_json_rows_and_assumptions():
    result = run("predict", "p2p", "--machine", "angara-36", "--bytes", "16,1MiB",
                 "--hops", "1", "--api", "none", "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.output)
    small, large = doc["rows"]
    assert small["bytes"] == 16 and small["latency_s"] == pytest.approx(699.413e-9, rel=1e-5)
    assert large["bytes"] == 2**20
    assert large["streaming_bandwidth_Bps"] <= 8e9           # PCIe gen2 x16 host limit
    assert all(r["message_rate_per_s"] <= r["rate_bound_per_s"] for r in doc["rows"])
    assert any("cut-through" in a for a in doc["assumptions"])


def test_p2p_table_names_machine_and_assumptions():
    result = run("predict", "p2p", "--machine", "angara-4d", "--bytes", "8..64:x2")
    assert result.exit_code == 0
    assert "angara-4d (torus:8x8x8x16)" in result.output
    assert "assumptions:" in result.output
    assert len([line for line in result.output.splitlines() if " B " in line]) == 4


@pytest.mark.parametrize("args", [
    ["--bytes", "-8"],
    ["--bytes", "8..1:x2"],
    ["--bytes", "8MiBs"],
    ["--set", "network.nosuch=1"],
    ["--set", "network.link_latency=fast"],
    ["--from", "0"],
    ["--from", "0", "--to", "99"],
    ["--from", "0", "--to", "1", "--hops", "2"],
    ["--hops", "-1"],
    ["--hops", "5"],                       # torus:3x3x4 has diameter 1 + 1 + 2 = 4
    ["--api", "tcp"],
    ["--same-node"],                       # angara-36 states no shared-memory figures
    ["--same-node", "--hops", "1", "--set", "node.shared_memory_latency=0.3us",
     "--set", "node.shared_memory_bandwidth=5GB/s"],
])
def test_p2p_bad_input_is_one_line_and_status_2(args):
    result = CliRunner().invoke(cli, ["predict", "p2p", "--machine", "angara-36", *args])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1


def test_from_to_name_endpoints_of_trees_and_dragonflies():
    """DF(4,8,4): endpoints 0-3 on router 0; 4 on router 1 of group 0 (1 hop); endpoint 32
    on router 0 of group 1, whose link to group 0 leaves router 0 of group 0 (global
    channel 0) and lands on router 7 of group 1 (channel 31): global, then local, 2 hops."""
    assert hops_between("dragonfly:p=4,a=8,h=4", "0", "3") == 0
    assert hops_between("dragonfly:p=4,a=8,h=4", "0", "4") == 1
    assert hops_between("dragonfly:p=4,a=8,h=4", "0", "32") == 2
    assert hops_between("xgft:m=8x8,w=1x2", "0", "7") == 0
    assert hops_between("xgft:m=8x8,w=1x2", "0", "8") == 2
    assert hops_between("fattree:k=2,n=3", "0", "15") == 4
    result = CliRunner().invoke(cli, ["predict", "p2p", "--machine", "nudt-generic",
                                      "--from", "0", "--to", "9999"])
    assert result.exit_code == 2 and "below 1056" in result.output


def test_collective_sweep_reshapes_the_torus_and_ratio_grows():
    result = run("predict", "collective", "broadcast", "--machine", "angara-3d", "--nodes",
                 "8..8192:x8", "--algorithm", "hw-tree", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["rows"]
    assert [r["shape"] for r in rows] == ["torus:2x2x2", "torus:4x4x4", "torus:8x8x8",
                                          "torus:16x16x16"]
    ratios = [r["ratio_to_p2p_tree"] for r in rows]
    assert ratios == sorted(ratios) and ratios[0] > 1


def test_collective_all_algorithms_and_best_ratio():
    doc = json.loads(run("predict", "collective", "allreduce", "--machine", "angara-4d",
                         "--format", "json").output)
    rows = {r["algorithm"]: r for r in doc["rows"]}
    assert {"hw-tree", "p2p-tree", "recursive-doubling", "rabenseifner"} <= set(rows)
    best = min(r["time_s"] for a, r in rows.items() if a != "hw-tree")
    assert rows["hw-tree"]["ratio_to_best_p2p"] == pytest.approx(best / rows["hw-tree"]["time_s"])
    assert rows["hw-tree"]["shape"] == "torus:8x8x8x16"


@pytest.mark.parametrize("args", [
    ["broadcast", "--nodes", "0"],
    ["broadcast", "--nodes", "7", "--shape", "2x2x2"],
    ["broadcast", "--nodes", "2.5"],
    ["nosuch"],
    ["broadcast", "--algorithm", "nosuch"],
    ["broadcast", "--bytes", "0"],
    ["alltoall", "--algorithm", "hw-tree"],
    ["broadcast", "--nodes", "1e9"],        # beyond the ranks a schedule maps
])
def test_collective_bad_input(args):
    result = CliRunner().invoke(cli, ["predict", "collective", "--machine", "angara-3d", *args])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1


def test_background_load_charges_queueing_until_the_saturation_estimate():
    """angara-4d is torus:8x8x8x16: uniform gamma_max = (16 + 2) / 8 = 2.25, so channels
    would saturate at 1 / 2.25 = 0.444 with ideal routers. Its routers (docs/saturation.md;
    the machine gives 16-flit packets, the rest the default router: 2 VCs, one per dateline
    class, separable allocation, P = 9 ports) saturate earlier, by hand: E_sep = 1 - (8/9)^9,
    Karol's kappa, load balance beta = (8 ports x N H / C + 1) / 9 / 2.25 with N H / C =
    8192 x 10 / 65536 = 1.25 (H = 2 + 2 + 2 + 4 with self), wormhole 1 - (8/9)^9 x 15/16 x
    beta; the busiest channel's ceiling E W / 2.25 is the smallest."""
    def queueing(load):
        doc = json.loads(run("predict", "p2p", "--machine", "angara-4d", "--bytes", "256",
                             "--load", str(load), "--format", "json").output)
        return doc["rows"][0]["queueing_delay_s"]

    kappa = (2 - math.sqrt(2)) / (1 - math.exp(-1))
    beta = (8 * 1.25 + 1) / 9 / 2.25
    miss = (8 / 9) ** 9
    matching = 1 - (1 - (1 - miss) * kappa) * beta
    estimate = matching * (1 - miss * 15 / 16 * beta) / 2.25
    assert queueing(0) == 0
    assert 0 < queueing(0.1) < queueing(0.25)
    saturated = run("predict", "p2p", "--machine", "angara-4d", "--load", "0.29")
    assert saturated.exit_code == 2         # infinite past saturation: refused, not printed
    assert "saturation estimate" in saturated.output
    assert f"{estimate:.4g}" in saturated.output and "bound 0.4444" in saturated.output


def test_same_node_prices_shared_memory():
    result = run("predict", "p2p", "--machine", "angara-36", "--bytes", "8,1MiB",
                 "--same-node", "--set", "node.shared_memory_latency=0.25us",
                 "--set", "node.shared_memory_bandwidth=4GB/s", "--format", "json")
    assert result.exit_code == 0, result.output
    small, large = json.loads(result.output)["rows"]
    assert small["latency_s"] == pytest.approx(0.25e-6 + 8 / 4e9)
    assert large["latency_s"] == pytest.approx(0.25e-6 + 2**20 / 4e9)
    assert small["hops"] == 0 and small["packets"] == 0


def test_ppn_spreads_over_the_nodes_nics():
    """Frontier has 4 NICs per node: 8 processes share each NIC in pairs, so the last of a
    pair waits one serialization, as 2 processes on one NIC."""
    def rows(*extra):
        out = run("predict", "p2p", "--machine", "frontier", "--bytes", "1MiB", "--hops", "2",
                  "--format", "json", *extra)
        assert out.exit_code == 0, out.output
        return json.loads(out.output)["rows"][0]

    eight = rows("--ppn", "8")
    two_on_one = rows("--ppn", "2", "--set", "node.nics_per_node=1")
    assert eight["latency_s"] == pytest.approx(two_on_one["latency_s"])
    assert eight["sharing_delay_s"] == pytest.approx(eight["serialization_s"])


# --- predict collective --algorithm auto ---------------------------------------------------


def test_auto_json_names_the_algorithm_and_the_rule():
    result = run("predict", "collective", "allreduce", "--machine", "piz-daint", "--nodes",
                 "16", "--bytes", "8,4KiB", "--algorithm", "auto", "--format", "json")
    assert result.exit_code == 0, result.output
    small, large = json.loads(result.output)["rows"]
    # MPICH 4.x (generic.json): recursive doubling up to 8 B, Rabenseifner above when the
    # 512 doubles are at least pof2 = 16
    assert small["algorithm"] == "auto: recursive-doubling"
    assert small["rule"] == "MPICH 4.x: allreduce <= 8 B"
    assert large["algorithm"] == "auto: rabenseifner"
    direct = run("predict", "collective", "allreduce", "--machine", "piz-daint", "--nodes",
                 "16", "--bytes", "4KiB", "--algorithm", "rabenseifner", "--format", "json")
    assert json.loads(direct.output)["rows"][0]["time_s"] == large["time_s"]


def test_auto_table_on_open_mpi_says_where_it_approximates():
    result = run("predict", "collective", "allreduce", "--machine", "summit", "--nodes",
                 "200", "--bytes", "8", "--algorithm", "auto")
    assert result.exit_code == 0, result.output
    assert "auto: binomial" in result.output
    flowing = " ".join(result.output.split())
    assert "Open MPI 4.1: allreduce P 128..255" in flowing and "approximated" in flowing


def test_auto_without_an_mpi_library_takes_mpich_4_and_says_so():
    base = ["predict", "collective", "allreduce", "--machine", "angara-3d", "--nodes", "16",
            "--bytes", "4KiB", "--algorithm", "auto"]
    result = run(*base)
    # 4 KiB = 512 doubles > 8 B, 512 >= pof2 16: MPICH 4.x picks Rabenseifner
    assert "auto: rabenseifner" in result.output
    assert "no MPI library named" in " ".join(result.output.split())
    named = run(*base, "--set", "software.mpi_library=mpich", "--format", "json")
    unnamed = run(*base, "--format", "json")
    assert json.loads(unnamed.output)["rows"][0]["time_s"] == \
        json.loads(named.output)["rows"][0]["time_s"]


def test_auto_with_a_library_set_on_the_command_line():
    result = run("predict", "collective", "broadcast", "--machine", "angara-3d", "--set",
                 "software.mpi_library=mpich", "--set", "software.mpi_version=MPICH 3.2",
                 "--nodes", "16", "--bytes", "64KiB", "--algorithm", "auto", "--format",
                 "json")
    row = json.loads(result.output)["rows"][0]
    # 64 KiB >= 12288 B, < 524288 B, 16 ranks a power of two: scatter + recursive doubling
    assert row["algorithm"] == "auto: recursive-doubling"
    assert row["rule_set"].startswith("MPICH 3.2")


def test_a_job_smaller_than_two_to_the_dims_spans_fewer_torus_dimensions():
    """16 nodes of the 6D fugaku torus: the job takes 2x2x2x2 (the other two dimensions have
    extent 1), the same time as --shape 2x2x2x2; 7 nodes are one ring."""
    common = ["predict", "collective", "allreduce", "--machine", "fugaku", "--bytes", "8",
              "--algorithm", "recursive-doubling", "--format", "json"]
    jobs = json.loads(run(*common, "--nodes", "7,16").output)["rows"]
    shaped = json.loads(run(*common, "--shape", "2x2x2x2").output)["rows"]
    assert [r["shape"] for r in jobs] == ["torus:7", "torus:2x2x2x2"]
    assert jobs[1]["time_s"] == shaped[0]["time_s"]
