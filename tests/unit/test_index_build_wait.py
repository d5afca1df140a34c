"""The wait for another backend's index build (review21c F6): until it ends, or the limit."""

from __future__ import annotations

from typing import Any, cast

from safemigrate.db.indexes import BUILD_POLL_S, wait_for_live_build
from safemigrate.db.session import Session


class _Builds:
    """A session whose pg_stat_progress_create_index shows a build for ``polls`` looks."""

    def __init__(self, polls: int) -> None:
        self.polls = polls

    def scalar(self, query: Any) -> object:
        if self.polls:
            self.polls -= 1
            return 4242
        return None


def _wait(polls: int, limit_ms: int) -> tuple[bool, list[float]]:
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    done = wait_for_live_build(
        cast(Session, _Builds(polls)), 1, limit_ms, clock=lambda: now[0], sleep=sleep
    )
    return done, slept


def test_review21c_f6_the_wait_ends_with_the_build() -> None:
    assert _wait(3, 10_000) == (True, [BUILD_POLL_S] * 3)
    assert _wait(0, 10_000) == (True, [])


def test_review21c_f6_a_build_longer_than_the_limit_is_not_waited_for_further() -> None:
    done, slept = _wait(1_000, 1_000)
    assert not done and len(slept) == round(1 / BUILD_POLL_S)


def test_review21c_f6_no_limit_waits_as_long_as_the_build_runs() -> None:
    assert _wait(50, 0) == (True, [BUILD_POLL_S] * 50)
