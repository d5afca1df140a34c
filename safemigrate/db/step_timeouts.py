"""The guards a step runs under, on the session: its timeouts set, checked in force and reset,
and the run lock checked held.

Shared by ``steps`` (one function per transaction shape) and ``recipes`` (a constraint recipe
part by part), which both run the author's SQL only once these checks have passed: on the run's
backend, with the step's timeouts in force, while the run's session holds the run lock. Each
check is sent in the same round trip as what it guards.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from psycopg import sql

from ..core.errors import RunLockLostError, SafemigrateError, UnsafeConnectionError
from ..planning.policy import Timeouts
from . import runlock
from .session import TIMEOUTS_IN_FORCE, ServerError, Session, set_timeouts_sql

__all__ = [
    "RunLockReleasedError",
    "begin_sql",
    "guard_error",
    "guard_sql",
    "released_check_sql",
    "rendered_once",
    "reset_session_timeouts",
    "send_guarded",
    "set_and_verify",
    "set_session_timeouts",
    "timeouts_sql",
]

#: What a failing guard says after the session's marker: which check failed.
_GUARD_FAILED = "step guard failed on backend "
_LOCK_LOST = "run lock not held by backend "
_LOCK_RELEASED = "the step released the run lock on backend "
#: SQLSTATE invalid_text_representation: what the guard's failing CAST raises.
_INVALID_TEXT = "22P02"


class RunLockReleasedError(RunLockLostError):
    """The step that just ran released the run lock (its transaction was rolled back, or an
    autocommit statement was not recorded as applied); the executor names the step."""


def timeouts_sql(timeouts: Timeouts, *, local: bool) -> sql.Composed:
    """The SET (SET LOCAL when ``local``) of ``timeouts``' lock_timeout and statement_timeout."""
    return set_timeouts_sql(timeouts.lock_timeout_ms, timeouts.statement_timeout_ms, local=local)


def rendered_once(session: Session, key: Hashable, make: Callable[[], sql.Composable]) -> sql.SQL:
    """``make()``'s statement as the session renders it, composed and rendered once per
    ``key`` (which holds everything it is made of) for the session's life: the statements
    every step sends alike (issue 26)."""
    found = session.rendered.get(key)
    if found is None:
        found = session.rendered[key] = sql.SQL(session.render(make()))
    return found


def begin_sql(session: Session, timeouts: Timeouts) -> sql.SQL:
    """``BEGIN; SET LOCAL`` ``timeouts``: how a step's transaction opens."""
    return rendered_once(
        session,
        ("begin", timeouts),
        lambda: sql.SQL("BEGIN; {}").format(timeouts_sql(timeouts, local=True)),
    )


def _failing(session: Session, what: str) -> sql.Composed:
    # Not a constant (concat() with pg_backend_pid() is only stable), so the planner cannot
    # fold it into an error at plan time.
    return sql.SQL("CAST(concat({}, pg_backend_pid()) AS int)").format(
        sql.Literal(f"{session.marker} {what}")
    )


def guard_sql(session: Session, timeouts: Timeouts) -> sql.SQL:
    """A statement that fails unless it runs on the run's backend, while that backend holds the
    run lock (when the session took it), with ``timeouts`` in force.

    Sent in the same round trip as the step, before it: when the check fails, the server skips
    the rest of the query string, so the author's statement never runs unguarded. A runtime
    error carries no position, so the error is told apart from the author's own 22P02 errors by
    the session's random marker in it (see :func:`guard_error`). Rendered once per session,
    backend, run lock and timeouts.
    """
    key = ("guard", session.pid, session.run_lock, session.marker, timeouts)
    return rendered_once(session, key, lambda: _guard(session, timeouts))


def _guard(session: Session, timeouts: Timeouts) -> sql.Composed:
    lock: sql.Composable = sql.SQL("")
    if session.run_lock is not None:
        lock = sql.SQL("WHEN NOT ({}) THEN {} ").format(
            runlock.held_sql(session.run_lock), _failing(session, _LOCK_LOST)
        )
    return sql.SQL(
        "SELECT CASE WHEN pg_backend_pid() <> {pid} THEN {failed} {lock}"
        "WHEN (extract(epoch FROM current_setting('lock_timeout')::interval) * 1000)::bigint "
        "= {lt} AND (extract(epoch FROM current_setting('statement_timeout')::interval) "
        "* 1000)::bigint = {st} THEN NULL ELSE {failed} END"
    ).format(
        pid=sql.Literal(session.pid),
        failed=_failing(session, _GUARD_FAILED),
        lock=lock,
        lt=sql.Literal(timeouts.lock_timeout_ms),
        st=sql.Literal(timeouts.statement_timeout_ms),
    )


def released_check_sql(session: Session) -> sql.SQL | None:
    """A statement that fails when the run lock is no longer held: sent right after the
    author's statements, before the journal row (None when the session took no run lock). A
    step that released it (``pg_advisory_unlock_all()``, ``DISCARD ALL``) is then rolled back,
    or, outside a transaction, not recorded as applied. Rendered once per run lock."""
    keys = session.run_lock
    if keys is None:
        return None
    return rendered_once(
        session,
        ("released", keys, session.marker),
        lambda: sql.SQL("SELECT CASE WHEN {} THEN NULL ELSE {} END").format(
            runlock.held_sql(keys), _failing(session, _LOCK_RELEASED)
        ),
    )


def guard_error(session: Session, err: ServerError, timeouts: Timeouts) -> SafemigrateError | None:
    """The typed error a failed guard (see guard_sql, released_check_sql) stands for; None
    when ``err`` is the author's statement's own. Any open transaction is rolled back first
    (the lock's holder is looked up for the message)."""
    mine = err.sqlstate == _INVALID_TEXT and session.marker in err.message
    if mine and _LOCK_RELEASED in err.message:
        session.rollback_quietly()
        return RunLockReleasedError(
            f"the step released the run lock{_holder(session)}",
            hint=_NO_RELEASE_HINT,
        )
    if mine and _LOCK_LOST in err.message:
        session.rollback_quietly()
        return run_lock_lost(session)
    if err.before_statement or mine:
        return guard_failed(session, timeouts)
    return None


def send_guarded(
    session: Session,
    timeouts: Timeouts,
    statement: str | None = None,
    *,
    opening: sql.Composable | None = None,
    guard: bool = False,
    exclusive: sql.Composed | None = None,
    released: bool = True,
    closing: sql.Composable | None = None,
    alone: bool = False,
    tagged: dict[str, list[tuple[Any, ...]]] | None = None,
) -> list[tuple[Any, ...]]:
    """Send a runner statement under the step's guard, in one round trip: ``opening`` (BEGIN,
    the timeouts), the guard (with ``guard``, see guard_sql) and after it ``exclusive`` (a
    constraint recipe's record made the transaction's, recipe_objects.exclusive_sql), the
    author's ``statement``, the
    check that the run lock is still held (``released``, see released_check_sql) and
    ``closing`` (the journal row, COMMIT; the caller makes it run as the runner). With
    ``tagged`` and the author's statement in the round trip, the rows of the results whose
    first column's name starts with the session's marker are put in it by that name
    (Session.run_sql_between).

    ``alone`` sends the statement in a round trip of its own between the others (CREATE INDEX
    CONCURRENTLY refuses a multi-statement query string). Returns the rows of the last result
    when no statement of the author's is in the round trip. A failed guard or check raises its
    typed error (guard_error), the author's failure the server's error; either way after a
    rollback of any open transaction.
    """
    head: list[sql.Composable] = [] if opening is None else [opening]
    if guard:
        head.append(guard_sql(session, timeouts))
        if exclusive is not None and list(exclusive):
            head.append(exclusive)
    tail: list[sql.Composable] = [] if closing is None else [closing]
    check = released_check_sql(session) if released else None
    if check is not None:
        tail.insert(0, check)
    joined = sql.SQL("; ").join
    try:
        if statement is None:
            # Outside a transaction the session runs it as the runner (Session.rows).
            return session.rows(joined(head + tail))
        if alone:
            if head:
                session.execute(joined(head))
            session.run_sql(statement)
            if tail:
                session.execute(joined(tail))
            return []
        before = sql.SQL("{};\n").format(joined(head)) if head else sql.Composed([])
        answered = session.run_sql_between(before, statement, joined(tail))
        if tagged is not None:
            tagged.update(answered)
        return []
    except ServerError as err:
        found = guard_error(session, err, timeouts)
        session.rollback_quietly()
        if found is not None:
            raise found from None
        if statement is None:
            # A position in the runner's composed text is none in the file's statement.
            err.position = None
        raise


_NO_RELEASE_HINT = (
    "a migration must not release session advisory locks: pg_advisory_unlock_all() and "
    "DISCARD ALL release safemigrate's run lock too (use pg_advisory_unlock(key) for the "
    "migration's own locks, or pg_advisory_xact_lock)"
)


def _holder(session: Session) -> str:
    """Who holds the run lock now, for messages (the lock was found lost)."""
    if session.run_lock is None:
        return ""
    try:
        holders = runlock.holders(session, session.run_lock)
    except ServerError:
        return ""
    if not holders:
        return "; no other session holds it now"
    return f"; it is now held by {holders[0].describe()}"


def run_lock_lost(session: Session) -> RunLockLostError:
    """The error of a step that did not run because the run's session lost the run lock."""
    return RunLockLostError(
        f"the run lock is no longer held by this run's session (pid {session.pid}): a "
        "statement of an earlier step released it (pg_advisory_unlock_all(), DISCARD ALL, or a "
        f"function calling them){_holder(session)}; nothing of this step was run",
        hint=f"{_NO_RELEASE_HINT}; fix the migration that released it, then rerun: the run "
        "resumes after the last recorded step",
    )


def guard_failed(session: Session, timeouts: Timeouts) -> UnsafeConnectionError:
    """The error of a step whose guard failed: another backend, or the timeouts not in force."""
    return UnsafeConnectionError(
        f"the step's guard failed: the statement would have run on another server backend "
        f"than the run's (pid {session.pid}) or without lock_timeout={timeouts.lock_timeout_ms}ms "
        f"and statement_timeout={timeouts.statement_timeout_ms}ms in force; nothing of the "
        "step was applied",
        hint="connect directly to PostgreSQL, or through a session-pooling proxy; is a proxy "
        "rewriting or dropping SET commands?",
    )


def _verify(session: Session, row: Sequence[object], timeouts: Timeouts) -> None:
    session.check_backend(int(str(row[0])))
    if row[3] is False:
        session.rollback_quietly()
        raise run_lock_lost(session)
    observed = (int(str(row[1])), int(str(row[2])))
    wanted = (timeouts.lock_timeout_ms, timeouts.statement_timeout_ms)
    if observed != wanted:
        raise UnsafeConnectionError(
            f"timeouts are not in force on the server (lock_timeout={observed[0]}ms, "
            f"statement_timeout={observed[1]}ms, expected {wanted[0]}ms and {wanted[1]}ms); "
            "refusing to run the step unguarded",
            hint="is a proxy rewriting or dropping SET commands?",
        )


def set_and_verify(session: Session, timeouts: Timeouts, *, local: bool) -> None:
    """Set the timeouts (opening the step's transaction when ``local``) and check them and the
    run lock, in one round trip."""
    begin = sql.SQL("BEGIN; ") if local else sql.SQL("")
    held = sql.NULL if session.run_lock is None else runlock.held_sql(session.run_lock)
    rows = session.rows(
        sql.SQL("{}{}; {}, {}").format(
            begin, timeouts_sql(timeouts, local=local), TIMEOUTS_IN_FORCE, held
        )
    )
    _verify(session, rows[0], timeouts)


def set_session_timeouts(session: Session, timeouts: Timeouts) -> None:
    """Set and check session-level timeouts (for the runner's own autocommit housekeeping)."""
    set_and_verify(session, timeouts, local=False)


def reset_session_timeouts(session: Session) -> None:
    """Undo set_session_timeouts: roll back any open transaction and go back to the session's
    housekeeping timeouts (never to the server's defaults, which may be none). Quiet: a closed
    or broken session is left as it is."""
    if session.closed:
        return
    try:
        session.rollback_quietly()
        session.execute(session.restore_timeouts_sql())
    except Exception:
        pass
