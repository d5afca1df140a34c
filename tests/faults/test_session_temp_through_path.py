"""Temporary objects made without TEMP are session state a new session lacks (issue 21,
review 21f F4).

``SET search_path = pg_temp, public; CREATE TABLE r (...)`` makes a temporary table, as psql
does (PostgreSQL puts an unqualified CREATE in the path's first schema and makes a relation
in pg_temp temporary: ``RangeVarAdjustRelationPersistence`` in
src/backend/catalog/namespace.c); so do ``CREATE FUNCTION pg_temp.f()`` and a view or type
made in pg_temp. Before, none counted as session state: after the runner's backend was
terminated, the next file's ``INSERT INTO r`` went to ``public.r`` on the new session, exit 0.
Now the step that uses it is refused (exit 1) with the message every lost temporary table
gives, after the reconnection and on every rerun, and nothing reaches public.r.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.helpers import Spawn, by_kind, reconnected_at_gate, refused
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations

#: The advisory lock 0003's first step waits for, so the backend ends between 0002 and 0003.
GATE = 910_224

CASES = {
    "set": ("SET search_path = pg_temp, public;\nCREATE TABLE r (id int);\n", "table r"),
    "set_config": (
        "SELECT pg_catalog.set_config('search_path', 'pg_temp, public', false);\n"
        "CREATE TABLE r (id int);\n",
        "table r",
    ),
    "user_first": (
        'SET search_path = "$user", "pg_temp", public;\nCREATE TABLE r (id int);\n',
        "table r",
    ),
    "local": (
        "BEGIN;\nSET LOCAL search_path = pg_temp, public;\nCREATE TABLE r (id int);\nCOMMIT;\n",
        "table r",
    ),
    "view": (
        "CREATE VIEW pg_temp.r AS SELECT 1 AS id;\n",
        "view r",
    ),
}
#: What 0003 does with r after the gate: on psql's one session, it reads the temporary r.
USE = "INSERT INTO public.r SELECT id + 41 FROM r;\n"


def _migrations(tmp_path: Path, state: str) -> Path:
    return write_migrations(
        tmp_path,
        {
            "0001_public_r.sql": "CREATE TABLE public.r (id int);\n",
            "0002_temp.sql": state,
            "0003_use.sql": f"""
                -- safemigrate: allow timeout-guard-off -- the test holds the gate past the ceiling
                -- safemigrate: lock-timeout=60s
                SELECT pg_advisory_xact_lock({GATE});
                {USE}
            """,
        },
    )


@pytest.mark.parametrize("form", sorted(CASES))
def test_issue_21_f4_a_temporary_object_made_through_the_search_path_is_lost_state(
    form: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    state, what = CASES[form]
    directory = _migrations(tmp_path / "m", state)
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    runner = reconnected_at_gate(connect, spawn, GATE, *args)
    assert runner.wait() == 1, runner.output
    [failed] = by_kind(runner.events(), "run_failed")
    assert "0003_use.sql:4 (step 2): not run: it could depend on " in failed["error"]
    assert f"temporary {what} (made at 0002_temp.sql:" in failed["error"]
    assert connect().execute("SELECT count(*) FROM public.r").fetchone() == (0,)

    # Every rerun refuses the same: the journal says the object was made, no session has it.
    again = refused(run(*args))
    assert f"temporary {what} (made at 0002_temp.sql:" in again["error"]
    assert connect().execute("SELECT count(*) FROM public.r").fetchone() == (0,)
    assert (3, 1, "applied") not in journal_rows(db_dsn)


def test_issue_21_f4_a_temporary_function_is_lost_state_for_the_step_calling_it(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """``CREATE FUNCTION pg_temp.f()``: only a pg_temp-qualified call runs it; a run after
    the one that made it (a new session) refuses that call, exit 1, and nothing else."""
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_f.sql": "CREATE TABLE public.r (id int);\n"
            "CREATE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql AS 'SELECT 42';\n",
        },
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert run(*args).exit_code == 0
    write_migrations(
        directory,
        {
            "0002_other.sql": "INSERT INTO public.r VALUES (1);\n",
            "0003_call.sql": "INSERT INTO public.r SELECT pg_temp.f();\n",
        },
    )
    failed = refused(run(*args))
    assert failed["error"].startswith("0003_call.sql:1 (step 1): not run: it could depend on ")
    assert "temporary function f (made at 0001_f.sql:2)" in failed["error"]
    assert connect().execute("SELECT id FROM public.r").fetchall() == [(1,)]


def test_issue_21_f4_without_a_fault_the_same_files_run_as_psql_runs_them(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """One session throughout: 0003 reads the temporary r that 0002 made and filled."""
    state, _ = CASES["set"]
    directory = _migrations(tmp_path / "m", state + "INSERT INTO r VALUES (1);\n")
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    assert connect().execute("SELECT id FROM public.r").fetchall() == [(42,)]


def test_issue_21_f4_the_version_the_refusal_names_is_accepted(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """The path set in one file, the table made in the next: the refusal names the second,
    and `--accept-lost-session-state` of it is accepted (not bad input, though that file alone
    changes nothing in the session), and runs the rest without the table."""
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_public_r.sql": "CREATE TABLE public.r (id int);\n",
            "0002_path.sql": "SET search_path = pg_temp, public;\n",
            "0003_temp.sql": "CREATE TABLE r (id int);\n",
            "0004_use.sql": "INSERT INTO r VALUES (1);\n",
        },
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert run(*args, "--target", "0003").exit_code == 0
    # plan and the dry run show the refusal up is about to make.
    base = ("--dir", str(directory), "--dsn", db_dsn)
    plan = run("plan", *base)
    assert "session state: up would stop before this step (exit 1): 0004_use.sql:1" in plan.stdout
    assert run("up", *base, "--dry-run").exit_code == 1
    failed = refused(run(*args))
    assert "temporary table r (made at 0003_temp.sql:1)" in failed["error"]
    assert "--accept-lost-session-state 0003" in failed["hint"]
    accepted = run(*args, "--accept-lost-session-state", "0003")
    assert accepted.exit_code == 0, accepted.output
    assert (4, 0, "applied") in journal_rows(db_dsn)


@pytest.mark.parametrize("public_s", [True, False], ids=["public_s", "no_public_s"])
def test_issue_21_d8_a_temporary_sequence_named_in_a_string_is_lost_state(
    public_s: bool, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """review21h D8: ``nextval('s')`` names the sequence in a string, found in pg_temp first.
    Before, a run after the one that made ``pg_temp.s`` (a new session) took ``public.s``
    (exit 0, base = 1; psql's one session gives 100), or failed with a raw 42P01 without it.
    Now the step is refused with the lost-temporary-object message, and nothing runs."""
    db = connect()
    db.execute("CREATE TABLE public.base (n bigint)")
    if public_s:
        db.execute("CREATE SEQUENCE public.s")
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_seq.sql": "CREATE SEQUENCE pg_temp.s START 100;\n",
            "0002_use.sql": "INSERT INTO base SELECT nextval('s');\n",
        },
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert run(*args, "--target", "1").exit_code == 0
    failed = refused(run(*args))
    assert failed["error"].startswith("0002_use.sql:1 (step 1): not run: it could depend on ")
    assert "temporary sequence s (made at 0001_seq.sql:1)" in failed["error"]
    assert connect().execute("SELECT count(*) FROM public.base").fetchone() == (0,)
    if public_s:
        assert connect().execute("SELECT is_called FROM public.s").fetchone() == (False,)


def test_issue_21_d8_in_one_session_the_string_names_the_temporary_sequence(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """Without a new session between them, 0002 takes pg_temp.s's 100, as psql does."""
    db = connect()
    db.execute("CREATE TABLE public.base (n bigint); CREATE SEQUENCE public.s")
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_seq.sql": "CREATE SEQUENCE pg_temp.s START 100;\n",
            "0002_use.sql": "INSERT INTO base SELECT nextval('s');\n",
        },
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    assert connect().execute("SELECT n FROM public.base").fetchall() == [(100,)]


@pytest.mark.parametrize(
    ("use", "public_effect"),
    [
        ("COMMENT ON TABLE tt IS 'x';", "SELECT obj_description('public.tt'::regclass)"),
        ("COMMENT ON COLUMN tt.id IS 'x';", "SELECT col_description('public.tt'::regclass, 1)"),
    ],
    ids=["table", "column"],
)
def test_issue_21_review_21i_e4_a_comment_on_a_lost_temporary_table_is_refused(
    use: str, public_effect: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """review21i E4: after a new session, ``COMMENT ON TABLE tt`` landed on the user's
    ``public.tt`` (exit 0; psql's one session comments the temporary table). Now the step is
    refused with the lost-temporary-object message, and the user's table keeps no comment."""
    connect().execute("CREATE TABLE public.tt (id int)")
    directory = write_migrations(
        tmp_path / "m",
        {"0001_temp.sql": "CREATE TEMP TABLE tt (id int);\n", "0002_comment.sql": use + "\n"},
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert run(*args, "--target", "1").exit_code == 0
    failed = refused(run(*args))
    assert failed["error"].startswith("0002_comment.sql:1 (step 1): not run: it could depend on ")
    assert connect().execute(public_effect).fetchone() == (None,)


def test_issue_21_review_21i_e5_a_computed_sequence_name_is_refused(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """review21i E5: ``nextval(format('%s', 's'))`` after a new session took ``public.s``
    (exit 0, base = 1; psql's one session gives 100). A name only the run computes may be the
    lost temporary sequence's: the step is refused and public.s is not advanced."""
    db = connect()
    db.execute("CREATE TABLE public.base (n bigint); CREATE SEQUENCE public.s")
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_seq.sql": "CREATE TEMP SEQUENCE s START 100;\n",
            "0002_use.sql": "INSERT INTO base SELECT nextval(format('%s', 's'));\n",
        },
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert run(*args, "--target", "1").exit_code == 0
    failed = refused(run(*args))
    assert failed["error"].startswith("0002_use.sql:1 (step 1): not run: it could depend on ")
    assert connect().execute("SELECT is_called FROM public.s").fetchone() == (False,)
