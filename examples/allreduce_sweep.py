"""A sweep with icnperf's Python API, joined with measurements, drawn with Plotly.

The all-reduce on the Angara 4D torus preset (angara-4d) at 16, 128 and 1,024 nodes, every
algorithm, with the link latency set to 60 ns; the 8-byte times of the hardware tree are
set beside measurements (the numbers in MEASURED stand for your own runs: they are not data
of the Angara machines) and drawn with the recursive-doubling curve.

Run: python examples/allreduce_sweep.py [FIGURE.html]
Prints one line per node count; writes the figure when a path is given.
"""

from __future__ import annotations

import sys

import plotly.graph_objects as go

import icnperf

MEASURED = {16: 2.1e-6, 128: 2.9e-6, 1024: 4.0e-6}
"""Your runs: nodes -> seconds of an 8-byte all-reduce (illustrative numbers)."""


def main(argv: list[str]) -> None:
    machine = icnperf.machine("angara-4d", set={"network.link_latency": 60e-9})
    sweep = icnperf.predict_collective(machine, "allreduce", nodes=sorted(MEASURED),
                                       bytes=[8, 65536], algorithm="all")
    small = [row for row in sweep.rows if row["bytes"] == 8
             and row["algorithm"] in ("hw-tree", "recursive-doubling")]
    joined = [{**row, "measured_s": MEASURED[row["nodes"]]}
              for row in small if row["algorithm"] == "hw-tree"]
    for row in joined:
        error = row["time_s"] / row["measured_s"] - 1
        print(f'{row["nodes"]:>5} predicted {row["time_s"] * 1e6:.2f} us,'
              f' measured {row["measured_s"] * 1e6:.2f} us, {100 * error:+.0f} %')
    figure = go.Figure(layout={"title": "8-byte all-reduce, angara-4d, 60 ns links"})
    for name in ("hw-tree", "recursive-doubling"):
        own = [row for row in small if row["algorithm"] == name]
        figure.add_scatter(x=[row["nodes"] for row in own], y=[row["time_s"] for row in own],
                           name=name)
    figure.add_scatter(x=[row["nodes"] for row in joined],
                       y=[row["measured_s"] for row in joined], mode="markers",
                       name="measured")
    figure.update_xaxes(type="log", title="nodes").update_yaxes(title="time (s)")
    if argv:
        figure.write_html(argv[0], include_plotlyjs=True)
        print(f"wrote {argv[0]}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
