"""Giving a new session the session settings of the applied steps (session_state), and
saying which one it cannot be given.

The replay is one round trip; when the server refuses it (a role dropped since, a runner that
is no longer superuser), each setting is replayed on its own, so that the refusal names the
migration, line and statement that made the setting, and one the operator accepted as lost
(``accept_lost_session_state``) is left out (issue 21 review21c F5: a replay that failed as a
whole wedged every later ``up``).
"""

from __future__ import annotations

import re

from ..core.errors import SessionStateLostError
from ..core.model import Migration, Setting
from ..core.reached import Target
from ..db import Session
from ..db.session import ServerError
from ..statements.session_state import (
    SessionState,
    history_state,
    refuse_accepted_version,
)
from .journal_reading import AppliedStep


def first_session_state(
    history: list[AppliedStep],
    migrations: list[Migration],
    target: Target,
    *,
    changers: frozenset[str],
    accepted_through: int | None,
    database_changers: frozenset[str] = frozenset(),
) -> SessionState:
    """What the run's first session starts from, as ``up`` judges it and ``plan`` previews it:
    the applied ``history`` folded, with what earlier runs' sessions kept (in any migration)
    lost with them, a changed default of new sessions counted only where it reaches the
    ``target``'s login role and database (``database_changers``: those of ``changers`` the
    database has and the migrations do not create). A bad accepted version is refused
    first."""
    refuse_accepted_version(accepted_through, migrations)
    return history_state(
        history,
        changers=changers,
        accepted_through=accepted_through,
        identity=(target.user, target.dbname),
        database_changers=database_changers,
    )


def replay_settings(session: Session, state: SessionState) -> tuple[str, ...]:
    """Replay the settings of ``state`` on ``session``; the statements replayed. Raises
    SessionStateLostError (exit 1) for the first one the server refuses and the operator did
    not accept as lost."""
    replayed = state.replay
    if not replayed:
        return replayed
    try:
        session.replay(replayed)
        return replayed
    except ServerError:
        session.rollback_quietly()
    done: list[str] = []
    for setting in state.settings:
        try:
            session.replay([setting.sql])
        except ServerError as err:
            session.rollback_quietly()
            if state.accepted(setting):
                continue
            raise refusal(setting, err) from None
        done.append(setting.sql)
    return tuple(done)


def refusal(setting: Setting, err: ServerError) -> SessionStateLostError:
    """The one-line refusal of ``setting``, which the server refused to replay with ``err``."""
    version = re.match(r"\d+", setting.where)
    accept = version.group(0) if version else str(setting.version)
    return SessionStateLostError(
        f"{setting.where or 'an applied step'}: a new session cannot replay the session "
        f"setting `{setting.sql}` of this applied step: {err.message}",
        sqlstate=err.sqlstate,
        hint="if the later steps do not need it, rerun with "
        f"`--accept-lost-session-state {accept}` (or accept_lost_session_state = "
        f'"{accept}" in the config): they then run without it; else give the runner what it '
        "needs again (the role, the privilege)",
    )


def replay_problem(
    session: Session, state: SessionState
) -> tuple[Setting, SessionStateLostError] | None:
    """The setting ``up`` could not replay on a new session, with its refusal (for
    ``status``); None when every one replays or is accepted as lost. The replay is made on
    ``session`` inside a transaction that is rolled back (SET, SET ROLE and set_config() end
    with it)."""
    if not state.replay:
        return None
    session.execute(b"BEGIN", as_runner=False)
    try:
        for setting in state.settings:
            session.execute(b"SAVEPOINT safemigrate_replay", as_runner=False)
            try:
                session.replay([setting.sql])
            except ServerError as err:
                session.execute(b"ROLLBACK TO SAVEPOINT safemigrate_replay", as_runner=False)
                if not state.accepted(setting):
                    return setting, refusal(setting, err)
        return None
    finally:
        session.rollback_quietly()
