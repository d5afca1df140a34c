"""A started step's rows follow its text, wherever it now is (issue 21 review D3, D4, D5).

The review's reproductions on a real server: a batched ``UPDATE ... SET n = n + 1`` stopped
after 8 batches, then SQL inserted above it (the rerun said "its text has changed since" and
``repair --forget-batches`` made it run from key 1 again: 2,000 rows changed twice), or its
file renamed to a new version (the started row and batches were orphaned, the new version ran
from key 1); the table's key changed between runs (the old key's last value was applied to
the new key); a started UNIQUE recipe (index built and recorded, not attached) whose step was
edited into another statement, moved by an inserted statement, or whose file was deleted (the
earlier text's unique index stayed, or a second one was built).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg

from tests.faults.helpers import Spawn, interrupted_at_row
from tests.faults.recipe_stages import before_closing_transaction, killed_at
from tests.fixtures_db import ConnectFactory
from tests.support.rewrite_cases import SETUP
from tests.support.runner import journal_rows, run, up_args, write_migrations
from tests.support.tables import rows_by_n

ROWS = 5000
BATCH = 250
ENV = {"SAFEMIGRATE_LOCK_TIMEOUT": "60s"}
STEP = f"-- safemigrate: batch-size={BATCH}\nUPDATE orders SET n = n + 1 WHERE n >= 0;\n"


def _orders(dsn: str, *, keyed_by_code: bool = False) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        if keyed_by_code:
            # Walked by a unique NOT NULL code, in the reverse order of id.
            conn.execute("CREATE TABLE orders (id bigint NOT NULL, code text NOT NULL, n int)")
            conn.execute(
                "INSERT INTO orders SELECT g, lpad((%s + 1 - g)::text, 6, '0'), 0 "
                "FROM generate_series(1, %s) g",
                [ROWS, ROWS],
            )
            conn.execute("CREATE UNIQUE INDEX orders_code ON orders (code)")
        else:
            conn.execute("CREATE TABLE orders (id bigint PRIMARY KEY, n int NOT NULL)")
            conn.execute(f"INSERT INTO orders SELECT g, 0 FROM generate_series(1, {ROWS}) g")
        conn.execute("CREATE TABLE other (id int)")
        conn.execute("ANALYZE orders")


def _stopped_after_8_batches(
    spawn: Spawn, connect: ConnectFactory, dsn: str, tmp_path: Path, keyed_by_code: bool = False
) -> Path:
    """Orders (see _orders) and the batched STEP, run until its 9th batch waits for the test's
    row lock, then Ctrl-C; returns the migrations directory."""
    _orders(dsn, keyed_by_code=keyed_by_code)
    directory = write_migrations(tmp_path / "m", {"0001_flag.sql": STEP})
    held = "code = '002001'" if keyed_by_code else "id = 2001"
    interrupted_at_row(spawn, connect, up_args(directory, dsn), held, ENV)
    assert rows_by_n(dsn, "orders") == {0: ROWS - 2000, 1: 2000}
    return directory


def _resumed(result: Any) -> int:
    progress = [e for e in result.events() if e["event"] == "batch_progress"]
    return int(progress[0]["resumed_batches"])


def test_issue_21_review_d3_sql_inserted_above_a_started_batched_step_is_followed_not_rerun(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    directory = _stopped_after_8_batches(spawn, connect, db_dsn, tmp_path)
    (directory / "0001_flag.sql").write_text("INSERT INTO other VALUES (1);\n" + STEP)

    refused = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert refused.exit_code == 5, refused.output
    assert "0001_flag.sql step 1: started: 8 batches (keys up to 2000" in refused.stderr
    assert "its text is now 0001_flag.sql step 2 (line 3)" in refused.stderr
    assert "its text has changed since" not in refused.stderr
    # --forget-batches does not forget them: the same text is there, it is followed.
    dry = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--forget-batches", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "0001_flag.sql step 1: follow its started text to 0001_flag.sql step 2" in dry.stdout
    assert "forget" not in dry.stdout
    assert run("repair", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0

    finished = run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert finished.exit_code == 0, finished.output
    assert _resumed(finished) == 8
    assert rows_by_n(db_dsn, "orders") == {1: ROWS}
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (1, 1, "applied")]


def test_issue_21_review_d3_a_started_batched_step_renamed_to_a_new_version_resumes_there(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    directory = _stopped_after_8_batches(spawn, connect, db_dsn, tmp_path)
    (directory / "0001_flag.sql").rename(directory / "0002_flag.sql")

    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 5, status.output
    assert "missing" in status.stdout
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 5
    assert rows_by_n(db_dsn, "orders") == {0: ROWS - 2000, 1: 2000}
    repaired = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert repaired.exit_code == 0, repaired.output
    assert "0001_flag.sql step 1: follow its started text to 0002_flag.sql step 1" in (
        repaired.stdout
    )
    finished = run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert finished.exit_code == 0, finished.output
    assert _resumed(finished) == 8
    assert rows_by_n(db_dsn, "orders") == {1: ROWS}
    assert journal_rows(db_dsn) == [(2, 0, "applied")]


def test_issue_21_review_d3_an_orphaned_started_batched_step_is_reported_then_forgotten(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    directory = _stopped_after_8_batches(spawn, connect, db_dsn, tmp_path)
    (directory / "0001_flag.sql").write_text("SELECT 1;\n")
    (directory / "0001_flag.sql").rename(directory / "0002_other.sql")

    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 5, status.output
    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert up.exit_code == 5, up.output
    assert "0001_flag.sql step 1: started: 8 batches" in up.stderr
    assert "the file is gone and its text is in no step that would run" in up.stderr
    plain = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert plain.exit_code == 2 and "--forget-batches" in plain.stderr, plain.output
    assert (
        run("repair", "--dir", str(directory), "--dsn", db_dsn, "--forget-batches").exit_code == 0
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    assert journal_rows(db_dsn) == [(2, 0, "applied")]
    assert rows_by_n(db_dsn, "orders") == {0: ROWS - 2000, 1: 2000}


def test_issue_21_review_d4_a_new_primary_key_does_not_change_the_key_batches_continue_on(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    # The 9th batch in code order starts at code 002001.
    directory = _stopped_after_8_batches(spawn, connect, db_dsn, tmp_path, keyed_by_code=True)
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("ALTER TABLE orders ADD PRIMARY KEY (id)")

    finished = run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert finished.exit_code == 0, finished.output
    assert _resumed(finished) == 8
    assert rows_by_n(db_dsn, "orders") == {1: ROWS}


def test_issue_21_review_d4_batches_whose_key_is_gone_are_refused_nothing_run(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    directory = _stopped_after_8_batches(spawn, connect, db_dsn, tmp_path, keyed_by_code=True)
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("DROP INDEX orders_code")
        conn.execute("ALTER TABLE orders ADD PRIMARY KEY (id)")

    refused = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert refused.exit_code == 1, refused.output
    assert "walking the key (code text) up to (002000)" in refused.stderr
    assert "its key is (id)" in refused.stderr
    assert "give the table back a unique index on (code)" in refused.stderr
    assert rows_by_n(db_dsn, "orders") == {0: ROWS - 2000, 1: 2000}
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("CREATE UNIQUE INDEX orders_code ON orders (code)")
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    assert rows_by_n(db_dsn, "orders") == {1: ROWS}


def _indexes(dsn: str) -> list[tuple[str, str]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT indexrelid::regclass::text, regexp_replace(pg_get_indexdef(indexrelid), "
            "'.* USING btree ', '') FROM pg_index WHERE indrelid = 'orders'::regclass ORDER BY 1"
        ).fetchall()
    return [(str(a), str(b)) for a, b in rows]


def _recipe_rows(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM safemigrate_history_recipes").fetchone()
    return int(row[0]) if row else 0


def _started_unique_recipe(
    spawn: Spawn, connect: ConnectFactory, dsn: str, directory: Path
) -> None:
    """``ALTER TABLE orders ADD UNIQUE (ref)`` killed (-9) after its index is built and recorded,
    before the closing transaction that attaches it."""
    write_migrations(directory, {"0001_setup.sql": SETUP})
    assert run("up", "--dir", str(directory), "--dsn", dsn).exit_code == 0
    write_migrations(directory, {"0002_change.sql": "ALTER TABLE orders ADD UNIQUE (ref);\n"})
    killed_at(spawn, connect, before_closing_transaction(True), *up_args(directory, dsn))
    assert ("orders_ref_key", "(ref)") in _indexes(dsn)
    assert (2, 0, "started") in journal_rows(dsn)


def test_issue_21_review_d5_a_started_recipe_edited_into_another_statement_drops_its_index(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    directory = tmp_path / "m"
    _started_unique_recipe(spawn, connect, db_dsn, directory)
    (directory / "0002_change.sql").write_text("CREATE INDEX orders_note ON orders (note);\n")
    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert up.exit_code == 0, up.output
    assert "dropped public.orders_ref_key (made by an earlier text of this step's recipe)" in (
        up.stdout
    )
    assert [name for name, _ in _indexes(db_dsn)] == ["orders_note"]
    assert _recipe_rows(db_dsn) == 0


def test_issue_21_review_d5_a_started_recipe_moved_down_resumes_with_its_index(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    directory = tmp_path / "m"
    _started_unique_recipe(spawn, connect, db_dsn, directory)
    (directory / "0002_change.sql").write_text(
        "CREATE INDEX orders_note ON orders (note);\nALTER TABLE orders ADD UNIQUE (ref);\n"
    )
    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert up.exit_code == 5, up.output
    assert "its constraint recipe started (it made index orders_ref_key); its text is now " in (
        up.stderr
    )
    assert run("repair", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    # One unique index on ref, the one the earlier run built, attached.
    assert [n for n, d in _indexes(db_dsn) if d == "(ref)"] == ["orders_ref_key"]
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        names = conn.execute(
            "SELECT conname FROM pg_constraint WHERE conrelid = 'orders'::regclass "
            "AND contype = 'u'"
        ).fetchall()
    assert names == [("orders_ref_key",)]
    assert _recipe_rows(db_dsn) == 0


def test_issue_21_review_d5_a_started_recipe_whose_file_is_gone_is_reported(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    directory = tmp_path / "m"
    _started_unique_recipe(spawn, connect, db_dsn, directory)
    (directory / "0002_change.sql").unlink()
    for command in ("status", "up"):
        result = run(command, "--dir", str(directory), "--dsn", db_dsn)
        assert result.exit_code == 5, result.output
    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert "its constraint recipe started (it made index orders_ref_key); the file is gone" in (
        up.stderr
    )
    repair = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--forget-batches")
    assert repair.exit_code == 2, repair.output
    assert "index orders_ref_key are still on the table" in repair.stderr
    assert "drop index orders_ref_key by hand" in repair.stderr
    assert ("orders_ref_key", "(ref)") in _indexes(db_dsn)
