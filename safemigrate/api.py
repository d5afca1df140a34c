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

from .adoption import layout_notes
from .check import check as check  # the check command lives in its own module (cheap import)
from .check import explain as explain
from .config import Settings
from .errors import BadInputError, InterruptedRunError, MigrationFileError, StepFailedError
from .events import Event
from .gate import decide, lint_pending
from .lint import Finding
from .model import JournalEntry, Migration
from .pending import (
    MigrationStatus,
    PlannedStep,
    Repair,
    State,
    check_drift,
    pending_steps,
    refuse_empty_directory,
    repairs_of,
    resolve_target,
    statuses,
)
from .plan import PlanReport
from .plan import build as build_plan
from .policy import worst_case
from .source import FILENAME_PATTERN, discover, load_migrations
from .source.layouts import layout_notes as left_out_notes
from .source.layouts import refuse_foreign_layout
from .source.layouts import resolve as resolve_layout
from .target import Target

# The database layer (psycopg) is imported by the commands that connect, not here: `check` and
# `new` then start without it.
if TYPE_CHECKING:
    from collections.abc import Callable

    from .db import Session
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

    @property
    def drifted(self) -> list[MigrationStatus]:
        """Drifted or missing migrations."""
        return [m for m in self.migrations if m.state in (State.DRIFTED, State.MISSING)]

    def refuse_drift(self) -> None:
        """Raise DriftError (exit 5) naming the first problem when anything drifted."""
        check_drift(self.migrations)

    @property
    def outstanding(self) -> list[MigrationStatus]:
        """Pending or partial migrations."""
        return [m for m in self.migrations if m.state in (State.PENDING, State.PARTIAL)]

    def to_dict(self) -> dict[str, object]:
        """The JSON document of ``status --format json``."""
        return {
            "target": self.target.to_dict(),
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
    from .run import journal_table, open_session, resolve_database

    migrations = _migrations(settings)
    db = database or resolve_database(dsn, environ, require_dsn=settings.require_dsn)
    journal = journal_table(settings)
    with open_session(settings, db) as session:
        target = session.target()
        entries = foreign_history.with_adopted(
            session, settings, migrations, dbjournal.read(session, journal)
        )
    refuse_empty_directory(migrations, entries, str(settings.dir))
    return StatusReport(target.address, str(journal), statuses(migrations, entries), target)


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
    environ: Mapping[str, str] | None = None,
    on_event: EventSink = _ignore,
) -> RepairReport:
    """Make the journal agree with the files again, recording every change in the repair log.

    Accepts the current text of edited applied steps, forgets applied migrations (or steps)
    whose file (or step) is gone, and follows renamed files (same version, new name; or a new
    version whose steps are the applied text of a gone version). Runs under the run lock, in
    one transaction, every statement under lock_timeout and statement_timeout. With
    ``dry_run`` it reads the journal (no lock, nothing written) and reports what it would do.
    """
    from .db import journal as dbjournal
    from .db import repairs as dbrepairs
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

    def planned(session: Session) -> list[Repair]:
        entries = dbjournal.read(session, journal)
        refuse_empty_directory(migrations, entries, str(settings.dir))
        return repairs_of(statuses(migrations, entries))

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
                    dbrepairs.apply(session, journal, repairs, timeouts, _client())
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
        adopted = foreign_history.with_adopted(session, settings, migrations, entries)
        adopted = adopted[len(entries) :]
        if adopted:
            dbjournal.ensure(session, journal, lock_timeout_ms=settings.lock_timeout_ms)
            timeouts = dbsteps.Timeouts(settings.lock_timeout_ms, settings.statement_timeout_ms)
            foreign_history.record(session, journal, adopted, timeouts)
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
            worst_case_run_wait_ms=worst_case((p.step for p in planned), settings).run_ms,
            lock_wait_budget_ms=worst_case((), settings).polite_step_ms,
        )
    else:
        report = _plan_against(
            settings, migrations, target_version, dsn, environ, on_event, database
        )
    return replace(report, notes=_layout_notes(settings))


def _layout_notes(settings: Settings) -> tuple[str, ...]:
    """What plan says about another tool's layout (nothing for safemigrate's own)."""
    layout = resolve_layout(settings.dir, settings.layout)
    if layout == "safemigrate" and settings.layout != "auto":
        return ()
    files = discover(settings.dir, layout)
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
) -> PlanReport:
    """The plan with the database's facts: its pending steps, sizes, lock holders."""
    from .blockers.watcher import Watcher
    from .db import batches as dbbatches
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
        read_pending,
        resolve_database,
        server_settings,
    )

    db = database or resolve_database(dsn, environ, require_dsn=settings.require_dsn)
    journal = journal_table(settings)
    with open_session(settings, db, on_connect=on_event) as session:
        target = session.target()
        planned = read_pending(session, journal, migrations, settings, target_version)
        # Lint as up's gate will: with the server's own major version.
        settings = server_settings(settings, session)
        findings = _findings(planned, settings, session)
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
    return PlanReport(
        tuple(steps),
        facts,
        gate=decide(planned, findings, settings),
        worst_case_run_wait_ms=worst_case((p.step for p in planned), settings).run_ms,
        lock_wait_budget_ms=worst_case((), settings).polite_step_ms,
    )


def _findings(
    planned: Sequence[PlannedStep], settings: Settings, session: Session | None = None
) -> list[Finding]:
    """The lint findings of the planned steps' files (plan shows them whatever the gate),
    judged against the live schema when there is a ``session``."""
    if session is None or not planned:
        return lint_pending(planned, settings)
    from .db.schema import lint_catalog

    return lint_pending(planned, settings, lint_catalog(session))


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
    from .db import Session
    from .db import catalog as dbcatalog
    from .throwaway import ThrowawayServer, find_server_bindir

    _migrations(settings)  # bad files are bad input before anything starts
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
