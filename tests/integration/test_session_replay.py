"""A new session replaying the folded session settings is in the state of the session that ran
them all (issue 21 item 3), on a real server.

Random sequences of settings, roles and resets run on one session; the statements that
succeeded are folded (session_state) and replayed on a fresh safemigrate session; both then
show the same current_user, session_user and value of every setting touched. PostgreSQL's own
rules are what is compared: SET SESSION AUTHORIZATION resets the role, RESET ALL leaves role
and session_authorization alone (GUC_NO_RESET_ALL, src/backend/utils/misc/guc_tables.c).
"""

from __future__ import annotations

import random
from typing import Any

import psycopg
import pytest

from safemigrate.db import Session
from safemigrate.planning.safer_forms import build_steps
from safemigrate.statements.session_state import SessionState
from tests.fixtures_db import ConnectFactory

POOL = [
    "SET search_path = a, public",
    "SET search_path = b",
    "SET SCHEMA 'a'",
    "RESET search_path",
    "SET search_path TO DEFAULT",
    "SELECT pg_catalog.set_config('search_path', '', false)",
    "SET TIME ZONE 'UTC'",
    "SET timezone = 'America/New_York'",
    "RESET timezone",
    "RESET ALL",
    "SET ROLE sm_r1",
    "SET ROLE sm_r2",
    "SET ROLE NONE",
    "RESET ROLE",
    "SET SESSION AUTHORIZATION sm_r1",
    "SET SESSION AUTHORIZATION DEFAULT",
    "RESET SESSION AUTHORIZATION",
    "SELECT set_config('app.x', '1', false)",
    "SET app.x = '2'",
    "SET datestyle = 'SQL, DMY'",
    "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ",
    # The runner's own: never replayed, whatever the history did.
    "SET statement_timeout = 0",
    "SET lock_timeout = '1min'",
]
SHOWN = (
    "SELECT current_user::text, session_user::text, current_setting('role'), "
    "current_setting('search_path'), current_setting('timezone'), "
    "current_setting('app.x', true), current_setting('datestyle'), "
    "current_setting('default_transaction_isolation')"
)
HOUSEKEEPING = (2000, 30_000)


@pytest.fixture
def roles(db_dsn: str, connect: ConnectFactory) -> None:
    conn = connect()
    for role in ("sm_r1", "sm_r2"):
        conn.execute(f"DO $$BEGIN CREATE ROLE {role}; EXCEPTION WHEN duplicate_object THEN END$$")
    # sm_r1 may become sm_r2, not the other way round: some sequences fail on the way.
    conn.execute("GRANT sm_r2 TO sm_r1")
    conn.execute("CREATE SCHEMA IF NOT EXISTS a; CREATE SCHEMA IF NOT EXISTS b")


def _run_all(conn: psycopg.Connection[Any], sequence: list[str]) -> list[str]:
    """Run ``sequence`` on ``conn``; the statements that succeeded (a failed step is not
    applied, so its changes do not count)."""
    done = []
    for text in sequence:
        try:
            conn.execute(text.encode())
        except psycopg.Error:
            continue
        done.append(text)
    return done


def _folded(statements: list[str]) -> SessionState:
    state = SessionState()
    if not statements:
        return state
    for step in build_steps("/m/0001_m.sql", ";\n".join(statements) + ";\n"):
        state.apply((1, step.index), step)
    return state


@pytest.mark.parametrize("seed", range(12))
def test_issue_21_item_3_the_replayed_settings_give_the_state_of_the_session_that_ran_them(
    seed: int, roles: None, db_dsn: str
) -> None:
    rng = random.Random(seed)
    for _ in range(20):
        sequence = [rng.choice(POOL) for _ in range(rng.randint(1, 14))]
        with psycopg.connect(db_dsn, autocommit=True) as original:
            done = _run_all(original, sequence)
            expected = original.execute(SHOWN).fetchone()
        state = _folded(done)
        session = Session.open(db_dsn, application_name="test")
        try:
            session.replay(state.replay)
            # What a step sees (the runner's own statements run as the connecting role).
            replayed = session.rows(psycopg.sql.SQL(SHOWN), as_runner=False)[0]
            timeouts = session.rows(
                psycopg.sql.SQL(
                    "SELECT current_setting('lock_timeout'), current_setting('statement_timeout')"
                )
            )[0]
        finally:
            session.close()
        assert replayed == expected, (done, state.replay)
        # Whatever was replayed (RESET ALL included), the runner's own guard is in force.
        assert timeouts == ("2s", "30s"), (done, state.replay)


def test_the_fold_keeps_the_replay_short(roles: None) -> None:
    """A long history of the same few settings replays as a few statements; the role change
    a RESET ROLE ended is not replayed (issue 21 review21c F5: the role may be gone since):
    search_path keeps the value set under it."""
    state = _folded(
        [
            "SET ROLE sm_r1",
            "SET search_path = a, public",
            "RESET ROLE",
            "SET timezone = 'UTC'",
        ]
        * 50
    )
    assert state.replay == ("SET search_path = a, public", "SET timezone = 'UTC'")
