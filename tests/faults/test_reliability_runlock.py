"""The race the soak's eight-runner trials hit (docs/reliability.md): the run lock's holder
ends between a runner's refused ``pg_try_advisory_lock`` and its look-up of who holds it.

Forced here without timing luck: the lock functions are replaced by stand-ins that play that
sequence (refused; nobody holds it; free on the next try).
"""

from __future__ import annotations

from typing import Any

import pytest

from safemigrate.db import runlock
from safemigrate.run.run_lock import RunLock, acquire_run_lock
from safemigrate.settings.config import Settings


def _race(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    answers = iter([False, True])

    def try_acquire(session: Any, keys: tuple[int, int]) -> bool:
        calls.append("try")
        return next(answers)

    def holders(session: Any, keys: tuple[int, int]) -> list[runlock.LockHolder]:
        calls.append("holders")
        return []  # the holder has just ended

    monkeypatch.setattr(runlock, "try_acquire", try_acquire)
    monkeypatch.setattr(runlock, "holders", holders)
    return calls


def test_with_wait_for_lock_a_holder_that_just_ended_is_followed_by_a_new_try(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _race(monkeypatch)
    settings = Settings(wait_for_lock_ms=10_000)
    lock = RunLock(object(), (1, 2))  # type: ignore[arg-type]
    acquire_run_lock(lock, settings.wait_for_lock_ms, lambda e: None, sleep=lambda s: None)
    assert calls == ["try", "holders", "try"]


def test_without_wait_for_lock_a_holder_that_just_ended_is_followed_by_a_new_try(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _race(monkeypatch)
    lock = RunLock(object(), (1, 2))  # type: ignore[arg-type]
    acquire_run_lock(lock, Settings().wait_for_lock_ms, lambda e: None, sleep=lambda s: None)
    assert calls == ["try", "holders", "try"]
