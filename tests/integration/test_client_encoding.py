"""The runner's session stays client_encoding UTF8 (a review of issue 21 found otherwise).

Before: ``SET client_encoding = 'SQL_ASCII'`` in a migration (pg_dump writes it for an
SQL_ASCII database) made the next step crash with a traceback (psycopg returns bytes for
SQL_ASCII) and every rerun crash again in the session replay; ``'LATIN1'`` and a later
non-Latin-1 character did the same. A database or role whose client_encoding setting is not
UTF8 reached the runner too. Now the runner connects with ``client_encoding=UTF8`` (a
connection parameter is applied after the role's and database's settings: PostgreSQL docs,
"Setting Parameters", 20.1.4), and a migration that switches away from UTF8 is refused with
file:line before anything runs.
"""

from __future__ import annotations

from pathlib import Path

from psycopg import sql

from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations

TEXT = "café ✓ 日本"


def test_a_database_whose_client_encoding_is_latin1_gets_utf8_text_intact(
    connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    admin = connect()
    name = admin.execute("SELECT current_database()").fetchone()
    assert name is not None
    admin.execute(
        sql.SQL("ALTER DATABASE {} SET client_encoding = 'LATIN1'").format(sql.Identifier(name[0]))
    )
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0002_t.sql": "CREATE TABLE t (s text);\n",
            "0003_row.sql": f"INSERT INTO t VALUES ('{TEXT}');\n",
        },
    )
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    # A new session of the test's own would be LATIN1 now, which cannot carry the text.
    reader = connect(client_encoding="UTF8")
    assert reader.execute("SELECT s FROM t").fetchone() == (TEXT,)
    status = run("status", "--dir", str(migrations), "--dsn", db_dsn)
    assert status.exit_code == 0, status.output


def test_a_migration_switching_to_sql_ascii_is_refused_before_anything_runs(
    connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_t.sql": "CREATE TABLE t (s text);\n",
            "0002_dump.sql": "-- as pg_dump writes it\nSET client_encoding = 'SQL_ASCII';\n",
            "0003_row.sql": f"INSERT INTO t VALUES ('{TEXT}');\n",
        },
    )
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert result.exit_code == 2, result.output
    assert "0002_dump.sql:2: SET client_encoding TO 'SQL_ASCII'" in result.output
    assert "Traceback" not in result.output
    assert journal_rows(db_dsn) == []
    assert connect().execute("SELECT to_regclass('t')").fetchone() == (None,)
    checked = run("check", "--dir", str(migrations))
    assert checked.exit_code == 2 and "0002_dump.sql" in checked.output


def test_pg_dumps_utf8_preamble_runs(connect: ConnectFactory, db_dsn: str, tmp_path: Path) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_dump.sql": "SET client_encoding = 'UTF8';\nCREATE TABLE t (s text);\n",
            "0002_row.sql": f"INSERT INTO t VALUES ('{TEXT}');\n",
        },
    )
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert connect().execute("SELECT s FROM t").fetchone() == (TEXT,)


def test_issue_21_review21i_a_run_time_setting_name_is_refused_naming_the_guard(
    connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    """issue 21 review21i (guard2.sh, "Cosmetic"): ``set_config(s, '0', true) FROM cfg`` was
    refused with the client_encoding message alone; the refusal says what is wrong: a name
    known only when it runs may switch the timeout guard off."""
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_t.sql": "CREATE TABLE t (s text);\n",
            "0002_cfg.sql": (
                "SELECT set_config(s, '0', true) FROM (VALUES ('lock_timeout')) v(s);\n"
            ),
        },
    )
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert result.exit_code == 2, result.output
    assert "0002_cfg.sql:1: set_config(s, '0', TRUE): its setting name is not a constant" in (
        result.output
    )
    assert "switch the runner's timeout guard off" in result.output
    assert "Traceback" not in result.output
    assert journal_rows(db_dsn) == []
    assert connect().execute("SELECT to_regclass('t')").fetchone() == (None,)
