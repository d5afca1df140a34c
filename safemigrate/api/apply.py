"""``up`` and ``status``: apply the pending steps, and show every migration's state.

The database layer is imported inside the commands, not here: importing the commands loads
no driver.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..core.errors import BadInputError, InterruptedRunError
from ..core.reached import Target
from ..planning.adoption import switch_event
from ..planning.pending import (
    MigrationStatus,
    State,
    check_drift,
    client_copy_invalid,
    refuse_empty_directory,
    resolve_target,
    statuses,
)
from ..settings.config import Settings
from .inputs import ignore, read_migrations, read_migrations_leniently

if TYPE_CHECKING:
    # Types only: the events' classes (about 30 dataclasses) are not needed by ``status``.
    from ..core.events import EventSink, HistoryAdopted
    from ..core.model import Migration
    from ..db import Session
    from ..db.journal import JournalTable
    from ..run.connection import Database
    from ..run.executor import RunResult


def up(
    settings: Settings,
    *,
    dsn: str | None = None,
    target: str | None = None,
    on_event: EventSink = ignore,
    environ: Mapping[str, str] | None = None,
    capture_locks: bool = False,
) -> RunResult:
    """Apply every pending step (up to ``target``), each in its own guarded transaction.

    Every session of the run first replays the session settings of the steps applied before
    (``SET search_path`` ..., see ``session_state``). If the connection is lost mid-run
    (server restart, terminated backend), the runner reconnects for up to
    ``reconnect_timeout`` (within the run's deadline), takes the run lock again, re-reads the
    journal, replays those settings and resumes. ``capture_locks`` reports, in each
    StepApplied event, the table locks the step held just before it committed (what
    ``rehearse`` shows).
    """
    from ..run.connection import resolve_database
    from ..run.database_run import Run

    migrations = read_migrations(settings)
    target_version = resolve_target(migrations, target)
    db = resolve_database(dsn, environ, require_dsn=settings.require_dsn)
    run = Run(
        settings,
        db,
        migrations,
        target_version=target_version,
        on_event=on_event,
        capture_locks=capture_locks,
    )
    try:
        return run.execute()
    except KeyboardInterrupt:
        raise InterruptedRunError(
            "interrupted: the running statement was cancelled and its step rolled back",
            hint="rerun safemigrate up to resume after the last recorded step",
        ) from None


@dataclass(frozen=True)
class StatusReport:
    """What ``status`` found."""

    #: ``user@host:port/dbname`` as the connection reached it.
    database: str
    journal: str
    migrations: list[MigrationStatus]
    #: Where the status was read: user, host, port, dbname, server version, standby.
    target: Target
    #: False before the first ``up`` (or ``adopt``, ``baseline``) creates the journal.
    journal_exists: bool = True
    #: What the first ``up`` will adopt from another tool's history (not recorded yet).
    switch: HistoryAdopted | None = None

    @property
    def drifted(self) -> list[MigrationStatus]:
        """Drifted or missing migrations."""
        return [m for m in self.migrations if m.state in (State.DRIFTED, State.MISSING)]

    def refuse_drift(self) -> None:
        """Raise DriftError (exit 5) naming the first problem when anything drifted."""
        check_drift(self.migrations)

    @property
    def outstanding(self) -> list[MigrationStatus]:
        """Pending or partial migrations (and those whose file cannot be read now)."""
        states = (State.PENDING, State.PARTIAL, State.INVALID)
        return [m for m in self.migrations if m.state in states]

    @property
    def invalid(self) -> list[MigrationStatus]:
        """Migrations whose file cannot be read or parsed now."""
        return [m for m in self.migrations if m.state is State.INVALID]

    def refuse_invalid(self) -> None:
        """Raise MigrationFileError (exit 2), as ``up`` would, naming the first file that
        cannot be read or parsed; ``status`` shows every migration first."""
        if self.invalid:
            first = self.invalid[0]
            more = len(self.invalid) - 1
            raise BadInputError(
                first.problems[0]
                + (f" (and {more} more invalid file{'s' if more > 1 else ''})" if more else ""),
                hint="fix the file: up refuses the directory until then (exit 2)",
            )

    def to_dict(self) -> dict[str, object]:
        """The JSON document of ``status --format json``."""
        switch = self.switch.to_dict() if self.switch is not None else None
        return {
            "target": self.target.to_dict(),
            "journal": {"table": self.journal, "exists": self.journal_exists},
            **({"switch": switch} if switch is not None else {}),
            "migrations": [
                {
                    "version": m.version,
                    "name": m.name,
                    "file": m.filename,
                    "state": m.state.value,
                    "steps_applied": m.steps_applied,
                    "steps_total": m.steps_total,
                    **({"problems": list(m.problems)} if m.problems else {}),
                }
                for m in self.migrations
            ],
        }


def _replay_problem(
    session: Session, journal: JournalTable, migrations: list[Migration], settings: Settings
) -> tuple[int, str] | None:
    """(version, message) of the session setting of an applied step that ``up`` could not
    replay on its new session (issue 21 review21c F5: status said nothing while every ``up``
    failed), or None."""
    if not any(s.session_changes for m in migrations for step in m.steps for s in step.statements):
        # Nothing a new session would replay (the usual history): no second read of the
        # journal, and none of the session-state fold's imports (issue 26: status's time).
        return None
    from ..run.journal_reading import applied_history
    from ..run.session_replay import replay_problem
    from ..statements.session_state import history_state

    state = history_state(
        applied_history(session, journal, migrations),
        accepted_through=settings.accept_lost_session_state,
    )
    found = replay_problem(session, state)
    if found is None:
        return None
    setting, refusal = found
    return setting.version or 0, f"up cannot go on: {refusal.message}; {refusal.hint}"


def status(
    settings: Settings,
    *,
    dsn: str | None = None,
    environ: Mapping[str, str] | None = None,
    database: Database | None = None,
) -> StatusReport:
    """Every migration's state against the journal. Read-only: takes no lock, creates nothing.

    Drift is reported in the result, not raised: call ``report.refuse_drift()`` to refuse on it
    as the CLI does.
    """
    from ..db import foreign_history
    from ..db import journal as dbjournal
    from ..db import started as dbstarted
    from ..run.connection import journal_table, open_session, resolve_database

    # Leniently: a file that does not parse is shown as invalid, with what is applied.
    migrations, invalid = read_migrations_leniently(settings)
    db = database or resolve_database(dsn, environ, require_dsn=settings.require_dsn)
    journal = journal_table(settings)
    with open_session(settings, db) as session:
        target = session.target()
        journal_exists = dbjournal.exists_checked(session, journal)
        rows = dbjournal.read(session, journal, found=journal_exists)
        found = foreign_history.adoption(session, settings, migrations, rows)
        progress, recipes = dbstarted.records(session, journal)
        replay = _replay_problem(session, journal, migrations, settings) if journal_exists else None
    entries = [e for e in found.entries if e.version not in invalid]
    if not invalid:
        refuse_empty_directory(migrations, entries, str(settings.dir))
    every = client_copy_invalid(statuses(migrations, entries, progress, recipes), entries)
    for version, (file, problem) in invalid.items():
        applied = sum(1 for e in found.entries if e.version == version and e.done)
        every.append(
            MigrationStatus(
                version,
                file.name,
                State.INVALID,
                applied,
                applied,
                None,
                (problem,),
                file.version_text,
            )
        )
    every.sort(key=lambda m: m.version)
    if replay is not None:
        # Where up would stop: on the migration whose setting a new session cannot replay.
        version, message = replay
        every = [
            replace(m, problems=(*m.problems, message)) if m.version == version else m
            for m in every
        ]
    switch = (
        switch_event(
            found.history,
            found.adopted,
            migrations,
            str(journal),
            recorded=False,
            tool_history_written=settings.tool_history == "write",
        )
        if found.history is not None
        else None
    )
    return StatusReport(
        target.address,
        str(journal),
        every,
        target,
        journal_exists=journal_exists,
        switch=switch,
    )
