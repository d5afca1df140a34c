"""What a connection must not be: a transaction-pooling proxy, or a standby.

Behind a transaction-pooling proxy the run lock and session settings cannot be kept (two
connections share one backend, or statements reach another backend than the lock's holder);
on a standby every write fails. Both are refused before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..core.errors import ConnectionFailedError, SafemigrateError, UnsafeConnectionError
from ..core.events import Connected, Event, EventSink
from ..core.reached import Target
from ..db import Session
from ..settings.config import Settings
from .connection import Database
from .run_lock import RunLock


def pooled() -> UnsafeConnectionError:
    """The refusal of a connection through a transaction-pooling proxy."""
    return UnsafeConnectionError(
        "the connection goes through a transaction-pooling proxy (two connections share one "
        "server backend, or the run lock is not held by the backend answering): the run lock "
        "and session settings cannot be kept, so nothing was run",
        hint="connect to PostgreSQL directly, or through a session-pooling proxy "
        "(PgBouncer pool_mode = session)",
    )


def refuse_pooling(lock: RunLock, other_session: Session | None) -> None:
    """Refuse a transaction-pooling proxy before anything is written: the backend answering
    must hold the run lock, and a second session (when there is one) must reach another
    backend."""
    if not lock.held_here():
        raise pooled()
    if other_session is not None and other_session.pid == lock.session.pid:
        raise pooled()


@contextmanager
def second_session(settings: Settings, db: Database) -> Iterator[Session | None]:
    """Another session on ``db`` for the pooling check, None if it cannot connect (e.g.
    max_connections reached: the run-lock check still applies)."""
    try:
        session = Session.open(
            db.dsn, application_name=settings.application_name, secrets=db.secrets
        )
    except SafemigrateError:
        yield None
        return
    try:
        yield session
    finally:
        session.close()


def refuse_standby(target: Target, reconnecting: bool) -> None:
    """Refuse a session on a standby, where every write fails: at the start of a run (exit 6,
    naming the host), or as a failed reconnection while a failover is under way (the run keeps
    trying until the new primary answers or the reconnect budget is spent)."""
    if not target.standby:
        return
    message = (
        f"{target.address} is a standby (pg_is_in_recovery()): it is read-only, so nothing "
        "can be applied there"
    )
    if reconnecting:
        raise ConnectionFailedError(f"reconnected to a standby, {message}", mid_run=True)
    raise UnsafeConnectionError(
        message,
        hint="connect to the primary; with several hosts in the DSN add "
        "target_session_attrs=read-write so that libpq picks the primary",
    )


def refusing_standby(on_event: EventSink) -> EventSink:
    """An ``on_connect`` sink that refuses a standby (see refuse_standby) before passing the
    Connected event on, for the commands that write (baseline)."""

    def on_connect(event: Event) -> None:
        on_event(event)
        if isinstance(event, Connected):
            refuse_standby(event.target, reconnecting=False)

    return on_connect
