"""planning.applied_elsewhere: the relations the first pending migrations create with a CREATE
that fails when the name is taken (issue 21, review 21h D2), looked up by up when the journal is
empty. Pure: no database."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.model import QualifiedName
from safemigrate.planning.applied_elsewhere import first_creates
from safemigrate.planning.migrations import load_migrations


def _creates(tmp_path: Path, files: dict[str, str], limit: int = 50) -> list[tuple[str, int, str]]:
    directory = tmp_path / "m"
    directory.mkdir()
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return [
        (c.filename, c.line, str(c.relation))
        for c in first_creates(load_migrations(directory), limit)
    ]


def test_the_plain_creates_in_run_order(tmp_path: Path) -> None:
    files = {
        "0001_a.sql": 'CREATE TABLE "Example" (id int);\nCREATE TABLE app.account (id int);\n'
        "CREATE UNIQUE INDEX account_key ON app.account (id);\n",
        "0002_b.sql": "CREATE VIEW v AS SELECT 1;\nCREATE SEQUENCE s;\n"
        "CREATE MATERIALIZED VIEW mv AS SELECT 1;\nSELECT 1 AS x INTO copied;\n",
    }
    assert _creates(tmp_path, files) == [
        ("0001_a.sql", 1, "Example"),
        ("0001_a.sql", 2, "app.account"),
        ("0002_b.sql", 1, "v"),
        ("0002_b.sql", 2, "s"),
        ("0002_b.sql", 3, "mv"),
        ("0002_b.sql", 4, "copied"),
    ]


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE TABLE IF NOT EXISTS t (id int);",
        "CREATE OR REPLACE VIEW t AS SELECT 1;",
        "CREATE SEQUENCE IF NOT EXISTS t;",
        "CREATE INDEX IF NOT EXISTS t ON x (id);",
        "CREATE INDEX ON x (id);",  # PostgreSQL picks a free name
        # an index of the name may be an earlier build's invalid leftover: the build judges it
        "CREATE UNIQUE INDEX t ON x (id);",
        "CREATE TEMP TABLE t (id int);",
        "CREATE TABLE pg_temp.t (id int);",
        "CREATE TABLE IF NOT EXISTS t AS SELECT 1;",
        "DROP TABLE IF EXISTS t;\nCREATE TABLE t (id int);",
        "ALTER TABLE old RENAME TO t;\nCREATE TABLE t (id int);",
        "ALTER TABLE t RENAME TO old;\nCREATE TABLE t (id int);",
        "ALTER TABLE t SET SCHEMA archive;\nCREATE TABLE t (id int);",
    ],
)
def test_creates_that_may_meet_an_existing_name_do_not_count(tmp_path: Path, sql: str) -> None:
    assert _creates(tmp_path, {"0001_a.sql": f"{sql}\n"}) == []


def test_the_walk_stops_where_the_search_path_changes(tmp_path: Path) -> None:
    files = {
        "0001_a.sql": "CREATE TABLE a (id int);\n",
        "0002_b.sql": "SET search_path = app;\nCREATE TABLE b (id int);\n",
        "0003_c.sql": "CREATE TABLE c (id int);\n",
    }
    assert _creates(tmp_path, files) == [("0001_a.sql", 1, "a")]


@pytest.mark.parametrize(
    "sql",
    [
        "DROP TABLE old CASCADE;",  # may drop a view the next file creates
        "DROP SCHEMA app;",
        "DROP OWNED BY someone;",
        "DO $$ BEGIN EXECUTE 'DROP TABLE b'; END $$;",
        "CALL cleanup();",
    ],
)
def test_the_walk_stops_where_names_may_be_freed_unseen(tmp_path: Path, sql: str) -> None:
    files = {
        "0001_a.sql": "CREATE TABLE a (id int);\n",
        "0002_b.sql": f"{sql}\nCREATE TABLE b (id int);\n",
    }
    assert _creates(tmp_path, files) == [("0001_a.sql", 1, "a")]


def test_at_most_limit_relations(tmp_path: Path) -> None:
    files = {f"{n:04d}_t.sql": f"CREATE TABLE t{n} (id int);\n" for n in range(1, 8)}
    assert [c[2] for c in _creates(tmp_path, files, limit=3)] == ["t1", "t2", "t3"]


def test_relation_names_are_as_the_parser_folds_them(tmp_path: Path) -> None:
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_a.sql").write_text(
        'CREATE TABLE Foo (id int);\nCREATE TABLE "Bar" (id int);\n'
    )
    assert [c.relation for c in first_creates(load_migrations(directory))] == [
        QualifiedName(None, "foo"),
        QualifiedName(None, "Bar"),
    ]
