"""What a run over many targets reports: events tagged with their target, each target's
outcome, the worst exit code, the final table and the status matrix. Pure.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..core.durations import format_duration
from ..core.errors import ExitCode, SafemigrateError
from ..core.events import Event
from ..planning.pending import MigrationStatus, State

#: How bad each exit code is, worst first: the fleet exits with its worst target's code.
#: Interrupted beats everything (the person asked to stop); then what needs a person to fix
#: files or configuration (bad input, drift), a failed step, the lint gate's refusal, then
#: what a rerun may get past (a lost or unsafe connection, a lock not acquired, a run lock
#: held by another run).
SEVERITY: tuple[ExitCode, ...] = (
    ExitCode.INTERRUPTED,
    ExitCode.BAD_INPUT,
    ExitCode.DRIFT,
    ExitCode.STEP_FAILED,
    ExitCode.LINT_GATE,
    ExitCode.CONNECTION,
    ExitCode.LOCK_NOT_ACQUIRED,
    ExitCode.RUN_LOCK_HELD,
)


def worst_exit_code(codes: list[int]) -> int:
    """The worst of ``codes`` by :data:`SEVERITY` (0 when all are 0 or there are none)."""
    rank = {int(code): n for n, code in enumerate(SEVERITY)}
    failing = [c for c in codes if c != 0]
    if not failing:
        return 0
    return min(failing, key=lambda c: rank.get(c, len(SEVERITY)))


@dataclass(frozen=True)
class TargetEvent(Event):
    """An event of one target's run; JSON: the event's own fields plus ``target`` (the
    target's name). An event's own ``target`` (the server reached) moves to ``server``."""

    kind: ClassVar[str] = "target_event"
    target: str
    event: Event

    def to_dict(self) -> dict[str, Any]:
        """``{"event": KIND, "target": NAME, ...}``."""
        inner = self.event.to_dict()
        kind = inner.pop("event")
        if "target" in inner:
            inner["server"] = inner.pop("target")
        return {"event": kind, "target": self.target, **inner}


@dataclass(frozen=True)
class TargetStarted(Event):
    """A target's job started (its worker thread has it)."""

    kind: ClassVar[str] = "target_started"


@dataclass(frozen=True)
class TargetFinished(Event):
    """A target's job ended: how, and (when it failed) why."""

    kind: ClassVar[str] = "target_finished"
    state: str
    applied_steps: int
    duration_ms: float
    exit_code: int
    error: str | None


class TargetState(enum.Enum):
    """Where one target ended."""

    #: Every pending step applied (or nothing was pending).
    DONE = "done"
    #: The run failed; its error says why.
    FAILED = "failed"
    #: Stopped at a migration boundary because another target failed.
    STOPPED = "stopped"
    #: Never started: another target failed first (or the canary did).
    NOT_STARTED = "not started"
    #: Ctrl-C or SIGTERM: the running step was rolled back.
    INTERRUPTED = "interrupted"


@dataclass
class TargetOutcome:
    """One target's part of a fleet run."""

    name: str
    state: TargetState = TargetState.NOT_STARTED
    applied_steps: int = 0
    duration_ms: float = 0.0
    attempts: int = 0
    error: SafemigrateError | None = None
    #: What the command returned for this target (a RunResult, a StatusReport, ...).
    value: Any = None

    @property
    def exit_code(self) -> int:
        """The target's own exit code (0 unless it failed or was interrupted)."""
        if self.state is TargetState.INTERRUPTED:
            return int(ExitCode.INTERRUPTED)
        return int(self.error.exit_code) if self.error is not None else 0

    def finished(self) -> TargetFinished:
        """The event that says how the target ended."""
        return TargetFinished(
            self.state.value,
            self.applied_steps,
            round(self.duration_ms, 1),
            self.exit_code,
            self.error.message if self.error is not None else None,
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, in the ``fleet_finished`` event."""
        return {
            "target": self.name,
            "state": self.state.value,
            "applied_steps": self.applied_steps,
            "duration_ms": round(self.duration_ms, 1),
            "attempts": self.attempts,
            "exit_code": self.exit_code,
            "error": self.error.message if self.error is not None else None,
        }


@dataclass
class FleetReport:
    """Every target's outcome, in the targets' order."""

    outcomes: list[TargetOutcome] = field(default_factory=list)
    interrupted: bool = False

    @property
    def failed(self) -> list[TargetOutcome]:
        """Targets that failed or were interrupted."""
        return [o for o in self.outcomes if o.exit_code != 0]

    @property
    def exit_code(self) -> int:
        """The worst target's exit code (see :data:`SEVERITY`)."""
        if self.interrupted:
            return int(ExitCode.INTERRUPTED)
        return worst_exit_code([o.exit_code for o in self.outcomes])

    def summary(self) -> str:
        """One line: how many targets did what, naming every failed one."""
        counts: dict[str, int] = {}
        for outcome in self.outcomes:
            counts[outcome.state.value] = counts.get(outcome.state.value, 0) + 1
        parts = [f"{n} {state}" for state, n in counts.items()]
        line = f"{len(self.outcomes)} targets: {', '.join(parts)}"
        if self.failed:
            names = ", ".join(f"{o.name} (exit {o.exit_code})" for o in self.failed)
            line += f"; failed: {names}"
        return line

    def to_dict(self) -> dict[str, Any]:
        """The ``fleet_finished`` event."""
        return {
            "event": "fleet_finished",
            "exit_code": self.exit_code,
            "failed": [o.name for o in self.failed],
            "targets": [o.to_dict() for o in self.outcomes],
        }


def fleet_table(report: FleetReport) -> list[str]:
    """The final table: target, state, steps applied, duration, attempts, error."""
    header = ("target", "state", "steps", "duration", "attempts", "error")
    rows = [
        (
            o.name,
            o.state.value,
            str(o.applied_steps),
            format_duration(round(o.duration_ms)) if o.duration_ms else "-",
            str(o.attempts),
            _one_line(o.error.message) if o.error is not None else "",
        )
        for o in report.outcomes
    ]
    return [*_columns([header, *rows]), report.summary()]


#: One mark per migration state in the status matrix.
MARKS: dict[State, str] = {
    State.APPLIED: "applied",
    State.PENDING: "pending",
    State.PARTIAL: "partial",
    State.DRIFTED: "DRIFTED",
    State.MISSING: "MISSING",
    State.INVALID: "INVALID",
}


def status_matrix(
    columns: list[str], rows: Sequence[tuple[str, list[MigrationStatus] | None, str | None]]
) -> list[str]:
    """The status of every target (rows) and migration (columns, by version); a target that
    could not be read shows its error instead."""
    table: list[tuple[str, ...]] = [("target", *columns)]
    errors = []
    for name, migrations, error in rows:
        if migrations is None:
            table.append((name, *(["?"] * len(columns))))
            errors.append(f"{name}: {_one_line(error or 'not read')}")
            continue
        by_version = {m.version_text: m for m in migrations}
        cells = [
            MARKS.get(by_version[c].state, by_version[c].state.value) if c in by_version else "-"
            for c in columns
        ]
        table.append((name, *cells))
    return [*_columns(table), *errors]


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _one_line(text: str, limit: int = 120) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."
