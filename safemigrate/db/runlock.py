"""The run lock: a session-level advisory lock so that two runs never overlap.

Taken only with ``pg_try_advisory_lock``: a runner blocked inside ``pg_advisory_lock`` would
hold a snapshot that the lock holder's CREATE INDEX CONCURRENTLY then waits for, a deadlock
other tools have shipped.

The run holds the lock twice (a session advisory lock counts its acquisitions), so that
:func:`held_sql` can tell, in the guard that precedes every step, whether this backend still
holds it without reading ``pg_locks``: ``pg_advisory_unlock`` answers true only to a holder,
and with a count of two it only takes the count to one (the backend's local lock table, no
shared memory touched), after which ``pg_try_advisory_lock`` takes it back to two. A migration
statement that releases it (``pg_advisory_unlock_all()``, ``DISCARD ALL``) takes the count to
zero: the next check answers false, and the run stops.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from psycopg import sql

from .session import Session

#: The first advisory-lock key: fixed, so safemigrate's locks are recognisable in pg_locks.
NAMESPACE_KEY = 0x5AFE_DB01


def lock_keys(qualified_journal: str) -> tuple[int, int]:
    """The two int4 keys of the run lock for a journal table ``schema.table``."""
    digest = hashlib.sha256(qualified_journal.encode()).digest()
    # Non-negative, so the key reads the same in pg_locks.objid (an unsigned oid).
    return NAMESPACE_KEY, int.from_bytes(digest[:4], "big") & 0x7FFF_FFFF


@dataclass(frozen=True)
class LockHolder:
    """The session holding the run lock, as pg_stat_activity shows it."""

    pid: int
    application_name: str
    user: str | None
    client_addr: str | None
    backend_start: str | None
    state: str | None

    def describe(self) -> str:
        """One line for people."""
        client = self.client_addr or "local socket"
        app = self.application_name or "(no application_name)"
        since = f", connected since {self.backend_start}" if self.backend_start else ""
        return f"pid {self.pid} ({app}, user {self.user}, from {client}{since})"


def _args(keys: tuple[int, int]) -> sql.Composed:
    return sql.SQL("{}, {}").format(sql.Literal(keys[0]), sql.Literal(keys[1]))


def try_acquire(session: Session, keys: tuple[int, int]) -> bool:
    """Try once to take the run lock; never waits. Once taken it is held twice (see the module
    docstring), and ``session.run_lock`` names it, so that every step's guard checks it."""
    taken = bool(
        session.scalar(
            # The second try cannot fail: this backend already holds the lock.
            sql.SQL(
                "SELECT CASE WHEN pg_catalog.pg_try_advisory_lock({k}) "
                "THEN pg_catalog.pg_try_advisory_lock({k}) ELSE false END"
            ).format(k=_args(keys))
        )
    )
    if taken:
        session.run_lock = keys
    return taken


def held_sql(keys: tuple[int, int]) -> sql.Composed:
    """A boolean SQL expression: true when the backend evaluating it holds the run lock (the
    count of two taken by try_acquire), which it leaves as it was. False (with the server's
    warning "you don't own a lock") once something released it; then the count stays zero."""
    return sql.SQL(
        "CASE WHEN pg_catalog.pg_advisory_unlock({k}) "
        "THEN pg_catalog.pg_try_advisory_lock({k}) ELSE false END"
    ).format(k=_args(keys))


def held_here(session: Session, keys: tuple[int, int]) -> bool:
    """True when the backend answering this statement holds the run lock.

    Behind a transaction-pooling proxy the statement may reach another backend than the one
    that took the lock: then this is False and the run must not go on.
    """
    return bool(
        session.scalar(
            sql.SQL(
                "SELECT count(*) > 0 FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND objsubid = 2 AND pid = pg_backend_pid() "
                "AND classid = {}::bigint::oid AND objid = {}::bigint::oid"
            ).format(sql.Literal(keys[0]), sql.Literal(keys[1]))
        )
    )


def backend_pid(session: Session) -> int:
    """The pid of the backend answering this statement."""
    return int(session.scalar(sql.SQL("SELECT pg_backend_pid()")))


def release(session: Session, keys: tuple[int, int]) -> None:
    """Release the run lock, both of its counts (closing the session releases it too)."""
    session.run_lock = None
    session.execute(
        sql.SQL(
            "SELECT CASE WHEN pg_catalog.pg_advisory_unlock({k}) "
            "THEN pg_catalog.pg_advisory_unlock({k}) END"
        ).format(k=_args(keys))
    )


def holders(session: Session, keys: tuple[int, int]) -> list[LockHolder]:
    """The sessions holding the run lock on this database (normally one, or none)."""
    rows = session.rows(
        sql.SQL(
            "SELECT a.pid, coalesce(a.application_name, ''), a.usename::text, "
            "a.client_addr::text, date_trunc('second', a.backend_start)::text, a.state "
            "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 "
            "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND l.classid = {}::bigint::oid AND l.objid = {}::bigint::oid"
        ).format(sql.Literal(keys[0]), sql.Literal(keys[1]))
    )
    return [LockHolder(*row) for row in rows]
