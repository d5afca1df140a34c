"""``repair``, ``baseline`` and ``adopt``: the journal made to say what is true, without
running a migration.

Each writes on one session holding the run lock, a transaction-pooling proxy refused first
(run.locked_session). The database layer is imported inside the commands, not here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.errors import BadInputError, DriftError
from ..core.events import EventSink
from ..core.model import JournalEntry, Migration
from ..core.reached import Target
from ..planning import named_edit
from ..planning.adoption import switch_event
from ..planning.pending import (
    Repair,
    check_drift,
    refuse_empty_directory,
    repairs_of,
    resolve_target,
    statuses,
)
from ..settings.config import Settings
from .inputs import ignore, read_migrations

if TYPE_CHECKING:
    from ..db import Session
    from ..db.repairs import Client as DbClient
    from ..run.connection import Database


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
    on_event: EventSink = ignore,
    accept_edited_step: str | None = None,
) -> RepairReport:
    """Make the journal agree with the files again, recording every change in the repair log.

    Never records as applied a step whose text never ran: applied steps are compared with the
    file by text, not by position. Forgets applied migrations (or steps) whose file (or step)
    is gone and migrations applied while they had no SQL, and follows renamed files (same
    version, new name; or a new version whose steps are the applied text of a gone version).
    SQL inserted among applied steps is refused (BadInputError). With ``accept_edited`` it
    accepts the current text of applied steps edited in their place, with ``forget_batches``
    it forgets the batches an earlier text of a started batched step committed; without them
    those are refused. ``accept_edited_step`` (``VERSION:STEP``) accepts the current text of
    that one applied step, also where ``accept_edited`` refuses it (the last applied step of a
    partly applied migration), when the migration's other applied steps are unchanged and its
    applied text is neither still in it with statements added nor split over the steps after
    it (see ``planning.named_edit``). Runs under the run lock, in one transaction, every
    statement under lock_timeout and statement_timeout. With ``dry_run`` it reads the
    journal (no lock, nothing written) and reports what it would do.
    """
    from ..db import foreign_history
    from ..db import journal as dbjournal
    from ..db import repairs as dbrepairs
    from ..db import started as dbstarted
    from ..db import steps as dbsteps
    from ..db.step_timeouts import set_session_timeouts
    from ..run.connection import journal_table, resolve_database
    from ..run.locked_session import locked_session

    migrations = read_migrations(settings)
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
        report = statuses(migrations, entries, progress, recipes)
        named: list[Repair] = []
        if accept_edited_step is not None:
            report, accept = named_edit.accept_named(
                report, accept_edited_step, migrations, entries
            )
            named.append(accept)
        return (
            repairs_of(report, accept_edited=accept_edited, forget_batches=forget_batches)
            + named
            + foreign_history.rolled_back_repairs(session, settings, migrations, entries)
        )

    with locked_session(
        settings,
        db,
        on_connect=on_event,
        # Session-level: the run lock's calls and the journal read are guarded too.
        prepare=lambda session: set_session_timeouts(session, timeouts),
        # A dry run reads the journal only: no lock, nothing written.
        run_lock=not dry_run,
    ) as session:
        target = session.target()
        repairs = planned(session)
        if repairs and not dry_run:
            # An accepted text's statements are recorded with it: a journal an earlier
            # release made gets their columns first (under the run lock, as up does).
            dbjournal.upgrade(session, journal, lock_timeout_ms=settings.lock_timeout_ms)
            dbrepairs.apply(session, journal, repairs, timeouts, _client(), log_only=tool_only)
    log = dbrepairs.log_table(journal)
    return RepairReport(target.address, str(journal), str(log), repairs, dry_run, target)


def _client() -> DbClient:
    """The OS user and host running the repair, as far as this machine can tell."""
    import getpass
    import socket

    from ..db.repairs import Client

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
    on_event: EventSink = ignore,
    database: Database | None = None,
) -> list[Migration]:
    """Record every migration up to ``version`` as applied without running it.

    For databases adopted from another tool. Returns the migrations newly recorded. Like
    ``up``, it emits Connected (the target) first, holds the run lock and refuses a
    transaction-pooling proxy before writing anything.
    """
    from ..db import journal as dbjournal
    from ..db import steps as dbsteps
    from ..run.connection import journal_table, resolve_database
    from ..run.locked_session import locked_session
    from ..run.refusals import refusing_standby

    migrations = read_migrations(settings)
    upto = resolve_target(migrations, version)
    assert upto is not None
    db = database or resolve_database(dsn, environ, require_dsn=settings.require_dsn)
    journal = journal_table(settings)
    recorded = []
    with locked_session(
        settings, db, on_connect=refusing_standby(on_event), on_wait=on_event
    ) as session:
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
                    statements=s.statement_checksums,
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
    on_event: EventSink = ignore,
) -> list[JournalEntry]:
    """Record in the journal what another tool's history table says it applied.

    ``up`` does the same before its first step; ``adopt`` does only that, so that the other
    tool can be retired before anything new is applied. Reads the tool's table (the ``layout``
    setting says which), never writes it; holds the run lock; writes every adopted row in one
    transaction. A failed or dirty migration in that history raises AdoptionError (exit 2), a
    file changed since the tool applied it DriftError. Returns the entries written.
    """
    from ..db import foreign_history
    from ..db import journal as dbjournal
    from ..db import steps as dbsteps
    from ..run.connection import journal_table, resolve_database
    from ..run.locked_session import locked_session

    migrations = read_migrations(settings)
    db = resolve_database(dsn, environ, require_dsn=settings.require_dsn)
    journal = journal_table(settings)
    with locked_session(settings, db, on_connect=on_event, on_wait=on_event) as session:
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
