"""Issue 21: a journal safemigrate 2ba832f wrote (no per-statement checksums) is upgraded in
place by the first ``up`` (or ``repair``) under the run lock: idempotent, one transaction
that kill -9 leaves whole or undone, a holder of the journal met with the lock timeout, two
runs at once upgrading it once. Its rows keep their checksums and today's comparison; rows
written since record their statements. Real server."""

from __future__ import annotations

import signal
from pathlib import Path

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from safemigrate.core import checksums
from safemigrate.db import Session
from safemigrate.db import journal as dbjournal
from safemigrate.planning.safer_forms import build_steps
from tests.faults.helpers import Spawn, kill_9, run_lock_holders, wait_until
from tests.fixtures_db import ConnectFactory
from tests.support.old_journal import (
    BALANCE,
    balance,
    load_2ba832f,
    recorded_statements,
    statement_columns,
)
from tests.support.runner import journal_rows, run, write_migrations

JOURNAL = dbjournal.JournalTable("public", "safemigrate_history")
PLUS_100 = "UPDATE acc SET n = n + 100;\n"
OLD_ROWS = [(1, 0, None, None), (1, 1, None, None), (2, 0, None, None)]


def _new_row(step_text: str) -> tuple[int, int, list[str], bool]:
    return (3, 0, [checksums.token_checksum([step_text.strip().rstrip(";")])], True)


def test_up_upgrades_the_journal_of_2ba832f_and_old_rows_keep_their_checksums(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = load_2ba832f(db_dsn, tmp_path / "m")
    args = ("--dir", str(directory), "--dsn", db_dsn)
    status = run("status", *args)
    assert status.exit_code == 0, status.output
    assert statement_columns(db_dsn) == []  # status reads, never upgrades
    assert run("up", *args).exit_code == 0  # nothing pending: the upgrade alone
    assert statement_columns(db_dsn) == ["statements", "statements_of"]
    assert recorded_statements(db_dsn) == OLD_ROWS
    (directory / "0003_more.sql").write_text(PLUS_100)
    assert run("up", *args).exit_code == 0
    assert recorded_statements(db_dsn) == [*OLD_ROWS, _new_row(PLUS_100)]
    assert balance(db_dsn) == BALANCE + 100
    # Idempotent: ensuring an upgraded journal changes nothing.
    session = Session.open(db_dsn, application_name="test")
    try:
        assert dbjournal.ensure(session, JOURNAL, lock_timeout_ms=2000) is False
    finally:
        session.close()
    assert recorded_statements(db_dsn) == [*OLD_ROWS, _new_row(PLUS_100)]


def test_an_old_row_edited_keeps_todays_comparison(db_dsn: str, tmp_path: Path) -> None:
    """A row 2ba832f wrote has only its step checksum: its step reordered is an edit in place
    as today (exit 5, --accept-edited accepts it), after which its statements are recorded."""
    directory = load_2ba832f(db_dsn, tmp_path / "m")
    args = ("--dir", str(directory), "--dsn", db_dsn)
    (directory / "0002_plus.sql").write_text(
        "-- safemigrate: group-start\nUPDATE acc SET n = n + 1;\nUPDATE acc SET n = n + 10;\n"
        "-- safemigrate: group-end\n"
    )
    refused = run("up", *args)
    assert refused.exit_code == 5, refused.output
    assert "0002_plus.sql step 1 (line 2): applied, but its text has changed" in refused.stderr
    assert "reordered" not in refused.stderr  # only the step checksum is known of it
    assert run("repair", *args).exit_code == 2
    accepted = run("repair", *args, "--accept-edited")
    assert accepted.exit_code == 0, accepted.output
    rows = recorded_statements(db_dsn)
    assert rows[:2] == OLD_ROWS[:2] and rows[2][2] is not None and rows[2][3] is True
    assert run("up", *args).exit_code == 0 and balance(db_dsn) == BALANCE


def _hold_journal(connect: ConnectFactory) -> psycopg.Connection[object]:
    """A session of the application reading the journal in an open transaction: ACCESS
    SHARE on it, which ALTER TABLE's ACCESS EXCLUSIVE waits for (the manual's "Explicit
    Locking", table 13.2)."""
    holder = connect()
    holder.execute("BEGIN")
    holder.execute("SELECT count(*) FROM safemigrate_history")
    return holder


def test_the_upgrade_waits_for_a_holder_only_its_lock_timeout(
    db_dsn: str, tmp_path: Path, connect: ConnectFactory
) -> None:
    directory = load_2ba832f(db_dsn, tmp_path / "m")
    (directory / "0003_more.sql").write_text(PLUS_100)
    args = ("--dir", str(directory), "--dsn", db_dsn)
    holder = _hold_journal(connect)
    refused = run("up", *args, "--lock-timeout", "300ms")
    # The runner's own statement met its lock timeout: exit 4, nothing changed.
    assert refused.exit_code == 4, refused.output
    assert "could not get its lock within lock_timeout (300ms)" in refused.stderr
    assert "Traceback" not in refused.output
    assert statement_columns(db_dsn) == [] and balance(db_dsn) == BALANCE
    holder.rollback()
    assert run("up", *args).exit_code == 0
    assert recorded_statements(db_dsn) == [*OLD_ROWS, _new_row(PLUS_100)]


def test_kill_9_mid_upgrade_leaves_the_journal_whole_and_the_rerun_upgrades_it(
    db_dsn: str, tmp_path: Path, connect: ConnectFactory, spawn: Spawn
) -> None:
    directory = load_2ba832f(db_dsn, tmp_path / "m")
    (directory / "0003_more.sql").write_text(PLUS_100)
    args = ("up", "--dir", str(directory), "--dsn", db_dsn)
    holder = _hold_journal(connect)
    watcher = connect()
    runner = spawn(*args, "--lock-timeout", "30s")
    # The run's ALTER TABLE queued behind the holder: the upgrade is under way.
    wait_until(
        lambda: (
            watcher.execute(
                "SELECT EXISTS (SELECT FROM pg_locks WHERE relation = "
                "'public.safemigrate_history'::regclass AND NOT granted "
                "AND mode = 'AccessExclusiveLock')"
            ).fetchone()
            == (True,)
        ),
        timeout=30,
        what="the upgrade waiting for the journal's lock",
    )
    assert kill_9(runner, watcher) == -signal.SIGKILL
    assert run_lock_holders(watcher) == []
    holder.rollback()
    assert statement_columns(db_dsn) == []  # undone, not half done
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (1, 1, "applied"), (2, 0, "applied")]
    rerun = run(*args)
    assert rerun.exit_code == 0, rerun.output
    assert recorded_statements(db_dsn) == [*OLD_ROWS, _new_row(PLUS_100)]
    assert balance(db_dsn) == BALANCE + 100


def test_two_runs_at_once_upgrade_the_journal_once(
    db_dsn: str, tmp_path: Path, spawn: Spawn
) -> None:
    directory = load_2ba832f(db_dsn, tmp_path / "m")
    (directory / "0003_more.sql").write_text(PLUS_100)
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--wait-for-lock", "30s")
    runners = [spawn(*args), spawn(*args)]
    # The run lock lets one upgrade and apply; the other then finds both done.
    assert [r.wait(timeout=120) for r in runners] == [0, 0]
    assert recorded_statements(db_dsn) == [*OLD_ROWS, _new_row(PLUS_100)]
    assert balance(db_dsn) == BALANCE + 100


def test_a_runner_that_does_not_own_the_journal_is_told_to_upgrade_it_as_its_owner(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = load_2ba832f(db_dsn, tmp_path / "m")
    (directory / "0003_more.sql").write_text(PLUS_100)
    login = f"deploy_{conninfo_to_dict(db_dsn)['dbname']}"
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{login}" LOGIN')
        conn.execute(
            f'GRANT SELECT, INSERT, UPDATE, DELETE ON safemigrate_history, acc TO "{login}"'
        )
    try:
        dsn = make_conninfo(db_dsn, user=login)
        args = ("--dir", str(directory), "--dsn", dsn)
        refused = run("up", *args)
        assert refused.exit_code == 2, refused.output
        assert "the connecting role may not add them (it does not own the table)" in (
            refused.stderr
        )
        hint = 'run this once as the journal\'s owner: ALTER TABLE "public"."safemigrate_history"'
        assert hint in refused.stderr, refused.stderr
        assert statement_columns(db_dsn) == [] and balance(db_dsn) == BALANCE
        with psycopg.connect(db_dsn, autocommit=True) as conn:
            conn.execute(_owner_upgrade())
        assert run("up", *args).exit_code == 0
        assert recorded_statements(db_dsn) == [*OLD_ROWS, _new_row(PLUS_100)]
    finally:
        with psycopg.connect(db_dsn, autocommit=True) as conn:
            conn.execute(f'DROP OWNED BY "{login}" CASCADE')
            conn.execute(f'DROP ROLE "{login}"')


def _owner_upgrade() -> str:
    """What the refusal tells the owner to run."""
    return (
        'ALTER TABLE "public"."safemigrate_history" ADD COLUMN IF NOT EXISTS "statements" '
        'text[], ADD COLUMN IF NOT EXISTS "statements_of" text'
    )


def test_rows_written_since_record_each_statement(db_dsn: str, tmp_path: Path) -> None:
    """A transaction step, a block, an autocommit step (its started row promoted) and a
    baseline row each record the token checksum of each of their statements."""
    files = {
        "0001_t.sql": "CREATE TABLE t (id int PRIMARY KEY, a int);\n",
        "0002_i.sql": "CREATE INDEX CONCURRENTLY t_a ON t (a);\n",
        "0003_b.sql": "BEGIN;\nINSERT INTO t VALUES (1, 1);\nUPDATE t SET a = 2;\nCOMMIT;\n",
        "0004_later.sql": "INSERT INTO t VALUES (2, 2);\n",
    }
    directory = write_migrations(tmp_path / "m", dict(list(files.items())[:3]))
    args = ("--dir", str(directory), "--dsn", db_dsn)
    assert run("up", *args).exit_code == 0
    (directory / "0004_later.sql").write_text(files["0004_later.sql"])
    assert run("baseline", "0004", *args).exit_code == 0
    expected = [
        (version, step.index, list(step.statement_checksums), True)
        for version, (name, text) in enumerate(files.items(), start=1)
        for step in build_steps(f"/m/{name}", text)
    ]
    assert recorded_statements(db_dsn) == expected
    assert [len(row[2]) for row in expected] == [1, 1, 4, 1]


def test_statements_of_another_checksum_are_not_used(db_dsn: str, tmp_path: Path) -> None:
    """A release that does not know the columns changes a row's checksum (its repair) and
    leaves the statements of the old text: they are not that row's any more."""
    directory = load_2ba832f(db_dsn, tmp_path / "m")
    (directory / "0003_more.sql").write_text(PLUS_100)
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0

    def read() -> dict[tuple[int, int], tuple[str, ...] | None]:
        session = Session.open(db_dsn, application_name="test")
        try:
            return {(e.version, e.step): e.statements for e in dbjournal.read(session, JOURNAL)}
        finally:
            session.close()

    old = {(1, 0): None, (1, 1): None, (2, 0): None}
    assert read() == {**old, (3, 0): tuple(_new_row(PLUS_100)[2])}
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("UPDATE safemigrate_history SET checksum = 'other' WHERE version = 3")
    assert read() == {**old, (3, 0): None}


def test_repair_upgrades_the_journal_under_its_lock_timeout_too(
    db_dsn: str, tmp_path: Path, connect: ConnectFactory
) -> None:
    directory = load_2ba832f(db_dsn, tmp_path / "m")
    (directory / "0002_plus.sql").write_text(
        "-- safemigrate: group-start\nupdate acc SET n = n + 10;\nUPDATE acc SET n = n + 1;\n"
        "-- safemigrate: group-end\n"
    )
    args = ("--dir", str(directory), "--dsn", db_dsn, "--accept-edited")
    holder = _hold_journal(connect)
    refused = run("repair", *args, env={"SAFEMIGRATE_LOCK_TIMEOUT": "300ms"})
    assert refused.exit_code == 4, refused.output
    assert "could not get its lock within lock_timeout (300ms)" in refused.stderr
    assert statement_columns(db_dsn) == []
    holder.rollback()
    repaired = run("repair", *args)
    assert repaired.exit_code == 0, repaired.output
    rows = recorded_statements(db_dsn)
    assert rows[:2] == OLD_ROWS[:2] and rows[2][2] is not None and rows[2][3] is True
