"""Issue 22 review: the switch from another tool, attacked with the real tools.

Each test cites the review finding it closes (/work/notes/review22/findings.md, "issue 22
review F<n>").
"""

from __future__ import annotations

import re
import subprocess
import threading
import time
from pathlib import Path

import psycopg
import pytest

from tests.fixtures_db import PgServer
from tests.integration.test_adopt_real_tools import _dbmate
from tests.integration.test_check_plan_rehearse import _rehearse, rehearse_tmp
from tests.integration.test_switch import DBMATE_SET, _dbmate_program, _pg_dump
from tests.support.runner import run, write_migrations

__all__ = ["rehearse_tmp"]  # the fixture, used by name

PLAIN = {
    "0001_a.sql": "CREATE TABLE a (id int);\n",
    "0002_b.sql": "CREATE TABLE b (id int);\n",
}


def _execute(dsn: str, *statements: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


# -- F2: a table that merely has a history table's name ------------------------------------


@pytest.mark.parametrize(
    ("table", "layout"),
    [
        ("schema_migrations (id serial PRIMARY KEY, note text)", "safemigrate"),
        ("schema_migrations (id serial PRIMARY KEY, note text)", "auto"),
        ("_yoyo_migration (id int, name text)", "safemigrate"),
        ("flyway_schema_history (id int)", "safemigrate"),
        ("_sqlx_migrations (x int)", "safemigrate"),
        ("__diesel_schema_migrations (x int)", "safemigrate"),
    ],
)
def test_issue_22_review_f2_an_apps_table_with_a_history_tables_name_is_not_that_history(
    db_dsn: str, tmp_path: Path, table: str, layout: str
) -> None:
    _execute(db_dsn, f"CREATE TABLE {table}")
    directory = write_migrations(tmp_path / "migrations", PLAIN)
    where = ["--dir", str(directory), "--dsn", db_dsn]
    env = {"SAFEMIGRATE_LAYOUT": layout}
    for command in (["status"], ["plan"], ["up", "--dry-run"]):
        result = run(*command, *where, env=env)
        assert result.exit_code == 0, (command, result.output)
        assert "runner's own" not in result.output
    result = run("up", *where, env=env)
    assert result.exit_code == 0, result.output
    assert "switched" not in result.output
    after = run("status", *where, env=env)
    assert after.exit_code == 0 and after.stdout.count("applied") >= 2, after.output


@pytest.mark.parametrize(
    ("table", "layout"),
    [
        ("schema_migrations (id serial PRIMARY KEY, note text)", "dbmate"),
        ("_yoyo_migration (id int, name text)", "yoyo"),
        ("_sqlx_migrations (version bigint)", "sqlx"),
    ],
)
def test_issue_22_review_f2_under_the_tools_layout_a_table_without_its_columns_is_ignored(
    db_dsn: str, tmp_path: Path, table: str, layout: str
) -> None:
    _execute(db_dsn, f"CREATE TABLE {table}")
    files = {
        "dbmate": {"20260101000001_a.sql": "-- migrate:up\nCREATE TABLE a (id int);\n"},
        "yoyo": {"0001.a.sql": "CREATE TABLE a (id int);\n"},
        "sqlx": {"20260101000001_a.sql": "CREATE TABLE a (id int);\n"},
    }[layout]
    directory = write_migrations(tmp_path / "migrations", files)
    where = ["--dir", str(directory), "--dsn", db_dsn]
    result = run("up", *where, env={"SAFEMIGRATE_LAYOUT": layout})
    assert result.exit_code == 0, result.output
    assert "switched" not in result.output
    # The app's table was not written as the tool's history.
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        name = table.split(" ", 1)[0]
        row = conn.execute(f"SELECT count(*) FROM {name}").fetchone()
    assert row == (0,)


# -- F3: a URL Python's parser refuses -------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("postgresql://pw:Sekr3t@[bad/dsn", "an unmatched '[' or ']' in the host part"),
        ("postgresql+psycopg://pw:Sekr3t@[bad/dsn", "an unmatched '[' or ']' in the host part"),
        ("jdbc:postgresql://pw:Sekr3t@host]/dsn", "an unmatched '[' or ']' in the host part"),
        ("postgresql://pw:Sekr3t@[zz]/dsn", "the host between '[' and ']' is not an IPv6"),
        ("postgresql://pw:Sekr3t@host/%ff", "a percent-encoded value is not UTF-8 text"),
    ],
)
def test_issue_22_review_f3_a_malformed_url_is_exit_2_in_one_line_without_the_password(
    tmp_path: Path, url: str, problem: str
) -> None:
    directory = write_migrations(tmp_path / "migrations", PLAIN)
    targets = tmp_path / "targets.toml"
    targets.write_text(f'[[target]]\nname = "eu"\ndsn_env = "EU_DSN"\ndir = "{directory}"\n')
    for args, env, source in (
        (["--dsn", url], {}, "--dsn"),
        ([], {"DATABASE_URL": url}, "DATABASE_URL"),
        ([], {"SAFEMIGRATE_DSN": url}, "SAFEMIGRATE_DSN"),
        (["--targets", str(targets)], {"EU_DSN": url}, "EU_DSN"),
    ):
        result = run("status", "--dir", str(directory), *args, env=env)
        assert result.exit_code == 2, (args, env, result.output)
        assert "Traceback" not in result.output and "Sekr3t" not in result.output
        error = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(error) == 1 and problem in error[0] and source in error[0], result.stderr


# -- F6: the ok line and the summary in the README's words -----------------------------------


def test_issue_22_review_f6_pre_checks_behind_a_holder_are_not_counted_as_attempts(
    db_dsn: str, tmp_path: Path
) -> None:
    _execute(db_dsn, "CREATE TABLE users (id int)")
    directory = write_migrations(
        tmp_path / "migrations", {"0001_add.sql": "ALTER TABLE users ADD COLUMN name text;\n"}
    )
    holder = psycopg.connect(db_dsn, application_name="report")
    holder.execute("SELECT * FROM users")  # idle in transaction, holding ACCESS SHARE
    time.sleep(0.7)  # older than lock_precheck_age: the pre-check sees a long holder
    release = threading.Timer(4.0, holder.close)
    release.start()
    try:
        result = run(
            "up",
            "--dir",
            str(directory),
            "--dsn",
            db_dsn,
            "--lock-timeout",
            "300ms",
            "--max-attempts",
            "3",
        )
    finally:
        release.cancel()
        holder.close()
    assert result.exit_code == 0, result.output
    ok = next(line for line in result.stdout.splitlines() if line.startswith("  ok "))
    found = re.search(r"  (\S+), (\d+) pre-checks? \((\S+) polite\)", ok)
    assert found is not None, ok
    assert " attempts" not in ok and "failed attempt" not in ok, ok
    summary = result.stdout.split("steps that had to wait:", 1)[1].splitlines()[1]
    assert f"{found.group(2)} pre-check" in summary and "polite waiting" in summary, summary
    assert "failed attempt" not in summary, summary


# -- F4: rehearse from a schema-only dump of a database the other tool manages ---------------


def test_issue_22_review_f4_rehearse_refuses_a_dump_with_dbmates_table_but_not_its_rows(
    pg_server: PgServer, db_dsn: str, tmp_path: Path, rehearse_tmp: Path
) -> None:
    directory = write_migrations(tmp_path / "db" / "migrations", DBMATE_SET)
    _dbmate(_dbmate_program(), db_dsn, directory)
    write_migrations(
        directory,
        {"20260101000003_more.sql": "-- migrate:up\nALTER TABLE users ADD COLUMN note text;\n"},
    )
    dump = rehearse_tmp / "prod.sql"
    with dump.open("w") as out:
        subprocess.run([_pg_dump(pg_server), "--schema-only", "-d", db_dsn], stdout=out, check=True)
    server = ["--server", str(pg_server.throwaway.bindir)] if pg_server.throwaway else []
    args = ["--dir", str(directory), "--schema-from", str(dump), *server]
    env = {"SAFEMIGRATE_LAYOUT": "dbmate"}

    plain = _rehearse(rehearse_tmp, *args, env=env)
    assert plain.exit_code == 2, plain.output
    assert (
        "the dump has dbmate's history table public.schema_migrations but none of its rows"
        in plain.output
    )
    assert "pg_dump --data-only --table=public.schema_migrations" in plain.output
    assert "42P07" not in plain.output

    # With the rows appended, as the hint says: only the new migration is rehearsed.
    with dump.open("a") as out:
        subprocess.run(
            [_pg_dump(pg_server), "--data-only", "--table=public.schema_migrations", "-d", db_dsn],
            stdout=out,
            check=True,
        )
    result = _rehearse(rehearse_tmp, *args, env=env)
    assert result.exit_code == 0, result.output
    assert "ok 20260101000003_more.sql" in result.stdout
    assert "ok 20260101000001" not in result.stdout
