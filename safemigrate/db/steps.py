"""Running one step on the server: the transaction shapes and the timeouts that guard them.

Every shape sets lock_timeout (never zero) and statement_timeout first, and checks on the same
backend that they are in force before the author's SQL runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from psycopg import sql

from ..errors import UnsafeConnectionError
from .session import Session

# current_setting() is read from the backend's own GUC state: a tenth of the cost of the
# pg_settings view, which builds every setting's row (it was a quarter of a step's time).
_CHECK = sql.SQL(
    "SELECT pg_backend_pid(), "
    "(extract(epoch FROM current_setting('lock_timeout')::interval) * 1000)::bigint, "
    "(extract(epoch FROM current_setting('statement_timeout')::interval) * 1000)::bigint"
)
_RESET = sql.SQL("RESET lock_timeout; RESET statement_timeout")
# The table locks this backend holds now, catalogs left out: what a step really took.
_HELD_LOCKS = sql.SQL(
    "SELECT l.relation::regclass::text, l.mode FROM pg_locks l "
    "JOIN pg_class c ON c.oid = l.relation "
    "WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation' AND l.granted "
    "AND c.relnamespace <> 'pg_catalog'::regnamespace AND c.relkind IN ('r', 'p', 'm', 'f') "
    "AND c.relpersistence <> 't' ORDER BY 1, 2"
)


def held_locks(session: Session) -> list[tuple[str, str]]:
    """(relation, mode) of every table lock the session holds now (catalogs left out)."""
    return [(str(r[0]), str(r[1])) for r in session.rows(_HELD_LOCKS)]


@dataclass(frozen=True)
class Timeouts:
    """The timeouts one attempt of a step runs under, in milliseconds."""

    lock_timeout_ms: int
    statement_timeout_ms: int

    def __post_init__(self) -> None:
        if self.lock_timeout_ms <= 0:
            # The one rule the runner never bends: no step waits for a lock without a limit.
            raise ValueError("lock_timeout must be positive")


def _set(timeouts: Timeouts, *, local: bool) -> sql.Composed:
    scope = sql.SQL("SET LOCAL" if local else "SET")
    return sql.SQL("{scope} lock_timeout = {lt}; {scope} statement_timeout = {st}").format(
        scope=scope,
        lt=sql.Literal(timeouts.lock_timeout_ms),
        st=sql.Literal(timeouts.statement_timeout_ms),
    )


def _verify(session: Session, row: Sequence[object], timeouts: Timeouts) -> None:
    session.check_backend(int(str(row[0])))
    observed = (int(str(row[1])), int(str(row[2])))
    wanted = (timeouts.lock_timeout_ms, timeouts.statement_timeout_ms)
    if observed != wanted:
        raise UnsafeConnectionError(
            f"timeouts are not in force on the server (lock_timeout={observed[0]}ms, "
            f"statement_timeout={observed[1]}ms, expected {wanted[0]}ms and {wanted[1]}ms); "
            "refusing to run the step unguarded",
            hint="is a proxy rewriting or dropping SET commands?",
        )


def _set_and_verify(session: Session, timeouts: Timeouts, *, local: bool) -> None:
    """Set the timeouts (opening the step's transaction when ``local``) and check them, in one
    round trip."""
    begin = sql.SQL("BEGIN; ") if local else sql.SQL("")
    rows = session.rows(sql.SQL("{}{}; {}").format(begin, _set(timeouts, local=local), _CHECK))
    _verify(session, rows[0], timeouts)


def run_in_transaction(
    session: Session,
    statements: Sequence[str],
    timeouts: Timeouts,
    record: sql.Composed,
    *,
    on_statement: Callable[[int], None] | None = None,
    locks_out: list[tuple[str, str]] | None = None,
) -> None:
    """``BEGIN; SET LOCAL ...; <statements>; <journal row>; COMMIT`` -- all or nothing.

    With ``locks_out``, the table locks held just before the journal row and COMMIT are
    appended to it (for rehearsals).
    """
    try:
        _set_and_verify(session, timeouts, local=True)
        if len(statements) == 1 and locks_out is None:
            # One round trip for the statement, its journal row and the COMMIT. The statement
            # comes first, so a server error position still points into its text.
            if on_statement is not None:
                on_statement(0)
            session.run_sql_then(statements[0], sql.SQL("{}; COMMIT").format(record))
            return
        for i, text in enumerate(statements):
            if on_statement is not None:
                on_statement(i)
            session.run_sql(text)
        if locks_out is not None:
            locks_out.extend(held_locks(session))
        session.execute(sql.SQL("{}; COMMIT").format(record))
    except BaseException:
        session.rollback_quietly()
        raise


def run_explicit_block(
    session: Session,
    statements: Sequence[str],
    timeouts: Timeouts,
    record: sql.Composed,
    *,
    on_statement: Callable[[int], None] | None = None,
    locks_out: list[tuple[str, str]] | None = None,
) -> None:
    """Run an author's ``BEGIN; ...; COMMIT;`` block as written, journaled before its COMMIT.

    Nothing of the runner's runs between the author's BEGIN and first statement (which may be
    ``SET TRANSACTION ISOLATION LEVEL``), so the timeouts are set at session level beforehand.
    """
    try:
        _set_and_verify(session, timeouts, local=False)
        for i, text in enumerate(statements[:-1]):
            if on_statement is not None:
                on_statement(i)
            session.run_sql(text)
        if locks_out is not None:
            locks_out.extend(held_locks(session))
        session.execute(record)
        if on_statement is not None:
            on_statement(len(statements) - 1)
        session.run_sql(statements[-1])
    except BaseException:
        session.rollback_quietly()
        raise
    finally:
        _reset_quietly(session)


def run_autocommit(
    session: Session,
    text: str,
    timeouts: Timeouts,
    *,
    before: sql.Composed | None = None,
    after: sql.Composed | None = None,
) -> None:
    """Run a statement that cannot run in a transaction block, under session-level timeouts.

    ``before`` (e.g. a "started" journal row) runs once the timeouts are checked; ``after``
    (the "applied" journal row) runs together with the reset of the timeouts.
    """
    try:
        _set_and_verify(session, timeouts, local=False)
        if before is not None:
            session.execute(before)
        session.run_sql(text)
        if after is not None:
            session.execute(sql.SQL("{}; {}").format(after, _RESET))
            return
    except BaseException:
        _reset_quietly(session)
        raise
    _reset_quietly(session)


def set_session_timeouts(session: Session, timeouts: Timeouts) -> None:
    """Set and check session-level timeouts (for the runner's own autocommit housekeeping)."""
    _set_and_verify(session, timeouts, local=False)


def reset_session_timeouts(session: Session) -> None:
    """Undo set_session_timeouts."""
    _reset_quietly(session)


def _reset_quietly(session: Session) -> None:
    if session.closed:
        return
    try:
        session.rollback_quietly()
        session.execute(_RESET)
    except Exception:
        pass
