"""Every published number is finite (issue #16 item 4): whatever machine values and sizes
are asked for, a command either refuses them with a one-line InputError or prints finite
numbers. Property tests over the commands' text functions (reports/text), with machine
values drawn across the whole float range in their units; CSV output is checked because it
writes infinities and NaN as text (JSON would turn them into null)."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from icnperf.errors import InputError

SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

MACHINES = ["angara-36", "angara-3d", "angara-4d"]
"""The presets with every parameter the timing models need (the others lack the packet
format, and are refused before any number is computed)."""
KEYS = {
    "network.link_bandwidth": "B/s",
    "network.host_bandwidth": "B/s",
    "network.link_latency": "s",
    "network.router_latency": "s",
    "network.injection_latency": "s",
    "software.mpi_overhead": "s",
    "network.flit_size": "B",
    "network.packet_max_flits": "",
}


@st.composite
def overrides(draw) -> tuple[str, ...]:
    """Up to three --set items, each a value of about 10^e of its unit: e from -330 to 330
    (below the smallest float, past the largest) or, as often, from -15 to 15."""
    items = []
    for key in draw(st.lists(st.sampled_from(sorted(KEYS)), max_size=3, unique=True)):
        mantissa = draw(st.sampled_from(["1", "3.5", "9.99"]))
        exponent = draw(st.one_of(st.integers(-330, 330), st.integers(-15, 15)))
        unit = KEYS[key]
        items.append(f"{key}={mantissa}e{exponent}" + (f" {unit}" if unit else ""))
    return tuple(items)


size_texts = st.one_of(st.sampled_from(["0", "1", "16", "241", "1MiB"]),
                       st.integers(0, 40).map(lambda e: f"1e{e}"))


def _finite_or_refused(produce) -> None:
    try:
        text = produce()
    except InputError as error:
        assert "\n" not in str(error) and str(error)
        event("refused")
        return
    event("printed")
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            assert cell.strip().lower() not in ("inf", "-inf", "nan"), (cell, row)


@SETTINGS
@given(machine=st.sampled_from(MACHINES), items=overrides(),
       sizes=st.lists(size_texts, min_size=1, max_size=4),
       load=st.sampled_from([0.0, 0.05, 0.3]), ppn=st.integers(1, 4))
def test_predict_p2p(machine, items, sizes, load, ppn):
    from icnperf.api import predict_p2p

    _finite_or_refused(lambda: predict_p2p(machine, set=items, bytes=",".join(sizes),
                                           ppn=ppn, load=load).to_csv())


@SETTINGS
@given(machine=st.sampled_from(MACHINES), items=overrides(),
       operation=st.sampled_from(["broadcast", "allreduce", "allgather", "alltoall",
                                  "barrier"]),
       sizes=st.lists(size_texts, min_size=1, max_size=3))
def test_predict_collective(machine, items, operation, sizes):
    from icnperf.api import predict_collective

    _finite_or_refused(lambda: predict_collective(machine, operation, set=items,
                                                  bytes=",".join(sizes)).to_csv())


@pytest.mark.slow
@SETTINGS
@given(items=overrides(), algorithm=st.sampled_from(["hw-tree", "ring", "rabenseifner"]),
       size=size_texts)
def test_explain(items, algorithm, size):
    from icnperf.api import explain_collective

    _finite_or_refused(lambda: explain_collective("angara-36", "allreduce",
                                                  algorithm=algorithm, set=items,
                                                  bytes=size).to_csv())


@SETTINGS
@given(items=overrides(), faster=st.sampled_from(["hw-tree", "recursive-doubling"]))
def test_crossover_over_bytes(items, faster):
    from icnperf.api import crossover

    _finite_or_refused(lambda: crossover("angara-36", "allreduce", set=items, faster=faster,
                                         slower="ring", factor="2", vary="bytes").to_csv())


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=overrides(), app=st.sampled_from(["spmv", "heat"]))
@example(items=("network.flit_size=1e0 B", "network.host_bandwidth=1e0 B/s",
                "software.mpi_overhead=1e307 s"), app="spmv")  # posting offsets overflowed
def test_predict_app(items, app):
    from icnperf.api import predict_app

    _finite_or_refused(lambda: predict_app("angara-3d", app, set=items,
                                           nodes="8,64").to_csv())
