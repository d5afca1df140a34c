"""Issue 22: the switch from yoyo or dbmate, with the real tools, as a team meets it.

Another tool's history whose entries match the directory's files is never applied a second
time, whatever the layout setting (item 1); the switch is announced in text and JSON, and
``status`` before it says what the first ``up`` will do (item 6).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from tests.fixtures_db import PgServer
from tests.integration import test_adopt_history as tools
from tests.integration.test_adopt_real_tools import (
    _dbmate,
    _yoyo,
    journal,
)
from tests.integration.test_check_plan_rehearse import _rehearse
from tests.support.real_tools import dbmate_program, yoyo_program
from tests.support.runner import run, write_migrations
from tests.support.schemas import journal_exists

#: A yoyo project whose files happen to look like safemigrate's: the first migration is
#: idempotent, the second is not (applied twice, it would duplicate the row).
YOYO_LOOKALIKE = {
    "0001_step1.sql": "CREATE TABLE IF NOT EXISTS items (id int);\n",
    "0002_step2.sql": "INSERT INTO items VALUES (1);\n",
}


def _rows(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM items").fetchone()
    assert row is not None
    return int(row[0])


@pytest.fixture
def yoyo_lookalike(db_dsn: str, tmp_path: Path) -> Path:
    """A database where the real yoyo applied YOYO_LOOKALIKE; its directory."""
    directory = write_migrations(tmp_path / "migrations", YOYO_LOOKALIKE)
    _yoyo(yoyo_program(), db_dsn, directory)
    assert _rows(db_dsn) == 1
    return directory


@pytest.mark.parametrize("layout", ["safemigrate", "sqlx"])
def test_issue_22_item_1_yoyo_history_under_another_layout_is_refused_not_reapplied(
    db_dsn: str, yoyo_lookalike: Path, layout: str
) -> None:
    env = {"SAFEMIGRATE_LAYOUT": layout}
    where = ["--dir", str(yoyo_lookalike), "--dsn", db_dsn]
    for command in (["status"], ["plan"], ["up", "--dry-run"], ["up"]):
        result = run(*command, *where, env=env)
        assert result.exit_code == 2, (command, result.output)
        assert "public._yoyo_migration is yoyo's history" in result.output
        assert f"the layout setting is {layout}" in result.output
        assert 'set layout = "yoyo"' in result.output
    # Nothing ran twice, nothing was written.
    assert _rows(db_dsn) == 1
    assert not journal_exists(db_dsn)


def test_issue_22_item_1_auto_adopts_yoyo_history_with_safemigrate_looking_names(
    db_dsn: str, yoyo_lookalike: Path
) -> None:
    env = {"SAFEMIGRATE_LAYOUT": "auto"}
    where = ["--dir", str(yoyo_lookalike), "--dsn", db_dsn]
    status = run("status", *where, "--format", "json", env=env)
    assert status.exit_code == 0, status.output
    document = status.events()[0]
    assert document["journal"] == {"table": "public.safemigrate_history", "exists": False}
    assert document["switch"]["tool"] == "yoyo" and document["switch"]["recorded"] is False
    assert [m["state"] for m in document["migrations"]] == ["applied", "applied"]
    plan = run("plan", *where, env=env)
    assert plan.exit_code == 0, plan.output
    assert "nothing to apply" in plan.output

    write_migrations(yoyo_lookalike, {"0003_step3.sql": "INSERT INTO items VALUES (3);\n"})
    result = run("up", *where, "--format", "json", env=env)
    assert result.exit_code == 0, result.output
    switch = [e for e in result.events() if e["event"] == "history_adopted"]
    assert switch == [
        {
            "event": "history_adopted",
            "tool": "yoyo",
            "table": "public._yoyo_migration",
            "journal": "public.safemigrate_history",
            "count": 2,
            "first": "0001",
            "last": "0002",
            "tool_history_written": True,
            "recorded": True,
        }
    ]
    assert _rows(db_dsn) == 2  # only 0003's row was added
    origin = "adopted from yoyo public._yoyo_migration"
    assert journal(db_dsn) == [
        (1, "step1", 0, "baseline", origin),
        (2, "step2", 0, "baseline", origin),
        (3, "step3", 0, "applied", "safemigrate"),
    ]
    again = run("up", *where, "--format", "json", env=env)
    assert again.exit_code == 0, again.output
    assert not [e for e in again.events() if e["event"] == "history_adopted"]


DBMATE_SET = {
    "20260101000001_create_users.sql": (
        "-- migrate:up\nCREATE TABLE users (id bigint PRIMARY KEY);\n\n"
        "-- migrate:down\nDROP TABLE users;\n"
    ),
    "20260101000002_add_name.sql": (
        "-- migrate:up\nALTER TABLE users ADD COLUMN name text;\n\n"
        "-- migrate:down\nALTER TABLE users DROP COLUMN name;\n"
    ),
}


def test_issue_22_item_6_the_dbmate_switch_is_announced_and_status_says_what_will_happen(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(tmp_path / "db" / "migrations", DBMATE_SET)
    _dbmate(dbmate_program(), db_dsn, directory)
    env = {"SAFEMIGRATE_LAYOUT": "dbmate"}
    where = ["--dir", str(directory), "--dsn", db_dsn]

    status = run("status", *where, env=env)
    assert status.exit_code == 0, status.output
    assert "journal public.safemigrate_history: not created yet" in status.output
    assert (
        "switch from dbmate: the first `safemigrate up` (or `adopt`) records the 2 migrations "
        "dbmate applied (20260101000001 to 20260101000002)"
    ) in status.output
    assert "retire dbmate" in status.output

    result = run("up", *where, env=env)
    assert result.exit_code == 0, result.output
    assert (
        "switched from dbmate: recorded the 2 migrations dbmate applied (20260101000001 to "
        "20260101000002) in the journal public.safemigrate_history as baseline, not run "
        "(read from public.schema_migrations); every migration safemigrate applies is "
        "recorded in public.schema_migrations too, so dbmate finds nothing to apply"
    ) in result.stdout
    after = run("status", *where, env=env)
    assert "journal public.safemigrate_history\n" in after.stdout
    assert "switch" not in after.stdout


def test_issue_22_item_6_adopt_announces_the_switch_in_text_and_json(
    db_dsn: str, yoyo_lookalike: Path
) -> None:
    where = ["--dir", str(yoyo_lookalike), "--dsn", db_dsn]
    adopted = run("adopt", *where, "--format", "json", env={"SAFEMIGRATE_LAYOUT": "yoyo"})
    assert adopted.exit_code == 0, adopted.output
    document = adopted.events()[0]
    assert document["switch"]["count"] == 2 and document["switch"]["recorded"] is True
    assert [a["version"] for a in document["adopted"]] == [1, 2]
    again = run("adopt", *where, env={"SAFEMIGRATE_LAYOUT": "yoyo"})
    assert "nothing to adopt" in again.output and "switched" not in again.output


# -- item 4: the connection strings other tools write --------------------------------------


def _parts(dsn: str) -> tuple[str, str, str, str]:
    params = conninfo_to_dict(dsn)
    return (
        str(params.get("user") or "postgres"),
        str(params["host"]),
        str(params["port"]),
        str(params["dbname"]),
    )


def test_issue_22_item_4_sqlalchemy_dbmate_and_jdbc_urls_connect(
    db_dsn: str, tmp_path: Path
) -> None:
    user, host, port, dbname = _parts(db_dsn)
    directory = write_migrations(tmp_path / "migrations", {"0001_a.sql": "SELECT 1;\n"})
    forms = [
        f"postgresql+psycopg://{user}@/{dbname}?host={host}&port={port}",
        f"postgresql+psycopg2://{user}@/{dbname}?host={host}&port={port}",
        f"postgres://{user}@/{dbname}?socket={host}&port={port}&sslmode=disable",
        f"jdbc:postgresql:///{dbname}?user={user}&socket={host}&port={port}",
    ]
    for form in forms:
        result = run("status", "--dir", str(directory), env={"DATABASE_URL": form})
        assert result.exit_code == 0, (form, result.output)
        assert f"target: {user}@{host}:{port}/{dbname}" in result.stdout


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("port=abc", "--dsn: port: must be a port number (1 to 65535), not 'abc'"),
        ("sslmode=bogus", "--dsn: sslmode: must be one of disable, allow, prefer, require"),
    ],
)
def test_issue_22_item_8_a_bad_port_or_sslmode_is_exit_2_naming_it(
    db_dsn: str, tmp_path: Path, extra: str, message: str
) -> None:
    directory = write_migrations(tmp_path / "migrations", {"0001_a.sql": "SELECT 1;\n"})
    result = run("up", "--dir", str(directory), "--dsn", f"{db_dsn} {extra} password=hunter2")
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "hunter2" not in result.output and "Servname" not in result.output


# -- item 8: status while a pending file does not parse -------------------------------------


def test_issue_22_item_8_status_shows_what_is_applied_while_a_pending_file_is_bad(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "migrations",
        {"0001_a.sql": "CREATE TABLE a (id int);\n", "0002_b.sql": "CREATE TABLE b (id int);\n"},
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    write_migrations(directory, {"0003_bad.sql": "SELEC 1;\n", "0004_c.sql": "SELECT 1;\n"})
    result = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 2, result.output
    lines = result.stdout.splitlines()
    assert any(line.startswith("0001_a.sql") and "applied" in line for line in lines)
    assert any(line.startswith("0003_bad.sql") and "invalid   0/? steps" in line for line in lines)
    assert any(line.startswith("0004_c.sql") and "pending" in line for line in lines)
    assert "0003_bad.sql:1: SQL does not parse" in result.stdout
    assert "error: " in result.stderr and "0003_bad.sql:1" in result.stderr
    document = run("status", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert document.exit_code == 2
    states = {m["file"]: m["state"] for m in document.events()[0]["migrations"]}
    assert states == {
        "0001_a.sql": "applied",
        "0002_b.sql": "applied",
        "0003_bad.sql": "invalid",
        "0004_c.sql": "pending",
    }
    # up still refuses the directory, before anything is applied.
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 2


# -- item 5: rehearse on top of a plain pg_dump of production --------------------------------


def _pg_dump(pg_server: PgServer) -> str:
    """The test server's own pg_dump (a dump loads on a server of its own version)."""
    if pg_server.throwaway is not None:
        return str(pg_server.throwaway.bindir / "pg_dump")
    found = shutil.which("pg_dump")
    if found is None:
        pytest.skip("pg_dump is not installed")
    return found


def test_issue_22_item_5_rehearse_from_a_plain_dump_with_owners_and_journal_rows(
    pg_server: PgServer, db_dsn: str, tmp_path: Path, rehearse_tmp: Path
) -> None:
    suffix = uuid.uuid4().hex[:8]
    owner, reader = f"app_{suffix}", f"readonly_{suffix}"
    directory = write_migrations(
        tmp_path / "migrations",
        {
            "0001_users.sql": "CREATE TABLE users (id bigint PRIMARY KEY, email text);\n",
            "0002_orders.sql": (
                "CREATE TABLE orders (id bigint PRIMARY KEY, user_id bigint REFERENCES users);\n"
            ),
        },
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    admin = psycopg.connect(pg_server.admin_dsn, autocommit=True)
    try:
        for role in (owner, reader):
            admin.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(role)))
        with psycopg.connect(db_dsn, autocommit=True) as conn:
            for table in ("users", "orders"):
                conn.execute(
                    sql.SQL("ALTER TABLE {} OWNER TO {}; GRANT SELECT ON {} TO {}").format(
                        sql.Identifier(table),
                        sql.Identifier(owner),
                        sql.Identifier(table),
                        sql.Identifier(reader),
                    )
                )
        write_migrations(directory, {"0003_name.sql": "ALTER TABLE users ADD COLUMN name text;\n"})
        dump = rehearse_tmp / "prod.sql"
        with dump.open("w") as out:
            subprocess.run(
                [_pg_dump(pg_server), "--schema-only", "-d", db_dsn], stdout=out, check=True
            )
    finally:
        for role in (owner, reader):
            with psycopg.connect(db_dsn, autocommit=True) as conn:
                conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
            admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))
        admin.close()
    server = ["--server", str(pg_server.throwaway.bindir)] if pg_server.throwaway else []
    args = ["--dir", str(directory), "--schema-from", str(dump), *server]

    # The plain schema-only dump: owners are no error; its journal has no rows, which is said.
    plain = _rehearse(rehearse_tmp, *args)
    assert plain.exit_code == 2, plain.output
    assert f'role "{owner}" does not exist' not in plain.output
    assert "the dump has the journal table public.safemigrate_history but none of its rows" in (
        plain.output
    )
    assert "pg_dump --data-only --table=public.safemigrate_history" in plain.output

    # The journal's rows appended, as the README says: only 0003 is rehearsed.
    with dump.open("a") as out:
        subprocess.run(
            [
                _pg_dump(pg_server),
                "--data-only",
                "--table=public.safemigrate_history",
                "-d",
                db_dsn,
            ],
            stdout=out,
            check=True,
        )
    result = _rehearse(rehearse_tmp, *args)
    assert result.exit_code == 0, result.output
    assert f"created NOLOGIN on the throwaway server: {owner}, {reader}" in result.stdout
    assert "the schema dump's journal has 2 rows" in result.stdout
    assert "ok 0003_name.sql" in result.stdout and "0001_users.sql" not in result.stdout
    assert "1 step applied; a second run applied 0" in result.stdout


def _dbmate_project(db_dsn: str, tmp_path: Path, name: str, up: str, down: str) -> Path:
    """DBMATE_SET applied by dbmate itself, then one more file ``name`` (``up`` and ``down``
    parts) not applied yet; returns the migrations directory."""
    directory = write_migrations(tmp_path / "db" / "migrations", DBMATE_SET)
    _dbmate(dbmate_program(), db_dsn, directory)
    body = f"-- migrate:up\n{up}\n\n-- migrate:down\n{down}\n"
    return write_migrations(directory, {name: body})


def test_issue_22_item_8_layout_notes_name_pending_files_only_and_layout_once(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = _dbmate_project(
        db_dsn,
        tmp_path,
        "20260101000003_add_email.sql",
        "ALTER TABLE users ADD COLUMN email text;",
        "ALTER TABLE users DROP COLUMN email;",
    )
    env = {"SAFEMIGRATE_LAYOUT": "auto"}
    where = ["--dir", str(directory), "--dsn", db_dsn]
    for command in (["plan"], ["up", "--dry-run"]):
        result = run(*command, *where, env=env)
        assert result.exit_code == 0, result.output
        notes = [line for line in result.stdout.splitlines() if line.startswith("note: ")]
        assert notes[0] == "note: layout: dbmate (detected)"
        assert all("20260101000001" not in n and "20260101000002" not in n for n in notes)
        assert any(n.startswith("note: 20260101000003_add_email.sql: its down part") for n in notes)
        assert result.stderr.count("layout: dbmate (detected in ") == 1
    status = run("status", *where, env=env)
    assert status.stderr.count("layout: dbmate (detected in ") == 1


# -- item 6: the old tool's history is kept up to date (tool_history = "write") ------------


def _rows_of(dsn: str, query: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(query).fetchall()


def test_issue_22_item_6_a_teammates_dbmate_up_after_the_switch_finds_nothing_to_do(
    db_dsn: str, tmp_path: Path
) -> None:
    program = dbmate_program()
    directory = write_migrations(tmp_path / "db" / "migrations", DBMATE_SET)
    _dbmate(program, db_dsn, directory)
    write_migrations(
        directory,
        {
            "20260101000003_first_user.sql": (
                "-- migrate:up\nINSERT INTO users (id) VALUES (1);\n\n"
                "-- migrate:down\nDELETE FROM users;\n"
            ),
            "20260101000004_users_name.sql": (
                "-- migrate:up transaction:false\n"
                "CREATE INDEX CONCURRENTLY users_name ON users (name);\n\n"
                "-- migrate:down\nDROP INDEX users_name;\n"
            ),
        },
    )
    result = run(
        "up", "--dir", str(directory), "--dsn", db_dsn, env={"SAFEMIGRATE_LAYOUT": "dbmate"}
    )
    assert result.exit_code == 0, result.output
    assert "is recorded in public.schema_migrations too, so dbmate finds nothing to apply" in (
        result.stdout
    )
    versions = _rows_of(db_dsn, "SELECT version FROM schema_migrations ORDER BY 1")
    assert [v for (v,) in versions] == [
        "20260101000001",
        "20260101000002",
        "20260101000003",
        "20260101000004",
    ]
    # The real dbmate, run by a teammate who missed the switch: nothing to apply, no failure.
    _dbmate(program, db_dsn, directory)
    assert _rows_of(db_dsn, "SELECT count(*) FROM users") == [(1,)]


def test_issue_22_item_6_a_later_yoyo_apply_runs_nothing_again(
    db_dsn: str, yoyo_lookalike: Path
) -> None:
    write_migrations(yoyo_lookalike, {"0003_step3.sql": "INSERT INTO items VALUES (3);\n"})
    where = ["--dir", str(yoyo_lookalike), "--dsn", db_dsn]
    assert run("up", *where, env={"SAFEMIGRATE_LAYOUT": "auto"}).exit_code == 0
    assert _rows(db_dsn) == 2
    _yoyo(yoyo_program(), db_dsn, yoyo_lookalike)  # the real yoyo finds 0003 applied
    assert _rows(db_dsn) == 2


def test_issue_22_item_6_tool_history_leave_writes_nothing_and_write_catches_up(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = _dbmate_project(
        db_dsn,
        tmp_path,
        "20260101000003_first_user.sql",
        "INSERT INTO users (id) VALUES (1);",
        "DELETE FROM users;",
    )
    where = ["--dir", str(directory), "--dsn", db_dsn]
    leave = {"SAFEMIGRATE_LAYOUT": "dbmate", "SAFEMIGRATE_TOOL_HISTORY": "leave"}
    result = run("up", *where, env=leave)
    assert result.exit_code == 0, result.output
    assert 'safemigrate does not write public.schema_migrations (tool_history = "leave")' in (
        result.stdout
    )
    query = "SELECT version FROM schema_migrations ORDER BY 1"
    assert len(_rows_of(db_dsn, query)) == 2
    # With the default (write), the next up records what the journal has and the table lacks.
    assert run("up", *where, env={"SAFEMIGRATE_LAYOUT": "dbmate"}).exit_code == 0
    assert _rows_of(db_dsn, query)[-1] == ("20260101000003",)


def test_issue_22_item_6_golang_migrates_one_row_moves_to_the_last_version(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(tmp_path / "m", {**tools.GOLANG_FIRST, **tools.GOLANG_SECOND})
    tools._golang_migrate(db_dsn, directory, 2)
    assert tools.up(directory, db_dsn, "golang-migrate").exit_code == 0
    assert _rows_of(db_dsn, "SELECT version, dirty FROM schema_migrations") == [(3, False)]


def test_issue_22_item_6_sqlx_gets_its_row_with_its_checksum(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", tools.SQLX_FILES)
    tools._sqlx(db_dsn, directory, list(tools.SQLX_FILES)[:2])
    assert tools.up(directory, db_dsn, "sqlx").exit_code == 0
    rows = _rows_of(
        db_dsn,
        "SELECT version, description, success, encode(checksum, 'hex') FROM _sqlx_migrations "
        "ORDER BY version",
    )
    name = "20260101000003_index_email.sql"
    # sqlx-core migrate: checksum = SHA-384 of the file, description = name with spaces.
    assert rows[-1] == (
        20260101000003,
        "index email",
        True,
        hashlib.sha384((directory / name).read_bytes()).hexdigest(),
    )


def test_issue_22_item_6_diesel_gets_its_version_row(db_dsn: str, tmp_path: Path) -> None:
    directory = tools._write(tmp_path / "migrations", tools.DIESEL_FILES)
    folders = ["2026-01-01-000001_create_users", "2026-01-01-000002_add_email"]
    tools._diesel(db_dsn, directory, folders)
    assert tools.up(directory, db_dsn, "diesel").exit_code == 0
    rows = _rows_of(db_dsn, "SELECT version FROM __diesel_schema_migrations ORDER BY 1")
    assert [v for (v,) in rows] == ["20260101000001", "20260101000002", "20260101000003"]


def test_issue_22_item_6_flyway_gets_the_next_rank_with_its_checksum(
    db_dsn: str, tmp_path: Path
) -> None:
    from safemigrate.source.layouts.flyway import checksum

    directory = write_migrations(tmp_path / "sql", tools.FLYWAY_FILES)
    first = ["V1__create_users.sql", "V1_1__add_email.sql", "V1_2__add_name.sql"]
    tools._flyway(db_dsn, directory, [*first, "R__users_view.sql"])
    assert tools.up(directory, db_dsn, "flyway").exit_code == 0
    rows = _rows_of(
        db_dsn,
        "SELECT installed_rank, version, description, type, script, checksum, success "
        "FROM flyway_schema_history WHERE installed_rank > 4 ORDER BY installed_rank",
    )
    expected = []
    for rank, script in enumerate(["V1_10__create_orders.sql", "V2__create_notes.sql"], start=5):
        version = script[1:].split("__")[0].replace("_", ".")
        description = script.split("__", 1)[1].removesuffix(".sql").replace("_", " ")
        crc = int(checksum((directory / script).read_bytes()))
        expected.append((rank, version, description, "SQL", script, crc, True))
    assert rows == expected
