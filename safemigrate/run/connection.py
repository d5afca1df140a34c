"""Connecting a run: the database to reach, the sessions on it, the settings as its server.

A :class:`Database` is resolved from the DSN once; :func:`open_session` opens the session the
runner sends its own statements on, under its housekeeping timeouts, and turns a server error
of those statements into the run's error; :func:`open_monitor` opens the second session that
reports blockers.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..core.durations import format_duration
from ..core.errors import LockNotAcquiredError, SafemigrateError
from ..db import ServerError, Session
from ..db import dsn as dbdsn
from ..db.journal import JournalTable
from ..settings.config import Settings

if TYPE_CHECKING:
    # Types only: ``status`` connects without the events' classes (about 30 dataclasses).
    from ..core.events import Event, EventSink
    from ..db.activity import Monitor


def ignore(_: Event) -> None:
    """An event sink that drops every event."""


@dataclass(frozen=True)
class Database:
    """Where to connect, with what must never be shown."""

    dsn: str
    source: str
    description: str
    secrets: tuple[str, ...]
    #: A tenant's schema: every session's search_path is this schema alone (None: the DSN's).
    schema: str | None = None


def resolve_database(
    dsn: str | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    require_dsn: bool = False,
) -> Database:
    """Resolve the DSN (--dsn, SAFEMIGRATE_DSN, DATABASE_URL, else libpq's PG* variables unless
    ``require_dsn``) and validate it; refuse (exit 2) when nothing names a database."""
    env = os.environ if environ is None else environ
    given, source = dbdsn.resolve_dsn(dsn, env, require_dsn=require_dsn)
    # Other tools' URLs (postgresql+psycopg://, jdbc:, ?socket=) in libpq's own form.
    value = dbdsn.normalize(given, source)
    params = dbdsn.parse_dsn(value, source, env)
    secrets = {*dbdsn.secrets_of(given, env), *dbdsn.secrets_of(value, env)}
    return Database(value, source, dbdsn.describe(params), tuple(sorted(secrets)))


def journal_table(settings: Settings) -> JournalTable:
    """The journal table the settings name."""
    return JournalTable(settings.journal_schema, settings.journal_table)


@contextmanager
def open_session(
    settings: Settings,
    db: Database,
    *,
    mid_run: bool = False,
    on_connect: EventSink | None = None,
) -> Iterator[Session]:
    """A session on ``db`` named after the settings' application_name, closed on exit;
    ``on_connect`` is told where it connected (a Connected event) before anything else.

    Every statement the runner sends on it outside a step's own timeouts runs under the run's
    lock_timeout and the housekeeping_timeout.
    """
    session = Session.open(
        db.dsn,
        application_name=settings.application_name,
        secrets=db.secrets,
        mid_run=mid_run,
        lock_timeout_ms=settings.lock_timeout_ms,
        statement_timeout_ms=settings.housekeeping_timeout_ms,
    )
    try:
        if db.schema is not None:
            session.use_schema(db.schema)
        if on_connect is not None:
            from ..core.events import Connected

            on_connect(Connected(session.target()))
        yield session
    except ServerError as err:
        # Steps turn their own server errors into step failures: what reaches here came from
        # the runner's own statements (journal, run lock, catalog reads), under its timeouts.
        raise housekeeping_failed(err, settings) from None
    finally:
        session.close()


#: SQLSTATEs of a timeout: lock_not_available, query_canceled (statement timeout).
_LOCK_TIMEOUT, _STATEMENT_TIMEOUT = "55P03", "57014"


def housekeeping_failed(err: ServerError, settings: Settings) -> SafemigrateError:
    """The error to report when one of the runner's own statements failed on the server: a
    lock it could not get within lock_timeout is exit 4, anything else exit 1."""
    if err.sqlstate == _LOCK_TIMEOUT:
        return LockNotAcquiredError(
            "a statement of the runner's own (journal, run lock or catalog read) could not get "
            f"its lock within lock_timeout ({format_duration(settings.lock_timeout_ms)}): "
            f"{err.message}; nothing was changed by it",
            hint="another session holds a lock on the journal table or a catalog it reads: "
            "find it (SELECT pid, mode FROM pg_locks WHERE NOT granted OR relation::regclass::text "
            "LIKE '%history%') and end it (pg_terminate_backend(pid)), or give the runner's own "
            "statements longer with --lock-timeout; nothing was changed, so a rerun starts over",
        )
    if err.sqlstate == _STATEMENT_TIMEOUT:
        return SafemigrateError(
            "a statement of the runner's own ran longer than housekeeping_timeout "
            f"({format_duration(settings.housekeeping_timeout_ms)}): {err.message}",
            hint="rerun; if the server is that slow, raise housekeeping_timeout",
        )
    return SafemigrateError(f"a statement of the runner's own failed: {err.message}")


def server_settings(settings: Settings, session: Session) -> Settings:
    """The settings with ``pg_version`` set to the connected server's major version."""
    return replace(settings, pg_version=session.server_version // 10_000)


def open_monitor(settings: Settings, db: Database) -> Monitor | None:
    """The second session that reports blockers; the run goes on without it if it cannot
    connect (e.g. max_connections reached): the lock timeouts still guard every step."""
    # Here, not at the top: the read-only commands (status) open no monitor.
    from ..db.activity import Monitor

    try:
        monitor = Monitor.open(
            db.dsn, application_name=settings.application_name, secrets=db.secrets
        )
    except SafemigrateError:
        return None
    if db.schema is not None:
        # The tenant's schema, as the run's session: the pre-check resolves names alike.
        try:
            monitor.session.use_schema(db.schema)
        except SafemigrateError:
            monitor.close()
            return None
    return monitor
