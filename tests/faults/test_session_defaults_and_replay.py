"""Settings changed in ways the runner did not read, and a replay that can no longer run
(issue 21 review21c F1, F2, F3, F5, F8, F10), as a user meets them on a real server.

- F1: ``UPDATE pg_settings SET setting = '0' WHERE name = 'lock_timeout'`` and
  ``set_config('lock_timeout', NULL, true)`` switched the lock timeout off unseen (a 1s step
  waited 6.6s). Now refused up front (exit 2), like ``set_config('lock_timeout', '0', true)``.
- F3: ``UPDATE pg_settings`` of search_path was neither replayed nor refused: a kill -9 split
  a batch between public and app. Now replayed as the set_config() it is.
- F2: ``ALTER DATABASE ... SET search_path`` changes only new sessions: a rerun's session ran
  the batch in app where the uninterrupted run used public. Now lost state: refused.
- F5: the replay of ``SET ROLE r ... RESET ROLE`` failed for ever once ``r`` was dropped, and
  a superuser-only SET failed for ever once the runner was not superuser. Now the fold drops
  what ends where a new session starts; what still fails names its migration and is passed
  with ``--accept-lost-session-state``.
- F8: ``statement-timeout=0.4ms`` (0 on the server) and ``=5h`` (above the ceiling) passed.
- F10: ``--accept-lost-session-state 9999`` was taken without a word.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
from psycopg import conninfo

from tests.faults.helpers import (
    ROWS,
    Spawn,
    flagged,
    killed_at_the_gate_after,
    refused,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations


@contextlib.contextmanager
def _new_role(conn: psycopg.Connection[Any], prefix: str) -> Iterator[str]:
    """A new role, its name ``prefix`` and a random suffix (roles are the cluster's, shared by
    every test's database), dropped at the end unless a migration dropped it."""
    role = f"{prefix}_{uuid.uuid4().hex[:8]}"
    conn.execute(f"CREATE ROLE {role}")
    try:
        yield role
    finally:
        conn.execute(f"DROP ROLE IF EXISTS {role}")


def _up(directory: Path, dsn: str, *more: str) -> tuple[str, ...]:
    return ("up", "--dir", str(directory), "--dsn", dsn, "--format", "json", *more)


def test_issue_21_review21c_f1_pg_settings_and_a_null_set_config_are_refused_up_front(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = connect()
    conn.execute("CREATE TABLE big (id int PRIMARY KEY)")
    for name, bypass, words in (
        (
            "0001_pgsettings.sql",
            "UPDATE pg_settings SET setting = '0' WHERE name = 'lock_timeout';",
            "UPDATE pg_settings sets lock_timeout to 0",
        ),
        (
            "0001_null.sql",
            "SELECT set_config('lock_timeout', NULL, true);",
            "set_config() with a NULL value puts lock_timeout back",
        ),
        (
            "0001_do.sql",
            "DO $$ BEGIN UPDATE pg_settings SET setting = '0' WHERE name = 'lock_timeout'; END $$;",
            "UPDATE pg_settings sets lock_timeout to 0",
        ),
    ):
        directory = write_migrations(
            tmp_path / name,
            {
                name: "-- safemigrate: group-start\n"
                f"{bypass}\nALTER TABLE big ADD COLUMN c int;\n-- safemigrate: group-end\n"
            },
        )
        result = run("up", "--dir", str(directory), "--dsn", db_dsn, "--lock-timeout", "1s")
        assert result.exit_code == 2, result.output
        assert f"{name}:2: refused: {words}" in result.stderr
        assert "allow timeout-guard-off" in result.stderr
        assert journal_rows(db_dsn) == []


def test_issue_21_review21c_f3_a_pg_settings_search_path_is_replayed_after_kill_9(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    conn = connect()
    change = "UPDATE pg_settings SET setting = 'app' WHERE name = 'search_path';\n"
    args = killed_at_the_gate_after(connect, spawn, tmp_path / "m", db_dsn, "0002_sp.sql", change)
    rerun = run(*args)
    assert rerun.exit_code == 0, rerun.output
    # As one session (psql) runs the files: every row of app.orders, none of public's.
    assert flagged(conn) == {"public": 0, "app": ROWS}


def test_issue_21_review21c_f2_alter_database_set_is_refused_on_a_new_session(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    conn = connect()
    database = conn.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
    change = f'ALTER DATABASE "{database}" SET search_path = app, public;\n'
    args = killed_at_the_gate_after(
        connect, spawn, tmp_path / "m", db_dsn, "0002_default.sql", change
    )
    for _ in range(2):
        failed = refused(run(*args))
        assert "not run: it could depend on" in failed["error"]
        assert "a new session starts with the new default" in failed["error"]
        assert "--accept-lost-session-state 0002" in failed["hint"]
        assert flagged(conn) == {"public": 0, "app": 0}
    # Accepted: the later steps run as new sessions of the database now start.
    accepted = run(*args, "--accept-lost-session-state", "0002")
    assert accepted.exit_code == 0, accepted.output
    assert flagged(conn) == {"public": 0, "app": ROWS}


def test_issue_21_review21c_f2_another_roles_new_default_does_not_refuse_the_rerun(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    """The default of the application's role reaches none of the runner's sessions: the
    rerun goes on, in public, as the uninterrupted run did."""
    conn = connect()
    with _new_role(conn, "app_reader") as role:
        change = f"ALTER ROLE {role} SET search_path = app, public;\n"
        args = killed_at_the_gate_after(
            connect, spawn, tmp_path / "m", db_dsn, "0002_default.sql", change
        )
        rerun = run(*args)
        assert rerun.exit_code == 0, rerun.output
        assert flagged(conn) == {"public": ROWS, "app": 0}


def test_issue_21_review21c_f5_a_dropped_role_ended_by_reset_role_does_not_wedge_up(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = connect()
    with _new_role(conn, "rr_owner") as role:
        conn.execute(f"CREATE SCHEMA app; GRANT ALL ON SCHEMA app TO {role}")
        files = {
            "0002_owned.sql": f"SET ROLE {role};\nSET search_path = app, public;\n"
            "CREATE TABLE owned (id int);\n",
            "0003_handover.sql": "RESET ROLE;\nALTER TABLE app.owned OWNER TO CURRENT_USER;\n"
            f"REVOKE ALL ON SCHEMA app FROM {role};\nDROP ROLE {role};\n",
        }
        directory = write_migrations(tmp_path / "m", files)
        first = run(*_up(directory, db_dsn))
        assert first.exit_code == 0, first.output
        write_migrations(directory, {"0005_next.sql": "CREATE TABLE next_feature (id int);\n"})
        later = run(*_up(directory, db_dsn))
        assert later.exit_code == 0, later.output
        # The search_path set under the role keeps its value, as in one psql session.
        found = conn.execute("SELECT to_regclass('app.next_feature') IS NOT NULL").fetchone()
        assert found == (True,)


def test_issue_21_review21c_f5_a_replay_the_runner_may_no_longer_make_names_its_step(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = connect()
    role = f"su_mig_{uuid.uuid4().hex[:8]}"
    conn.execute("CREATE TABLE t (id int)")
    directory = write_migrations(
        tmp_path / "m",
        {
            "0002_quiet.sql": "SET session_replication_role = replica;\n"
            "INSERT INTO t VALUES (1);\nSET session_replication_role = DEFAULT;\n"
            "SET log_min_duration_statement = 0;\n",
        },
    )
    assert run(*_up(directory, db_dsn)).exit_code == 0
    database = conn.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
    conn.execute(f'CREATE ROLE {role} LOGIN; ALTER DATABASE "{database}" OWNER TO {role}')
    try:
        tables = conn.execute(
            "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = "
            "'public'::regnamespace"
        ).fetchall()
        conn.execute(f"ALTER SCHEMA public OWNER TO {role}")
        for (table,) in tables:
            conn.execute(f'ALTER TABLE public."{table}" OWNER TO {role}')
        write_migrations(directory, {"0003_next.sql": "CREATE TABLE t2 (id int);\n"})
        as_owner = conninfo.make_conninfo(db_dsn, user=role)
        failed = refused(run(*_up(directory, as_owner)))
        # One line: the migration and statement, not the whole replay; the SET ... DEFAULT
        # (where a new session starts anyway) is not replayed at all.
        assert failed["error"].startswith(
            "0002_quiet.sql:4: a new session cannot replay the session setting "
            "`SET log_min_duration_statement = 0`"
        ), failed["error"]
        assert "session_replication_role" not in failed["error"]
        assert "--accept-lost-session-state 0002" in failed["hint"]
        # status says it too, on the migration that made the setting.
        shown = run("status", "--dir", str(directory), "--dsn", as_owner)
        assert shown.exit_code == 0, shown.output
        assert "up cannot go on: 0002_quiet.sql:4: a new session cannot replay" in shown.stdout
        accepted = run(*_up(directory, as_owner, "--accept-lost-session-state", "0002"))
        assert accepted.exit_code == 0, accepted.output
        assert conn.execute("SELECT to_regclass('t2') IS NOT NULL").fetchone() == (True,)
    finally:
        conn.execute(f'ALTER DATABASE "{database}" OWNER TO CURRENT_USER')
        conn.execute(f"REASSIGN OWNED BY {role} TO CURRENT_USER; DROP OWNED BY {role}")
        conn.execute(f"DROP ROLE {role}")


def test_issue_21_review21c_f10_an_accepted_version_that_accepts_nothing_is_bad_input(
    tmp_path: Path, db_dsn: str
) -> None:
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_base.sql": "CREATE TABLE big (id int);\n",
            "0002_tmp.sql": "CREATE TEMP TABLE tmp1 AS SELECT 1 AS x;\n",
        },
    )
    for version, words in (
        ("9999", "9999 is not a migration of the directory"),
        ("0001", "0001_base.sql makes no session state a new session could lack"),
    ):
        failed = refused(
            run(*_up(directory, db_dsn, "--accept-lost-session-state", version)), exit_code=2
        )
        assert words in failed["error"]
        assert journal_rows(db_dsn) == []
        dry = run(
            "up",
            "--dir",
            str(directory),
            "--dsn",
            db_dsn,
            "--dry-run",
            "--accept-lost-session-state",
            version,
        )
        assert dry.exit_code == 2, dry.output
        assert words in dry.stderr
    accepted = run(*_up(directory, db_dsn, "--accept-lost-session-state", "0002"))
    assert accepted.exit_code == 0, accepted.output


def test_issue_21_review21c_f8_statement_timeout_directives_are_judged_as_the_sql_is(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    connect().execute("CREATE TABLE big (id int)")  # not a fresh database
    base = write_migrations(tmp_path / "m", {"0001_base.sql": "CREATE TABLE t (id int);\n"})
    assert run("up", "--dir", str(base), "--dsn", db_dsn).exit_code == 0
    zero = write_migrations(
        tmp_path / "zero",
        {
            "0001_base.sql": "CREATE TABLE t (id int);\n",
            "0002_x.sql": "-- safemigrate: statement-timeout=0.4ms\nSELECT pg_sleep(0.01);\n",
        },
    )
    result = run("up", "--dir", str(zero), "--dsn", db_dsn)
    assert result.exit_code == 2, result.output
    assert "statement-timeout=0.4ms is 0 in whole milliseconds" in result.stderr
    long = write_migrations(
        tmp_path / "long",
        {
            "0001_base.sql": "CREATE TABLE t (id int);\n",
            "0002_x.sql": "-- safemigrate: statement-timeout=5h\nUPDATE t SET id = id;\n",
        },
    )
    result = run("up", "--dir", str(long), "--dsn", db_dsn)
    assert result.exit_code == 2, result.output
    assert "statement-timeout=5h sets statement_timeout to 5h, above max_statement_timeout" in (
        result.stderr
    )
    (long / "0002_x.sql").write_text(
        "-- safemigrate: statement-timeout=5h\n"
        "-- safemigrate: allow timeout-guard-off -- the backfill needs it, agreed\n"
        "UPDATE t SET id = id;\n",
        encoding="utf-8",
    )
    assert run("up", "--dir", str(long), "--dsn", db_dsn).exit_code == 0
