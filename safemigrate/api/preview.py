"""``plan`` and ``rehearse``: what ``up`` would do, told from the files and the database, or
tried for real on a throwaway server.

The database layer and the throwaway server are imported inside the commands, not here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import BadInputError, SafemigrateError, StepFailedError
from ..core.events import EventSink
from ..core.model import Migration
from ..lint import Finding
from ..planning.adoption import layout_notes
from ..planning.gate import (
    GateContext,
    decide,
    guard_error,
    lint_pending,
    relieved_steps,
    resumed_bootstrap,
)
from ..planning.online_type import as_written_unless
from ..planning.pending import PlannedStep, pending_steps, resolve_target
from ..planning.plan import PlanReport
from ..planning.plan import build as build_plan
from ..planning.policy import worst_case
from ..settings.config import Settings
from ..source import discover
from ..source.layouts import layout_notes as left_out_notes
from ..source.layouts import resolve as resolve_layout
from .apply import up
from .inputs import ignore, read_migrations

if TYPE_CHECKING:
    from ..core.reached import Target
    from ..db import Session
    from ..db.journal import JournalTable
    from ..run.connection import Database
    from ..run.executor import RunResult
    from ..run.journal_reading import AppliedStep


def plan(
    settings: Settings,
    *,
    dsn: str | None = None,
    use_database: bool = False,
    target: str | None = None,
    environ: Mapping[str, str] | None = None,
    on_event: EventSink = ignore,
    database: Database | None = None,
) -> PlanReport:
    """What ``up`` would run: every migration without a database, the real pending set with one.

    Writes nothing. With a database, drift and out-of-order migrations raise the same errors
    (and exit codes) as ``up`` would, and the report adds table sizes, the run lock's holder,
    invalid indexes and long transactions (see lock_precheck_age) holding the target tables.
    ``on_event`` is told where it connected (a Connected event) before anything is read, so
    that a refusal can still say which database it was.
    """
    from ..statements.session_state import refuse_accepted_version

    migrations = read_migrations(settings)
    refuse_accepted_version(settings.accept_lost_session_state, migrations)
    target_version = resolve_target(migrations, target)
    if not use_database:
        # No live catalog to judge the tables by: the online type changes as written (up
        # chooses from the database it runs on; plan --dsn shows that choice).
        planned = as_written_unless(pending_steps(migrations, [], target=target_version), ())
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
    from ..core.events import Blocker
    from ..core.model import QualifiedName
    from ..db import batch_queries as dbbatches
    from ..db import bootstrap
    from ..db import catalog_facts as dbcatalog
    from ..db.activity import Monitor
    from ..planning.plan import DatabaseFacts
    from ..run.connection import journal_table, open_session, resolve_database, server_settings
    from ..run.journal_reading import read_plan
    from ..run.run_lock import RunLock
    from ..run.type_change import online_verdicts
    from ..run.watcher import Watcher
    from ..statements.locks import LockMode, strongest

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
        found = bootstrap.freshness(session, journal, settings.gate_small_table_bytes)
        # As up chooses: an online type change runs online only where its plain form's
        # finding blocks and the recipe can carry it by the live catalog.
        online = online_verdicts(session, planned, journal)
        context = GateContext(
            found.fresh, settings.gate_small_table_bytes, found.resumed, online.verdicts
        )
        findings = _findings(planned, settings, session, context)
        verdict = decide(planned, findings, settings, context)
        planned = as_written_unless(planned, relieved_steps(verdict) | online.resumed)
        # The database's own session-changing routines count as up counts them (issue 21
        # review21i E6): one query, only when something is pending.
        routines = _database_routines(session) if planned else {}
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
        watcher = Watcher(monitor, settings, session.pid, ignore)
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
        gate=verdict,
        worst_case_run_wait_ms=worst_case((p.step for p in planned), settings).run_ms,
        lock_wait_budget_ms=worst_case((), settings).polite_step_ms,
        guard=guard_error(planned, findings, context),
        fresh=context.fresh,
        session_state=_lost_state_refusal(history, planned, migrations, settings, target, routines),
    )
    return report, pending.layout, {p.migration.version for p in planned}


def _replay_history(
    session: Session, journal: JournalTable, migrations: list[Migration]
) -> list[AppliedStep]:
    """Give the plan's session the session settings of the steps ``up`` applied, in journal
    order, as up's session gets them (Run._restore_session) before its lint gate. A replay
    the server refuses is left out: up refuses it itself (exit 5) before judging. Returns
    that history: ((version, index), step, file) in journal order."""
    from ..db.session import ServerError
    from ..run.journal_reading import applied_history
    from ..statements.session_state import history_state

    history = applied_history(session, journal, migrations)
    replayed = history_state(history).replay
    if not replayed:
        return history
    try:
        session.replay(replayed)
    except ServerError:
        session.rollback_quietly()
    return history


def _lost_state_refusal(
    history: list[AppliedStep],
    planned: Sequence[PlannedStep],
    migrations: list[Migration],
    settings: Settings,
    target: Target,
    routines: Mapping[str, Sequence[str]] | None = None,
) -> SafemigrateError | None:
    """The refusal up would raise before a pending step that could depend on session state
    the applied history left and no new session has (a temporary table, a setting a DO block
    or a function changed), as up's run judges it; None when it would refuse none.
    ``routines``: the database's own routine definitions by name (db.live_functions)."""
    from ..run.executor import lost_state_error
    from ..run.session_replay import first_session_state
    from ..statements import database_routines
    from ..statements.session_state import first_refusal, function_facts

    statements = [s for m in migrations for step in m.steps for s in step.statements]
    facts = function_facts(statements)
    changers, only_database = database_routines.run_changers(
        routines or {}, statements, facts.changers
    )
    state = first_session_state(
        history,
        migrations,
        target,
        changers=changers,
        accepted_through=settings.accept_lost_session_state,
        database_changers=only_database,
    )
    pending = [((p.migration.version, p.step.index), p.step, p.migration.filename) for p in planned]
    found = first_refusal(state, pending, dict(facts.needs))
    return None if found is None else lost_state_error(planned[found[0]], found[1])


def _database_routines(session: Session) -> dict[str, tuple[str, ...]]:
    from ..db.live_schema import database_routines

    return database_routines(session)


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
    from ..db.live_schema import lint_catalog

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
    on_event: EventSink = ignore,
) -> Rehearsal:
    """Apply every migration for real on a throwaway PostgreSQL, twice, then remove it.

    The server is started from the machine's PostgreSQL binaries or the ``embedded`` extra's
    wheel (``server``: None/auto, system, wheel, or a bindir), and stopped with all its files
    on success, failure and Ctrl-C alike. ``schema_from`` is a schema dump (``pg_dump
    --schema-only``) loaded first with psql.
    """
    from ..db import Session
    from ..db import catalog_facts as dbcatalog
    from ..infra.throwaway import ThrowawayServer, find_server_bindir
    from ..source.schema_dump import referenced_roles

    read_migrations(settings)  # bad files are bad input before anything starts
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
    from ..db import Session, foreign_history
    from ..db import catalog_facts as dbcatalog

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
            "DSN >> " + str(dump) + " (docs/plan-and-rehearse.md)",
        )
    if empty:
        history = empty[0]
        raise BadInputError(
            f"--schema-from {dump}: the dump has {history.tool}'s history table "
            f"{history.table} but none of its rows, so every migration {history.tool} applied "
            "would be pending on top of a schema that has them",
            hint=f"append that table's rows to the dump: pg_dump --data-only "
            f"--table={history.table} DSN >> {dump} (docs/plan-and-rehearse.md)",
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
