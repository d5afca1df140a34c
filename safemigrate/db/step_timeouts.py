"""The timeouts a step runs under, on the session: set, checked in force, and reset.

Shared by ``steps`` (one function per transaction shape) and ``recipes`` (a constraint recipe
part by part), which both run the author's SQL only once these checks have passed.
"""

from __future__ import annotations

from collections.abc import Sequence

from psycopg import sql

from ..errors import UnsafeConnectionError
from ..policy import Timeouts
from .session import TIMEOUTS_IN_FORCE, Session, set_timeouts_sql

__all__ = [
    "reset_session_timeouts",
    "set_and_verify",
    "set_session_timeouts",
    "timeouts_sql",
]


def timeouts_sql(timeouts: Timeouts, *, local: bool) -> sql.Composed:
    """The SET (SET LOCAL when ``local``) of ``timeouts``' lock_timeout and statement_timeout."""
    return set_timeouts_sql(timeouts.lock_timeout_ms, timeouts.statement_timeout_ms, local=local)


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


def set_and_verify(session: Session, timeouts: Timeouts, *, local: bool) -> None:
    """Set the timeouts (opening the step's transaction when ``local``) and check them, in one
    round trip."""
    begin = sql.SQL("BEGIN; ") if local else sql.SQL("")
    rows = session.rows(
        sql.SQL("{}{}; {}").format(begin, timeouts_sql(timeouts, local=local), TIMEOUTS_IN_FORCE)
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
