"""Who holds and who blocks: pg_locks, pg_stat_activity, pg_blocking_pids, index build progress.

Queries run on a second connection (the run's application_name plus ``-monitor``) while the
run's own session waits or builds. pg_blocking_pids() takes the lock manager's partition locks,
so the executor samples it once per attempt, shortly before the lock timeout fires.

The monitor session has short timeouts of its own (MONITOR_LOCK_TIMEOUT_MS,
MONITOR_STATEMENT_TIMEOUT_MS): a monitor query stuck behind a lock or a slow catalog fails
within them, and the run goes on without that report.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from psycopg import sql

from ..core.model import (
    Blocker,
    CatalogLock,
    HeldLock,
    IndexBuildProgress,
    LockNeed,
    LockQueue,
    QualifiedName,
    QueuedLock,
    Sample,
    WaitingFor,
)
from .catalog_facts import resolve_catalog_locks
from .indexes import table_regclass_text
from .session import ServerError, Session

_ACTIVITY_COLUMNS = sql.SQL(
    "a.pid, coalesce(a.application_name, ''), a.usename::text, a.client_addr::text, a.state, "
    "extract(epoch FROM clock_timestamp() - a.xact_start) * 1000, "
    "extract(epoch FROM clock_timestamp() - a.state_change) * 1000, "
    "a.wait_event, a.query, a.xact_start::text, a.backend_xid::text"
)
#: Rows of pg_stat_activity still running the transaction a Blocker sampled: same pid, same
#: start, and the same transaction id if one had been assigned.
_SAME_TRANSACTION = sql.SQL(
    "a.pid = {pid} AND a.xact_start = CAST({xact_start} AS timestamptz) "
    "AND ({xid} IS NULL OR a.backend_xid::text = {xid})"
)


def _blocker(row: Sequence[Any], lock_mode: str | None = None) -> Blocker:
    """The session in a row of ``_ACTIVITY_COLUMNS``, holding ``lock_mode`` on the table."""
    xact_start, backend_xid = row[9], row[10]
    return Blocker(
        pid=int(row[0]),
        application_name=row[1],
        user=row[2],
        client_addr=row[3],
        state=row[4],
        xact_age_ms=float(row[5]) if row[5] is not None else None,
        state_age_ms=float(row[6]) if row[6] is not None else None,
        wait_event=row[7],
        lock_mode=lock_mode,
        query=row[8],
        xact_start=str(xact_start) if xact_start is not None else None,
        backend_xid=str(backend_xid) if backend_xid is not None else None,
    )


#: The monitor session's lock timeout: its queries read catalogs and views, never wait long.
MONITOR_LOCK_TIMEOUT_MS = 1_000
#: The monitor session's statement timeout: shorter than the watcher's close timeout, so a
#: monitor query in flight never holds the end of the run.
MONITOR_STATEMENT_TIMEOUT_MS = 2_000


#: How long a monitor query waits for one running on another thread before it gives up.
MONITOR_BUSY_WAIT_S = 2.5
#: How long closing the monitor waits for a query in flight, before and after cancelling it.
MONITOR_CLOSE_WAIT_S = 1.0


class Monitor:
    """A second session for watching the run's own backend. Thread-safe (one query at a time)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._lock = threading.Lock()
        self._has_waitstart = session.server_version >= 140000

    @classmethod
    def open(cls, dsn: str, *, application_name: str, secrets: Sequence[str] = ()) -> Monitor:
        """Connect a monitor session named ``<application_name>-monitor``."""
        name = (application_name + "-monitor")[:63]
        return cls(
            Session.open(
                dsn,
                application_name=name,
                secrets=secrets,
                lock_timeout_ms=MONITOR_LOCK_TIMEOUT_MS,
                statement_timeout_ms=MONITOR_STATEMENT_TIMEOUT_MS,
            )
        )

    @contextmanager
    def _exclusive(self) -> Iterator[None]:
        """The session for one query, waited for at most MONITOR_BUSY_WAIT_S: a query stuck on
        another thread must not stall this one's caller (which counts it as a failed query)."""
        if not self._lock.acquire(timeout=MONITOR_BUSY_WAIT_S):
            raise ServerError(None, "the monitor session is busy with a query that has not ended")
        try:
            yield
        finally:
            self._lock.release()

    @property
    def pid(self) -> int:
        """The monitor session's own backend pid."""
        return self.session.pid

    def follow_search_path(self, statements: Sequence[str]) -> None:
        """Run ``statements`` (the run's session changes of search_path, session_state) so that
        the monitor resolves the steps' unqualified names as the run's session does."""
        if not statements:
            return
        with self._exclusive():
            self.session.execute(b"\n;\n".join(s.encode() for s in statements))

    def close(self) -> None:
        """Close the monitor session, without waiting long for a query in flight: one still
        running after MONITOR_CLOSE_WAIT_S is cancelled and the connection closed anyway."""
        if self._lock.acquire(timeout=MONITOR_CLOSE_WAIT_S):
            try:
                self.session.close()
            finally:
                self._lock.release()
            return
        self.session.cancel_running()
        if self._lock.acquire(timeout=MONITOR_CLOSE_WAIT_S):
            self._lock.release()
        # Closed even if the query never returned: the watch thread is abandoned and its
        # statement, if the server still runs it, ends with the connection.
        self.session.close()

    def conflicting_holders(
        self, relation: QualifiedName, modes: Sequence[str], older_than_ms: int, exclude_pid: int
    ) -> list[Blocker]:
        """Sessions holding a lock in one of ``modes`` on ``relation`` in a transaction older
        than ``older_than_ms``: waiting behind them would queue the application for the whole
        lock timeout."""
        query = sql.SQL(
            "SELECT {columns}, l.mode FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.granted AND l.locktype = 'relation' AND l.relation = to_regclass({rel}) "
            "AND l.mode = ANY({modes}) AND l.pid <> {me} "
            "AND a.xact_start < clock_timestamp() - {age} * interval '1 millisecond' "
            "ORDER BY a.xact_start"
        ).format(
            columns=_ACTIVITY_COLUMNS,
            rel=sql.Literal(table_regclass_text(self.session, relation)),
            modes=sql.Literal(list(modes)),
            me=sql.Literal(exclude_pid),
            age=sql.Literal(older_than_ms),
        )
        with self._exclusive():
            rows = self.session.rows(query)
        return [_blocker(r[:-1], r[-1]) for r in rows]

    def catalog_locks(self, locks: Sequence[CatalogLock]) -> list[LockNeed]:
        """The relations ``locks`` lead to in the catalog (one round trip, own timeouts)."""
        with self._lock:
            return resolve_catalog_locks(self.session, locks)

    def blockers_of(self, pid: int) -> Sample:
        """Follow pg_blocking_pids() from ``pid`` to the root blocker(s)."""
        with self._exclusive():
            waiting = self._waiting_lock(pid)
            chain: list[int] = []
            roots: list[int] = []
            frontier = [pid]
            seen = {pid}
            while frontier:
                current = frontier.pop(0)
                blocking = self._blocking_pids(current)
                if not blocking and current != pid:
                    roots.append(current)
                for blocker_pid in blocking:
                    if blocker_pid not in seen:
                        seen.add(blocker_pid)
                        chain.append(blocker_pid)
                        frontier.append(blocker_pid)
            if not roots and chain:
                # A cycle (a deadlock about to be broken): report everyone on it.
                roots = list(chain)
            blockers = self._sessions(roots, waiting.relation if waiting else None)
        return Sample(tuple(blockers), waiting, tuple(chain))

    def _blocking_pids(self, pid: int) -> list[int]:
        value = self.session.scalar(sql.SQL("SELECT pg_blocking_pids({})").format(sql.Literal(pid)))
        return [int(p) for p in value or []]

    def _waiting_lock(self, pid: int) -> WaitingFor | None:
        waitstart = (
            sql.SQL("extract(epoch FROM clock_timestamp() - waitstart) * 1000")
            if self._has_waitstart
            else sql.NULL
        )
        rows = self.session.rows(
            sql.SQL(
                "SELECT locktype, relation::regclass::text, mode, {waitstart} FROM pg_locks "
                "WHERE pid = {pid} AND NOT granted LIMIT 1"
            ).format(waitstart=waitstart, pid=sql.Literal(pid))
        )
        if not rows:
            return None
        r = rows[0]
        return WaitingFor(pid, r[0], r[1], r[2], float(r[3]) if r[3] is not None else None)

    def _sessions(self, pids: Sequence[int], relation: str | None) -> list[Blocker]:
        if not pids:
            return []
        held: sql.Composable = sql.NULL
        if relation is not None:
            held = sql.SQL(
                "(SELECT string_agg(l.mode, ',') FROM pg_locks l WHERE l.pid = a.pid "
                "AND l.granted AND l.locktype = 'relation' AND l.relation = to_regclass({}))"
            ).format(sql.Literal(relation))
        rows = self.session.rows(
            sql.SQL(
                "SELECT {columns}, {held} FROM pg_stat_activity a WHERE a.pid = ANY({pids}) "
                "ORDER BY a.xact_start NULLS LAST"
            ).format(columns=_ACTIVITY_COLUMNS, held=held, pids=sql.Literal(list(pids)))
        )
        return [_blocker(r[:-1], r[-1]) for r in rows]

    # -- the lock queue (yield and go-when-free): pg_locks only, cheap enough to poll -----

    def lock_queue(self, pid: int) -> LockQueue | None:
        """The lock ``pid`` waits for and the other sessions' locks on it; None when ``pid``
        waits for no relation or row lock. One pg_locks read, no pg_stat_activity, no
        pg_blocking_pids().

        A relation lock: every other session's lock on that relation (granted, or waiting
        with whether it queued after ``pid``). A row lock (a ``transactionid`` or ``tuple``
        lock: an UPDATE waiting for the transaction that changed or locked the row; issue 21
        review21b F8): the granted locks on the same object, i.e. the transaction the row
        waits for, on the row's table (``pid``'s tuple lock names it)."""
        if self._has_waitstart:
            waited = sql.SQL("extract(epoch FROM clock_timestamp() - me.waitstart) * 1000")
            # A request whose waitstart is not set yet has only just begun waiting.
            behind = sql.SQL(
                "CASE WHEN l.granted THEN NULL "
                "WHEN me.waitstart IS NULL THEN NULL "
                "ELSE coalesce(l.waitstart > me.waitstart, true) END"
            )
        else:
            waited = behind = sql.NULL
        # A backend waits for one lock at a time: ``me`` is that one request.
        same_object = sql.SQL(" AND ").join(
            sql.SQL("l.{c} IS NOT DISTINCT FROM me.{c}").format(c=sql.Identifier(c))
            for c in ("database", "relation", "page", "tuple", "transactionid")
        )
        query = sql.SQL(
            "WITH me AS (SELECT locktype, database, relation, page, tuple, transactionid, mode, "
            "{waitstart} AS waitstart FROM pg_locks WHERE pid = {pid} AND NOT granted "
            "AND locktype IN ('relation', 'transactionid', 'tuple') LIMIT 1), "
            "target AS (SELECT coalesce(me.relation, (SELECT t.relation FROM pg_locks t "
            "WHERE t.pid = {pid} AND t.locktype = 'tuple' LIMIT 1)) AS oid FROM me) "
            "SELECT target.oid::bigint, target.oid::regclass::text, me.mode, {waited}, "
            "l.pid, l.mode, l.granted, l.virtualtransaction, {behind}, me.locktype "
            "FROM me CROSS JOIN target LEFT JOIN pg_locks l ON l.pid <> {pid} AND ("
            "(me.locktype = 'relation' AND l.locktype = 'relation' "
            "AND l.database = me.database AND l.relation = me.relation) "
            "OR (me.locktype <> 'relation' AND l.granted AND l.locktype = me.locktype "
            "AND {same_object})) "
            "WHERE target.oid IS NOT NULL ORDER BY l.pid"
        ).format(
            waitstart=sql.SQL("waitstart") if self._has_waitstart else sql.NULL,
            pid=sql.Literal(pid),
            waited=waited,
            behind=behind,
            same_object=same_object,
        )
        with self._lock:
            rows = self.session.rows(query)
        if not rows:
            return None
        first = rows[0]
        others = tuple(
            QueuedLock(int(r[4]), r[5], bool(r[6]), r[7] or "", r[8])
            for r in rows
            if r[4] is not None
        )
        waited_ms = float(first[3]) if first[3] is not None else None
        return LockQueue(int(first[0]), first[1], first[2], waited_ms, others, first[9])

    def cancel_own_wait(self, pid: int, relation_oid: int, mode: str) -> bool:
        """pg_cancel_backend(``pid``) only while ``pid`` still waits for ``mode`` on the
        relation (or for a row of it: a ``transactionid`` or ``tuple`` lock while it holds or
        waits for a tuple lock there), checked in the same statement; True if the signal was
        sent. For the run's own backend only: a step that yields the lock queue."""
        query = sql.SQL(
            "SELECT pg_cancel_backend(pid) FROM pg_locks w WHERE pid = {pid} AND NOT granted "
            "AND mode = {mode} AND ((locktype = 'relation' AND relation = {rel}::oid) "
            "OR (locktype IN ('transactionid', 'tuple') AND EXISTS (SELECT 1 FROM pg_locks t "
            "WHERE t.pid = {pid} AND t.locktype = 'tuple' AND t.relation = {rel}::oid))) "
            "LIMIT 1"
        ).format(pid=sql.Literal(pid), rel=sql.Literal(relation_oid), mode=sql.Literal(mode))
        with self._lock:
            rows = self.session.rows(query)
        return bool(rows and rows[0][0])

    def blocked_by(self, pid: int) -> list[int]:
        """The other sessions whose wait for a lock ``pid`` blocks: ``pid`` is in their
        pg_blocking_pids(), whatever the lock (any table, a transaction id, ...). Only waiting
        sessions waiting on an object ``pid`` holds a lock on are asked (one pg_locks read,
        then pg_blocking_pids() for those few only). Read only once the step has waited past
        its grace with nobody queued on the table it waits for."""
        same = sql.SQL(" AND ").join(
            sql.SQL("h.{c} IS NOT DISTINCT FROM w.{c}").format(c=sql.Identifier(c))
            for c in (
                "locktype",
                "database",
                "relation",
                "page",
                "tuple",
                "virtualxid",
                "transactionid",
                "classid",
                "objid",
                "objsubid",
            )
        )
        # OFFSET 0 keeps pg_blocking_pids() out of the scan: it runs for the candidates only.
        query = sql.SQL(
            "SELECT c.pid FROM (SELECT DISTINCT w.pid FROM pg_locks w JOIN pg_locks h "
            "ON h.pid = {pid} AND h.granted AND {same} "
            "WHERE NOT w.granted AND w.pid <> {pid} OFFSET 0) c "
            "WHERE {pid} = ANY(pg_blocking_pids(c.pid)) ORDER BY c.pid"
        ).format(pid=sql.Literal(pid), same=same)
        with self._lock:
            rows = self.session.rows(query)
        return [int(r[0]) for r in rows if r[0] is not None]

    def relation_oids(self, relations: Sequence[QualifiedName]) -> dict[QualifiedName, int]:
        """The oid of each relation that exists (resolved with the monitor's search_path)."""
        found: dict[QualifiedName, int] = {}
        with self._lock:
            for relation in relations:
                value = self.session.scalar(
                    sql.SQL("SELECT to_regclass({})::bigint").format(
                        sql.Literal(table_regclass_text(self.session, relation))
                    )
                )
                if value is not None:
                    found[relation] = int(value)
        return found

    def granted_locks(self, relation_oids: Sequence[int]) -> list[HeldLock]:
        """Every granted lock on the relations, by pid and transaction. One pg_locks read."""
        query = sql.SQL(
            "SELECT relation::bigint, pid, virtualtransaction, mode FROM pg_locks "
            "WHERE granted AND locktype = 'relation' AND relation = ANY({oids}::oid[]) "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        ).format(oids=sql.Literal([int(o) for o in relation_oids]))
        with self._lock:
            rows = self.session.rows(query)
        return [HeldLock(int(r[0]), int(r[1]), r[2] or "", r[3]) for r in rows if r[1]]

    def sessions(self, pids: Sequence[int], relation: str | None) -> list[Blocker]:
        """The sessions ``pids`` as pg_stat_activity shows them, with the modes each holds on
        ``relation`` (a regclass text), for the events that name them."""
        with self._lock:
            return self._sessions(pids, relation)

    def index_progress(self, pid: int) -> IndexBuildProgress | None:
        """The progress of the index build ``pid`` runs, if it runs one."""
        with self._exclusive():
            rows = self.session.rows(
                sql.SQL(
                    "SELECT phase, blocks_done, blocks_total, tuples_done, tuples_total, "
                    "lockers_done, lockers_total, current_locker_pid "
                    "FROM pg_stat_progress_create_index WHERE pid = {}"
                ).format(sql.Literal(pid))
            )
        if not rows:
            return None
        r = rows[0]
        locker = int(r[7]) if r[7] else None
        return IndexBuildProgress(
            r[0], int(r[1]), int(r[2]), int(r[3]), int(r[4]), int(r[5]), int(r[6]), locker
        )

    def cancel(self, blocker: Blocker, *, terminate: bool = False) -> bool:
        """pg_cancel_backend (or pg_terminate_backend) ``blocker``'s backend, in the same
        statement that checks it still runs the transaction sampled; True if signalled."""
        if blocker.xact_start is None:
            return False
        function = "pg_terminate_backend" if terminate else "pg_cancel_backend"
        query = sql.SQL("SELECT {}(a.pid) FROM pg_stat_activity a WHERE {}").format(
            sql.Identifier(function), self._same_transaction(blocker)
        )
        with self._exclusive():
            return bool(self.session.scalar(query))

    def still_runs(self, blocker: Blocker) -> bool:
        """True while ``blocker``'s backend still runs the transaction sampled."""
        if blocker.xact_start is None:
            return False
        query = sql.SQL("SELECT EXISTS (SELECT FROM pg_stat_activity a WHERE {})").format(
            self._same_transaction(blocker)
        )
        with self._exclusive():
            return bool(self.session.scalar(query))

    @staticmethod
    def _same_transaction(blocker: Blocker) -> sql.Composed:
        return _SAME_TRANSACTION.format(
            pid=sql.Literal(blocker.pid),
            xact_start=sql.Literal(blocker.xact_start),
            xid=sql.Literal(blocker.backend_xid),
        )
