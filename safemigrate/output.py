"""Rendering results and events for people (text) and machines (JSON). No click, no I/O."""

from __future__ import annotations

import json
from typing import Any

from .durations import format_duration
from .events import (
    AttemptFailed,
    Event,
    IndexCleanup,
    RunFailed,
    RunFinished,
    RunLockWaiting,
    RunStarted,
    StepApplied,
    StepRef,
    StepStarted,
)
from .planner import MigrationStatus, State

_COLOURS = {"green": 32, "yellow": 33, "red": 31, "dim": 2, "bold": 1, "cyan": 36}


def paint(text: str, colour: str, enabled: bool) -> str:
    """``text`` in ANSI ``colour`` when ``enabled`` (a terminal), else unchanged."""
    if not enabled:
        return text
    return f"\x1b[{_COLOURS[colour]}m{text}\x1b[0m"


def to_json(data: Any) -> str:
    """One compact JSON line."""
    return json.dumps(data, separators=(",", ":"), default=str)


def event_json(event: Event) -> str:
    """The JSON line of an event (``--format json``)."""
    return to_json(event.to_dict())


def _where(ref: StepRef) -> str:
    return f"{ref.file}:{ref.line} step {ref.step}/{ref.steps}"


def event_text(event: Event, colour: bool = False) -> list[str]:
    """The lines a person sees for an event (possibly none)."""
    if isinstance(event, RunStarted):
        if event.pending_steps == 0:
            return [f"{event.database}: nothing to apply, every migration is applied"]
        deadline = (
            f"; run deadline {format_duration(event.deadline_ms)}" if event.deadline_ms else ""
        )
        return [
            paint(
                f"{event.database}: applying {event.pending_steps} step"
                f"{'s' if event.pending_steps != 1 else ''} of {event.pending_migrations} "
                f"migration{'s' if event.pending_migrations != 1 else ''} "
                f"(journal {event.journal})",
                "bold",
                colour,
            ),
            f"lock waits: lock_timeout {format_duration(event.lock_timeout_ms)} x "
            f"{event.max_attempts} attempts; worst case per step "
            f"{format_duration(event.worst_case_step_wait_ms)} (CONCURRENTLY steps "
            f"{format_duration(event.worst_case_concurrent_wait_ms)}){deadline}",
        ]
    if isinstance(event, RunLockWaiting):
        return [
            f"waiting for the run lock held by {event.holder} "
            f"({format_duration(event.waited_ms)} of {format_duration(event.wait_for_lock_ms)})"
        ]
    if isinstance(event, StepStarted):
        return step_notes(event)
    if isinstance(event, AttemptFailed):
        then = (
            f"retrying in {format_duration(event.wait_ms)}"
            if event.wait_ms is not None
            else "giving up"
        )
        return [
            paint(
                f"  ! {_where(event.ref)}: attempt {event.attempt}/{event.max_attempts} "
                f"failed after lock_timeout {format_duration(event.lock_timeout_ms)}: "
                f"{event.reason} [{event.sqlstate}]; {then} -- {event.ref.sql}",
                "yellow",
                colour,
            )
        ]
    if isinstance(event, IndexCleanup):
        return [f"  - {_where(event.ref)}: dropped {event.index} ({event.reason})"]
    if isinstance(event, StepApplied):
        attempts = f", {event.attempts} attempts" if event.attempts > 1 else ""
        skipped = f" (not run: {event.skipped})" if event.skipped else ""
        mark = paint("ok", "green", colour)
        timing = paint(f"{format_duration(event.duration_ms)}{attempts}", "dim", colour)
        return [f"  {mark} {_where(event.ref)}  {event.ref.sql}  {timing}{skipped}"]
    if isinstance(event, RunFinished):
        if event.applied_steps == 0:
            return []
        return [
            paint(
                f"applied {event.applied_steps} step{'s' if event.applied_steps != 1 else ''} "
                f"of {event.applied_migrations} migration"
                f"{'s' if event.applied_migrations != 1 else ''} in "
                f"{format_duration(event.duration_ms)}",
                "green",
                colour,
            )
        ]
    if isinstance(event, RunFailed):
        lines = [paint(f"error: {event.error}", "red", colour)]
        if event.detail:
            lines.append(f"  detail: {event.detail}")
        if event.hint:
            lines.append(f"  hint: {event.hint}")
        return lines
    return []


def step_notes(event: StepStarted) -> list[str]:
    """Notes about a step (e.g. a CONCURRENTLY rewrite) for the text log."""
    return [f"  - {_where(event.ref)}: {note}" for note in event.notes]


_STATE_COLOUR = {
    State.APPLIED: "green",
    State.PARTIAL: "yellow",
    State.PENDING: "cyan",
    State.DRIFTED: "red",
    State.MISSING: "red",
}


def status_text(migrations: list[MigrationStatus], colour: bool = False) -> list[str]:
    """The ``status`` table: one line per migration."""
    if not migrations:
        return ["no migrations"]
    width = max(len(m.filename) for m in migrations)
    lines = []
    for m in migrations:
        state = paint(f"{m.state.value:<8}", _STATE_COLOUR[m.state], colour)
        lines.append(f"{m.filename:<{width}}  {state}  {m.steps_applied}/{m.steps_total} steps")
        lines += [f"    {problem}" for problem in m.problems]
    counts: dict[str, int] = {}
    for m in migrations:
        counts[m.state.value] = counts.get(m.state.value, 0) + 1
    lines.append(", ".join(f"{n} {state}" for state, n in counts.items()))
    return lines
