"""Tests for safemigrate.core.durations: reading and printing human durations."""

from __future__ import annotations

import pytest

from safemigrate.core.durations import format_duration, format_exact_duration, parse_duration
from safemigrate.core.errors import ConfigError, ExitCode


def error_of(value: object) -> str:
    with pytest.raises(ConfigError) as info:
        parse_duration(value, key="lock_timeout")
    assert info.value.exit_code == ExitCode.BAD_INPUT
    return str(info.value)


# parse_duration


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("200ms", 200),
        ("2s", 2_000),
        ("1min", 60_000),
        ("1h", 3_600_000),
        ("1d", 86_400_000),
        ("0ms", 0),
        ("0s", 0),
    ],
)
def test_units(text: str, ms: int) -> None:
    assert parse_duration(text, key="k") == ms


@pytest.mark.parametrize(
    ("text", "ms"),
    [("1.5s", 1_500), ("0.25min", 15_000), ("2.5ms", 3), ("0.4ms", 0), (".5s", 500)],
)
def test_decimals_round_to_whole_milliseconds(text: str, ms: int) -> None:
    assert parse_duration(text, key="k") == ms


def test_bare_zero_needs_no_unit() -> None:
    assert parse_duration("0", key="k") == 0
    assert parse_duration(0, key="k") == 0


def test_surrounding_and_inner_spaces_are_accepted() -> None:
    assert parse_duration(" 2 s ", key="k") == 2_000


@pytest.mark.parametrize("text", ["5", "5 ", "100", "2.5"])
def test_bare_number_other_than_zero_is_refused(text: str) -> None:
    assert "not a duration" in error_of(text)


def test_bare_int_other_than_zero_is_refused() -> None:
    error_of(5)


@pytest.mark.parametrize("text", ["5x", "5sec", "5m", "5S", "5MS", "5 minutes", "s", "", "ms5"])
def test_bad_units_are_refused(text: str) -> None:
    error_of(text)


@pytest.mark.parametrize("text", ["1.2.3s", "--1s", "1,5s", "NaNs", "infs"])
def test_bad_numbers_are_refused(text: str) -> None:
    error_of(text)


@pytest.mark.parametrize("text", ["-1s", "-0.5ms"])
def test_negative_is_refused(text: str) -> None:
    assert "positive" in error_of(text)


def test_largest_postgresql_timeout_is_accepted() -> None:
    assert parse_duration("2147483647ms", key="k") == 2_147_483_647
    assert parse_duration("24d", key="k") == 24 * 86_400_000


@pytest.mark.parametrize("text", ["2147483648ms", "25d", "1000000h"])
def test_too_large_is_refused(text: str) -> None:
    assert "longer than PostgreSQL accepts" in error_of(text)


@pytest.mark.parametrize("value", [True, False, None, 1.5, ["1s"], b"1s"])
def test_other_types_are_refused(value: object) -> None:
    assert "expected a duration" in error_of(value)


def test_error_names_the_key_and_value() -> None:
    message = error_of("5x")
    assert message.startswith("lock_timeout: ")
    assert "'5x'" in message


# format_duration


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "0ms"),
        (850, "850ms"),
        (999, "999ms"),
        (1_000, "1s"),
        (2_500, "2.5s"),
        (10_000, "10s"),
        (59_400, "59.4s"),
        (60_000, "1min"),
        (200_000, "3min 20s"),
        (3_599_000, "59min 59s"),
        (3_600_000, "1h"),
        (3_900_000, "1h 5min"),
        (90_000_000, "25h"),
    ],
)
def test_format_duration(ms: float, text: str) -> None:
    assert format_duration(ms) == text


def test_format_duration_accepts_floats() -> None:
    assert format_duration(12.4) == "12ms"
    assert format_duration(1_234.5) == "1.2s"


# format_exact_duration (review 21h D7: 10001ms shown as "10s" hid why it was above 10s)


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "0ms"),
        (999, "999ms"),
        (10_000, "10s"),
        (10_001, "10001ms"),
        (10_100, "10.1s"),
        (59_950, "59950ms"),
        (60_000, "1min"),
        (60_500, "60500ms"),
        (200_000, "3min 20s"),
        (3_599_500, "3599500ms"),
        (3_600_000, "1h"),
        (3_661_000, "3661000ms"),
    ],
)
def test_format_exact_duration_shows_every_millisecond(ms: int, text: str) -> None:
    assert format_exact_duration(ms) == text


def test_format_exact_duration_reads_back_to_the_same_value() -> None:
    for ms in [*range(0, 7_300_000, 499), *range(59_000, 61_000), *range(3_599_000, 3_601_000)]:
        shown = format_exact_duration(ms)
        if " " not in shown:  # "3min 20s" is a display form, not a duration
            assert parse_duration(shown, key="k") == ms, shown
