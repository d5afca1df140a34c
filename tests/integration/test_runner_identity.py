"""The runner's own statements run as the runner, whatever role a migration switches to
(issue 21 review21b F7).

``SET ROLE owner`` is the usual way to make a role own what a migration creates
(https://www.postgresql.org/docs/current/sql-set-role.html). The step's statements run as that
role; the journal rows, batch progress, recipe records and the runner's own tables are
written as the connection's role (``SET LOCAL SESSION AUTHORIZATION DEFAULT; SET LOCAL ROLE
NONE``, undone at the end of each transaction), so nothing fails with 42501 and the runner's
tables never take a migration's role as their owner.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from tests.support.runner import journal_rows, run, write_migrations

RUNNER_TABLES = (
    "safemigrate_history",
    "safemigrate_history_batches",
    "safemigrate_history_recipes",
)


@pytest.fixture
def owner(db_dsn: str) -> Iterator[str]:
    """A NOLOGIN, non-superuser role (cluster-wide: named after the test's database)."""
    name = f"own_{conninfo_to_dict(db_dsn)['dbname']}"
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{name}" NOLOGIN')
    yield name
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute(f'DROP OWNED BY "{name}" CASCADE')
        conn.execute(f'DROP ROLE "{name}"')


def _owners(dsn: str) -> dict[str, str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT c.relname, c.relowner::regrole::text FROM pg_class c "
            "WHERE c.relkind IN ('r', 'p') AND c.relnamespace IN "
            "('public'::regnamespace, to_regnamespace('appx'))"
        ).fetchall()
    return {str(r[0]): str(r[1]) for r in rows}


def _migrations(tmp_path: Path, owner: str, switch: str = "SET ROLE") -> Path:
    return write_migrations(
        tmp_path / "m",
        {
            "0001_schema.sql": f'CREATE SCHEMA appx AUTHORIZATION "{owner}";\n',
            "0002_role.sql": (
                f'{switch} "{owner}";\n'
                "CREATE TABLE appx.items (id int PRIMARY KEY, n int NOT NULL DEFAULT 0);\n"
                "INSERT INTO appx.items SELECT generate_series(1, 2500);\n"
            ),
            # A batched step after the role switch: its progress rows and the runner's
            # progress table (created now) are the runner's.
            "0003_backfill.sql": (
                "-- safemigrate: batch-size=1000\nUPDATE appx.items SET n = n + 1;\n"
            ),
            # A constraint recipe: its object records, its NOT VALID part and VALIDATE.
            "0004_check.sql": (
                "ALTER TABLE appx.items ADD CONSTRAINT items_n_check CHECK (n > 0);\n"
            ),
            "0005_block.sql": (
                "BEGIN;\nCREATE TABLE appx.more (id int);\nCREATE TABLE appx.more2 (id int);\n"
                "COMMIT;\n"
            ),
        },
    )


def _check_owned(dsn: str, runner: str, owner: str) -> None:
    owners = _owners(dsn)
    assert {t: owners[t] for t in ("items", "more", "more2")} == dict.fromkeys(
        ("items", "more", "more2"), owner
    ), owners
    runner_tables = {t: o for t, o in owners.items() if t.startswith("safemigrate")}
    assert set(RUNNER_TABLES) <= set(runner_tables), owners
    assert set(runner_tables.values()) == {runner}, owners
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*), sum(n) FROM appx.items").fetchone() == (2500, 2500)
        row = conn.execute(
            "SELECT convalidated FROM pg_constraint WHERE conname = 'items_n_check'"
        ).fetchone()
        assert row == (True,)


@pytest.mark.parametrize("switch", ["SET ROLE", "SET SESSION AUTHORIZATION"])
def test_a_migrations_set_role_owns_its_objects_and_the_runner_writes_as_itself(
    db_dsn: str, tmp_path: Path, owner: str, switch: str
) -> None:
    """issue 21 review21b F7: ``SET ROLE owner`` made the journal row fail with 42501
    (permission denied for table safemigrate_history), and a later batched step created the
    runner's progress table owned by the migration's role; SET SESSION AUTHORIZATION the same."""
    directory = _migrations(tmp_path, owner, switch)
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert result.exit_code == 0, result.output
    assert "42501" not in result.output
    _check_owned(db_dsn, str(conninfo_to_dict(db_dsn).get("user") or "postgres"), owner)
    assert {r[2] for r in journal_rows(db_dsn)} == {"applied"}
    # A rerun replays SET ROLE on its new session and still reads its journal as itself.
    for command in ("up", "status"):
        again = run(command, "--dir", str(directory), "--dsn", db_dsn)
        assert again.exit_code == 0, again.output


def test_a_non_superuser_runner_switching_to_its_owner_role_writes_as_itself(
    db_dsn: str, tmp_path: Path, owner: str
) -> None:
    """issue 21 review21b F7, without superuser: the run connects as a login role that is a
    member of the owner role and owns the database's public schema; after the migration's
    SET ROLE its own writes still run as that login role."""
    login = f"{owner}_deploy"
    dbname = conninfo_to_dict(db_dsn)["dbname"]
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{login}" LOGIN')
        conn.execute(f'GRANT "{owner}" TO "{login}"')
        conn.execute(f'GRANT CREATE ON DATABASE "{dbname}" TO "{login}"')
        conn.execute(f'ALTER SCHEMA public OWNER TO "{login}"')
    try:
        dsn = make_conninfo(db_dsn, user=login)
        directory = _migrations(tmp_path, owner)
        result = run("up", "--dir", str(directory), "--dsn", dsn, "--format", "json")
        assert result.exit_code == 0, result.output
        assert "42501" not in result.output
        _check_owned(db_dsn, login, owner)
        again = run("up", "--dir", str(directory), "--dsn", dsn)
        assert again.exit_code == 0, again.output
    finally:
        with psycopg.connect(db_dsn, autocommit=True) as conn:
            conn.execute(f'DROP OWNED BY "{login}" CASCADE')
            conn.execute(f'DROP ROLE "{login}"')
