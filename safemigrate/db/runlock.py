"""The run lock: a session-level advisory lock so that two runs never overlap.

Taken only with ``pg_try_advisory_lock``: a runner blocked inside ``pg_advisory_lock`` would
hold a snapshot that the lock holder's CREATE INDEX CONCURRENTLY then waits for, a deadlock
other tools have shipped.
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


def try_acquire(session: Session, keys: tuple[int, int]) -> bool:
    """Try once to take the run lock; never waits."""
    return bool(
        session.scalar(
            sql.SQL("SELECT pg_try_advisory_lock({}, {})").format(
                sql.Literal(keys[0]), sql.Literal(keys[1])
            )
        )
    )


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
    """Release the run lock (closing the session releases it too)."""
    session.execute(
        sql.SQL("SELECT pg_advisory_unlock({}, {})").format(
            sql.Literal(keys[0]), sql.Literal(keys[1])
        )
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
