"""The default layout refuses to apply its directory from scratch onto a database that already
holds what the first migrations create (issue 21, review 21h D2): psql applied 0001-0002, the
journal is empty, and `up` ran 0001's first step again (resurrecting a table 0002 dropped,
journaled applied) before failing on the next with 42P07. Now `up`, `up --dry-run` and `plan
--dsn` refuse before anything runs (exit 2, with the baseline hint), as the tool layouts refuse
a database that holds relations but no history; a fresh database and one holding unrelated
tables apply as before."""

from __future__ import annotations

from pathlib import Path

import psycopg

from tests.support.runner import journal_rows, run, write_migrations

FILES = {
    "0001_init.sql": "CREATE TABLE example (id int);\nCREATE TABLE account (id int);\n",
    "0002_drop_example.sql": "DROP TABLE example;\n",
    "0003_later.sql": "CREATE TABLE later (id int);\n",
}


def _sql(dsn: str, text: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(text)


def _has(dsn: str, name: str) -> bool:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()
    return bool(row and row[0])


def _journal_exists(dsn: str) -> bool:
    return _has(dsn, "public.safemigrate_history")


def test_a_history_applied_by_hand_is_refused_until_baselined(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", FILES)
    _sql(db_dsn, FILES["0001_init.sql"] + FILES["0002_drop_example.sql"])
    for command in (("up",), ("up", "--dry-run"), ("plan",)):
        result = run(*command, "--dir", str(directory), "--dsn", db_dsn)
        assert result.exit_code == 2, (command, result.output)
        assert "the journal is empty, while the database already holds public.account" in (
            result.output
        )
        assert "0001_init.sql:2 creates public.account" in result.output
        assert "from scratch" in result.output and "safemigrate baseline VERSION" in result.output
        assert "Traceback" not in result.output
    assert not _has(db_dsn, "example")  # not resurrected
    assert not _has(db_dsn, "later")
    assert not _journal_exists(db_dsn)

    result = run("baseline", "2", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert _has(db_dsn, "later") and not _has(db_dsn, "example")
    assert [(r[0], r[2]) for r in journal_rows(db_dsn)][-1] == (3, "applied")


def test_a_fresh_database_and_unrelated_tables_apply(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", FILES)
    _sql(db_dsn, "CREATE TABLE other_app (id int); CREATE INDEX other_idx ON other_app (id)")
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert _has(db_dsn, "account") and _has(db_dsn, "later") and not _has(db_dsn, "example")


def test_only_a_create_that_would_fail_counts(db_dsn: str, tmp_path: Path) -> None:
    _sql(db_dsn, "CREATE TABLE account (id int); CREATE TABLE audit (id int)")
    files = {
        # freed before its CREATE, or created only if missing: up would not fail on them
        "0001_a.sql": "DROP TABLE IF EXISTS account;\nCREATE TABLE account (id int);\n",
        "0002_b.sql": "CREATE TABLE IF NOT EXISTS audit (id int);\n",
        "0003_c.sql": "CREATE TABLE new_one (id int);\n",
    }
    result = run("up", "--dir", str(write_migrations(tmp_path / "m", files)), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert _has(db_dsn, "new_one")


def test_an_existing_relation_in_another_schema_is_found_as_qualified(
    db_dsn: str, tmp_path: Path
) -> None:
    _sql(db_dsn, "CREATE SCHEMA app; CREATE TABLE app.items (id int)")
    files = {"0001_a.sql": "CREATE TABLE items (id int);\nCREATE TABLE app.items (id int);\n"}
    result = run("up", "--dir", str(write_migrations(tmp_path / "m", files)), "--dsn", db_dsn)
    assert result.exit_code == 2, result.output
    assert "already holds app.items, which the migrations create (0001_a.sql:2" in result.output
    assert not _has(db_dsn, "public.items")


def test_a_relation_of_the_name_in_a_later_schema_of_the_path_is_not_in_the_way(
    db_dsn: str, tmp_path: Path
) -> None:
    # An unqualified CREATE creates in the current schema, the first existing one of the
    # search_path (PostgreSQL docs, 5.9.3 The Schema Search Path): a shared public.items behind
    # it does not stop it.
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA app; CREATE TABLE public.items (id int)")
        dbname = conn.info.dbname
        conn.execute(f'ALTER DATABASE "{dbname}" SET search_path = app, public')
    files = {"0001_a.sql": "CREATE TABLE items (id int);\n"}
    result = run("up", "--dir", str(write_migrations(tmp_path / "m", files)), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert _has(db_dsn, "app.items")
