"""Regenerate the sample benchmark outputs in this directory (not the bad_* files, which are
written by hand). Run from the repository root: ``python tests/data/bench/generate.py``.

The numbers are invented: the angara-36 preset (its network values pinned below) with a 450 ns MPI overhead and 6 GB/s links,
two ranks 1 hop apart, evaluated with icnperf's own model (model/network/) plus 0.5 %
Gaussian noise (seeded), printed the way each tool prints them (2 decimals; OSU MB/s =
10^6 B/s; IMB Mbytes/sec = 10^6 B/s from IMB 2018 on, 2^20 B/s in IMB 3.x/4.x). The
collective timings follow a made-up recursive-doubling cost and are only there to be read.
"""

from pathlib import Path

import numpy as np

from icnperf.data.machine import load_machine
from icnperf.model import network as N

OUT = Path(__file__).resolve().parent
TRUTH = {"software.mpi_overhead": 450e-9, "network.link_bandwidth": 6e9}
PINNED = {
    "network.injection_latency": 300e-9, "network.ejection_latency": 300e-9,
    "network.router_latency": 8e-9, "network.link_latency": 80e-9,
    "network.host_bandwidth": 8e9, "network.flit_size": 16, "network.packet_max_flits": 16,
    "network.packet_header_flits": 1, "network.switching": "cut-through",
}
"""The angara-36 values (the preset as of this sample set) the samples were made with, pinned so that the
samples stay what they are if the preset changes (tests/test_benchdata.py pins them too)."""


def main() -> None:
    m = load_machine("angara-36").with_values({**PINNED, **TRUTH}, "samples")
    rng = np.random.default_rng(2024)

    def noisy(x, sd=0.005):
        return x * (1 + sd * rng.standard_normal(np.shape(x)))

    def column(sizes, hops, name):
        return N.p2p_table(m, sizes, hops, "mpi").columns[name]

    # OSU: osu_latency, osu_bw, osu_allreduce
    sizes = np.array([0] + [2**k for k in range(0, 23)], dtype=float)
    lines = ["# OSU MPI Latency Test v7.3", "# Size          Latency (us)"]
    lines += [f"{int(s):<10d}{t * 1e6:>18.2f}"
              for s, t in zip(sizes, noisy(column(sizes, 1, "latency_s")))]
    (OUT / "osu_latency.txt").write_text("\n".join(lines) + "\n")

    bw_sizes = sizes[1:]
    lines = ["# OSU MPI Bandwidth Test v7.3", "# Size      Bandwidth (MB/s)"]
    lines += [f"{int(s):<10d}{b / 1e6:>18.2f}"
              for s, b in zip(bw_sizes, noisy(column(bw_sizes, 1, "streaming_bandwidth_Bps")))]
    (OUT / "osu_bw.txt").write_text("\n".join(lines) + "\n")

    ar_sizes = np.array([2**k for k in range(2, 21)], dtype=float)
    steps = 4  # 16 processes, recursive doubling
    allreduce = noisy(steps * column(ar_sizes, 2, "latency_s") + ar_sizes / 4 / 2e9 * steps)
    lines = ["", "# OSU MPI Allreduce Latency Test v7.3", "# Datatype: MPI_CHAR.",
             "[node07:31337] mca: base: components_register: registering framework btl "
             "components", "# Size       Avg Latency(us)"]
    lines += [f"{int(s):<10d}{t * 1e6:>18.2f}" for s, t in zip(ar_sizes, allreduce)]
    (OUT / "osu_allreduce.txt").write_text("\n".join(lines) + "\n")

    # IMB-MPI1: PingPong and Allreduce on 2 and 4 processes, new and legacy Mbytes
    pp_sizes = np.array([0] + [2**k for k in range(0, 23)], dtype=float)
    pp_latency = noisy(column(pp_sizes, 1, "latency_s"))

    def repetitions(s):
        return 1000 if s <= 65536 else max(10, int(1000 * 65536 / s / 1.5625) // 10 * 10)

    def imb_file(name, banner, mbyte, rule):
        out = [rule, f"#    {banner}", rule,
               "# Date                  : Tue Mar  5 10:12:44 2024",
               "# Machine               : x86_64", "# System                : Linux",
               "# MPI Version           : 3.1", "# MPI Thread Environment: ", "", "",
               "# Calling sequence was:", "", "# ./IMB-MPI1 PingPong Allreduce", "",
               "# Minimum message length in bytes:   0",
               "# Maximum message length in bytes:   4194304", "#",
               "# MPI_Datatype                   :   MPI_BYTE ",
               "# MPI_Datatype for reductions    :   MPI_FLOAT",
               "# MPI_Op                         :   MPI_SUM  ", "#", "#", "",
               "# List of Benchmarks to run:", "", "# PingPong", "# Allreduce", "",
               rule, "# Benchmarking PingPong ", "# #processes = 2 ", rule,
               "       #bytes #repetitions      t[usec]   Mbytes/sec"]
        for s, t in zip(pp_sizes, pp_latency):
            t_us = round(t * 1e6, 2)
            mbytes = s / t_us / mbyte * 1e6 if s else 0.0
            out.append(f"{int(s):>13d}{repetitions(s):>13d}{t_us:>13.2f}{mbytes:>13.2f}")
        for processes in (2, 4):
            out += ["", rule, "# Benchmarking Allreduce ", f"# #processes = {processes} ",
                    rule, "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]"]
            steps = int(np.log2(processes))
            for s in [0] + [2**k for k in range(2, 21)]:
                base = steps * float(column([s], 1, "latency_s")[0]) + s / 2e9 * steps
                base = 0.04e-6 if s == 0 else noisy(base)
                out.append(f"{s:>13d}{repetitions(s):>13d}{base * 0.97e6:>13.2f}"
                           f"{base * 1.04e6:>13.2f}{base * 1e6:>13.2f}")
        out += ["", "", "# All processes entering MPI_Finalize", ""]
        (OUT / name).write_text("\n".join(out) + "\n")

    imb_file("imb_2021.txt", "Intel(R) MPI Benchmarks 2021.3, MPI-1 part", 1e6,
             "#" + "-" * 64)
    imb_file("imb_v3.txt", "Intel (R) MPI Benchmark Suite V3.2.4, MPI-1 part", 2**20,
             "#" + "-" * 51)

    # icnperf measurement CSV with hops
    csv_sizes = np.array([8, 64, 512, 4096, 32768, 262144, 1048576], dtype=float)
    lines = ["message_bytes,hops,latency_s"]
    for h in (1, 2, 3):
        lines += [f"{int(s)},{h},{t:.4e}"
                  for s, t in zip(csv_sizes, noisy(column(csv_sizes, h, "latency_s")))]
    (OUT / "pingpong.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
