"""Tests for safemigrate.planning.backoff: which errors are retried, and how long to wait between
attempts."""

from __future__ import annotations

import pytest

from safemigrate.planning.backoff import Backoff, is_retryable


def backoff(rand: float = 1.0, initial: int = 100, maximum: int = 1000) -> Backoff:
    return Backoff(initial, maximum, rand=lambda: rand)


# is_retryable


@pytest.mark.parametrize("sqlstate", ["55P03", "40P01"])
def test_lock_not_available_and_deadlock_are_retried(sqlstate: str) -> None:
    assert is_retryable(sqlstate)


@pytest.mark.parametrize(
    "sqlstate", [None, "", "57014", "40001", "23505", "42P01", "55p03", "55000", "08006"]
)
def test_other_errors_are_not_retried(sqlstate: str | None) -> None:
    assert not is_retryable(sqlstate)


# ceiling_ms


def test_ceiling_doubles_per_failure() -> None:
    assert [backoff().ceiling_ms(n) for n in range(1, 5)] == [100, 200, 400, 800]


def test_ceiling_is_capped_at_maximum() -> None:
    assert [backoff().ceiling_ms(n) for n in (5, 6, 100)] == [1000, 1000, 1000]


def test_ceiling_of_huge_attempt_count_is_the_maximum() -> None:
    assert Backoff(100, 60_000).ceiling_ms(10**9) == 60_000


def test_ceiling_before_any_failure_is_the_initial_wait() -> None:
    assert backoff().ceiling_ms(0) == 100


def test_initial_above_maximum_is_capped() -> None:
    assert Backoff(5000, 1000).ceiling_ms(1) == 1000


# wait_ms


def test_wait_with_lowest_draw_is_half_the_ceiling() -> None:
    assert [backoff(rand=0.0).wait_ms(n) for n in (1, 2, 3)] == [50, 100, 200]


def test_wait_with_highest_draw_is_the_ceiling() -> None:
    assert [backoff(rand=1.0).wait_ms(n) for n in (1, 2, 10)] == [100, 200, 1000]


def test_wait_is_linear_in_the_draw() -> None:
    assert backoff(rand=0.5).wait_ms(2) == 150


@pytest.mark.parametrize("draw", [0.0, 0.1, 0.25, 0.5, 0.75, 0.999999])
def test_wait_stays_within_half_and_full_ceiling(draw: float) -> None:
    policy = Backoff(300, 5000, rand=lambda: draw)
    for failures in range(1, 12):
        ceiling = policy.ceiling_ms(failures)
        assert ceiling / 2 <= policy.wait_ms(failures) <= ceiling


def test_default_random_source_stays_within_bounds() -> None:
    policy = Backoff(200, 800)
    for _ in range(200):
        assert 100 <= policy.wait_ms(1) <= 200


# worst_case_ms


def test_worst_case_of_one_attempt_is_its_lock_timeout() -> None:
    assert backoff().worst_case_ms(1, 2000) == 2000


def test_worst_case_adds_every_pause_ceiling() -> None:
    # 3 attempts at 2s, pauses 100 + 200.
    assert backoff().worst_case_ms(3, 2000) == 6300


def test_worst_case_uses_capped_pauses() -> None:
    # pauses 100, 200, 400, 800, 1000, 1000
    assert backoff().worst_case_ms(7, 10) == 70 + 3500


def test_worst_case_ignores_jitter() -> None:
    assert backoff(rand=0.0).worst_case_ms(4, 100) == backoff(rand=1.0).worst_case_ms(4, 100)
