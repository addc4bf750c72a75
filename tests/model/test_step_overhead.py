"""A collective step against half a ping-pong (docs/mpi-algorithms.md): LogGP's exchange
step worked out by hand, the per-step software cost software.mpi_step_overhead charged
once per step of every point-to-point algorithm, and nothing changed where a machine does
not set it."""

from __future__ import annotations

import math

import pytest

from icnperf.data.machine import load_machine
from icnperf.model import collectives as C
from icnperf.model import explain as E
from icnperf.model import network as N

NS = 1e-9
US = 1e-6

LINEAR = {
    # 1-byte flits, no header flits, one huge packet: T(n, 1 hop) = 770 ns + n · 1 ns exactly
    "flit_size": 1,
    "packet_max_flits": 10**12,
    "packet_header_flits": 0,
    "injection_latency": 100 * NS,
    "ejection_latency": 120 * NS,
    "router_latency": 10 * NS,
    "link_latency": 30 * NS,
    "link_bandwidth": 2e9,
    "host_bandwidth": 1e9,
    "software_overhead": 500 * NS,
    "store_and_forward": 0,
    "combine_time": 0.25 * NS,
}
STEP = 400 * NS


# --- LogGP by hand ----------------------------------------------------------------------


def test_exchange_step_is_half_a_ping_pong_plus_the_reduction_and_the_step_cost():
    # L = 1 us, o_send = 0.3 us, o_recv = 0.5 us, G = 1 ns/B, k = 1001 B:
    # half a ping-pong = 0.3 + 1 + 1000 * 0.001 + 0.5 = 2.8 us
    loggp = {"L": 1 * US, "o_send": 0.3 * US, "o_recv": 0.5 * US, "G": 1 * NS}
    assert N.half_ping_pong(1001, **loggp) == pytest.approx(2.8 * US)
    # a gap shorter than the flight does not show: the step is the one-way time
    assert N.exchange_step(1001, **loggp, g=0.4 * US) == pytest.approx(2.8 * US)
    # γ = 0.1 ns/B adds 100.1 ns, the library's 0.7 us per step adds 0.7 us: 3.6001 us
    assert N.exchange_step(1001, **loggp, g=0.4 * US, combine_time=0.1 * NS,
                           step_overhead=0.7 * US) == pytest.approx(3.6001 * US)
    # a gap of 3 us binds: the next injection waits g + (k - 1) G = 3 + 1 = 4 us
    assert N.exchange_step(1001, **loggp, g=3 * US) == pytest.approx(4.0 * US)


# Hand values on LINEAR's crossbar (every pair one hop apart, no shared channel):
# LogGP view at 1 hop: o = O/2 = 250 ns, L = T_hw(1 B) = 100 + 2*10 + 30 + 120 + 1 = 271 ns,
# G = max(1 / B_host, 1 / B_link) = 1 ns/B, g = max(o, T_ser(1 B)) = 250 ns.
# A 1-byte exchange step: 250 + 271 + 250 = 771 ns, + γ = 0.25 ns when it combines,
# + O_step = 400 ns: 1171.25 ns combining, 1171 ns plain.
COMBINING = 1171.25 * NS
PLAIN = 1171.0 * NS


@pytest.mark.parametrize("p, steps", [(2, 1), (4, 2), (8, 3)])
def test_recursive_doubling_step_by_hand(p, steps):
    params = dict(LINEAR, step_overhead=STEP)
    got = C.evaluate("allreduce", "recursive-doubling", 1.0, C.Layout.crossbar(p), params)
    assert float(got) == pytest.approx(steps * COMBINING, rel=1e-12)
    assert {2: 1171.25, 4: 2342.5, 8: 3513.75}[p] * NS == pytest.approx(steps * COMBINING)
    view = N.loggp(1, **N.bind(N.loggp, LINEAR))
    assert (view.L, view.o, view.g, view.G) == pytest.approx((271 * NS, 250 * NS, 250 * NS,
                                                              1 * NS))
    step = N.exchange_step(1, L=view.L, o_send=view.o, o_recv=view.o, g=view.g, G=view.G,
                           combine_time=LINEAR["combine_time"], step_overhead=STEP)
    assert float(got) == pytest.approx(steps * step, rel=1e-12)


@pytest.mark.parametrize("p, total_ns", [(2, 2342.25), (4, 7026.75), (8, 16395.75)])
def test_ring_step_by_hand(p, total_ns):
    # m = P bytes: blocks of 1 B; P - 1 combining steps then P - 1 plain ones
    params = dict(LINEAR, step_overhead=STEP)
    got = C.evaluate("allreduce", "ring", float(p), C.Layout.crossbar(p), params)
    assert (p - 1) * (COMBINING + PLAIN) == pytest.approx(total_ns * NS)
    assert float(got) == pytest.approx(total_ns * NS, rel=1e-12)


@pytest.mark.parametrize("p", [2, 3, 4, 8])
def test_the_step_cost_is_thakurs_alpha_raised_by_it(p):
    # every step of a textbook algorithm pays it once: α -> α + O_step in Thakur's forms
    layout = C.Layout.crossbar(p)
    lg = math.ceil(math.log2(p))
    n = 3 * 2.0 ** 12 * p
    for (algorithm, operation), steps in {
            ("binomial", "broadcast"): lg, ("binomial", "allreduce"): 2 * lg,
            ("ring", "allgather"): p - 1, ("bruck", "allgather"): lg,
            ("bruck", "barrier"): lg}.items():
        without = float(C.evaluate(operation, algorithm, n, layout, LINEAR))
        with_step = float(C.evaluate(operation, algorithm, n, layout,
                                     dict(LINEAR, step_overhead=STEP)))
        assert with_step - without == pytest.approx(steps * STEP, rel=1e-9), algorithm


# --- a core receiving several messages in one step (LogGP's o_recv in series) ------------


@pytest.mark.parametrize("p, total_ns", [(2, 771.25), (4, 1273.75), (8, 2278.75)])
def test_the_root_of_a_linear_reduce_takes_its_messages_one_after_another(p, total_ns):
    # P - 1 one-byte messages from distinct ranks, all released at 0: each waits O + the
    # 1-hop path = 500 + 170 = 770 ns, then shares the root's 1 GB/s host interface with
    # the other P - 2 (P - 1 ns for its byte); the root receives them one after another,
    # o = O/2 = 250 ns each after the first: 770 + (P - 1) + (P - 2) 250 ns, then
    # (P - 1) γ = 0.25 ns each of combining. LogGP: o_s + L + (P - 1) o_r, L the 1-byte 271.
    got = C.evaluate("reduce", "linear", 1.0, C.Layout.crossbar(p), LINEAR)
    assert 770 + (p - 1) + (p - 2) * 250 + (p - 1) * 0.25 == pytest.approx(total_ns)
    assert float(got) == pytest.approx(total_ns * NS, rel=1e-12)


def test_a_linear_all_to_all_rank_receives_after_posting_its_sends():
    # 3 ranks, 1-byte blocks: rank r posts its sends to the other two at 0 and 250 ns (o_s
    # each, in rank order). Arrivals (770 ns after release, 1 ns a byte, 2 ns when two
    # share a host): rank 0 gets both at 772 (bytes in at 522 after its o_r), rank 1 at
    # 771 and 1021, rank 2 both at 1022. A core is free once its last send is posted, 500
    # ns, then takes one receive per 250 ns: rank 0 done at 772, 1022; rank 1 771, 1021;
    # rank 2 1022, 1272.
    got = C.evaluate("alltoall", "linear", 3.0, C.Layout.crossbar(3), LINEAR)
    assert float(got) == pytest.approx(1272 * NS, rel=1e-12)


def test_receiving_one_message_is_unchanged():
    # a linear broadcast's ranks receive one message each: the root's third send is posted
    # at 2 o = 500 ns and ends at 500 + 770 + 1 ns, as before the receive series
    got = C.evaluate("broadcast", "linear", 1.0, C.Layout.crossbar(4), LINEAR)
    assert float(got) == pytest.approx(1271 * NS, rel=1e-12)


# --- on a machine -----------------------------------------------------------------------


def _lumi(step=None):
    machine = load_machine("lumi")
    if step is not None:
        machine = machine.with_overrides([f"software.mpi_step_overhead={step}"])
    return machine


@pytest.mark.parametrize("algorithm, steps", [
    ("recursive-doubling", {2: 1, 4: 2, 8: 3}),
    ("ring", {2: 2, 4: 6, 8: 14}),
    ("binomial", {2: 2, 4: 4, 8: 6}),
    # the linear reduce is one step, then the binomial broadcast's lg P (as flows: the
    # preset sends 8 B eagerly, each message of the chain a step)
    ("reduce-bcast", {2: 2, 4: 3, 8: 4}),
])
def test_a_preset_pays_it_once_per_step(algorithm, steps):
    for p, count in steps.items():
        layout = C.Layout.machine_job(_lumi().topology, p)
        base = C.collective_time(_lumi(), "allreduce", algorithm, [8], layout=layout)
        more = C.collective_time(_lumi("1us"), "allreduce", algorithm, [8], layout=layout)
        assert more.time[0] - base.time[0] == pytest.approx(count * US, abs=1e-12), p
        assert any("1e-06 s per step (software.mpi_step_overhead)" in note
                   for note in more.assumptions)
        assert not any("mpi_step_overhead" in note for note in base.assumptions)


def test_absent_or_zero_keeps_todays_numbers():
    layout = C.Layout.machine_job(_lumi().topology, 16)
    for algorithm in ("recursive-doubling", "ring", "rabenseifner", "reduce-bcast"):
        base = C.collective_time(_lumi(), "allreduce", algorithm, [8, 2**20], layout=layout)
        zero = C.collective_time(_lumi("0us"), "allreduce", algorithm, [8, 2**20],
                                 layout=layout)
        assert list(zero.time) == list(base.time)
    assert "step_overhead" not in C.collective_parameters(_lumi())
    assert C.collective_parameters(_lumi("2us"))["step_overhead"] == pytest.approx(2 * US)
    # MPI's key: the bare hardware path (and SHMEM) do not read it
    assert "step_overhead" not in C.collective_parameters(_lumi("2us"), "none")


def test_the_hardware_collective_does_not_pay_it_and_the_p2p_tree_pays_it_per_level():
    machine = load_machine("angara-3d")
    more = machine.with_overrides(["software.mpi_step_overhead=1us"])
    layout = C.Layout.torus((2, 2, 2))        # depth 3, no odd ring
    hw = [C.collective_time(m, "allreduce", "hw-tree", [8], layout=layout).time[0]
          for m in (machine, more)]
    assert hw[1] == hw[0]
    tree = [C.collective_time(m, "allreduce", "p2p-tree", [8], layout=layout).time[0]
            for m in (machine, more)]
    assert tree[1] - tree[0] == pytest.approx(6 * US)      # 3 levels up, 3 down


def test_explain_names_the_key_and_its_share():
    machine = _lumi("1us")
    layout = C.Layout.machine_job(machine.topology, 8)
    e = E.explain(machine, "allreduce", "recursive-doubling", 8, layout=layout)
    row = next(r for r in e.elasticities if r.parameter == "step_overhead")
    assert (row.symbol, row.key) == ("O_step", "software.mpi_step_overhead")
    assert row.derivative == pytest.approx(3.0)             # 3 steps, 1 s per s
    assert row.elasticity == pytest.approx(3 * US / e.time)
    plain = E.explain(_lumi(), "allreduce", "recursive-doubling", 8, layout=layout)
    assert "O_step" not in plain.symbols
    assert e.time - plain.time == pytest.approx(3 * US)


def test_the_key_reads_with_its_unit_and_refuses_a_negative_time():
    from icnperf.errors import InputError

    assert _lumi("250ns").get("software.mpi_step_overhead") == pytest.approx(250 * NS)
    with pytest.raises(InputError, match="mpi_step_overhead"):
        _lumi("-1us")


def test_a_calibrated_step_cost_keeps_its_band_through_toml():
    from icnperf.data.machine import parse_machine

    machine = parse_machine(
        _lumi().to_toml().replace("[software]\n", "[software]\n"
                                  'mpi_step_overhead.value = "1 us"\n'
                                  'mpi_step_overhead.source = "calibrated: a what-if"\n'
                                  'mpi_step_overhead.kind = "calibrated"\n'
                                  'mpi_step_overhead.uncertainty = "0.25 us"\n', 1),
        default_name="lumi")
    spread = machine.spread("software.mpi_step_overhead")
    assert machine.get("software.mpi_step_overhead") == pytest.approx(1 * US)
    assert (spread.kind, spread.form) == ("calibrated", "absolute")
    assert spread.amount == pytest.approx(0.25 * US)
    assert parse_machine(machine.to_toml(), default_name="lumi") == machine
