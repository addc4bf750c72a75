"""Unit costs behind icnperf.model.budget: time and peak memory per unit of work.

Run: python benchmarks/budget_costs.py [--only NAME ...]
Each measurement runs in a fresh process: it imports what the command imports, notes its
peak resident memory, does the work, and reports the wall time and the growth of the peak
divided by the units of work (rows, ranks x rounds, router-cycles, designs, data rows).
The constants in icnperf/model/budget.py quote these figures (rounded up); rerun this
script after a change that makes a command faster or leaner, and update them. Not a test:
the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import json, resource, sys, time
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
{setup}
before = peak()
start = time.perf_counter()
{work}
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "before": before, "after": peak()}}))
'''


def measure(setup: str, work: str, extra: str | None = None) -> dict:
    """Wall time and peak memory (bytes) before and after ``work``, in a fresh process;
    with ``extra``, also the value of that variable of ``setup`` under its own name."""
    code = CHILD.format(setup=setup, work=work)
    if extra:
        code = code.replace('"after": peak()}', f'"after": peak(), "{extra}": {extra}}}')
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def plog(p: int) -> float:
    return p * math.log2(p)


def base() -> list[str]:
    r = measure("import numpy\nfrom icnperf.data.machine import load_machine",
                "load_machine('angara-36')")
    return [f"base: peak resident memory after the imports {r['after'] / 1e6:.0f} MB"]


def rows(count: int = 20000) -> list[str]:
    lines = []
    for fmt in ("table", "json", "csv"):
        setup = "from icnperf.api import predict_p2p"
        work = (f"''.join(predict_p2p('angara-36', bytes='1..{count}:1', "
                f"budget_format='{fmt}').render('{fmt}'))")
        r = measure(setup, work)
        lines.append(f"rows ({fmt}): {r['seconds'] / count * 1e6:.0f} us and"
                     f" {(r['after'] - r['before']) / count:.0f} B per p2p row"
                     f" ({count:,} rows)")
    return lines


_COLLECTIVE = """
import numpy as np
from icnperf.data.machine import load_machine
from icnperf.model.collectives import Layout, collective_time, compare
from icnperf.model.topology.torus import balanced_torus_shape
machine = load_machine('angara-3d')
layout = Layout.torus(balanced_torus_shape({p}, 3))
"""


def collectives(p: int = 131072) -> list[str]:
    lines = []
    for op in ("allreduce", "allgather", "alltoall", "broadcast", "reduce", "barrier"):
        r = measure(_COLLECTIVE.format(p=p),
                    f"compare(machine, '{op}', np.array([256.0]), layout=layout)")
        lines.append(f"collective {op}, all algorithms, {p:,} ranks: "
                     f"{r['seconds'] / plog(p) * 1e9:.0f} ns per rank x log2(ranks),"
                     f" {(r['after'] - r['before']) / p:.0f} B per rank")
    for op, algorithm in (("allreduce", "recursive-doubling"), ("allreduce", "rabenseifner"),
                          ("allgather", "bruck"), ("alltoall", "bruck"),
                          ("allreduce", "binomial"), ("allgather", "ring")):
        r = measure(_COLLECTIVE.format(p=p), f"collective_time(machine, '{op}', "
                    f"'{algorithm}', np.array([256.0]), layout=layout)")
        lines.append(f"collective {op}, {algorithm}, {p:,} ranks: "
                     f"{r['seconds'] / plog(p) * 1e9:.0f} ns per rank x log2(ranks),"
                     f" {(r['after'] - r['before']) / p:.0f} B per rank")
    return lines


def apps(p: int = 131072) -> list[str]:
    lines = []
    for app in ("spmv", "heat", "hpcg"):
        setup = (_COLLECTIVE.format(p=p)
                 + "from icnperf.api.app_runs import app_rows\n"
                 + "layout = layout.routed('plus')")
        r = measure(setup, f"app_rows('{app}', machine, [layout], 'all', {{}})")
        lines.append(f"app {app}, all algorithms, {p:,} ranks: "
                     f"{r['seconds'] / plog(p) * 1e9:.0f} ns per rank x log2(ranks),"
                     f" {(r['after'] - r['before']) / p:.0f} B per rank")
    return lines


def simulator() -> list[str]:
    lines = []
    for spec, rate, cycles in (("torus:8x8", 0.3, 20000), ("torus:16x16", 0.3, 20000),
                               ("torus:8x8x8", 0.2, 5000), ("fattree:k=4,n=3", 0.3, 20000)):
        setup = ("from icnperf.sim import network_from_spec, simulate\n"
                 f"network = network_from_spec('{spec}', None)\n"
                 f"simulate(network, 'uniform', {rate}, warmup=10, measure=10, drain=0)")
        work = (f"simulate(network, 'uniform', {rate}, warmup=0, measure={cycles},"
                " drain=0)")
        r = measure(setup, work)
        routers = int(subprocess.run(
            [sys.executable, "-c", "from icnperf.sim import network_from_spec;"
             f"print(network_from_spec('{spec}', None).routers)"],
            check=True, capture_output=True, text=True).stdout)
        lines.append(f"simulator {spec} at {rate}: {r['seconds'] / (routers * cycles) * 1e9:.0f}"
                     f" ns per router-cycle ({routers} routers x {cycles:,} cycles)")
    r = measure("", "from icnperf.sim import network_from_spec, simulate\n"
                "simulate(network_from_spec('torus:4x4', None), 'uniform', 0.1, warmup=10,"
                " measure=10, drain=0)")
    lines.append(f"simulator start (import, compiled kernel from the cache, one tiny run):"
                 f" {r['seconds']:.1f} s")
    return lines


def sizing() -> list[str]:
    lines = []
    for endpoints, slack in ((100000, 1.5), (100000, 3.0)):
        setup = ("from icnperf.model.sizing.space import enumerate_space\n"
                 "from icnperf.api import size\n"
                 f"designs = sum(len(b) for b in enumerate_space({endpoints}, slack={slack}))")
        work = (f"size(endpoints={endpoints}, slack={slack}, shortlist=24,"
                " budget_format='table').table()")
        r = measure(setup, work, "designs")
        lines.append(f"size {endpoints:,} endpoints, slack {slack}: {r['designs']:,} designs,"
                     f" {r['seconds'] / r['designs'] * 1e6:.1f} us and"
                     f" {(r['after'] - r['before']) / r['designs']:.0f} B per design")
    return lines


def evaluated(endpoints: int = 1000) -> list[str]:
    """The full model's time per design it evaluates (``size --shortlist all``, the default
    workload, dragonfly and 3D tori): model.sizing.design_budget.EVALUATED_TERM_SECONDS
    (a design evaluates the 5 terms of the default workload)."""
    lines = []
    for families in ("dragonfly", "torus", "dragonfly,torus"):
        setup = ("from icnperf.model.sizing.space import enumerate_space\n"
                 "from icnperf.api import size\n"
                 f"designs = sum(len(b) for b in enumerate_space({endpoints}, "
                 f"{tuple(families.split(','))!r}, (3,), 128, 1.5))")
        work = (f"size(endpoints={endpoints}, families={families!r}, torus_dims='3',"
                " radix_max=128, slack=1.5, shortlist='all').table()")
        r = measure(setup, work, "designs")
        lines.append(f"size --shortlist all, {endpoints:,} endpoints, {families}:"
                     f" {r['designs']:,} designs evaluated in {r['seconds']:.1f} s,"
                     f" {r['seconds'] / r['designs'] * 1e3:.2f} ms per design")
    return lines


def calibration(count: int = 24000) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "osu.txt")
        with open(path, "w") as out:
            out.write("# OSU MPI Latency Test v7.3\n# Size  Latency (us)\n")
            out.writelines(f"{8 * (1 + i % 1000)} {1.5 + (i % 7) * 0.01}\n"
                           for i in range(count))
        setup = "from icnperf.api import calibrate\nimport scipy.optimize"
        work = f"calibrate('angara-36', {path!r}, budget_format='table').table()"
        r = measure(setup, work)
    return [f"calibrate: {r['seconds'] / count * 1e6:.0f} us and"
            f" {(r['after'] - r['before']) / count:.0f} B per data row ({count:,} rows)"]


def report(cases=(("angara-3d", "torus:32x32x32"), ("fugaku", None))) -> list[str]:
    """The machine report per rank x log2(ranks) summed over its node counts
    (model.budget.REPORT_SECONDS): a 32x32x32 torus and Fugaku's whole machine."""
    lines = []
    for machine, topology in cases:
        overrides = (f"topology={topology}",) if topology else ()
        setup = ("from icnperf.api.machine_sections import machine_report, node_layouts\n"
                 "from icnperf.reports.machine_report import report_html\n"
                 "from icnperf.data.machine import load_machine\n"
                 f"m = load_machine({machine!r}).with_overrides({list(overrides)!r})\n"
                 "ranks = [l.ranks for l in node_layouts(m)]")
        work = f"report_html(machine_report({machine!r}, (), {overrides!r}, validation=False))"
        r = measure(setup, work, "ranks")
        units = sum(plog(p) for p in r["ranks"] if p > 1)
        lines.append(f"report {topology or machine}: {r['seconds']:.1f} s,"
                     f" {r['seconds'] / units * 1e9:.0f} ns per rank x log2(ranks) summed"
                     f" over its {len(r['ranks'])} layouts,"
                     f" {(r['after'] - r['before']) / max(r['ranks']):.0f} B per rank of the"
                     " largest")
    return lines


MEASURES = {"base": base, "rows": rows, "collectives": collectives, "apps": apps,
            "simulator": simulator, "sizing": sizing, "evaluated": evaluated,
            "calibration": calibration, "report": report}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(MEASURES), default=None)
    args = parser.parse_args()
    for name in args.only or MEASURES:
        for line in MEASURES[name]():
            print(line, flush=True)


if __name__ == "__main__":
    main()
