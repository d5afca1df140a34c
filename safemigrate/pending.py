"""What ``up`` and ``status`` see: migrations on disk against the journal. Pure, no I/O."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import BadInputError, DriftError, OutOfOrderError
from .model import JournalEntry, Migration, Step


class State(str, enum.Enum):
    """The state of one migration."""

    APPLIED = "applied"
    PARTIAL = "partial"
    PENDING = "pending"
    DRIFTED = "drifted"
    MISSING = "missing"


@dataclass(frozen=True)
class MigrationStatus:
    """One line of ``safemigrate status``."""

    version: int
    name: str
    state: State
    steps_applied: int
    steps_total: int
    migration: Migration | None
    #: For drifted or missing migrations: what is wrong, naming the file and step.
    problems: tuple[str, ...] = ()

    @property
    def filename(self) -> str:
        """The migration's file name, or the name it was applied under when the file is gone."""
        if self.migration is not None:
            return self.migration.filename
        return f"{self.version}_{self.name}.sql"


@dataclass(frozen=True)
class PlannedStep:
    """A step ``up`` will run, with the journal's knowledge of earlier attempts."""

    migration: Migration
    step: Step
    #: True when an autocommit step was started before but never recorded as applied.
    started_before: bool = False


def statuses(
    migrations: Sequence[Migration], entries: Iterable[JournalEntry]
) -> list[MigrationStatus]:
    """The state of every migration on disk and every migration the journal knows."""
    by_version: dict[int, list[JournalEntry]] = {}
    for entry in entries:
        by_version.setdefault(entry.version, []).append(entry)
    result = []
    on_disk = {m.version for m in migrations}
    for migration in migrations:
        done = [e for e in by_version.get(migration.version, []) if e.done]
        problems = []
        for entry in sorted(done, key=lambda e: e.step):
            where = f"{migration.filename} step {entry.step + 1}"
            if entry.name != migration.name:
                problems.append(
                    f"{migration.filename}: applied as {entry.version}_{entry.name}.sql, "
                    "the file was renamed"
                )
            elif entry.step >= len(migration.steps):
                problems.append(
                    f"{where}: applied, but the file now has only {len(migration.steps)} steps"
                )
            elif migration.steps[entry.step].checksum != entry.checksum:
                line = migration.steps[entry.step].line
                problems.append(f"{where} (line {line}): applied, but its text has changed")
        if problems:
            state = State.DRIFTED
        elif not done:
            state = State.PENDING
        elif len(done) >= len(migration.steps):
            state = State.APPLIED
        else:
            state = State.PARTIAL
        result.append(
            MigrationStatus(
                migration.version,
                migration.name,
                state,
                len(done),
                len(migration.steps),
                migration,
                tuple(problems),
            )
        )
    for version, rows in by_version.items():
        done = [e for e in rows if e.done]
        if version in on_disk or not done:
            continue
        name = done[0].name
        result.append(
            MigrationStatus(
                version,
                name,
                State.MISSING,
                len(done),
                len(done),
                None,
                (f"{version}_{name}.sql: applied, but the file is gone",),
            )
        )
    result.sort(key=lambda s: s.version)
    return result


def check_drift(report: Sequence[MigrationStatus]) -> None:
    """Raise DriftError when any applied step changed or any applied file is gone."""
    problems = [p for s in report if s.state in (State.DRIFTED, State.MISSING) for p in s.problems]
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise DriftError(
            f"{problems[0]}{more}",
            hint="restore the applied text; changes go in a new migration",
        )


def resolve_target(migrations: Sequence[Migration], target: str | None) -> int | None:
    """The version ``--target`` names; it must be one of the migrations on disk."""
    if target is None:
        return None
    if not (target.isascii() and target.isdigit()) or len(target.lstrip("0")) > 18:
        raise BadInputError(f"--target: {target[:40]!r} is not a version (digits only)")
    version = int(target)
    if version not in {m.version for m in migrations}:
        raise BadInputError(f"--target: no migration has version {target}")
    return version


def pending_steps(
    migrations: Sequence[Migration],
    entries: Iterable[JournalEntry],
    *,
    target: int | None = None,
    allow_out_of_order: bool = False,
) -> list[PlannedStep]:
    """The steps ``up`` must run, in order. Assumes ``check_drift`` passed."""
    entries = list(entries)
    done = {(e.version, e.step) for e in entries if e.done}
    started = {(e.version, e.step) for e in entries if e.state == "started"}
    newest_applied = max((e.version for e in entries if e.done), default=None)
    planned: list[PlannedStep] = []
    for migration in migrations:
        if target is not None and migration.version > target:
            break
        todo = [s for s in migration.steps if (migration.version, s.index) not in done]
        if not todo:
            continue
        untouched = len(todo) == len(migration.steps)
        if (
            untouched
            and newest_applied is not None
            and migration.version < newest_applied
            and not allow_out_of_order
        ):
            raise OutOfOrderError(
                f"{migration.filename}: pending, but older than the newest applied "
                f"migration (version {newest_applied})",
                hint="rename it to a newer version, or run with --allow-out-of-order",
            )
        planned += [
            PlannedStep(migration, s, (migration.version, s.index) in started) for s in todo
        ]
    return planned


def pending_after(
    migrations: Sequence[Migration], entries: Iterable[JournalEntry], target: int | None
) -> int:
    """How many migrations after version ``target`` have a step not applied yet: what a run
    up to ``target`` leaves pending (0 without a target)."""
    if target is None:
        return 0
    done = {(e.version, e.step) for e in entries if e.done}
    return sum(
        1
        for m in migrations
        if m.version > target and any((m.version, s.index) not in done for s in m.steps)
    )
