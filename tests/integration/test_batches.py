"""Batched data changes (``-- safemigrate: batch-size=N``) against a real PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.runner import journal_rows, run, write_migrations
from tests.support.tables import all_rows, rows_by_n


def _table(dsn: str, rows: int, *, key: str = "id bigint PRIMARY KEY") -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE items ({key}, n int NOT NULL DEFAULT 0, note text)")
        if "PRIMARY" in key or "UNIQUE" in key:
            conn.execute(
                "INSERT INTO items (id, n) SELECT g, 0 FROM generate_series(1, %s) g", [rows]
            )
        conn.execute("ANALYZE items")


def _batch_rows(dsn: str) -> list[tuple[Any, ...]]:
    return all_rows(
        dsn,
        "SELECT batch, walked, changed, last_key FROM safemigrate_history_batches ORDER BY batch",
    )


def test_a_batched_update_changes_every_row_once_in_batches(db_dsn: str, tmp_path: Path) -> None:
    _table(db_dsn, 2500)
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_backfill.sql": """
                -- safemigrate: batch-size=1000
                UPDATE items SET n = n + 1, note = 'it''s done' WHERE n >= 0;
            """
        },
    )
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert result.exit_code == 0, result.output
    assert rows_by_n(db_dsn, "items") == {1: 2500}
    assert [(b, w, c, k) for b, w, c, k in _batch_rows(db_dsn)] == [
        (1, 1000, 1000, ["1000"]),
        (2, 1000, 1000, ["2000"]),
        (3, 500, 500, ["2500"]),
    ]
    rows = journal_rows(db_dsn)
    assert [r[2] for r in rows] == ["applied"], rows
    progress = [e for e in result.events() if e["event"] == "batch_progress"]
    assert progress[0]["batches"] == 1 and progress[0]["rows_total"] == 2500
    final = progress[-1]
    assert final["finished"] and final["batches"] == 3 and final["rows_done"] == 2500
    assert final["rows_changed"] == 2500 and final["percent"] == 100.0


def test_the_statements_own_where_is_kept_and_text_output_shows_batches(
    db_dsn: str, tmp_path: Path
) -> None:
    _table(db_dsn, 300)
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_backfill.sql": """
                -- safemigrate: batch-size=100 batch-pause=10ms
                DELETE FROM items WHERE id % 2 = 0 OR id > 290;
            """
        },
    )
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert "batched: 3 batches, 300 rows walked, 155 changed" in result.stdout, result.stdout
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        left = conn.execute("SELECT count(*) FROM items").fetchone()
    assert left is not None and left[0] == 145


def test_a_composite_unique_not_null_key_is_walked_as_a_row(db_dsn: str, tmp_path: Path) -> None:
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute(
            'CREATE TABLE "Pairs" ("Region" text NOT NULL, k int NOT NULL, n int, '
            'UNIQUE ("Region", k))'
        )
        conn.execute(
            """INSERT INTO "Pairs" SELECT r, k, 0 FROM unnest(ARRAY['a''b', 'b', 'c d']) r,
            generate_series(1, 7) k"""
        )
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_backfill.sql": """
                -- safemigrate: batch-size=4
                UPDATE "Pairs" AS p SET n = p.n + 1;
            """
        },
    )
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, "--lint-gate", "off")
    assert result.exit_code == 0, result.output
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        counts = conn.execute('SELECT n, count(*) FROM "Pairs" GROUP BY n').fetchall()
    assert counts == [(1, 21)]
    assert len(_batch_rows(db_dsn)) == 6


@pytest.mark.parametrize(
    ("table", "statement", "message"),
    [
        ("id int", "UPDATE items SET n = 1 WHERE n = 0", "no primary key and no unique index"),
        (
            "id int PRIMARY KEY",
            "UPDATE items SET id = id + 1 WHERE n = 0",
            "updates the key column id",
        ),
    ],
)
def test_what_the_catalog_refuses_exits_2_before_any_batch(
    db_dsn: str, tmp_path: Path, table: str, statement: str, message: str
) -> None:
    _table(db_dsn, 10, key=table)
    directory = write_migrations(
        tmp_path / "m",
        {"0001_backfill.sql": f"-- safemigrate: batch-size=5\n{statement};\n"},
    )
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 2, result.output
    error = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert error and "0001_backfill.sql:2: batch-size: " in error[0] and message in error[0]
    assert [r for r in journal_rows(db_dsn) if r[2] == "applied"] == []


@pytest.mark.parametrize(
    ("sql", "line", "message"),
    [
        (
            "BEGIN;\n-- safemigrate: batch-size=5\nUPDATE items SET n = 1 WHERE n = 0;\nCOMMIT;\n",
            2,
            "cannot apply to an explicit BEGIN/COMMIT block",
        ),
        (
            "-- safemigrate: batch-size=5\nBEGIN;\nUPDATE items SET n = 1 WHERE n = 0;\nCOMMIT;\n",
            1,
            "cannot apply to an explicit BEGIN/COMMIT block",
        ),
        (
            "-- safemigrate: batch-size=5\n-- safemigrate: group-start\n"
            "UPDATE items SET n = 1 WHERE n = 0;\n-- safemigrate: group-end\n",
            2,
            "cannot apply to a group",
        ),
        ("-- safemigrate: batch-size=5\nINSERT INTO items VALUES (1);\n", 2, "only an UPDATE"),
        (
            "-- safemigrate: batch-size=5\nUPDATE items SET n = 1 WHERE n = 0 RETURNING id;\n",
            2,
            "cannot have RETURNING",
        ),
        (
            "-- safemigrate: batch-size=5\n"
            "DELETE FROM items WHERE id IN (SELECT id FROM items LIMIT 3);\n",
            2,
            "cannot have a LIMIT",
        ),
        ("-- safemigrate: batch-pause=1s\nDELETE FROM items WHERE n = 0;\n", 1, "only with"),
        ("-- safemigrate: batch-size=0\nDELETE FROM items WHERE n = 0;\n", 1, "batch-size must"),
    ],
)
def test_what_cannot_be_batched_is_refused_with_exit_2(
    db_dsn: str, tmp_path: Path, sql: str, line: int, message: str
) -> None:
    _table(db_dsn, 10)
    directory = write_migrations(tmp_path / "m", {"0001_backfill.sql": sql})
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, "--lint-gate", "off")
    assert result.exit_code == 2, result.output
    error = [x for x in result.output.splitlines() if x.startswith("error:")]
    assert error and f"0001_backfill.sql:{line}: " in error[0] and message in error[0], error
    assert rows_by_n(db_dsn, "items") == {0: 10}


def test_a_table_created_in_the_same_migration_is_changed_as_written(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_new.sql": """
                CREATE TABLE fresh (id int PRIMARY KEY, n int);
                INSERT INTO fresh SELECT g, 0 FROM generate_series(1, 10) g;
                -- safemigrate: batch-size=3
                UPDATE fresh SET n = 1;
            """
        },
    )
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert "not batched: fresh was created earlier in this migration" in result.stdout
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT sum(n) FROM fresh").fetchone() == (10,)


def test_plan_shows_the_batching(db_dsn: str, tmp_path: Path) -> None:
    _table(db_dsn, 2500)
    directory = write_migrations(
        tmp_path / "m",
        {"0001_backfill.sql": "-- safemigrate: batch-size=1000\nUPDATE items SET n = 1;\n"},
    )
    result = run("plan", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert "batched: 1000 keys per batch by key (id), ~3 batches" in result.stdout
    check = run("check", "--dir", str(directory))
    assert "unbounded-data-change" not in check.output, check.output
