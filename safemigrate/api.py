"""The commands as library functions: settings in, results out, typed errors raised.

Usable without the CLI, e.g. from a Django management command or a pytest fixture::

    from safemigrate import api, load_settings
    settings = load_settings(cwd=Path.cwd(), overrides={"dir": "migrations"})
    result = api.up(settings, dsn="postgresql://app@db/shop")
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import os
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .blockers.watcher import Watcher
from .config import Settings
from .db import Session, runlock
from .db import catalog as dbcatalog
from .db import dsn as dbdsn
from .db import journal as dbjournal
from .db import steps as dbsteps
from .db.activity import Monitor
from .db.journal import JournalTable
from .durations import format_duration
from .errors import (
    BadInputError,
    ConnectionFailedError,
    InterruptedRunError,
    MigrationFileError,
    RunLockHeldError,
    SafemigrateError,
    StepFailedError,
    UnsafeConnectionError,
)
from .events import Blocker, ConnectionLost, Event, Reconnected, RunLockWaiting, RunStarted
from .executor import Executor, RunResult
from .lint import Finding, lint_paths
from .locks import LockMode
from .model import Migration, QualifiedName
from .pending import (
    MigrationStatus,
    PlannedStep,
    State,
    check_drift,
    pending_steps,
    resolve_target,
    statuses,
)
from .plan import DatabaseFacts, PlanReport
from .plan import build as build_plan
from .policy import worst_case
from .source import FILENAME_PATTERN, discover, load_migrations

EventSink = Callable[[Event], None]


def _ignore(_: Event) -> None:
    pass


@dataclass(frozen=True)
class Database:
    """Where to connect, with what must never be shown."""

    dsn: str
    source: str
    description: str
    secrets: tuple[str, ...]


def database(dsn: str | None = None, environ: Mapping[str, str] | None = None) -> Database:
    """Resolve the DSN (--dsn, SAFEMIGRATE_DSN, DATABASE_URL, libpq defaults) and validate it."""
    env = os.environ if environ is None else environ
    value, source = dbdsn.resolve_dsn(dsn, env)
    params = dbdsn.parse_dsn(value, source)
    return Database(value, source, dbdsn.describe(params), tuple(dbdsn.secrets_of(value, env)))


def journal_of(settings: Settings) -> JournalTable:
    """The journal table the settings name."""
    return JournalTable(settings.journal_schema, settings.journal_table)


def migrations_of(settings: Settings) -> list[Migration]:
    """Every migration in the settings' directory, parsed (bad files raise exit-2 errors)."""
    return load_migrations(settings.dir, concurrent_indexes=settings.concurrent_indexes)


@contextmanager
def _session(settings: Settings, db: Database, *, mid_run: bool = False) -> Iterator[Session]:
    session = Session.open(
        db.dsn, application_name=settings.application_name, secrets=db.secrets, mid_run=mid_run
    )
    try:
        yield session
    finally:
        session.close()


def _acquire_run_lock(
    session: Session,
    settings: Settings,
    keys: tuple[int, int],
    on_event: EventSink,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Take the run lock without ever blocking; poll with jitter up to wait_for_lock."""
    began = clock()
    vanished = 0
    while not runlock.try_acquire(session, keys):
        holders = runlock.holders(session, keys)
        if not holders and vanished < 3:
            # The holder ended between our try and the look-up: the lock is free, try again.
            vanished += 1
            continue
        holder = holders[0].describe() if holders else "a session pg_stat_activity does not show"
        waited = (clock() - began) * 1000
        if waited >= settings.wait_for_lock_ms:
            raise RunLockHeldError(
                f"another run holds the run lock on this journal: {holder}",
                hint="wait for it to finish, or use --wait-for-lock DURATION",
            )
        on_event(RunLockWaiting(holder, round(waited), settings.wait_for_lock_ms))
        remaining = (settings.wait_for_lock_ms - waited) / 1000
        sleep(min(remaining, 0.5 + random.random()))


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

    If the connection is lost mid-run (server restart, terminated backend), the runner
    reconnects for up to ``reconnect_timeout`` (within the run's deadline), takes the run lock
    again, re-reads the journal, applies the session settings of earlier steps again (e.g.
    ``SET timezone``) and resumes. ``capture_locks`` reports, in each StepApplied event, the
    table locks the step held just before it committed (what ``rehearse`` shows).
    """
    migrations = migrations_of(settings)
    target_version = resolve_target(migrations, target)
    db = database(dsn, environ)
    journal = journal_of(settings)
    started_at = time.monotonic()
    result = RunResult()
    session_state: list[str] = []
    outage = _Outage()
    try:
        while True:
            try:
                if outage.since is not None:
                    outage.attempts += 1
                return _run_once(
                    settings,
                    db,
                    journal,
                    migrations,
                    target_version,
                    on_event,
                    result=result,
                    session_state=session_state,
                    started_at=started_at,
                    capture_locks=capture_locks,
                    outage=outage,
                )
            except ConnectionFailedError as err:
                now = time.monotonic()
                if outage.since is None:
                    if settings.reconnect_timeout_ms == 0 or not err.mid_run:
                        raise
                    outage.since = now
                    on_event(ConnectionLost(err.message, settings.reconnect_timeout_ms))
                budget_s = settings.reconnect_timeout_ms / 1000
                if settings.deadline_ms is not None:
                    budget_s = min(budget_s, settings.deadline_ms / 1000 - (now - started_at))
                if now - outage.since >= budget_s:
                    raise ConnectionFailedError(
                        f"{err.message}; could not resume within "
                        f"{format_duration(settings.reconnect_timeout_ms)}",
                        hint="rerun safemigrate up: it resumes after the last recorded step",
                    ) from None
                time.sleep(min(1.0, 0.2 * 2 ** min(outage.attempts, 3)))
    except KeyboardInterrupt:
        raise InterruptedRunError(
            "interrupted: the running statement was cancelled and its step rolled back",
            hint="rerun safemigrate up to resume after the last recorded step",
        ) from None


@dataclasses.dataclass
class _Outage:
    """A lost connection being recovered: since when, and how many reconnection attempts."""

    since: float | None = None
    attempts: int = 0


def _run_once(
    settings: Settings,
    db: Database,
    journal: JournalTable,
    migrations: list[Migration],
    target_version: int | None,
    on_event: EventSink,
    *,
    result: RunResult,
    session_state: list[str],
    started_at: float,
    capture_locks: bool,
    outage: _Outage,
) -> RunResult:
    """One session's part of a run: lock, journal, plan, execute."""
    keys = runlock.lock_keys(str(journal))
    reconnecting = outage.since is not None
    with _session(settings, db, mid_run=reconnecting) as session:
        if not reconnecting:
            _acquire_run_lock(session, settings, keys, on_event)
        else:
            # The old backend may hold the lock until the server notices it is gone.
            wait = dataclasses.replace(
                settings, wait_for_lock_ms=max(settings.wait_for_lock_ms, 10_000)
            )
            _acquire_run_lock(session, wait, keys, _ignore)
        monitor: Monitor | None = None
        try:
            _check_session_is_ours(session, keys)
            # Before anything is written (even the journal table): a second connection that
            # lands on the same backend means a transaction-pooling proxy.
            monitor = _open_monitor(settings, db)
            if monitor is not None and monitor.session.pid == session.pid:
                raise _pooled()
            if reconnecting:
                for text in session_state:
                    session.run_sql(text)
                assert outage.since is not None
                waited = round((time.monotonic() - outage.since) * 1000)
                on_event(Reconnected(outage.attempts, waited, tuple(session_state)))
                # Recovered: a later loss is a new outage with its own full reconnect budget.
                outage.since, outage.attempts = None, 0
            dbjournal.ensure(session, journal, lock_timeout_ms=settings.lock_timeout_ms)
            planned = _pending(session, journal, migrations, settings, target_version)
            if not session_state:
                # A new run resuming inside a migration: that file's earlier session settings
                # (SET timezone ...) were applied by an earlier run, on another session.
                session_state += _settings_of_partial(planned, session)
            if not planned and monitor is not None:
                monitor.close()
                monitor = None
            try:
                on_event(_run_started(settings, db, journal, planned, monitor is not None))
                watcher = Watcher(monitor, settings, session.pid, on_event)
                executor = Executor(
                    session,
                    settings,
                    journal,
                    on_event=on_event,
                    watcher=watcher,
                    run_started_at=started_at,
                    capture_locks=capture_locks,
                    session_state=session_state,
                )
                return executor.run(planned, result)
            finally:
                if monitor is not None:
                    monitor.close()
        finally:
            if monitor is not None and not monitor.session.closed:
                monitor.close()
            if not session.closed:
                session.rollback_quietly()
                # Closing the session releases the lock anyway.
                with contextlib.suppress(Exception):
                    runlock.release(session, keys)


def _pending(
    session: Session,
    journal: JournalTable,
    migrations: list[Migration],
    settings: Settings,
    target_version: int | None,
) -> list[PlannedStep]:
    """The steps to run, from the journal; drift and out-of-order migrations are refused."""
    entries = dbjournal.read(session, journal)
    check_drift(statuses(migrations, entries))
    return pending_steps(
        migrations,
        entries,
        target=target_version,
        allow_out_of_order=settings.allow_out_of_order,
    )


def _settings_of_partial(planned: Sequence[PlannedStep], session: Session) -> list[str]:
    """Apply again the session SETs of the applied steps of a partially applied migration."""
    if not planned:
        return []
    first = planned[0]
    applied = [s for s in first.migration.steps if s.index < first.step.index]
    texts = [st.text for s in applied for st in s.statements if st.session_setting]
    for text in texts:
        session.run_sql(text)
    return texts


def _pooled() -> UnsafeConnectionError:
    return UnsafeConnectionError(
        "the connection goes through a transaction-pooling proxy (two connections share one "
        "server backend, or the run lock is not held by the backend answering): the run lock "
        "and session settings cannot be kept, so nothing was run",
        hint="connect to PostgreSQL directly, or through a session-pooling proxy "
        "(PgBouncer pool_mode = session)",
    )


def _check_session_is_ours(session: Session, keys: tuple[int, int]) -> None:
    """Refuse to run when statements may reach another backend than the one holding the lock."""
    if runlock.backend_pid(session) != session.pid or not runlock.held_here(session, keys):
        raise _pooled()


def _open_monitor(settings: Settings, db: Database) -> Monitor | None:
    """The second session that reports blockers; the run goes on without it if it cannot
    connect (e.g. max_connections reached): the lock timeouts still guard every step."""
    try:
        return Monitor.open(db.dsn, application_name=settings.application_name, secrets=db.secrets)
    except SafemigrateError:
        return None


def _run_started(
    settings: Settings,
    db: Database,
    journal: JournalTable,
    steps: Sequence[PlannedStep],
    monitored: bool,
) -> RunStarted:
    worst = worst_case((p.step for p in steps), settings)
    return RunStarted(
        database=db.description,
        journal=str(journal),
        pending_migrations=len({p.migration.version for p in steps}),
        pending_steps=len(steps),
        lock_timeout_ms=settings.lock_timeout_ms,
        max_attempts=settings.max_attempts,
        worst_case_step_wait_ms=worst.step_ms,
        worst_case_concurrent_wait_ms=worst.concurrent_ms,
        worst_case_run_wait_ms=worst.run_ms,
        deadline_ms=settings.deadline_ms,
        monitored=monitored,
    )


@dataclass(frozen=True)
class StatusReport:
    """What ``status`` found."""

    database: str
    journal: str
    migrations: list[MigrationStatus]

    @property
    def drifted(self) -> list[MigrationStatus]:
        """Drifted or missing migrations."""
        return [m for m in self.migrations if m.state in (State.DRIFTED, State.MISSING)]

    @property
    def outstanding(self) -> list[MigrationStatus]:
        """Pending or partial migrations."""
        return [m for m in self.migrations if m.state in (State.PENDING, State.PARTIAL)]

    def to_dict(self) -> dict[str, object]:
        """The JSON document of ``status --format json``."""
        return {
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
            ]
        }


def status(
    settings: Settings, *, dsn: str | None = None, environ: Mapping[str, str] | None = None
) -> StatusReport:
    """Every migration's state against the journal. Read-only: takes no lock, creates nothing.

    Drift is reported in the result, not raised: call ``check_drift(report.migrations)`` to
    refuse on it as the CLI does.
    """
    migrations = migrations_of(settings)
    db = database(dsn, environ)
    journal = journal_of(settings)
    with _session(settings, db) as session:
        entries = dbjournal.read(session, journal)
    return StatusReport(db.description, str(journal), statuses(migrations, entries))


def baseline(
    settings: Settings,
    version: str,
    *,
    dsn: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[Migration]:
    """Record every migration up to ``version`` as applied without running it.

    For databases adopted from another tool. Returns the migrations newly recorded.
    """
    migrations = migrations_of(settings)
    upto = resolve_target(migrations, version)
    assert upto is not None
    db = database(dsn, environ)
    journal = journal_of(settings)
    keys = runlock.lock_keys(str(journal))
    recorded = []
    with _session(settings, db) as session:
        _acquire_run_lock(session, settings, keys, _ignore)
        try:
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
        finally:
            session.rollback_quietly()
            runlock.release(session, keys)
    return recorded


def new(settings: Settings, name: str, *, now: dt.datetime | None = None) -> Path:
    """Create the next migration file ``<version>_<name>.sql`` and return its path."""
    candidate = f"0_{name}.sql"
    if FILENAME_PATTERN.match(candidate) is None:
        raise BadInputError(
            f"migration name {name!r} is not valid: use letters, digits, _ . - "
            "(starting with a letter or digit)"
        )
    directory = settings.dir
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
            )
    except FileExistsError:
        raise MigrationFileError(str(path), "already exists") from None
    return path


def plan(
    settings: Settings,
    *,
    dsn: str | None = None,
    use_database: bool = False,
    target: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> PlanReport:
    """What ``up`` would run: every migration without a database, the real pending set with one.

    Writes nothing. With a database, drift and out-of-order migrations raise the same errors
    (and exit codes) as ``up`` would, and the report adds table sizes, the run lock's holder,
    invalid indexes and long transactions (see lock_precheck_age) holding the target tables.
    """
    migrations = migrations_of(settings)
    target_version = resolve_target(migrations, target)
    if not use_database:
        planned = pending_steps(migrations, [], target=target_version)
        findings = _findings(planned, settings)
        return PlanReport(tuple(build_plan(planned, settings, findings)))
    db = database(dsn, environ)
    journal = journal_of(settings)
    with _session(settings, db) as session:
        planned = _pending(session, journal, migrations, settings, target_version)
        findings = _findings(planned, settings)
        relations = list({need.relation: None for p in planned for need in p.step.locks})
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
            for need in p.step.locks:
                key = (need.relation, need.mode)
                if key not in by_mode:
                    by_mode[key] = watcher.long_holders([need], settings.lock_timeout_ms)
                holders[(p.migration.version, p.step.index, need.relation)] = by_mode[key]
        lock_holders = runlock.holders(session, runlock.lock_keys(str(journal)))
        facts = DatabaseFacts(
            db.description,
            lock_holders[0].describe() if lock_holders else None,
            tuple(dbcatalog.invalid_indexes(session)),
        )
    steps = build_plan(planned, settings, findings, sizes=sizes, holders=holders)
    return PlanReport(tuple(steps), facts)


def _findings(planned: Sequence[PlannedStep], settings: Settings) -> list[Finding]:
    paths = list({p.migration.path: None for p in planned})
    if not paths:
        return []
    report = lint_paths(
        paths, pg_version=settings.pg_version, concurrent_indexes=settings.concurrent_indexes
    )
    return list(report.findings)


@dataclass(frozen=True)
class Rehearsal:
    """What ``rehearse`` did."""

    server_version: int
    first: RunResult
    #: Steps the second ``up`` applied: 0 when the migrations are repeatable as they should be.
    second_applied: int


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
    from .throwaway import ThrowawayServer, find_server_bindir

    migrations_of(settings)  # bad files are bad input before anything starts
    if schema_from is not None and not schema_from.is_file():
        raise BadInputError(f"--schema-from: {schema_from}: no such file")
    bindir = find_server_bindir(server)
    with ThrowawayServer(bindir) as instance:
        admin = Session.open(instance.dsn("postgres"), application_name="safemigrate-rehearse")
        try:
            dbcatalog.create_database(admin, "rehearsal")
        finally:
            admin.close()
        dsn = instance.dsn("rehearsal")
        if schema_from is not None:
            _load_schema(instance.bindir, dsn, schema_from)
        first = up(settings, dsn=dsn, on_event=on_event, environ={}, capture_locks=True)
        second = up(settings, dsn=dsn, environ={})
        return Rehearsal(instance.major_version, first, len(second.applied))


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
