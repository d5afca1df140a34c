"""What a run reports as it goes: one event per thing an operator or a pipeline cares about.

Events are plain data. ``to_dict`` gives the JSON form (``--format json`` prints one per line);
the text renderer in ``output.py`` turns them into lines for people.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class Event:
    """Base of all events; ``kind`` names the event in JSON."""

    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON-ready dict, ``event`` first."""
        return {"event": self.kind, **dataclasses.asdict(self)}


@dataclass(frozen=True)
class StepRef:
    """Which step an event is about."""

    version: int
    file: str
    line: int
    #: 1-based step number within the migration, and the migration's step count.
    step: int
    steps: int
    sql: str


@dataclass(frozen=True)
class RunStarted(Event):
    """The run holds its lock and knows what it will do."""

    kind: ClassVar[str] = "run_started"
    database: str
    journal: str
    pending_migrations: int
    pending_steps: int
    lock_timeout_ms: int
    max_attempts: int
    #: The longest one step can wait for locks before giving up (attempts and backoff).
    worst_case_step_wait_ms: int
    #: The same for a CONCURRENTLY step.
    worst_case_concurrent_wait_ms: int
    deadline_ms: int | None


@dataclass(frozen=True)
class RunLockWaiting(Event):
    """Another run holds the run lock; this one polls (``--wait-for-lock``)."""

    kind: ClassVar[str] = "run_lock_waiting"
    holder: str
    waited_ms: int
    wait_for_lock_ms: int


@dataclass(frozen=True)
class StepStarted(Event):
    """A step begins (its first attempt)."""

    kind: ClassVar[str] = "step_started"
    ref: StepRef
    #: Position of the step in the whole run (1-based) and the run's step count.
    n: int
    total: int
    mode: str
    notes: tuple[str, ...]


@dataclass(frozen=True)
class AttemptFailed(Event):
    """An attempt lost a lock race (lock timeout or deadlock) and was rolled back."""

    kind: ClassVar[str] = "attempt_failed"
    ref: StepRef
    attempt: int
    max_attempts: int
    sqlstate: str | None
    reason: str
    lock_timeout_ms: int
    #: The pause before the next attempt; None when the runner gives up.
    wait_ms: int | None


@dataclass(frozen=True)
class IndexCleanup(Event):
    """An invalid index left by an earlier failed CONCURRENTLY build was dropped."""

    kind: ClassVar[str] = "index_cleanup"
    ref: StepRef
    index: str
    reason: str


@dataclass(frozen=True)
class StepApplied(Event):
    """A step is applied and recorded."""

    kind: ClassVar[str] = "step_applied"
    ref: StepRef
    duration_ms: float
    attempts: int
    #: Why the step was recorded without running its SQL again, if it was.
    skipped: str | None = None


@dataclass(frozen=True)
class RunFinished(Event):
    """The run ended successfully."""

    kind: ClassVar[str] = "run_finished"
    applied_steps: int
    applied_migrations: int
    duration_ms: float
    total_attempts: int


@dataclass(frozen=True)
class RunFailed(Event):
    """The run stopped on an error (printed by the CLI; the library raises instead)."""

    kind: ClassVar[str] = "run_failed"
    error: str
    exit_code: int
    hint: str | None = None
    sqlstate: str | None = None
    detail: str | None = None
