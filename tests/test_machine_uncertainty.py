"""Machine values' kind and uncertainty (issue #31 step 1): the file fields, their defaults,
the bundled presets' annotations, --set, the round trip and the errors."""

import pytest

from icnperf.data.machine import list_presets, load_machine, parse_machine
from icnperf.data.machine.uncertainty import DEFAULTS, KINDS, kind_from_source
from icnperf.errors import InputError

BASE = 'name = "x"\ntopology = "torus:4x4"\n[network]\n'


def _machine(body: str):
    return parse_machine(BASE + body)


def test_every_preset_value_has_a_kind_and_a_reason_and_survives_toml():
    names = [name for name, _ in list_presets()]
    assert len(names) >= 28
    for name in names:
        machine = load_machine(name)
        for section, key, *_ in machine.rows():
            path = "topology" if key == "topology" else f"{section}.{key}"
            spread = machine.spread(path)
            assert spread is not None, (name, path)
            assert spread.kind in KINDS, (name, path)
            assert spread.reason.strip(), (name, path)
        assert parse_machine(machine.to_toml(), default_name=name) == machine, name


def test_written_spreads_are_read_in_si():
    machine = _machine(
        'router_latency.value = "10 ns"\nrouter_latency.kind = "stated"\n'
        'router_latency.uncertainty = "2 ns"\nrouter_latency.uncertainty_reason = "r"\n'
        'link_latency.value = "80 ns"\nlink_latency.kind = "chosen"\n'
        'link_latency.uncertainty = "x3"\n'
        'injection_latency.value = "1 us"\ninjection_latency.kind = "derived"\n'
        'injection_latency.uncertainty = "12.5%"\n'
        'switching.value = "cut-through"\nswitching.kind = "chosen"\n'
        'switching.uncertainty = ["cut-through", "store-and-forward"]\n')
    router = machine.spread("network.router_latency")
    assert (router.form, router.amount, router.reason) == ("absolute", 2e-9, "r")
    assert (machine.spread("network.link_latency").form,
            machine.spread("network.link_latency").amount) == ("factor", 3.0)
    assert machine.spread("network.injection_latency").amount == 0.125
    assert machine.spread("network.switching").amount == ("cut-through", "store-and-forward")
    assert parse_machine(machine.to_toml()) == machine


def test_defaults_per_kind_and_exact_counts():
    machine = _machine('link_latency.value = "80 ns"\nlink_latency.kind = "placeholder"\n'
                       'packet_max_flits.value = 5\npacket_max_flits.kind = "chosen"\n')
    spread = machine.spread("network.link_latency")
    assert (spread.form, spread.amount) == ("factor", 2.0)
    assert spread.reason == DEFAULTS["placeholder"][2]
    assert machine.spread("network.packet_max_flits").form == "exact"
    # a value without kind states no uncertainty
    assert _machine('link_latency = "80 ns"\n').spread("network.link_latency") is None


def test_set_is_exact_unless_given_a_spread():
    machine = load_machine("lumi")
    assert machine.spread("network.injection_latency").kind == "placeholder"
    exact = machine.with_overrides(["network.injection_latency=300ns"])
    spread = exact.spread("network.injection_latency")
    assert (spread.kind, spread.form) == ("given", "exact")
    assert exact.source("network.injection_latency") == "--set network.injection_latency=300ns"
    wide = machine.with_overrides(["network.injection_latency=300ns+-50ns"])
    assert wide.get("network.injection_latency") == pytest.approx(3e-7)
    assert wide.spread("network.injection_latency").amount == pytest.approx(5e-8)
    also = machine.with_overrides(["network.injection_latency=300ns±10%"])
    assert also.spread("network.injection_latency").amount == 0.1
    assert parse_machine(wide.to_toml(), default_name="lumi") == wide


def test_lumi_overhead_is_solved_with_its_placeholders():
    spread = load_machine("lumi").spread("software.mpi_overhead")
    assert spread.kind == "calibrated"
    assert spread.amount == pytest.approx(0.2e-6)  # LUMI's band (1.8, -0.2, 0.2, 'us')
    assert set(spread.solved_with) == {"network.injection_latency",
                                       "network.ejection_latency", "network.router_latency"}
    # Fugaku's 1-hop sums count two routers
    fugaku = load_machine("fugaku").spread("software.mpi_overhead")
    assert fugaku.solved_with.count("network.router_latency") == 2


@pytest.mark.parametrize("body, words", [
    ('link_latency.value = "1 ns"\nlink_latency.kind = "guessed"\n', "kind must be one of"),
    ('link_latency.value = "1 ns"\nlink_latency.uncertainty = "5%"\n', "without a kind"),
    ('link_latency.value = "1 ns"\nlink_latency.kind = "chosen"\n'
     'link_latency.uncertainty = "150%"\n', "below 100 %"),
    ('link_latency.value = "1 ns"\nlink_latency.kind = "chosen"\n'
     'link_latency.uncertainty = "x0.5"\n', "at least 1"),
    ('link_latency.value = "1 ns"\nlink_latency.kind = "chosen"\n'
     'link_latency.uncertainty = "5 GB/s"\n', "link_latency.uncertainty"),
    ('link_latency.value = "1 ns"\nlink_latency.kind = "calibrated"\n'
     'link_latency.solved_with = ["network.router_latency"]\n', "not a numeric value"),
    ('switching.value = "cut-through"\nswitching.kind = "chosen"\n'
     'switching.uncertainty = ["wormhole"]\n', "switching"),
])
def test_bad_fields_are_one_line_errors(body, words):
    with pytest.raises(InputError) as error:
        _machine(body)
    assert words in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("source, kind", [
    ("chosen placeholder, not a published value: no NIC latency", "placeholder"),
    ("calibrated: osu_latency 1.8 us; the NIC latencies are placeholders", "calibrated"),
    ("derived: 2 sockets x 8 channels (to confirm: DDR5-5600)", "to-confirm"),
    ("transferred from the frontier preset: chosen: cable delay not added", "chosen"),
    ("assumed: virtual cut-through; not stated in what was read", "assumed"),
    ("A100 FP64 as commonly quoted (not read here)", "to-confirm"),
    ("LUMI documentation, 'CPU nodes - LUMI-C': 128 cores per node", "stated"),
    ("Kept at the raw rate: the others use 5.85 GB/s, calibrated on Fig. 9", "stated"),
    ("", None),
])
def test_kind_from_source(source, kind):
    assert kind_from_source(source) == kind
