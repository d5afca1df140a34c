"""A migration that releases the run lock (issue 21 item 7), as a user meets it.

``pg_advisory_unlock_all()`` releases every session-level advisory lock of the session,
safemigrate's run lock included (PostgreSQL docs, "Advisory Lock Functions"). The releases here
are made through dynamic SQL (PL/pgSQL ``EXECUTE`` of a string built at run time, through
``reverse()``), which no static reading of the files or of the database's bodies can see: the
runtime checks are what stops the run. A step that releases the lock is rolled back and
refused (exit 2): a transaction, a recipe part, a batch (the batches before it stay committed
and recorded); a CONCURRENTLY build, which cannot be undone, is not recorded as applied, and a
second run never drops it while it is being built (issue 21 review21b F3, F4, F6). The guard
before each step, part and batch stops a run that lost the lock otherwise (exit 3).
"""

from __future__ import annotations

from pathlib import Path

from tests.faults.helpers import Spawn, by_kind, refused, run_lock_holders, wait_until
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations

#: A function that releases the session's advisory locks where no parser can see it.
RELEASE = """
    CREATE FUNCTION release_locks() RETURNS int LANGUAGE plpgsql AS $$
    BEGIN
        EXECUTE 'SELECT pg_advisory_' || reverse('lla_kcolnu') || '()';
        RETURN 0;
    END $$;
"""


def test_issue_21_item_7_a_migration_releasing_the_run_lock_is_refused_and_nothing_is_lost(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """0002 releases the run lock; 0003 is a CHECK recipe. Before, a second `up` took the lock
    while the first validated 0003, and 0003 ended journaled applied with no constraint. Now
    0002 is rolled back and refused before its journal row, and 0003 never starts."""
    directory = tmp_path / "m"
    write_migrations(
        directory,
        {
            "0001_t.sql": "CREATE TABLE t (id int PRIMARY KEY, a int);\n"
            "INSERT INTO t SELECT g, g FROM generate_series(1, 1000) g;\n" + RELEASE,
            "0002_release.sql": "SELECT release_locks();\n",
            "0003_check.sql": "ALTER TABLE t ADD CHECK (a < 100000);\n",
        },
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    failed = refused(run(*args), exit_code=2)
    assert "0002_release.sql:1: (step 1) refused: the step released the run lock" in failed["error"]
    assert "it was rolled back, and the run stopped" in failed["error"]
    assert "pg_advisory_xact_lock" in failed["hint"]
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (1, 1, "applied"), (1, 2, "applied")]
    conn = connect()
    assert run_lock_holders(conn) == []
    checks = (
        "SELECT conname, convalidated FROM pg_constraint "
        "WHERE conrelid = 't'::regclass AND contype = 'c'"
    )
    assert conn.execute(checks).fetchall() == []

    # Once the migration no longer releases the lock, the run goes on from there.
    (directory / "0002_release.sql").write_text("SELECT 1;\n")
    rerun = run(*args)
    assert rerun.exit_code == 0, rerun.output
    assert conn.execute(checks).fetchall() == [("t_a_check", True)]
    assert run_lock_holders(conn) == []


#: An expression-index function that releases the run lock on its first call, then waits
#: (without a lock wait, which lock_timeout would end) while the test holds advisory lock 4242.
RELEASING_INDEX_FUNCTION = """
    CREATE FUNCTION slowrel(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN
        EXECUTE 'SELECT pg_advisory_' || reverse('lla_kcolnu') || '()';
        WHILE NOT pg_try_advisory_lock_shared(4242) LOOP
            PERFORM pg_sleep(0.02);
        END LOOP;
        EXECUTE 'SELECT pg_advisory_' || reverse('derahs_kcolnu') || '(4242)';
        RETURN $1;
    END $$;
"""


def _index_build_corpus(directory: Path) -> Path:
    return write_migrations(
        directory,
        {
            "0001_t.sql": "CREATE TABLE t (id int PRIMARY KEY, a int);\n"
            "INSERT INTO t SELECT g, g FROM generate_series(1, 20) g;\n"
            "CREATE TABLE audit (x int);\n" + RELEASING_INDEX_FUNCTION,
            "0002_index.sql": "CREATE INDEX t_slow ON t (slowrel(a));\n",
            "0003_audit.sql": "INSERT INTO audit VALUES (3);\n",
        },
    )


def test_issue_21_review21b_f3_a_concurrent_build_that_released_the_run_lock_is_not_applied(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """issue 21 review21b F3 (one run): the CONCURRENTLY build's expression releases the run
    lock. The build cannot be undone, but the check that the lock is still held goes in the
    round trip of its journal row: 0002 is not journaled applied (exit 2, file and line) and
    0003 never runs. Before, 0002 was journaled applied and only 0003 noticed (exit 3)."""
    directory = _index_build_corpus(tmp_path / "m")
    failed = refused(
        run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json"), exit_code=2
    )
    assert "0002_index.sql:1: (step 1) refused: the step released the run lock" in failed["error"]
    assert "is not recorded as applied" in failed["error"]
    rows = journal_rows(db_dsn)
    assert (2, 0, "applied") not in rows
    assert all(version < 3 for version, _, _ in rows)
    conn = connect()
    assert conn.execute("SELECT count(*) FROM audit").fetchone() == (0,)
    assert run_lock_holders(conn) == []


def test_issue_21_review21b_f3_a_second_run_never_drops_a_live_build_as_a_leftover(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    """issue 21 review21b F3 (two runs): run A's CONCURRENTLY build released the run lock
    and is still building (held at advisory lock 4242). Run B takes the lock and finds
    t_slow invalid; pg_stat_progress_create_index shows A's backend building it, so B does
    not drop it as "left by an interrupted build" (exit 3, naming the pid) and runs nothing.
    A's build then finishes, and A does not journal it applied (exit 2). Before, B dropped
    A's index, A's build failed with a deadlock and retried, and both ran the step's DDL."""
    directory = _index_build_corpus(tmp_path / "m")
    gate = connect()
    gate.execute("SELECT pg_advisory_lock(4242)")
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    first = spawn(*args)
    observer = connect()

    def building() -> int | None:
        row = observer.execute(
            "SELECT pid FROM pg_stat_progress_create_index "
            "WHERE index_relid = to_regclass('t_slow')"
        ).fetchone()
        return int(row[0]) if row is not None and not run_lock_holders(observer) else None

    builder = wait_until(building, timeout=120, what="A building t_slow without the run lock")
    second = run(*args)
    failed = refused(second, exit_code=3)
    assert (
        "0002_index.sql:1 (step 1): the invalid index public.t_slow is being built"
        in (failed["error"])
    )
    assert f"pid {builder}" in failed["error"]
    assert "dropped" not in " ".join(e.get("reason", "") for e in second.events())
    assert observer.execute("SELECT to_regclass('t_slow') IS NOT NULL").fetchone() == (True,)

    gate.execute("SELECT pg_advisory_unlock(4242)")
    assert first.wait(timeout=120) == 2, first.output
    [failed_a] = by_kind(first.events(), "run_failed")
    assert (
        "0002_index.sql:1: (step 1) refused: the step released the run lock" in (failed_a["error"])
    )
    assert not [e for e in first.events() if e["event"] == "attempt_failed"]
    assert (2, 0, "applied") not in journal_rows(db_dsn)
    assert observer.execute("SELECT count(*) FROM audit").fetchone() == (0,)
    assert run_lock_holders(observer) == []


def test_issue_21_review21b_f6_a_recipes_validate_that_released_the_run_lock_is_rolled_back(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """issue 21 review21b F6: the CHECK's function releases the run lock when the recipe's
    VALIDATE calls it. Before, the guard ran only before each part: "ok 0002", (2, 0)
    journaled applied, and a second run entered the same step. Now the check after the part,
    in its round trip, rolls the VALIDATE back: exit 2, nothing recorded, 0003 not run."""
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_t.sql": "CREATE TABLE t (id int PRIMARY KEY, a int);\n"
            "INSERT INTO t SELECT g, g FROM generate_series(1, 100) g;\n"
            "CREATE FUNCTION relchk(int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$\n"
            "BEGIN EXECUTE 'SELECT pg_advisory_' || reverse('lla_kcolnu') || '()';\n"
            "RETURN $1 > 0; END $$;\n",
            "0002_check.sql": "ALTER TABLE t ADD CONSTRAINT t_a_chk CHECK (relchk(a));\n",
            "0003_after.sql": "CREATE TABLE after_t (x int);\n",
        },
    )
    failed = refused(
        run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json"), exit_code=2
    )
    assert "0002_check.sql:1: (step 1) refused: the step released the run lock" in failed["error"]
    rows = journal_rows(db_dsn)
    assert (2, 0, "applied") not in rows and all(version < 3 for version, _, _ in rows)
    conn = connect()
    assert conn.execute("SELECT to_regclass('after_t')").fetchone() == (None,)
    validated = conn.execute(
        "SELECT convalidated FROM pg_constraint WHERE conname = 't_a_chk'"
    ).fetchall()
    assert validated in ([], [(False,)])
    assert run_lock_holders(conn) == []


def test_issue_21_review21b_f4_a_batch_that_released_the_run_lock_is_rolled_back(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """issue 21 review21b F4: an AFTER trigger releases the run lock on row 1200, in batch 3.
    Before, that batch committed and the run said "an earlier step released it ... nothing
    of this step was run" (exit 3). Now the check after the batch's statement, before its
    COMMIT, rolls it back: exit 2 naming the step; batches 1-2 stay committed and recorded,
    so after the fix a rerun updates every row exactly once."""
    conn = connect()
    conn.execute(
        "CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL DEFAULT 0); "
        "INSERT INTO t (id) SELECT g FROM generate_series(1, 2000) g"
    )
    conn.execute(
        """CREATE FUNCTION release_at() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.id = 1200 THEN
                EXECUTE 'SELECT pg_advisory_' || reverse('lla_kcolnu') || '()';
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER release_at AFTER UPDATE ON t FOR EACH ROW EXECUTE FUNCTION release_at()"""
    )
    directory = write_migrations(
        tmp_path / "m",
        {"0001_n.sql": "-- safemigrate: batch-size=500\nUPDATE t SET n = n + 1;\n"},
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    failed = refused(run(*args), exit_code=2)
    assert "0001_n.sql:2: (step 1) refused: the step released the run lock" in failed["error"]
    assert "the batch that released it was rolled back" in failed["error"]
    assert conn.execute("SELECT sum(n) FROM t").fetchone() == (1000,)
    assert run_lock_holders(conn) == []

    conn.execute("DROP TRIGGER release_at ON t")
    rerun = run(*args)
    assert rerun.exit_code == 0, rerun.output
    assert conn.execute("SELECT count(*) FROM t WHERE n <> 1").fetchone() == (0,)
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
