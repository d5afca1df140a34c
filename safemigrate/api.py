"""The commands as library functions: settings in, results out, typed errors raised.

Usable without the CLI, e.g. from a Django management command or a pytest fixture::

    from pathlib import Path
    from safemigrate import api, load_settings

    settings = load_settings(cwd=Path.cwd(), overrides={"dir": "migrations"})
    result = api.up(settings, dsn="postgresql://app@db/shop")

Every command raises a :class:`~safemigrate.errors.SafemigrateError` subclass that carries its
process exit code. What one run against a database does (sessions, run lock, reconnection) is
:mod:`safemigrate.run`.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .adoption import layout_notes, switch_event
from .check import check as check  # the check command lives in its own module (cheap import)
from .check import explain as explain
from .config import Settings
from .errors import (
    BadInputError,
    DriftError,
    InterruptedRunError,
    MigrationFileError,
    SafemigrateError,
    StepFailedError,
)
from .events import Event, HistoryAdopted
from .gate import GateContext, decide, guard_error, lint_pending, resumed_bootstrap
from .lint import Finding
from .model import JournalEntry, Migration, Step
from .pending import (
    MigrationStatus,
    PlannedStep,
    Repair,
    State,
    check_drift,
    client_copy_invalid,
    pending_steps,
    refuse_empty_directory,
    repairs_of,
    resolve_target,
    statuses,
)
from .plan import PlanReport
from .plan import build as build_plan
from .policy import worst_case
from .source import FILENAME_PATTERN, MigrationFile, discover, load_migrations, parse_migration
from .source.layouts import layout_notes as left_out_notes
from .source.layouts import refuse_foreign_layout
from .source.layouts import resolve as resolve_layout
from .target import Target

# The database layer (psycopg) is imported by the commands that connect, not here: `check` and
# `new` then start without it.
if TYPE_CHECKING:
    from collections.abc import Callable

    from .db import Session
    from .db.journal import JournalTable
    from .db.repairs import Client as DbClient
    from .executor import RunResult
    from .fleet import FleetTarget
    from .fleet_report import FleetReport
    from .run import Database
    from .targets import TargetSpec

    EventSink = Callable[[Event], None]


def _ignore(_: Event) -> None:
    pass


def _migrations(settings: Settings) -> list[Migration]:
    """Every migration in the settings' directory, parsed (bad files raise exit-2 errors)."""
    layout = resolve_layout(settings.dir, settings.layout)
    if settings.layout == "safemigrate":
        refuse_foreign_layout(settings.dir)
    return load_migrations(
        settings.dir,
        concurrent_indexes=settings.concurrent_indexes,
        safe_rewrites=settings.safe_rewrites,
        layout=layout,
    )


def _migrations_leniently(
    settings: Settings,
) -> tuple[list[Migration], dict[int, tuple[MigrationFile, str]]]:
    """The migrations that parse, and for each file that does not (read, UTF-8, SQL, a
    directive) its problem by version. Problems of the directory itself (names, duplicate
    versions, another tool's layout) still raise: no version can be shown for them."""
    layout = resolve_layout(settings.dir, settings.layout)
    if settings.layout == "safemigrate":
        refuse_foreign_layout(settings.dir)
    migrations: list[Migration] = []
    invalid: dict[int, tuple[MigrationFile, str]] = {}
    for file in discover(settings.dir, layout):
        try:
            migrations.append(
                parse_migration(
                    file,
                    concurrent_indexes=settings.concurrent_indexes,
                    safe_rewrites=settings.safe_rewrites,
                )
            )
        except MigrationFileError as err:
            invalid[file.version] = (file, err.message)
    return migrations, invalid


def up(
    settings: Settings,
    *,
    dsn: str | None = None,
    target: str | None = None,
    on_event: EventSink = _ignore,
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
    from .run import Run, resolve_database

    migrations = _migrations(settings)
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
    from .db import foreign_history
    from .db import journal as dbjournal
    from .db import started as dbstarted
    from .run import journal_table, open_session, resolve_database

    # Leniently: a file that does not parse is shown as invalid, with what is applied.
    migrations, invalid = _migrations_leniently(settings)
    db = database or resolve_database(dsn, environ, require_dsn=settings.require_dsn)
    journal = journal_table(settings)
    with open_session(settings, db) as session:
        target = session.target()
        journal_exists = dbjournal.exists(session, journal)
        found = foreign_history.adoption(
            session, settings, migrations, dbjournal.read(session, journal)
        )
        progress, recipes = dbstarted.records(session, journal)
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


@dataclass(frozen=True)
class RepairReport:
    """What ``repair`` changed (or, with ``dry_run``, would change)."""

    database: str
    journal: str
    #: Where the repairs are logged: ``<journal>_repairs``.
    log: str
    repairs: list[Repair]
    dry_run: bool
    #: Where the journal was repaired: user, host, port, dbname, server version, standby.
    target: Target

    def to_dict(self) -> dict[str, object]:
        """The JSON document of ``repair --format json``."""
        return {
            "target": self.target.to_dict(),
            "journal": self.journal,
            "log": self.log,
            "dry_run": self.dry_run,
            "repairs": [r.to_dict() for r in self.repairs],
        }


#: The statement timeout of repair's own statements: they touch a few journal rows.
REPAIR_STATEMENT_TIMEOUT_MS = 60_000


def repair(
    settings: Settings,
    *,
    dsn: str | None = None,
    dry_run: bool = False,
    accept_edited: bool = False,
    forget_batches: bool = False,
    environ: Mapping[str, str] | None = None,
    on_event: EventSink = _ignore,
) -> RepairReport:
    """Make the journal agree with the files again, recording every change in the repair log.

    Never records as applied a step whose text never ran: applied steps are compared with the
    file by text, not by position. Forgets applied migrations (or steps) whose file (or step)
    is gone and migrations applied while they had no SQL, and follows renamed files (same
    version, new name; or a new version whose steps are the applied text of a gone version).
    SQL inserted among applied steps is refused (BadInputError). With ``accept_edited`` it
    accepts the current text of applied steps edited in their place, with ``forget_batches``
    it forgets the batches an earlier text of a started batched step committed; without them
    those are refused. Runs under the run lock, in one transaction, every statement under
    lock_timeout and statement_timeout. With ``dry_run`` it reads the journal (no lock,
    nothing written) and reports what it would do.
    """
    from .db import foreign_history
    from .db import journal as dbjournal
    from .db import repairs as dbrepairs
    from .db import started as dbstarted
    from .db import steps as dbsteps
    from .db.step_timeouts import set_session_timeouts
    from .run import (
        holding_run_lock,
        journal_table,
        open_session,
        refuse_pooling,
        resolve_database,
        second_session,
    )

    migrations = _migrations(settings)
    db = resolve_database(dsn, environ, require_dsn=settings.require_dsn)
    journal = journal_table(settings)
    statement_ms = settings.statement_timeout_ms
    if not 0 < statement_ms <= REPAIR_STATEMENT_TIMEOUT_MS:
        statement_ms = REPAIR_STATEMENT_TIMEOUT_MS
    timeouts = dbsteps.Timeouts(settings.lock_timeout_ms, statement_ms)

    #: Versions only another tool's table records (issue 22 review F5): forgetting one has no
    #: journal row to delete, only the repair log's row, which keeps adoption from it.
    tool_only: set[int] = set()

    def planned(session: Session) -> list[Repair]:
        entries = dbjournal.read(session, journal)
        refuse_empty_directory(migrations, entries, str(settings.dir))
        progress, recipes = dbstarted.records(session, journal)
        try:
            found = foreign_history.adoption(session, settings, migrations, entries)
        except (BadInputError, DriftError):
            # Nothing repair can change in the tool's history; up and status say it.
            found = None
        if found is not None:
            tool_only.clear()
            tool_only.update(e.version for e in found.adopted if not e.checksum)
            # Only what the tool applied without a file here: the rest is the switch's (up,
            # adopt), not drift.
            entries = [*entries, *(e for e in found.adopted if e.version in tool_only)]
        return repairs_of(
            statuses(migrations, entries, progress, recipes),
            accept_edited=accept_edited,
            forget_batches=forget_batches,
        ) + foreign_history.rolled_back_repairs(session, settings, migrations, entries)

    with open_session(settings, db, on_connect=on_event) as session:
        target = session.target()
        # Session-level: the run lock's calls and the journal read are guarded too.
        set_session_timeouts(session, timeouts)
        if dry_run:
            repairs = planned(session)
        else:
            with holding_run_lock(session, journal, settings.wait_for_lock_ms, _ignore) as lock:
                with second_session(settings, db) as other:
                    refuse_pooling(lock, other)
                repairs = planned(session)
                if repairs:
                    dbrepairs.apply(
                        session, journal, repairs, timeouts, _client(), log_only=tool_only
                    )
    log = dbrepairs.log_table(journal)
    return RepairReport(target.address, str(journal), str(log), repairs, dry_run, target)


def _client() -> DbClient:
    """The OS user and host running the repair, as far as this machine can tell."""
    import getpass
    import socket

    from .db.repairs import Client

    try:
        user: str | None = getpass.getuser()
    except Exception:  # no login name (e.g. a container's uid without an entry)
        user = None
    try:
        host: str | None = socket.gethostname() or None
    except OSError:
        host = None
    return Client(user, host)


def baseline(
    settings: Settings,
    version: str,
    *,
    dsn: str | None = None,
    environ: Mapping[str, str] | None = None,
    on_event: EventSink = _ignore,
    database: Database | None = None,
) -> list[Migration]:
    """Record every migration up to ``version`` as applied without running it.

    For databases adopted from another tool. Returns the migrations newly recorded. Like
    ``up``, it emits Connected (the target) first, holds the run lock and refuses a
    transaction-pooling proxy before writing anything.
    """
    from .db import journal as dbjournal
    from .db import steps as dbsteps
    from .run import (
        holding_run_lock,
        journal_table,
        open_session,
        refuse_pooling,
        refusing_standby,
        resolve_database,
        second_session,
    )

    migrations = _migrations(settings)
    upto = resolve_target(migrations, version)
    assert upto is not None
    db = database or resolve_database(dsn, environ, require_dsn=settings.require_dsn)
    journal = journal_table(settings)
    recorded = []
    with (
        open_session(settings, db, on_connect=refusing_standby(on_event)) as session,
        holding_run_lock(session, journal, settings.wait_for_lock_ms, on_event) as lock,
    ):
        with second_session(settings, db) as other:
            refuse_pooling(lock, other)
        dbjournal.ensure(session, journal, lock_timeout_ms=settings.lock_timeout_ms)
        entries = dbjournal.read(session, journal)
        check_drift(statuses(migrations, entries))
        done = {(e.version, e.step) for e in entries if e.done}
        records = []
        for migration in migrations:
            if migration.version > upto:
                break
            missing = [s for s in migration.steps if (migration.version, s.index) not in done]
            if missing:
                recorded.append(migration)
            records += [
                dbjournal.record_sql(
                    journal,
                    version=migration.version,
                    name=migration.name,
                    step=s.index,
                    checksum=s.checksum,
                    state="baseline",
                )
                for s in missing
            ]
        if records:
            timeouts = dbsteps.Timeouts(settings.lock_timeout_ms, settings.statement_timeout_ms)
            dbsteps.run_in_transaction(session, [], timeouts, dbjournal.join(records))
    return recorded


def adopt(
    settings: Settings,
    *,
    dsn: str | None = None,
    environ: Mapping[str, str] | None = None,
    on_event: EventSink = _ignore,
) -> list[JournalEntry]:
    """Record in the journal what another tool's history table says it applied.

    ``up`` does the same before its first step; ``adopt`` does only that, so that the other
    tool can be retired before anything new is applied. Reads the tool's table (the ``layout``
    setting says which), never writes it; holds the run lock; writes every adopted row in one
    transaction. A failed or dirty migration in that history raises AdoptionError (exit 2), a
    file changed since the tool applied it DriftError. Returns the entries written.
    """
    from .db import foreign_history
    from .db import journal as dbjournal
    from .db import steps as dbsteps
    from .run import (
        holding_run_lock,
        journal_table,
        open_session,
        refuse_pooling,
        resolve_database,
        second_session,
    )

    migrations = _migrations(settings)
    db = resolve_database(dsn, environ, require_dsn=settings.require_dsn)
    journal = journal_table(settings)
    with (
        open_session(settings, db, on_connect=on_event) as session,
        holding_run_lock(session, journal, settings.wait_for_lock_ms, on_event) as lock,
    ):
        with second_session(settings, db) as other:
            refuse_pooling(lock, other)
        entries = dbjournal.read(session, journal)
        check_drift(statuses(migrations, entries))
        # Refusals (a dirty history, drift) come before the journal is even created.
        found = foreign_history.adoption(session, settings, migrations, entries)
        # Issue 22 review F5: what up and status refuse (a migration the tool applied whose
        # file is gone), adopt refuses too, rather than record it.
        check_drift(statuses(migrations, found.entries))
        adopted = found.adopted
        if adopted:
            dbjournal.ensure(session, journal, lock_timeout_ms=settings.lock_timeout_ms)
            timeouts = dbsteps.Timeouts(settings.lock_timeout_ms, settings.statement_timeout_ms)
            foreign_history.record(session, journal, adopted, timeouts)
            foreign_history.mark_adopted(session, settings, found, migrations, timeouts)
        if found.history is not None:
            switch = switch_event(
                found.history,
                adopted,
                migrations,
                str(journal),
                tool_history_written=settings.tool_history == "write",
            )
            if switch is not None:
                on_event(switch)
        return adopted


def new(settings: Settings, name: str, *, now: dt.datetime | None = None) -> Path:
    """Create the next migration file ``<version>_<name>.sql`` and return its path."""
    candidate = f"0_{name}.sql"
    if FILENAME_PATTERN.match(candidate) is None:
        raise BadInputError(
            f"migration name {name!r} is not valid: use letters, digits, _ . - "
            "(starting with a letter or digit)"
        )
    directory = settings.dir
    layout = resolve_layout(directory, settings.layout)
    if layout != "safemigrate":
        return _new_in_layout(settings, layout, name, now)
    existing = discover(directory) if directory.exists() else []
    newest = existing[-1] if existing else None
    if settings.version_style == "timestamp":
        moment = now or dt.datetime.now(dt.timezone.utc)
        version = int(moment.strftime("%Y%m%d%H%M%S"))
        if newest is not None and version <= newest.version:
            version = newest.version + 1
        version_text = str(version)
    else:
        version = newest.version + 1 if newest is not None else 1
        width = len(newest.version_text) if newest is not None else 4
        version_text = str(version).zfill(width)
    path = directory / f"{version_text}_{name}.sql"
    directory.mkdir(parents=True, exist_ok=True)
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(
                f"-- {version_text}_{name}: write the migration's SQL below.\n"
                "-- Each statement runs as its own step, in its own transaction, under\n"
                "-- lock_timeout; see the README for -- safemigrate: directives.\n"
                "-- Until it has SQL it is an empty migration: `up` records it as applied and\n"
                "-- `check` warns (empty-migration).\n"
            )
    except FileExistsError:
        raise MigrationFileError(str(path), "already exists") from None
    return path


def _new_in_layout(settings: Settings, layout: str, name: str, now: dt.datetime | None) -> Path:
    """``new`` in another tool's layout: its files, named its way. Returns the up file."""
    from .source.layouts import new_files

    existing = discover(settings.dir, layout) if settings.dir.exists() else []
    moment = now or dt.datetime.now(dt.timezone.utc)
    files = new_files(
        layout, existing, name, moment, timestamp=settings.version_style == "timestamp"
    )
    written = []
    for relative, text in files.items():
        path = settings.dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with path.open("x", encoding="utf-8") as handle:
                handle.write(text)
        except FileExistsError:
            raise MigrationFileError(str(path), "already exists") from None
        written.append(path)
    return next((p for p in written if "down" not in p.name), written[0])


def plan(
    settings: Settings,
    *,
    dsn: str | None = None,
    use_database: bool = False,
    target: str | None = None,
    environ: Mapping[str, str] | None = None,
    on_event: EventSink = _ignore,
    database: Database | None = None,
) -> PlanReport:
    """What ``up`` would run: every migration without a database, the real pending set with one.

    Writes nothing. With a database, drift and out-of-order migrations raise the same errors
    (and exit codes) as ``up`` would, and the report adds table sizes, the run lock's holder,
    invalid indexes and long transactions (see lock_precheck_age) holding the target tables.
    ``on_event`` is told where it connected (a Connected event) before anything is read, so
    that a refusal can still say which database it was.
    """
    migrations = _migrations(settings)
    target_version = resolve_target(migrations, target)
    if not use_database:
        planned = pending_steps(migrations, [], target=target_version)
        findings = _findings(planned, settings)
        report = PlanReport(
            tuple(build_plan(planned, settings, findings)),
            gate=decide(planned, findings, settings),
            guard=guard_error(planned, findings),
            worst_case_run_wait_ms=worst_case((p.step for p in planned), settings).run_ms,
            lock_wait_budget_ms=worst_case((), settings).polite_step_ms,
        )
        return replace(report, notes=_layout_notes(settings))
    report, layout, pending = _plan_against(
        settings, migrations, target_version, dsn, environ, on_event, database
    )
    return replace(report, notes=_layout_notes(settings, layout, pending))


def _layout_notes(
    settings: Settings, layout: str | None = None, pending: set[int] | None = None
) -> tuple[str, ...]:
    """What plan says about another tool's layout (nothing for safemigrate's own): ``layout``
    as the database decided it (else from the directory), notes on the ``pending`` versions'
    files only when a database says which are pending (applied files run nothing more)."""
    layout = layout or resolve_layout(settings.dir, settings.layout)
    if layout == "safemigrate" and settings.layout != "auto":
        return ()
    files = [f for f in discover(settings.dir, layout) if pending is None or f.version in pending]
    return tuple(
        layout_notes(layout, settings.layout == "auto", files)
        + left_out_notes(settings.dir, layout)
    )


def _plan_against(
    settings: Settings,
    migrations: list[Migration],
    target_version: int | None,
    dsn: str | None,
    environ: Mapping[str, str] | None,
    on_event: EventSink,
    database: Database | None = None,
) -> tuple[PlanReport, str, set[int]]:
    """The plan with the database's facts: its pending steps, sizes, lock holders; with the
    layout the database decided and the pending versions."""
    from .blockers.watcher import Watcher
    from .db import batches as dbbatches
    from .db import bootstrap
    from .db import catalog as dbcatalog
    from .db.activity import Monitor
    from .events import Blocker
    from .locks import LockMode, strongest
    from .model import QualifiedName
    from .plan import DatabaseFacts
    from .run import (
        RunLock,
        journal_table,
        open_session,
        read_plan,
        resolve_database,
        server_settings,
    )

    db = database or resolve_database(dsn, environ, require_dsn=settings.require_dsn)
    journal = journal_table(settings)
    with open_session(settings, db, on_connect=on_event) as session:
        target = session.target()
        pending = read_plan(session, journal, migrations, settings, target_version)
        planned = pending.steps
        # Lint as up's gate will: with the server's own major version, the live schema and
        # the database as it is (fresh or in use, its tables' sizes).
        settings = server_settings(settings, session)
        # As up's session will be: the applied history's session settings replayed (a SET
        # search_path decides where the pending steps' names resolve; issue 20 review F2).
        history = _replay_history(session, journal, migrations)
        found = bootstrap.freshness(session, journal)
        context = GateContext(found.fresh, settings.gate_small_table_bytes, found.resumed)
        findings = _findings(planned, settings, session, context)
        # Each step's locks with the relations only the catalog names (one query per step
        # that has any).
        resolved = {
            (p.migration.version, p.step.index): dbcatalog.resolve_catalog_locks(
                session, p.step.catalog_locks
            )
            for p in planned
            if p.step.catalog_locks
        }
        locks_of = {
            key: strongest([*p.step.locks, *resolved.get(key, ())])
            for p in planned
            for key in [(p.migration.version, p.step.index)]
        }
        relations = list({need.relation: None for needs in locks_of.values() for need in needs})
        sizes = {
            rel: (size.total_bytes, size.rows_estimate)
            for rel, size in dbcatalog.relation_sizes(session, relations).items()
        }
        monitor = Monitor(session)
        watcher = Watcher(monitor, settings, session.pid, _ignore)
        # Per step and relation: whether a holder conflicts depends on the mode each step needs.
        by_mode: dict[tuple[QualifiedName, LockMode], list[Blocker]] = {}
        holders = {}
        for p in planned:
            for need in locks_of[(p.migration.version, p.step.index)]:
                key = (need.relation, need.mode)
                if key not in by_mode:
                    by_mode[key] = watcher.long_holders([need], settings.lock_timeout_ms)
                holders[(p.migration.version, p.step.index, need.relation)] = by_mode[key]
        keys = {
            s.batch.table: dbbatches.table_key(session, s.batch.table) or ()
            for p in planned
            for s in p.step.statements
            if s.batch is not None
        }
        facts = DatabaseFacts(
            target.address,
            RunLock.of(session, journal).holder(),
            tuple(dbcatalog.invalid_indexes(session)),
            target,
        )
    steps = build_plan(
        planned, settings, findings, sizes=sizes, holders=holders, resolved=locks_of, keys=keys
    )
    report = PlanReport(
        tuple(steps),
        facts,
        gate=decide(planned, findings, settings, context),
        worst_case_run_wait_ms=worst_case((p.step for p in planned), settings).run_ms,
        lock_wait_budget_ms=worst_case((), settings).polite_step_ms,
        guard=guard_error(planned, findings, context),
        fresh=context.fresh,
        session_state=_lost_state_refusal(history, planned, migrations, settings),
    )
    return report, pending.layout, {p.migration.version for p in planned}


def _replay_history(
    session: Session, journal: JournalTable, migrations: list[Migration]
) -> list[tuple[tuple[int, int], Step, str]]:
    """Give the plan's session the session settings of the steps ``up`` applied, in journal
    order, as up's session gets them (run._restore_session) before its lint gate. A replay
    the server refuses is left out: up refuses it itself (exit 5) before judging. Returns
    that history: ((version, index), step, file) in journal order."""
    from .db import journal as dbjournal
    from .db.session import ServerError
    from .session_state import history_state

    steps = {(m.version, s.index): (s, m.filename) for m in migrations for s in m.steps}
    order = dbjournal.applied_order(session, journal)
    history = [(key, *steps[key]) for key in order if key in steps]
    replayed = history_state(history).replay
    if not replayed:
        return history
    try:
        session.replay(replayed)
    except ServerError:
        session.rollback_quietly()
    return history


def _lost_state_refusal(
    history: list[tuple[tuple[int, int], Step, str]],
    planned: Sequence[PlannedStep],
    migrations: list[Migration],
    settings: Settings,
) -> SafemigrateError | None:
    """The refusal up would raise before a pending step that could depend on session state
    the applied history left and no new session has (a temporary table, a setting a DO block
    or a function changed), as up's run judges it; None when it would refuse none."""
    from .executor import lost_state_error
    from .session_state import (
        first_refusal,
        function_needs,
        history_state,
        session_changing_functions,
    )

    statements = [s for m in migrations for step in m.steps for s in step.statements]
    state = history_state(
        history,
        changers=session_changing_functions(statements),
        accepted_through=settings.accept_lost_session_state,
    )
    pending = [((p.migration.version, p.step.index), p.step, p.migration.filename) for p in planned]
    found = first_refusal(state, pending, function_needs(statements))
    return None if found is None else lost_state_error(planned[found[0]], found[1])


def _findings(
    planned: Sequence[PlannedStep],
    settings: Settings,
    session: Session | None = None,
    context: GateContext | None = None,
) -> list[Finding]:
    """The lint findings of the planned steps' files (plan shows them whatever the gate),
    judged against the live schema when there is a ``session``."""
    if session is None or not planned:
        return lint_pending(planned, settings)
    from .db.schema import lint_catalog

    return lint_pending(planned, settings, resumed_bootstrap(lint_catalog(session), context))


@dataclass(frozen=True)
class Rehearsal:
    """What ``rehearse`` did."""

    server_version: int
    first: RunResult
    #: Steps the second ``up`` applied: 0 when the migrations are repeatable as they should be.
    second_applied: int
    #: Roles the schema dump names (owners, grantees) that were created, NOLOGIN, on the
    #: throwaway server before loading it.
    created_roles: tuple[str, ...] = ()
    #: Journal rows the dump brought (production's applied steps); None without a dump or
    #: when the dump has no journal table.
    journal_rows: int | None = None


def rehearse(
    settings: Settings,
    *,
    schema_from: Path | None = None,
    server: str | None = None,
    on_event: EventSink = _ignore,
) -> Rehearsal:
    """Apply every migration for real on a throwaway PostgreSQL, twice, then remove it.

    The server is started from the machine's PostgreSQL binaries or the ``embedded`` extra's
    wheel (``server``: None/auto, system, wheel, or a bindir), and stopped with all its files
    on success, failure and Ctrl-C alike. ``schema_from`` is a schema dump (``pg_dump
    --schema-only``) loaded first with psql.
    """
    from .db import Session
    from .db import catalog as dbcatalog
    from .schema_dump import referenced_roles
    from .throwaway import ThrowawayServer, find_server_bindir

    _migrations(settings)  # bad files are bad input before anything starts
    roles: list[str] = []
    if schema_from is not None:
        _refuse_archive(schema_from)
        if not schema_from.is_file():
            raise BadInputError(f"--schema-from: {schema_from}: no such file")
        try:
            dump = schema_from.read_text(encoding="utf-8", errors="replace")
        except OSError as err:
            raise BadInputError(f"--schema-from: {schema_from}: {err.strerror}") from None
        # Production's owners and grantees: roles are cluster-wide, a dump does not hold them.
        roles = referenced_roles(dump)
    bindir = find_server_bindir(server)
    with ThrowawayServer(bindir) as instance:
        admin = Session.open(instance.dsn("postgres"), application_name="safemigrate-rehearse")
        try:
            dbcatalog.create_database(admin, "rehearsal")
            created = dbcatalog.create_missing_roles(admin, roles)
        finally:
            admin.close()
        dsn = instance.dsn("rehearsal")
        journal_rows = None
        if schema_from is not None:
            _load_schema(instance.bindir, dsn, schema_from)
            journal_rows = _journal_rows(dsn, settings, schema_from)
            # A schema dump brings production's tables without their rows: judged by their
            # empty size, every lock-cost finding would pass. Judge them as large instead.
            settings = replace(settings, gate_small_table_bytes=0)
        first = up(settings, dsn=dsn, on_event=on_event, environ={}, capture_locks=True)
        second = up(settings, dsn=dsn, environ={})
        return Rehearsal(
            instance.major_version, first, len(second.applied), tuple(created), journal_rows
        )


def _refuse_archive(dump: Path) -> None:
    """Refuse (exit 2) a dump psql cannot load, saying how to make the plain one (issue 22
    review F10): pg_dump's custom format (pg_restore's), or a gzip-compressed file."""
    try:
        with dump.open("rb") as f:
            head = f.read(5)
    except OSError:
        return  # said by the caller
    if head[:2] == b"\x1f\x8b":
        raise BadInputError(
            f"--schema-from {dump}: is gzip-compressed; psql loads a plain SQL dump",
            hint=f"decompress it first: gunzip -k {dump}",
        )
    if head != b"PGDMP":
        return
    raise BadInputError(
        f"--schema-from {dump}: is a pg_dump custom-format archive; rehearse loads a plain SQL "
        "dump (pg_dump's default format) with psql",
        hint=f"convert it: pg_restore -f prod.sql {dump}, then --schema-from prod.sql",
    )


def _journal_rows(dsn: str, settings: Settings, dump: Path) -> int | None:
    """How many journal rows the loaded dump brought; refuses (exit 2) a dump with the journal
    table but none of its rows, which a plain ``pg_dump --schema-only`` is: every migration
    would be pending on top of a schema that already has them (the first fails, 42P07)."""
    from .db import Session, foreign_history
    from .db import catalog as dbcatalog

    session = Session.open(dsn, application_name="safemigrate-rehearse")
    try:
        rows = dbcatalog.count_rows(session, (settings.journal_schema, settings.journal_table))
        # Issue 22 review F4: before the switch, what production applied is in the other
        # tool's history table, which a schema-only dump has without its rows too.
        empty = []
        if not rows:
            tables = foreign_history.configured(settings)
            empty = [h for h in foreign_history.read_all(session, tables) if not h.rows]
    finally:
        session.close()
    if rows == 0:
        table = f"{settings.journal_schema}.{settings.journal_table}"
        raise BadInputError(
            f"--schema-from {dump}: the dump has the journal table {table} but none of its "
            "rows, so every migration would be pending on top of a schema that has them",
            hint=f"append the journal's rows to the dump: pg_dump --data-only --table={table} "
            "DSN >> " + str(dump) + " (README, rehearse)",
        )
    if empty:
        history = empty[0]
        raise BadInputError(
            f"--schema-from {dump}: the dump has {history.tool}'s history table "
            f"{history.table} but none of its rows, so every migration {history.tool} applied "
            "would be pending on top of a schema that has them",
            hint=f"append that table's rows to the dump: pg_dump --data-only "
            f"--table={history.table} DSN >> {dump} (README, rehearse)",
        )
    return rows


def _load_schema(bindir: Path, dsn: str, dump: Path) -> None:
    """Load a schema dump with psql (which understands pg_dump's meta-commands)."""
    import shutil
    import subprocess

    psql = bindir / "psql"
    program = str(psql) if psql.exists() else shutil.which("psql")
    if program is None:
        raise BadInputError("--schema-from needs psql, which is not installed")
    proc = subprocess.run(
        [program, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", str(dump)],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("PG")},
    )
    if proc.returncode != 0:
        error = next(
            (line for line in proc.stderr.splitlines() if "ERROR" in line),
            proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "psql failed",
        )
        raise StepFailedError(f"--schema-from {dump}: {error.removeprefix('psql:')}")


# -- many targets --------------------------------------------------------------------------


def fleet_targets(
    settings: Settings, targets_file: Path | None, *, cwd: Path | None = None
) -> list[TargetSpec]:
    """The targets of ``targets_file`` (``--targets``), else of the config file (empty when it
    names none). Bad keys and values raise ConfigError (exit 2) naming file, target and key."""
    from .targets import load_targets_file, targets_from_config

    if targets_file is not None:
        return load_targets_file(targets_file, settings, cwd=cwd or Path.cwd())
    return targets_from_config(settings)


def _resolved(specs: Sequence[TargetSpec], environ: Mapping[str, str] | None) -> list[FleetTarget]:
    from .fleet import resolve_targets

    return resolve_targets(specs, os.environ if environ is None else environ)


def up_fleet(
    specs: Sequence[TargetSpec],
    *,
    target: str | None = None,
    concurrency: int = 4,
    canary: int = 0,
    keep_going: bool = False,
    on_event: EventSink = _ignore,
    environ: Mapping[str, str] | None = None,
) -> FleetReport:
    """``up`` on every target, ``concurrency`` at a time in worker threads, ``canary`` first.

    Every target's migrations are read and every DSN resolved before any target starts (bad
    input is exit 2 for the whole command). After a failure no new target starts and running
    ones stop at their next migration boundary, unless ``keep_going``. Events reach
    ``on_event`` from several threads, each a TargetEvent naming its target. Ctrl-C cancels
    every running step (rolled back), releases every run lock, and marks the report
    interrupted.
    """
    from .fleet import run_fleet, up_job

    plans: dict[str, tuple[Sequence[Migration], int | None]] = {}
    by_dir: dict[Path, list[Migration]] = {}
    for spec in specs:
        directory = spec.settings.dir
        if directory not in by_dir:
            by_dir[directory] = _migrations(spec.settings)
        plans[spec.name] = (by_dir[directory], resolve_target(by_dir[directory], target))
    targets = _resolved(specs, environ)
    return run_fleet(
        targets,
        up_job(plans),
        concurrency=concurrency,
        canary=canary,
        keep_going=keep_going,
        on_event=on_event,
    )


def status_fleet(
    specs: Sequence[TargetSpec],
    *,
    concurrency: int = 4,
    environ: Mapping[str, str] | None = None,
) -> FleetReport:
    """``status`` of every target (each outcome's ``value`` a StatusReport); read-only."""
    from .fleet import Control, run_fleet

    def job(target: FleetTarget, control: Control, emit: EventSink) -> StatusReport:
        return status(target.settings, database=target.db)

    return run_fleet(
        _resolved(specs, environ), job, concurrency=concurrency, keep_going=True, on_event=_ignore
    )


def plan_fleet(
    specs: Sequence[TargetSpec],
    *,
    target: str | None = None,
    concurrency: int = 4,
    environ: Mapping[str, str] | None = None,
) -> FleetReport:
    """``plan`` (or ``up --dry-run``) against every target (each ``value`` a PlanReport)."""
    from .fleet import Control, run_fleet

    def job(item: FleetTarget, control: Control, emit: EventSink) -> PlanReport:
        return plan(item.settings, use_database=True, target=target, database=item.db)

    return run_fleet(
        _resolved(specs, environ), job, concurrency=concurrency, keep_going=True, on_event=_ignore
    )


def baseline_fleet(
    specs: Sequence[TargetSpec],
    version: str,
    *,
    concurrency: int = 4,
    keep_going: bool = False,
    on_event: EventSink = _ignore,
    environ: Mapping[str, str] | None = None,
) -> FleetReport:
    """``baseline`` on every target (each ``value`` the migrations newly recorded)."""
    from .fleet import Control, run_fleet

    def job(item: FleetTarget, control: Control, emit: EventSink) -> list[Migration]:
        return baseline(item.settings, version, database=item.db, on_event=emit)

    return run_fleet(
        _resolved(specs, environ),
        job,
        concurrency=concurrency,
        keep_going=keep_going,
        on_event=on_event,
    )
