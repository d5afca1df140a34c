"""One database session for a whole run, and the translation of psycopg errors.

A run uses a single session so that session state set by earlier migrations (``SET timezone``,
temporary tables) carries over, exactly as with psql.
"""

from __future__ import annotations

import secrets as secrets_module
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import psycopg
from psycopg import sql

from ..core.errors import ConnectionFailedError, UnsafeConnectionError
from ..core.reached import Target, version_text
from .dsn import redact

Query = sql.SQL | sql.Composed | bytes

#: This backend's pid and its lock_timeout and statement_timeout in milliseconds, read back from
#: the backend's own GUC state (current_setting: a tenth of the cost of the pg_settings view).
TIMEOUTS_IN_FORCE = sql.SQL(
    "SELECT pg_backend_pid(), "
    "(extract(epoch FROM current_setting('lock_timeout')::interval) * 1000)::bigint, "
    "(extract(epoch FROM current_setting('statement_timeout')::interval) * 1000)::bigint"
)


def set_timeouts_sql(lock_ms: int, statement_ms: int, *, local: bool) -> sql.Composed:
    """``SET [LOCAL] lock_timeout = ..; SET [LOCAL] statement_timeout = ..``."""
    scope = sql.SQL("SET LOCAL" if local else "SET")
    return sql.SQL("{scope} lock_timeout = {lt}; {scope} statement_timeout = {st}").format(
        scope=scope, lt=sql.Literal(lock_ms), st=sql.Literal(statement_ms)
    )


#: Set on every session of a PostgreSQL 14+ server (see Session.__init__).
_CHECK_INTERVAL = sql.SQL("SET client_connection_check_interval = 2000")

#: The start of every session (see Session.__init__): a no-op on a new backend.
_RESET_ALL = sql.SQL("RESET ALL")

#: The lock timeout every statement the runner sends outside a step gets when the caller does
#: not name one (the runner passes the run's lock_timeout).
DEFAULT_HOUSEKEEPING_LOCK_TIMEOUT_MS = 2_000
#: The statement timeout of the runner's own statements when the caller does not name one (the
#: runner passes the housekeeping_timeout setting).
DEFAULT_HOUSEKEEPING_STATEMENT_TIMEOUT_MS = 30_000


class ServerError(Exception):
    """The server rejected a statement. Carries the server's structured diagnostics."""

    def __init__(
        self,
        sqlstate: str | None,
        message: str,
        *,
        detail: str | None = None,
        hint: str | None = None,
        position: int | None = None,
        context: str | None = None,
    ) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate
        self.message = message
        self.detail = detail
        self.hint = hint
        self.position = position
        self.context = context
        #: True when the error came from what the runner sent before the author's statement
        #: in the same round trip (see Session.run_sql_between), not from the statement.
        self.before_statement = False


class Session:
    """A connection in autocommit mode whose transactions the runner opens and closes itself."""

    def __init__(
        self,
        conn: psycopg.Connection[Any],
        secrets: Sequence[str] = (),
        *,
        lock_timeout_ms: int = DEFAULT_HOUSEKEEPING_LOCK_TIMEOUT_MS,
        statement_timeout_ms: int = DEFAULT_HOUSEKEEPING_STATEMENT_TIMEOUT_MS,
    ) -> None:
        self._conn = conn
        self._secrets = list(secrets)
        #: A random word only this session's own guard statements contain (see db.steps).
        self.marker = f"safemigrate-{secrets_module.token_hex(8)}"
        #: The keys of the run lock once this session holds it (db.runlock): every step's guard
        #: then checks on the server that it still does.
        self.run_lock: tuple[int, int] | None = None
        #: The session-level (lock_timeout, statement_timeout) in force outside steps: every
        #: statement of the runner's own (journal, run lock, catalog reads) runs under them.
        self.housekeeping_timeouts = (lock_timeout_ms, statement_timeout_ms)
        #: The runner's statements that are the same for every step of this session (its
        #: guard, the run lock's checks, BEGIN with a step's timeouts), rendered once by key
        #: (db.step_timeouts.rendered_once; issue 26: composed again for every step before).
        self.rendered: dict[Hashable, sql.SQL] = {}
        # Set at session level right after connecting, and read back in the same round trip:
        # a startup ``options`` parameter would survive RESET, but PgBouncer refuses it. One
        # round trip opens the session (issue 26: every command pays it before its first
        # statement): the timeouts, the check interval (a SET: nothing to wait for) and the
        # read-back of the timeouts, of who the runner is and of whether this is a standby.
        # A pooled backend (PgBouncer pool_mode = session with an empty server_reset_query)
        # may come with what an earlier client SET: RESET ALL takes the session back to what
        # it got at connection (the server's, role's and database's defaults and startup
        # options stay), so the only session settings are those the journal replays (issue
        # 21 review 21i E15). Under the timeouts, set again after it.
        opening: list[sql.Composable] = [
            self.restore_timeouts_sql(),
            _RESET_ALL,
            self.restore_timeouts_sql(),
        ]
        if self.server_version >= 140000:
            # A backend busy waiting for a lock or running a statement never looks at its
            # client: after a kill -9 of the runner it would keep the run lock (and its table
            # locks) until the statement ends. This makes it check every 2 s (PostgreSQL 14+).
            opening.append(_CHECK_INTERVAL)
        # pg_is_in_recovery() reads shared memory: no lock, no table, nothing to wait for.
        opening.append(
            TIMEOUTS_IN_FORCE
            + sql.SQL(", current_user::text, session_user::text, pg_is_in_recovery()")
        )
        row = self.rows(sql.SQL("; ").join(opening))[0]
        self.pid: int = int(row[0])
        # Read once: a primary becomes a standby only by a restart, which ends this session;
        # a standby promoted since is refused as it was when the session began.
        self._standby = bool(row[5])
        # Who the runner is: the role in force at connection (the session user, or a role a
        # connection option set). A migration's SET ROLE / SET SESSION AUTHORIZATION must not
        # make the runner's own statements run as that role (issue 21 review21b F7).
        self.runner_identity: sql.Composed = sql.SQL(
            "SET LOCAL SESSION AUTHORIZATION DEFAULT; SET LOCAL ROLE {}"
        ).format(sql.SQL("NONE") if row[3] == row[4] else sql.Identifier(row[3]))
        if (int(row[1]), int(row[2])) != self.housekeeping_timeouts:
            self.close()
            raise UnsafeConnectionError(
                f"the session's timeouts are not in force on the server (lock_timeout="
                f"{row[1]}ms, statement_timeout={row[2]}ms, expected {lock_timeout_ms}ms and "
                f"{statement_timeout_ms}ms); refusing to send anything unguarded",
                hint="is a proxy rewriting or dropping SET commands?",
            )

    def replay(self, statements: Sequence[str]) -> None:
        """Run ``statements`` (session settings of earlier migration steps, see
        session_state), then set the runner's own session settings again (a replayed RESET
        ALL resets them) and check that its timeouts are in force: one round trip, under the
        housekeeping timeouts. A statement the server refuses raises ServerError."""
        tail: list[sql.Composable] = [self.restore_timeouts_sql()]
        if self.server_version >= 140000:
            tail.append(_CHECK_INTERVAL)
        tail.append(TIMEOUTS_IN_FORCE)
        # As written, so each may end in a -- comment: a new line before each semicolon.
        query = b"\n;\n".join(
            [s.encode() for s in statements] + [sql.SQL("; ").join(tail).as_bytes(self._conn)]
        )
        row = self.rows(query, as_runner=False)[0]
        self.check_backend(int(row[0]))
        if (int(row[1]), int(row[2])) != self.housekeeping_timeouts:
            raise UnsafeConnectionError(
                f"the session's timeouts are not in force after replaying the session settings "
                f"of earlier steps (lock_timeout={row[1]}ms, statement_timeout={row[2]}ms)",
                hint="is a proxy rewriting or dropping SET commands?",
            )

    def restore_timeouts_sql(self) -> sql.Composed:
        """SET the session's housekeeping timeouts again (after a step changed them at session
        level): what RESET would do, had they been the server's defaults."""
        lock_ms, statement_ms = self.housekeeping_timeouts
        return set_timeouts_sql(lock_ms, statement_ms, local=False)

    @classmethod
    def open(
        cls,
        dsn: str,
        *,
        application_name: str,
        secrets: Sequence[str] = (),
        connect_timeout: int = 10,
        mid_run: bool = False,
        lock_timeout_ms: int = DEFAULT_HOUSEKEEPING_LOCK_TIMEOUT_MS,
        statement_timeout_ms: int = DEFAULT_HOUSEKEEPING_STATEMENT_TIMEOUT_MS,
    ) -> Session:
        """Connect to ``dsn`` (libpq fills the gaps) and identify as ``application_name``.

        Every statement the session sends runs under ``lock_timeout_ms`` and
        ``statement_timeout_ms`` (session level, checked right after connecting) unless a step
        sets its own.
        """
        try:
            conn = psycopg.connect(
                dsn,
                autocommit=True,
                application_name=application_name,
                connect_timeout=connect_timeout,
                # Migration files are read as UTF-8 and the runner reads replies as text: a
                # connection parameter beats a role's or database's client_encoding setting.
                client_encoding="UTF8",
                # Keepalives make the server notice a vanished client (network loss) on an
                # idle connection; without them a half-open connection can hold the run lock
                # for hours.
                keepalives=1,
                keepalives_idle=10,
                keepalives_interval=5,
                keepalives_count=3,
            )
        except psycopg.ProgrammingError as err:
            message = redact(str(err).splitlines()[0], secrets)
            from ..core.errors import BadInputError

            raise BadInputError(f"invalid connection string: {message}") from None
        except psycopg.Error as err:
            message = redact(" ".join(str(err).split()), secrets)
            raise ConnectionFailedError(
                f"cannot connect to the database: {message}", mid_run=mid_run
            ) from None
        try:
            return cls(
                conn,
                secrets,
                lock_timeout_ms=lock_timeout_ms,
                statement_timeout_ms=statement_timeout_ms,
            )
        except ConnectionFailedError as err:
            raise ConnectionFailedError(err.message, mid_run=mid_run) from None

    @property
    def server_version(self) -> int:
        """The server's version number, e.g. 150018."""
        return self._conn.info.server_version

    def target(self) -> Target:
        """Where this session is connected, as libpq resolved it, and whether it is a standby
        (as the session's opening read it).

        The values are the connection's own (``conn.info``), not the DSN's: a DSN that leaves
        host, user or database to libpq's defaults shows what libpq chose.
        """
        info = self._conn.info
        return Target(
            user=info.user,
            host=info.host,
            port=info.port,
            dbname=info.dbname,
            server_version=version_text(info.server_version),
            standby=self._standby,
        )

    @property
    def in_transaction(self) -> bool:
        """True while a transaction block is open (or failed) on the server."""
        status = self._conn.info.transaction_status
        return status in (
            psycopg.pq.TransactionStatus.INTRANS,
            psycopg.pq.TransactionStatus.INERROR,
        )

    @property
    def closed(self) -> bool:
        """True once the connection is closed or lost."""
        return self._conn.closed

    def render(self, query: sql.Composable) -> str:
        """The SQL text of a composed query, as it would be sent."""
        return query.as_string(self._conn)

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except psycopg.errors.QueryCanceled as err:
            raise self._server_error(err) from None
        except psycopg.OperationalError as err:
            if self._conn.closed or err.sqlstate is None or err.sqlstate.startswith(("08", "57P")):
                message = redact(" ".join(str(err).split()), self._secrets)
                raise ConnectionFailedError(
                    f"lost the database connection: {message}",
                    hint="rerun safemigrate up: it resumes after the last recorded step",
                    mid_run=True,
                ) from None
            raise self._server_error(err) from None
        except psycopg.Error as err:
            if self._conn.closed:
                raise ConnectionFailedError("lost the database connection", mid_run=True) from None
            raise self._server_error(err) from None

    def _server_error(self, err: psycopg.Error) -> ServerError:
        diag = err.diag
        position = diag.statement_position
        message = diag.message_primary or str(err).splitlines()[0]
        return ServerError(
            err.sqlstate,
            redact(message, self._secrets),
            detail=redact(diag.message_detail, self._secrets) if diag.message_detail else None,
            hint=redact(diag.message_hint, self._secrets) if diag.message_hint else None,
            position=int(position) if position else None,
            context=diag.context,
        )

    def as_runner(self, query: Query) -> sql.Composed:
        """``query`` run as the runner itself (its connection's role), whatever role or session
        authorization a migration step set: ``SET LOCAL`` in front, so the step's role is back
        when the transaction (or the implicit block of one autocommit round trip) ends. For
        writes that share a step's transaction, after the step's statements."""
        body = sql.SQL(query.decode()) if isinstance(query, bytes) else query
        return sql.SQL("{};\n{}").format(self.runner_identity, body)

    def _runner_query(
        self, query: Query, params: Sequence[Any] | None
    ) -> tuple[Query, Sequence[Any] | None]:
        """A runner statement sent outside any transaction runs as the runner (``as_runner``;
        parameters are bound client-side then, as a prefixed query is several statements).
        Left as it is when it opens a transaction of its own (``BEGIN ...``: a step's
        statements may follow in it)."""
        if self.in_transaction or not hasattr(self, "runner_identity"):
            return query, params
        text = query if isinstance(query, bytes) else query.as_bytes(self._conn)
        if text.lstrip().upper().startswith(b"BEGIN"):
            return query, params
        if params is not None:
            query = psycopg.ClientCursor(self._conn).mogrify(query, params).encode()
        return self.as_runner(query), None

    def rows(
        self, query: Query, params: Sequence[Any] | None = None, *, as_runner: bool = True
    ) -> list[tuple[Any, ...]]:
        """Run ``query`` (one or several statements) and return the rows of the last result.
        Outside a transaction it runs as the runner (``as_runner``) unless told otherwise."""
        if as_runner:
            query, params = self._runner_query(query, params)
        with self._translated():
            cur = self._conn.execute(query, params)
            rows: list[tuple[Any, ...]] = []
            while True:
                if cur.description is not None:
                    rows = cur.fetchall()
                if not cur.nextset():
                    break
            return rows

    def scalar(self, query: Query, params: Sequence[Any] | None = None) -> Any:
        """The first column of the first row of the last result, or None."""
        rows = self.rows(query, params)
        return rows[0][0] if rows else None

    def execute(
        self, query: Query, params: Sequence[Any] | None = None, *, as_runner: bool = True
    ) -> None:
        """Run ``query`` and discard any result. Outside a transaction it runs as the runner
        (``as_runner``); ``as_runner=False`` for a migration's own statements, and for those
        that cannot run in a transaction block (DROP INDEX CONCURRENTLY)."""
        if as_runner:
            query, params = self._runner_query(query, params)
        with self._translated():
            self._conn.execute(query, params)

    def run_sql(self, text: str) -> None:
        """Run one statement of a migration file exactly as written.

        Sent without parameters, so psycopg passes the text through untouched (``%`` included).
        """
        self.execute(text.encode(), as_runner=False)

    def run_sql_between(
        self, before: sql.Composed, text: str, after: sql.Composed
    ) -> dict[str, list[tuple[Any, ...]]]:
        """Run ``before``, a migration statement and ``after`` in one round trip; return the
        rows of the runner's tagged results (those whose first column's name starts with the
        session's ``marker``), by that name: the migration's own results are not read.

        A server error's position is made relative to the statement, as if it had been sent
        alone; an error inside ``before`` is marked ``before_statement``.
        """
        head = before.as_bytes(self._conn)
        query = head + text.encode() + b"\n;\n" + after.as_bytes(self._conn)
        try:
            with self._translated():
                cur = self._conn.execute(query)
                tagged: dict[str, list[tuple[Any, ...]]] = {}
                while True:
                    described = cur.description
                    if described and described[0].name.startswith(self.marker):
                        tagged[described[0].name] = cur.fetchall()
                    if not cur.nextset():
                        return tagged
        except ServerError as err:
            # The server counts positions in characters; the runner's own SQL is ASCII.
            offset = len(head.decode())
            if err.position is not None and err.position <= offset:
                err.before_statement = True
                err.position = None
            elif err.position is not None:
                err.position -= offset
            raise

    def rollback_quietly(self) -> None:
        """Roll back an open transaction; ignore errors (the connection may be gone)."""
        if self._conn.closed:
            return
        try:
            if self.in_transaction:
                self._conn.execute(b"ROLLBACK")
        except psycopg.Error:
            pass

    def check_backend(self, observed_pid: int) -> None:
        """Stop at once if statements reach another server backend than the run started on."""
        if observed_pid != self.pid:
            raise UnsafeConnectionError(
                f"the server backend changed during the run (pid {self.pid} became "
                f"{observed_pid}): a transaction-pooling proxy is between safemigrate and "
                "PostgreSQL, so the run lock and session settings cannot be kept",
                hint="connect directly to PostgreSQL, or through a session-pooling proxy",
            )

    def use_schema(self, schema: str) -> None:
        """Make ``schema`` the session's only search_path entry (a tenant's schema), and check
        that the server took it: a schema that does not exist is left out of the effective
        path, and the run would then create its objects elsewhere."""
        rows = self.rows(
            sql.SQL("SELECT set_config('search_path', {}, false), current_schemas(false)").format(
                sql.Literal(sql.Identifier(schema).as_string(self._conn))
            )
        )
        effective = list(rows[0][1]) if rows else []
        if effective[:1] != [schema]:
            from ..core.errors import BadInputError

            raise BadInputError(
                f"schema {schema!r} does not exist in {self._conn.info.dbname}: the run's "
                "search_path and journal live in the target's schema",
                hint="create the schema first (CREATE SCHEMA), or fix the target's schema",
            )

    def cancel_running(self) -> None:
        """Ask the server to cancel the statement this session runs now (from any thread)."""
        if self._conn.closed:
            return
        with suppress(psycopg.Error):
            self._conn.cancel()

    def close(self) -> None:
        """Close the connection (releasing session-level locks). Never raises: it runs in
        ``finally`` blocks, where an error would replace the one being raised."""
        if not self._conn.closed:
            with suppress(psycopg.Error):
                self._conn.close()
