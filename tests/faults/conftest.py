"""Fixtures of the fault-injection tests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from tests.faults.helpers import FAST_BACKOFF, Runner, Spawn


@pytest.fixture
def spawn() -> Iterator[Spawn]:
    """Start ``safemigrate ARGS`` in the background (fast backoff); all killed at teardown."""
    started: list[Runner] = []

    def factory(*args: str, env: dict[str, str] | None = None) -> Runner:
        runner = Runner(*args, env={**FAST_BACKOFF, **(env or {})})
        started.append(runner)
        return runner

    try:
        yield factory
    finally:
        for runner in started:
            with contextlib.suppress(Exception):
                runner.kill()
