"""icnperf/units/: parsing, formatting and the range syntax, by examples and by properties."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from icnperf.errors import InputError
from icnperf.units import (
    KINDS,
    MAX_RANGE_POINTS,
    SI_UNITS,
    format_quantity,
    parse_quantity,
    parse_range,
)

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ------------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "text, kind, expected",
    [
        ("80ns", "time", 80e-9),
        ("80 ns", "time", 80e-9),
        ("  80\tns ", "time", 80e-9),
        ("0.3 us", "time", 0.3e-6),
        ("0.3 µs", "time", 0.3e-6),
        ("0.3 μs", "time", 0.3e-6),
        (".5 ms", "time", 0.5e-3),
        ("2 s", "time", 2.0),
        ("1.5 ps", "time", 1.5e-12),
        ("0", "time", 0.0),
        ("10 Gbit/s", "bandwidth", 10e9 / 8),
        ("75 Gbit/s", "bandwidth", 75e9 / 8),
        ("40 Gbps", "bandwidth", 5e9),
        ("100 Mbit/s", "bandwidth", 12.5e6),
        ("8 GB/s", "bandwidth", 8e9),
        ("1 KiB/s", "bandwidth", 1024.0),
        ("1 GiB/s", "bandwidth", 2.0**30),
        ("8 bit/s", "bandwidth", 1.0),
        ("2 KiB", "size", 2048.0),
        ("1e3 B", "size", 1000.0),
        ("1e3B", "size", 1000.0),
        ("256 bytes", "size", 256.0),
        ("1 MiB", "size", 2.0**20),
        ("1.5 kB", "size", 1500.0),
        ("500 MHz", "frequency", 500e6),
        ("2.2 GHz", "frequency", 2.2e9),
        ("140.8 GFLOP/s", "rate", 140.8e9),
        ("591 MFLOP/s", "rate", 591e6),
        ("11 Gflops", "rate", 11e9),
        ("16", "count", 16.0),
        ("1e3", "count", 1000.0),
        ("5", "cycles", 5.0),
        ("50 cycles", "cycles", 50.0),
        ("0.05", "number", 0.05),
    ],
)
def test_parse_accepts(text, kind, expected):
    assert parse_quantity(text, kind) == pytest.approx(expected, rel=1e-15)


def test_parse_is_exact_decimal_scaling():
    # "80 ns" is the float nearest 80e-9, not 80 * 1e-9 (which rounds differently)
    assert parse_quantity("80 ns", "time") == 80e-9
    assert parse_quantity("0.3 us", "time") == 0.3e-6
    assert parse_quantity("140.8 GFLOP/s", "rate") == 140.8e9


def test_python_numbers_are_bare_numbers():
    assert parse_quantity(16, "count") == 16.0
    with pytest.raises(InputError, match="no unit"):
        parse_quantity(80, "time")


def test_default_unit_applies_to_bare_numbers_only():
    assert parse_quantity("8", "size", default_unit="B") == 8.0
    assert parse_quantity("1 KiB", "size", default_unit="B") == 1024.0
    with pytest.raises(ValueError):
        parse_quantity("8", "size", default_unit="ns")


@pytest.mark.parametrize(
    "text, kind, fragment",
    [
        ("", "time", "empty"),
        ("   ", "size", "empty"),
        ("80", "time", "no unit; write e.g. '80 ns'"),
        ("-5 ns", "time", "negative"),
        ("-1", "count", "negative"),
        ("nan", "time", "not a finite number"),
        ("inf ns", "time", "not a finite number"),
        ("1e400 s", "time", "too large"),
        ("80 parsec", "time", "unknown unit 'parsec'"),
        ("80 NS", "time", "case-sensitive; did you mean 'ns'"),
        ("5 cycles", "time", "cycles are not a time"),
        ("1 KB", "size", "ambiguous"),
        ("1 Gb/s", "bandwidth", "ambiguous"),
        ("8 b", "size", "bits"),
        ("10 MHz", "time", "is a frequency unit"),
        ("80 ns", "count", "is a time unit"),
        ("2.5", "count", "whole number"),
        ("abc", "size", "does not start with a number"),
        ("ns 80", "time", "does not start with a number"),
        ("8 0 ns", "time", "unknown unit"),
        ("1_000 B", "size", "unknown unit"),
        ("5 gflops", "rate", "GFLOP/s"),
    ],
)
def test_parse_rejects_with_reason(text, kind, fragment):
    with pytest.raises(InputError) as info:
        parse_quantity(text, kind)
    message = str(info.value)
    assert fragment in message
    assert "\n" not in message
    assert "accepted:" in message


def test_messages_list_the_accepted_units():
    with pytest.raises(InputError) as info:
        parse_quantity("3 furlongs", "bandwidth")
    for unit in ("GB/s", "Gbit/s", "KiB/s"):
        assert unit in str(info.value)


def test_si_units_are_each_kinds_unit_of_factor_one():
    """The units JSON rows name: one second, one byte per second, one byte, one hertz, one
    FLOP/s parse to 1.0 (count, cycles and number have no SI unit)."""
    assert SI_UNITS == {"time": "s", "bandwidth": "B/s", "size": "B", "frequency": "Hz",
                        "rate": "FLOP/s"}
    for kind, unit in SI_UNITS.items():
        assert parse_quantity(f"1 {unit}", kind) == 1.0
        assert parse_quantity(f"1.5 {unit}", kind) == 1.5


def test_unknown_kind_is_a_programming_error():
    with pytest.raises(ValueError) as info:
        parse_quantity("1", "mass")
    assert not isinstance(info.value, InputError)


# ----------------------------------------------------------------------------- formatting


@pytest.mark.parametrize(
    "value, kind, kwargs, expected",
    [
        (80e-9, "time", {}, "80 ns"),
        (0.3e-6, "time", {}, "300 ns"),
        (1e-6, "time", {}, "1 µs"),
        (2.5e-3, "time", {}, "2.5 ms"),
        (0.0, "time", {}, "0 s"),
        (8e9, "bandwidth", {}, "8 GB/s"),
        (75e9 / 8, "bandwidth", {}, "9.38 GB/s"),
        (75e9 / 8, "bandwidth", {"unit": "Gbit/s"}, "75 Gbit/s"),
        (256.0, "size", {}, "256 B"),
        (2048.0, "size", {}, "2 KiB"),
        (1536.0, "size", {}, "1.5 KiB"),
        (2.0**20, "size", {}, "1 MiB"),
        (1e6, "size", {}, "1 MB"),
        (500e6, "frequency", {}, "500 MHz"),
        (140.8e9, "rate", {}, "141 GFLOP/s"),
        (140.8e9, "rate", {"digits": 4}, "140.8 GFLOP/s"),
        (16, "count", {}, "16"),
        (5, "cycles", {}, "5 cycles"),
        (999.9e-9, "time", {}, "1 µs"),  # rounding reaches the next prefix
        (-80e-9, "time", {}, "-80 ns"),
        (float("nan"), "time", {}, "nan"),
    ],
)
def test_format_examples(value, kind, kwargs, expected):
    assert format_quantity(value, kind, **kwargs) == expected


def test_format_rejects_bad_arguments():
    with pytest.raises(ValueError):
        format_quantity(1.0, "time", unit="GB/s")
    with pytest.raises(ValueError):
        format_quantity(1.0, "time", digits=0)


_DIMENSIONED = ["time", "bandwidth", "size", "frequency", "rate"]
_magnitudes = st.floats(min_value=1e-15, max_value=1e18, allow_nan=False, allow_infinity=False)


@FAST
@given(value=_magnitudes, kind=st.sampled_from(_DIMENSIONED))
def test_shortest_format_round_trips_exactly(value, kind):
    assume(kind != "size" or value >= 1)  # sizes are whole bytes or more
    assert parse_quantity(format_quantity(value, kind, digits=None), kind) == value


@FAST
@given(value=_magnitudes, kind=st.sampled_from(_DIMENSIONED), digits=st.sampled_from([3, 4, 6]))
def test_format_round_trip_within_its_digits(value, kind, digits):
    assume(kind != "size" or value >= 1)
    back = parse_quantity(format_quantity(value, kind, digits=digits), kind)
    # rounding to d significant digits errs by at most half a unit in the last digit
    assert math.isclose(back, value, rel_tol=5 * 10.0**-digits)


@FAST
@given(value=_magnitudes)
def test_four_digits_are_within_one_per_mille(value):
    for kind in _DIMENSIONED:
        if kind == "size" and value < 1:
            continue
        back = parse_quantity(format_quantity(value, kind, digits=4), kind)
        assert math.isclose(back, value, rel_tol=1e-3)


@FAST
@given(
    value=_magnitudes,
    unit=st.sampled_from(["Gbit/s", "Mbit/s", "GB/s", "MiB/s", "bps", "kB/s"]),
)
def test_forced_unit_round_trips(value, unit):
    text = format_quantity(value, "bandwidth", digits=None, unit=unit)
    assert text.endswith(" " + unit)
    assert parse_quantity(text, "bandwidth") == value


@FAST
@given(value=st.integers(min_value=0, max_value=10**15))
def test_counts_round_trip(value):
    assert parse_quantity(format_quantity(value, "count"), "count") == value
    assert parse_quantity(format_quantity(value, "cycles"), "cycles") == value


# ------------------------------------------------------------------ robustness to any text

_UNITS = sorted({u for k in KINDS.values() for u in k.units} | {"KB", "Gb/s", "cycles", "xx"})
_number_like = st.builds(
    lambda sign, whole, frac, exp: f"{sign}{whole}{frac}{exp}",
    st.sampled_from(["", "", "-", "+"]),
    st.sampled_from(["", "0", "1", "80", "1024", "99999"]),
    st.sampled_from(["", ".", ".5", ".05", ".999"]),
    st.sampled_from(["", "", "e3", "E-9", "e+400", "e-400", "e"]),
)
_quantity_like = st.builds(
    lambda n, sp, u: f"{n}{sp}{u}",
    _number_like,
    st.sampled_from(["", " ", "  ", "\t"]),
    st.sampled_from(_UNITS + [""]),
)
_any_text = st.one_of(st.text(max_size=30), _quantity_like)


@FAST
@given(text=_any_text, kind=st.sampled_from(sorted(KINDS)))
def test_any_text_parses_or_raises_input_error(text, kind):
    try:
        value = parse_quantity(text, kind)
    except InputError as err:
        assert "\n" not in str(err)
        return
    assert math.isfinite(value) and value >= 0


_range_like = st.one_of(
    st.text(max_size=30),
    st.builds(
        lambda a, b, sep, step: f"{a}..{b}{sep}{step}",
        _quantity_like,
        _quantity_like,
        st.sampled_from([":", ":x", "", "::"]),
        _number_like,
    ),
    st.lists(_quantity_like, max_size=4).map(",".join),
)


@FAST
@given(text=_range_like, kind=st.sampled_from([None, "time", "size", "count", "number"]))
def test_any_range_text_parses_or_raises_input_error(text, kind):
    try:
        values = parse_range(text, kind)
    except InputError as err:
        assert "\n" not in str(err)
        return
    assert isinstance(values, np.ndarray) and 1 <= values.size <= MAX_RANGE_POINTS
    assert np.all(np.isfinite(values)) and np.all(values >= 0)


# --------------------------------------------------------------------------------- ranges


def test_range_examples():
    assert parse_range("8..8192:x2").tolist() == [2.0**i for i in range(3, 14)]
    assert parse_range("8..8000:x2")[-1] == 4096
    values = parse_range("0.05..0.5:0.05")
    assert values.size == 10 and values[0] == 0.05 and values[-1] == 0.5
    assert parse_range("8,64,512", "count").tolist() == [8, 64, 512]
    assert parse_range("512,8", "count").tolist() == [512, 8]  # lists keep their order
    assert parse_range("60ns", "time").tolist() == [60e-9]
    assert parse_range("1..1:1").tolist() == [1.0]
    assert parse_range("0.1..1000:x10").tolist()[-1] == 1000.0


def test_range_units_and_default_unit():
    sizes = parse_range("8..1MiB:x2", "size", default_unit="B")
    assert sizes[0] == 8 and sizes[-1] == 2**20 and sizes.size == 18
    times = parse_range("0..1us:100ns", "time")
    assert times.size == 11 and times[-1] == 1e-6
    assert parse_range("60ns,80 ns,0.1us", "time").tolist() == pytest.approx([60e-9, 80e-9, 1e-7])


def test_count_ranges_are_integers():
    nodes = parse_range("8..8192:x2", "count")
    assert nodes.dtype == np.int64 and nodes[-1] == 8192
    with pytest.raises(InputError, match="non-whole"):
        parse_range("1..100:x1.5", "count")


@pytest.mark.parametrize(
    "text, kind, fragment",
    [
        ("", None, "empty"),
        ("8..1:x2", None, "START is greater than END"),
        ("1..2:0", None, "step must be greater than 0"),
        ("1..2:-1", None, "negative"),
        ("1..8:x1", None, "factor must be greater than 1"),
        ("1..8:x0.5", None, "factor must be greater than 1"),
        ("0..8:x2", None, "start above 0"),
        ("0..1e7:1", None, "more than 1000000 points"),
        ("1..1.000001:1e-30", None, "more than 1000000 points"),
        ("8..64", None, "no step"),
        ("8..:x2", None, "must all be given"),
        ("8,,64", None, "empty list element"),
        ("8..64:x2,128", None, "mixes"),
        ("8..1MiB:x2", "size", "no unit"),
        ("1ns..1us:x2", None, "is a time unit"),
        ("80 furlongs", None, "takes no unit"),
    ],
)
def test_range_rejections(text, kind, fragment):
    with pytest.raises(InputError) as info:
        parse_range(text, kind)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


@FAST
@given(
    start=st.floats(min_value=1e-6, max_value=1e6),
    factor=st.floats(min_value=1.01, max_value=100),
    decades=st.floats(min_value=0, max_value=12),
)
def test_geometric_ranges_are_monotone_and_bounded(start, factor, decades):
    end = start * 10**decades
    values = parse_range(f"{start!r}..{end!r}:x{factor!r}")
    assert values[0] == start
    assert np.all(np.diff(values) > 0)
    assert values[-1] <= end
    assert values[-1] * factor > end * (1 - 1e-9)  # no further point fits below END
    assert np.allclose(values[1:] / values[:-1], factor, rtol=1e-9)


@FAST
@given(a=st.integers(0, 10**4), b=st.integers(1, 10**3), n=st.integers(0, 2000))
def test_arithmetic_ranges_include_a_decimal_end(a, b, n):
    # decimal steps such as 0.05 are not exact in binary; the END must still be included
    start, step, end = a / 100, b / 100, (a + n * b) / 100
    values = parse_range(f"{start!r}..{end!r}:{step!r}")
    assert values.size == n + 1
    assert values[0] == start and values[-1] == end
    assert np.all(np.diff(values) > 0) and np.all(values <= end)


@FAST
@given(k=st.integers(0, 40), base=st.integers(1, 1000))
def test_geometric_end_hit_exactly_is_included(k, base):
    values = parse_range(f"{base}..{base * 2**k}:x2", "count")
    assert values.size == k + 1 and values[-1] == base * 2**k


@pytest.mark.parametrize("text, kind, problem", [
    ("1e-320 GB/s", "bandwidth", "too small"),   # subnormal: 1/x overflows to inf
    ("1e-400 s", "time", "too small"),           # would round to 0 silently
    ("1e-310", "number", "too small"),
    ("0.5 B", "size", "below one byte"),
    ("0.999", "size", "below one byte"),
])
def test_values_that_would_make_results_non_finite_are_refused(text, kind, problem):
    with pytest.raises(InputError, match=problem):
        parse_quantity(text, kind, default_unit="B" if kind == "size" else None)


def test_smallest_accepted_values():
    assert parse_quantity("1 B", "size") == 1
    assert parse_quantity("0 B", "size") == 0      # an empty message is a size
    assert parse_quantity("1e-300 s", "time") == 1e-300
    with pytest.raises(InputError, match="below one byte"):
        parse_range("0.5..4:x2", "size", default_unit="B")


@pytest.mark.parametrize("count, text", [
    (163_840_000, "163,840,000"),        # whole bytes: thousands separators
    (163_840_000.0, "163,840,000"),      # a float that is whole, the same
    (635_130.25, "635,130.2"),           # a fraction: one decimal (.25 rounds to even)
    (8, "8"),
    (0.5, "0.5"),
    (2e15, "2e+15"),                     # from 1e15 on: powers of ten
    (1.23456789e16, "1.23457e+16"),
])
def test_byte_count_writes_bytes_for_text(count, text):
    from icnperf.units import byte_count

    assert byte_count(count) == text
