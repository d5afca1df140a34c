"""Issue 22 review: the switch from another tool, attacked with the real tools.

Each test cites the review finding it closes ("issue 22
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
from tests.integration.test_adopt_real_tools import _dbmate, _yoyo
from tests.integration.test_check_plan_rehearse import _rehearse
from tests.integration.test_switch import DBMATE_SET, _pg_dump
from tests.support.real_tools import dbmate_program, tool_url, yoyo_program
from tests.support.runner import run, up_args, write_migrations

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
def test_issue_22_review_f2_under_the_tools_layout_a_table_without_its_columns_is_not_its_history(
    db_dsn: str, tmp_path: Path, table: str, layout: str
) -> None:
    """Not read as the tool's history; and, the journal being empty while the database holds
    a relation, the tool's directory is not applied from scratch either (review F9): exit 2
    saying the table is not the tool's history."""
    _execute(db_dsn, f"CREATE TABLE {table}")
    files = {
        "dbmate": {"20260101000001_a.sql": "-- migrate:up\nCREATE TABLE a (id int);\n"},
        "yoyo": {"0001.a.sql": "CREATE TABLE a (id int);\n"},
        "sqlx": {"20260101000001_a.sql": "CREATE TABLE a (id int);\n"},
    }[layout]
    directory = write_migrations(tmp_path / "migrations", files)
    where = ["--dir", str(directory), "--dsn", db_dsn]
    result = run("up", *where, env={"SAFEMIGRATE_LAYOUT": layout})
    assert result.exit_code == 2, result.output
    assert f"is not {layout}'s history table" in result.output
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
            *up_args(
                directory, db_dsn, "--lock-timeout", "300ms", "--max-attempts", "3", json=False
            )
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
    _dbmate(dbmate_program(), db_dsn, directory)
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


# -- F5: a migration the other tool applied whose file is gone -------------------------------

DBMATE_THREE = {
    "20260101000001_init.sql": "-- migrate:up\nCREATE TABLE items (id int);\n-- migrate:down\n",
    "20260115000001_late.sql": "-- migrate:up\nINSERT INTO items VALUES (1);\n-- migrate:down\n",
    "20260201000001_more.sql": (
        "-- migrate:up\nALTER TABLE items ADD COLUMN note text;\n-- migrate:down\n"
    ),
}


def test_issue_22_review_f5_a_dbmate_migration_whose_file_is_gone_is_named_and_repair_clears_it(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(tmp_path / "db" / "migrations", DBMATE_THREE)
    _dbmate(dbmate_program(), db_dsn, directory)
    (directory / "20260115000001_late.sql").unlink()
    write_migrations(
        directory,
        {
            "20260301000001_next.sql": (
                "-- migrate:up\nINSERT INTO items VALUES (2);\n-- migrate:down\n"
            )
        },
    )
    env = {"SAFEMIGRATE_LAYOUT": "dbmate"}
    where = ["--dir", str(directory), "--dsn", db_dsn]
    named = (
        "version 20260115000001 (dbmate's public.schema_migrations): applied by dbmate, but "
        "its file is gone"
    )
    for command in (["status"], ["up"], ["adopt"]):
        result = run(*command, *where, env=env)
        assert result.exit_code == 5, (command, result.output)
        assert named in result.output, result.output
        assert "safemigrate repair" in result.output
        assert "20260115000001_20260115000001.sql" not in result.output
    assert _items(db_dsn) == [(1,)]  # nothing ran, nothing was adopted

    dry = run("repair", "--dry-run", *where, env=env)
    assert dry.exit_code == 0, dry.output
    assert "version 20260115000001 (dbmate's public.schema_migrations) step 1: forget" in (
        dry.output
    )
    repaired = run("repair", *where, env=env)
    assert repaired.exit_code == 0, repaired.output
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        logged = conn.execute(
            "SELECT action, version FROM public.safemigrate_history_repairs"
        ).fetchall()
        kept = conn.execute("SELECT version FROM schema_migrations ORDER BY 1").fetchall()
    assert logged == [("forget", 20260115000001)]
    assert ("20260115000001",) in kept  # dbmate's row stays

    # Forgotten for good: status, adopt and up agree, and the rest is adopted, not run again.
    status = run("status", *where, env=env)
    assert status.exit_code == 0, status.output
    assert "20260115000001" not in status.stdout.split("switch", 1)[0].split("journal", 1)[-1]
    assert run("adopt", *where, env=env).exit_code == 0
    up = run("up", *where, env=env)
    assert up.exit_code == 0, up.output
    assert "ok 20260301000001_next.sql" in up.stdout
    assert "20260101000001_init.sql:" not in up.stdout
    assert _items(db_dsn) == [(1,), (2,)]
    again = run("status", *where, env=env)
    assert again.exit_code == 0 and "missing" not in again.stdout, again.output


def _items(dsn: str) -> list[tuple[int]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return [(int(r[0]),) for r in conn.execute("SELECT id FROM items ORDER BY id")]


# -- F1: the other tool ran a migration safemigrate left partial ----------------------------


def test_issue_22_review_f1_yoyo_finishing_a_partial_migration_is_refused_not_run_again(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "migrations", {"0001.t.sql": "CREATE TABLE t (id int);\n"}
    )
    _yoyo(yoyo_program(), db_dsn, directory)
    write_migrations(
        directory,
        {
            "0002.fill.sql": (
                "INSERT INTO t VALUES (5);\nINSERT INTO t2 VALUES (1);\nINSERT INTO t VALUES (6);\n"
            )
        },
    )
    env = {"SAFEMIGRATE_LAYOUT": "yoyo"}
    where = ["--dir", str(directory), "--dsn", db_dsn]
    failed = run("up", *where, env=env)  # step 2 fails: 0002 is partial, 1 of 3 steps
    assert failed.exit_code == 1, failed.output
    # A teammate creates t2 and runs yoyo, which runs 0002 whole (its first INSERT again).
    _execute(db_dsn, "CREATE TABLE t2 (id int)")
    _yoyo(yoyo_program(), db_dsn, directory)
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        before = conn.execute("SELECT id FROM t ORDER BY id").fetchall()
    assert before == [(5,), (5,), (6,)]

    for command in (["status"], ["up", "--dry-run"], ["up"], ["adopt"]):
        result = run(*command, *where, env=env)
        assert result.exit_code == 5, (command, result.output)
        assert (
            "0002.fill.sql: public._yoyo_migration records it as applied by yoyo, but the "
            "journal has 1 of its 3 steps"
        ) in result.output, result.output
        assert "safemigrate baseline 0002" in result.output
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        after = conn.execute("SELECT id FROM t ORDER BY id").fetchall()
    assert after == before  # its last steps were not run a second time

    # The way out the hint names: fixed by hand, recorded as applied.
    assert run("baseline", "0002", *where, env=env).exit_code == 0
    status = run("status", *where, env=env)
    assert status.exit_code == 0, status.output
    assert run("up", *where, env=env).exit_code == 0


# -- F2b: the journal's own name taken by another table -------------------------------------


@pytest.mark.parametrize(
    ("table", "env"),
    [
        ("safemigrate_history (id int, note text)", {}),
        (
            "schema_migrations (version varchar(128) PRIMARY KEY)",
            {"SAFEMIGRATE_JOURNAL_TABLE": "schema_migrations"},
        ),
    ],
)
def test_issue_22_review_f2b_a_table_in_the_journals_place_is_refused_naming_the_setting(
    db_dsn: str, tmp_path: Path, table: str, env: dict[str, str]
) -> None:
    _execute(db_dsn, f"CREATE TABLE {table}")
    directory = write_migrations(tmp_path / "migrations", PLAIN)
    where = ["--dir", str(directory), "--dsn", db_dsn]
    for command in (
        ["status"],
        ["up", "--dry-run"],
        ["up"],
        ["adopt"],
        ["repair"],
        ["baseline", "0001"],
    ):
        result = run(*command, *where, env=env)
        assert result.exit_code == 2, (command, result.output)
        assert "exists but is not a safemigrate journal" in result.output, result.output
        assert "journal_table" in result.output and "runner's own" not in result.output
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT to_regclass('a')").fetchone() == (None,)


# -- F10: a dump psql cannot load ------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "said", "hint"),
    [
        (b"PGDMP\x01\x0e\x00", "a pg_dump custom-format archive", "pg_restore -f prod.sql"),
        (b"\x1f\x8b\x08\x00rest", "is gzip-compressed", "gunzip -k"),
    ],
)
def test_issue_22_review_f10_rehearse_names_a_custom_format_or_compressed_dump(
    tmp_path: Path, rehearse_tmp: Path, content: bytes, said: str, hint: str
) -> None:
    directory = write_migrations(tmp_path / "migrations", PLAIN)
    dump = tmp_path / "prod.dump"
    dump.write_bytes(content)
    result = _rehearse(rehearse_tmp, "--dir", str(directory), "--schema-from", str(dump))
    assert result.exit_code == 2, result.output
    assert said in result.output and hint in result.output, result.output


# -- F9b: yoyo's schema= URL parameter --------------------------------------------------------


def test_issue_22_review_f9b_yoyos_schema_parameter_finds_its_history_there(
    db_dsn: str, tmp_path: Path
) -> None:
    _execute(db_dsn, "CREATE SCHEMA app")
    files = {
        "0001.items.sql": "CREATE TABLE IF NOT EXISTS items (id int);\n",
        "0002.seed.sql": "INSERT INTO items VALUES (1);\n",
    }
    directory = write_migrations(tmp_path / "migrations", files)
    url = tool_url(db_dsn, "postgresql+psycopg")
    url += ("&" if "?" in url else "?") + "schema=app"
    subprocess.run(
        [
            yoyo_program(),
            "apply",
            "--batch",
            "--no-config-file",
            "--database",
            url,
            str(directory),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    env = {"SAFEMIGRATE_LAYOUT": "yoyo", "DATABASE_URL": url}
    status = run("status", "--dir", str(directory), env=env)
    assert status.exit_code == 0, status.output
    assert "app._yoyo_migration" in status.output
    up = run("up", "--dir", str(directory), env=env)
    assert up.exit_code == 0, up.output
    assert "ok 0002" not in up.stdout
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM app.items").fetchone() == (1,)


# -- F8: a lock on the other tool's history table -------------------------------------------


def test_issue_22_review_f8_a_lock_on_the_tools_history_names_the_table_and_the_holder(
    db_dsn: str, tmp_path: Path
) -> None:
    _execute(
        db_dsn,
        "CREATE TABLE _yoyo_migration (migration_hash varchar(64) PRIMARY KEY, "
        "migration_id varchar(255), applied_at_utc timestamp)",
    )
    directory = write_migrations(tmp_path / "migrations", {"0001.a.sql": "SELECT 1;\n"})
    locker = psycopg.connect(db_dsn, application_name="locker")
    try:
        locker.execute("LOCK _yoyo_migration IN ACCESS EXCLUSIVE MODE")
        pid = locker.info.backend_pid
        env = {"SAFEMIGRATE_LAYOUT": "yoyo", "SAFEMIGRATE_LOCK_TIMEOUT": "300ms"}
        for command in (["status"], ["up"]):
            result = run(*command, "--dir", str(directory), "--dsn", db_dsn, env=env)
            assert result.exit_code == 4, (command, result.output)
            assert "reading yoyo's history public._yoyo_migration" in result.output
            assert f"held by pid {pid} 'locker' (AccessExclusiveLock)" in result.output
            assert f"SELECT pg_terminate_backend({pid})" in result.output
    finally:
        locker.close()


# -- F9: the tool was told another history table ---------------------------------------------


def test_issue_22_review_f9_dbmates_migrations_table_is_adopted_with_tool_history_table(
    db_dsn: str, tmp_path: Path
) -> None:
    files = {
        "20260101000001_init.sql": (
            "-- migrate:up\nCREATE TABLE IF NOT EXISTS items (id int);\n-- migrate:down\n"
        ),
        "20260101000002_seed.sql": _up("INSERT INTO items VALUES (1);"),
    }
    directory = write_migrations(tmp_path / "db" / "migrations", files)
    url = tool_url(db_dsn, "postgres")
    url += ("&" if "?" in url else "?") + "sslmode=disable"
    subprocess.run(
        [
            dbmate_program(),
            "--url",
            url,
            "--migrations-dir",
            str(directory),
            "--migrations-table",
            "app_migrations",
            "--no-dump-schema",
            "up",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    write_migrations(
        directory,
        {"20260101000003_more.sql": _up("INSERT INTO items VALUES (3);")},
    )
    where = ["--dir", str(directory), "--dsn", db_dsn]
    env = {"SAFEMIGRATE_LAYOUT": "dbmate", "SAFEMIGRATE_TOOL_HISTORY_TABLE": "app_migrations"}
    status = run("status", *where, env=env)
    assert status.exit_code == 0, status.output
    assert "records the 2 migrations dbmate applied" in status.output
    assert "public.app_migrations" in status.output
    up = run("up", *where, env=env)
    assert up.exit_code == 0, up.output
    assert "ok 20260101000003_more.sql" in up.stdout and "ok 20260101000002" not in up.stdout
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT id FROM items ORDER BY id").fetchall() == [(1,), (3,)]
        # Written the way dbmate writes it, in dbmate's table: dbmate finds nothing to do.
        versions = conn.execute("SELECT version FROM app_migrations ORDER BY 1").fetchall()
    assert versions == [("20260101000001",), ("20260101000002",), ("20260101000003",)]


def _up(statement: str) -> str:
    """A dbmate file: the statement as its up part, an empty down part."""
    return f"-- migrate:up\n{statement}\n-- migrate:down\n"


# -- F13: yoyo rolled back a migration safemigrate applied ------------------------------------


def test_issue_22_review_f13_a_yoyo_rollback_after_safemigrate_applied_is_refused_not_rewritten(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "migrations", {"0001.a.sql": "CREATE TABLE a (id int);\n"}
    )
    _yoyo(yoyo_program(), db_dsn, directory)
    write_migrations(
        directory,
        {"0002.b.sql": "CREATE TABLE b (id int);\n", "0002.b.rollback.sql": "DROP TABLE b;\n"},
    )
    env = {"SAFEMIGRATE_LAYOUT": "yoyo"}
    where = ["--dir", str(directory), "--dsn", db_dsn]
    assert run("up", *where, env=env).exit_code == 0
    url = tool_url(db_dsn, "postgresql+psycopg")
    yoyo = [yoyo_program(), "rollback", "--batch", "--no-config-file", "--database", url]
    subprocess.run([*yoyo, "-r", "0002.b", str(directory)], check=True, capture_output=True)

    for command in (["status"], ["up"], ["adopt"]):
        result = run(*command, *where, env=env)
        assert result.exit_code == 5, (command, result.output)
        # The general check (the rows safemigrate listed in <journal>_tool_rows) speaks
        # first; yoyo's own log would say the same of a row it never listed.
        assert "0002.b.sql: applied, but yoyo has rolled it back since" in result.output
        assert "apply it again with yoyo" in result.output
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT migration_id FROM _yoyo_migration ORDER BY 1").fetchall()
    assert rows == [("0001.a",)]  # not written back

    # The way out the hint names: yoyo applies it again and records it.
    _yoyo(yoyo_program(), db_dsn, directory)
    assert run("status", *where, env=env).exit_code == 0
    assert run("up", *where, env=env).exit_code == 0
