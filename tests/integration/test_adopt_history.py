"""Adopting golang-migrate, sqlx and diesel histories, and what stops an adoption.

Their binaries are not installable here, so each test plays the tool's part: it runs the first
half of the set's up files itself and writes the tool's history table exactly as the tool's
source creates and fills it on PostgreSQL:

- golang-migrate (golang-migrate/migrate, database/postgres/postgres.go, ensureVersionTable and
  SetVersion): ``CREATE TABLE IF NOT EXISTS schema_migrations (version bigint not null primary
  key, dirty boolean not null)``; SetVersion empties it and inserts the one current row, dirty
  while a migration runs, clean once it committed;
- sqlx (launchbadge/sqlx, sqlx-postgres/src/migrate.rs, ensure_migrations_table and apply):
  ``_sqlx_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL, installed_on
  TIMESTAMPTZ NOT NULL DEFAULT now(), success BOOLEAN NOT NULL, checksum BYTEA NOT NULL,
  execution_time BIGINT NOT NULL)``, checksum = SHA-384 of the file (sqlx-core
  src/migrate/migration.rs);
- diesel (diesel-rs/diesel, diesel_migrations/src/migration_harness.rs,
  CREATE_MIGRATIONS_TABLE): ``__diesel_schema_migrations (version VARCHAR(50) PRIMARY KEY NOT
  NULL, run_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)``, version = the folder's digits.

Then ``safemigrate up`` must apply exactly the second half, and the schema must be the one the
whole set makes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.fixtures_db import MakeDatabase
from tests.integration.test_adopt_real_tools import journal, schema
from tests.support.runner import run, write_migrations

GOLANG_FIRST = {
    "1_create_users.up.sql": "CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL);\n",
    "1_create_users.down.sql": "DROP TABLE users;\n",
    "2_add_name.up.sql": "ALTER TABLE users ADD COLUMN name text;\n",
    "2_add_name.down.sql": "ALTER TABLE users DROP COLUMN name;\n",
}
GOLANG_SECOND = {
    "3_create_orders.up.sql": (
        "CREATE TABLE orders (id bigint PRIMARY KEY, user_id bigint NOT NULL REFERENCES users);\n"
        "CREATE TABLE order_notes (order_id bigint NOT NULL, note text);\n"
    ),
    "3_create_orders.down.sql": "DROP TABLE order_notes; DROP TABLE orders;\n",
}


@pytest.fixture
def other_dsn(make_database: MakeDatabase) -> str:
    """A second fresh database: where the whole set is applied by the tool's rules alone."""
    return make_database()


def execute(dsn: str, *statements: str, params: Any = None) -> None:
    """Run SQL as the tool would (a file's text in one go)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement.encode(), params)


def up(directory: Path, dsn: str, layout: str, *more: str) -> Any:
    return run(
        "up", "--dir", str(directory), "--dsn", dsn, *more, env={"SAFEMIGRATE_LAYOUT": layout}
    )


# -- golang-migrate ------------------------------------------------------------------------------

GOLANG_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations "
    "(version bigint not null primary key, dirty boolean not null)"
)


def _golang_migrate(dsn: str, directory: Path, upto: int, *, dirty: bool = False) -> None:
    execute(dsn, GOLANG_TABLE)
    for path in sorted(directory.glob("*.up.sql"), key=lambda p: int(p.name.split("_")[0])):
        version = int(path.name.split("_")[0])
        if version > upto:
            break
        execute(dsn, "TRUNCATE schema_migrations")
        execute(dsn, "INSERT INTO schema_migrations VALUES (%s, true)", params=[version])
        if dirty and version == upto:
            return  # the migration failed half-way: golang-migrate leaves the row dirty
        execute(dsn, path.read_text())
        execute(dsn, "UPDATE schema_migrations SET dirty = false")


def test_golang_migrate_history_is_adopted(db_dsn: str, other_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", GOLANG_FIRST)
    _golang_migrate(db_dsn, directory, 2)
    write_migrations(directory, GOLANG_SECOND)
    result = up(directory, db_dsn, "auto")
    assert result.exit_code == 0, result.output
    origin = "adopted from golang-migrate public.schema_migrations"
    assert journal(db_dsn) == [
        (1, "create_users", 0, "baseline", origin),
        (2, "add_name", 0, "baseline", origin),
        (3, "create_orders", 0, "applied", "safemigrate"),
        (3, "create_orders", 1, "applied", "safemigrate"),
    ]
    _golang_migrate(other_dsn, directory, 3)
    assert schema(db_dsn) == schema(other_dsn)
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        # Issue 22 item 6: kept up to date (tool_history = "write"): golang-migrate's one row
        # is the last version applied, so its own `migrate up` finds nothing to do.
        assert conn.execute("SELECT * FROM schema_migrations").fetchall() == [(3, False)]


def test_a_dirty_golang_migrate_state_stops_the_run(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", {**GOLANG_FIRST, **GOLANG_SECOND})
    _golang_migrate(db_dsn, directory, 2, dirty=True)
    for command in ("up", "status", "plan", "adopt"):
        result = run(
            command,
            "--dir",
            str(directory),
            "--dsn",
            db_dsn,
            env={"SAFEMIGRATE_LAYOUT": "golang-migrate"},
        )
        assert result.exit_code == 2, (command, result.output)
        assert "records migration 2 as dirty" in result.output
        assert "migrate force" in result.output
    assert journal_exists(db_dsn) is False


def journal_exists(dsn: str) -> bool:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT to_regclass('public.safemigrate_history') IS NOT NULL"
        ).fetchone()
    return bool(row and row[0])


# -- sqlx ------------------------------------------------------------------------------------------

SQLX_TABLE = """CREATE TABLE IF NOT EXISTS _sqlx_migrations (
    version BIGINT PRIMARY KEY,
    description TEXT NOT NULL,
    installed_on TIMESTAMPTZ NOT NULL DEFAULT now(),
    success BOOLEAN NOT NULL,
    checksum BYTEA NOT NULL,
    execution_time BIGINT NOT NULL
)"""
SQLX_FILES = {
    "20260101000001_create_users.sql": "CREATE TABLE users (id bigint PRIMARY KEY);\n",
    "20260101000002_add_email.sql": "ALTER TABLE users ADD COLUMN email text;\n",
    "20260101000003_index_email.sql": (
        "-- no-transaction\nCREATE INDEX CONCURRENTLY users_email ON users (email);\n"
    ),
}


def _sqlx(dsn: str, directory: Path, names: list[str], *, success: bool = True) -> None:
    execute(dsn, SQLX_TABLE)
    for name in names:
        path = directory / name
        if success:
            execute(dsn, path.read_text())
        execute(
            dsn,
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, "
            "execution_time) VALUES (%s, %s, %s, %s, 1)",
            params=[
                int(name.split("_")[0]),
                name.split("_", 1)[1].removesuffix(".sql").replace("_", " "),
                success,
                hashlib.sha384(path.read_bytes()).digest(),
            ],
        )


def test_sqlx_history_is_adopted(db_dsn: str, other_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", SQLX_FILES)
    _sqlx(db_dsn, directory, list(SQLX_FILES)[:2])
    result = up(directory, db_dsn, "sqlx")
    assert result.exit_code == 0, result.output
    assert [(v, s, state) for v, _, s, state, _ in journal(db_dsn)] == [
        (20260101000001, 0, "baseline"),
        (20260101000002, 0, "baseline"),
        (20260101000003, 0, "applied"),
    ]
    _sqlx(other_dsn, directory, list(SQLX_FILES))
    assert schema(db_dsn) == schema(other_dsn)


def test_a_changed_sqlx_file_is_drift(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", SQLX_FILES)
    _sqlx(db_dsn, directory, list(SQLX_FILES)[:2])
    (directory / "20260101000002_add_email.sql").write_text(
        "ALTER TABLE users ADD COLUMN email varchar(200);\n"
    )
    result = up(directory, db_dsn, "sqlx")
    assert result.exit_code == 5, result.output
    assert "20260101000002_add_email.sql: applied by sqlx, but its text has changed" in (
        result.output
    )


def test_a_failed_sqlx_migration_stops_the_run(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", SQLX_FILES)
    _sqlx(db_dsn, directory, list(SQLX_FILES)[:1])
    _sqlx(db_dsn, directory, [list(SQLX_FILES)[1]], success=False)
    result = up(directory, db_dsn, "sqlx")
    assert result.exit_code == 2, result.output
    assert "records migration 20260101000002 as failed" in result.output


# -- diesel ----------------------------------------------------------------------------------------

DIESEL_TABLE = (
    "CREATE TABLE IF NOT EXISTS __diesel_schema_migrations (version VARCHAR(50) PRIMARY KEY NOT "
    "NULL, run_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)"
)
DIESEL_FILES = {
    "2026-01-01-000001_create_users/up.sql": "CREATE TABLE users (id bigint PRIMARY KEY);\n",
    "2026-01-01-000001_create_users/down.sql": "DROP TABLE users;\n",
    "2026-01-01-000002_add_email/up.sql": "ALTER TABLE users ADD COLUMN email text;\n",
    "2026-01-01-000002_add_email/down.sql": "ALTER TABLE users DROP COLUMN email;\n",
    "2026-01-01-000003_index_email/up.sql": (
        "CREATE INDEX CONCURRENTLY users_email ON users (email);\n"
    ),
    "2026-01-01-000003_index_email/metadata.toml": "run_in_transaction = false\n",
}


def _write(directory: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (directory / relative).parent.mkdir(parents=True, exist_ok=True)
        (directory / relative).write_text(text)
    return directory


def _diesel(dsn: str, directory: Path, folders: list[str]) -> None:
    execute(dsn, DIESEL_TABLE)
    for folder in folders:
        execute(dsn, (directory / folder / "up.sql").read_text())
        version = folder.split("_")[0].replace("-", "")
        execute(
            dsn, "INSERT INTO __diesel_schema_migrations (version) VALUES (%s)", params=[version]
        )


def test_diesel_history_is_adopted(db_dsn: str, other_dsn: str, tmp_path: Path) -> None:
    directory = _write(tmp_path / "migrations", DIESEL_FILES)
    folders = sorted({name.split("/")[0] for name in DIESEL_FILES})
    _diesel(db_dsn, directory, folders[:2])
    result = up(directory, db_dsn, "auto")
    assert result.exit_code == 0, result.output
    assert [(v, n, state) for v, n, _, state, _ in journal(db_dsn)] == [
        (20260101000001, "create_users", "baseline"),
        (20260101000002, "add_email", "baseline"),
        (20260101000003, "index_email", "applied"),
    ]
    _diesel(other_dsn, directory, folders)
    assert schema(db_dsn) == schema(other_dsn)
    status = run(
        "status", "--dir", str(directory), "--dsn", db_dsn, env={"SAFEMIGRATE_LAYOUT": "diesel"}
    )
    assert "2026-01-01-000003_index_email/up.sql" in status.output


# -- out of order, status, adopt -------------------------------------------------------------------


def test_a_file_older_than_the_adopted_history_is_out_of_order(db_dsn: str, tmp_path: Path) -> None:
    files = {
        "20260101000001_a.sql": "CREATE TABLE a (id int);\n",
        "20260101000002_b.sql": "CREATE TABLE b (id int);\n",
        "20260101000003_c.sql": "CREATE TABLE c (id int);\n",
    }
    directory = write_migrations(tmp_path / "m", files)
    names = list(files)
    _sqlx(db_dsn, directory, [names[0], names[2]])  # sqlx applied 1 and 3; 2 arrived late
    refused = up(directory, db_dsn, "sqlx")
    assert refused.exit_code == 2, refused.output
    assert "out of order" in refused.output or "out-of-order" in refused.output
    allowed = up(directory, db_dsn, "sqlx", "--allow-out-of-order")
    assert allowed.exit_code == 0, allowed.output
    assert [(v, state) for v, _, _, state, _ in journal(db_dsn)] == [
        (20260101000001, "baseline"),
        (20260101000002, "applied"),
        (20260101000003, "baseline"),
    ]


def test_status_reads_the_history_and_adopt_records_it(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", {**GOLANG_FIRST, **GOLANG_SECOND})
    _golang_migrate(db_dsn, directory, 2)
    env = {"SAFEMIGRATE_LAYOUT": "golang-migrate"}
    status = run("status", "--dir", str(directory), "--dsn", db_dsn, "--format", "json", env=env)
    assert status.exit_code == 0, status.output
    states = [(m["version"], m["state"]) for m in status.events()[0]["migrations"]]
    assert states == [(1, "applied"), (2, "applied"), (3, "pending")]
    assert journal_exists(db_dsn) is False  # status writes nothing

    adopted = run("adopt", "--dir", str(directory), "--dsn", db_dsn, env=env)
    assert adopted.exit_code == 0, adopted.output
    assert "recorded 1 create_users as applied" in adopted.output
    assert [(v, state) for v, _, _, state, _ in journal(db_dsn)] == [
        (1, "baseline"),
        (2, "baseline"),
    ]
    again = run("adopt", "--dir", str(directory), "--dsn", db_dsn, env=env)
    assert "nothing to adopt" in again.output


# -- Flyway --------------------------------------------------------------------------------------

# flyway/flyway, flyway-database-postgresql: PostgreSQLDatabase.getRawCreateScript.
FLYWAY_TABLE = """CREATE TABLE "public"."flyway_schema_history" (
    "installed_rank" INT NOT NULL,
    "version" VARCHAR(50),
    "description" VARCHAR(200) NOT NULL,
    "type" VARCHAR(20) NOT NULL,
    "script" VARCHAR(1000) NOT NULL,
    "checksum" INTEGER,
    "installed_by" VARCHAR(100) NOT NULL,
    "installed_on" TIMESTAMP NOT NULL DEFAULT now(),
    "execution_time" INTEGER NOT NULL,
    "success" BOOLEAN NOT NULL
);
ALTER TABLE "public"."flyway_schema_history"
    ADD CONSTRAINT "flyway_schema_history_pk" PRIMARY KEY ("installed_rank");
CREATE INDEX "flyway_schema_history_s_idx" ON "public"."flyway_schema_history" ("success");
"""
FLYWAY_FILES = {
    "V1__create_users.sql": "CREATE TABLE users (id bigint PRIMARY KEY);\r\n",
    "V1_1__add_email.sql": "ALTER TABLE users ADD COLUMN email text;\n",
    "V1_2__add_name.sql": "ALTER TABLE users ADD COLUMN name text;\n",
    "V1_10__create_orders.sql": "CREATE TABLE orders (id bigint PRIMARY KEY);\n",
    "V2__create_notes.sql": "CREATE TABLE notes (id bigint PRIMARY KEY);\n",
    "R__users_view.sql": "CREATE OR REPLACE VIEW user_emails AS SELECT id, email FROM users;\n",
}


def _flyway(dsn: str, directory: Path, scripts: list[str], *, failed: str | None = None) -> None:
    """Apply ``scripts`` and write their rows as Flyway does (installed_rank from 1)."""
    from safemigrate.source.layouts.flyway import checksum

    with psycopg.connect(dsn, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('flyway_schema_history')").fetchone() == (None,):
            conn.execute(FLYWAY_TABLE.encode())
        for script in scripts:
            versioned = script.startswith("V")
            version = script[1:].split("__")[0].replace("_", ".") if versioned else None
            ok = script != failed
            if ok:
                conn.execute((directory / script).read_text().encode())
            conn.execute(
                "INSERT INTO flyway_schema_history (installed_rank, version, description, type, "
                "script, checksum, installed_by, execution_time, success) VALUES ("
                "(SELECT coalesce(max(installed_rank), 0) + 1 FROM flyway_schema_history), "
                "%s, %s, 'SQL', %s, %s, 'postgres', 3, %s)",
                [
                    version,
                    script.split("__", 1)[1].removesuffix(".sql").replace("_", " "),
                    script,
                    int(checksum((directory / script).read_bytes())),
                    ok,
                ],
            )


def test_flyway_history_is_adopted_in_flyways_version_order(
    db_dsn: str, other_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(tmp_path / "sql", FLYWAY_FILES)
    first = ["V1__create_users.sql", "V1_1__add_email.sql", "V1_2__add_name.sql"]
    _flyway(db_dsn, directory, [*first, "R__users_view.sql"])
    plan = run("plan", "--dir", str(directory), env={"SAFEMIGRATE_LAYOUT": "auto"})
    assert plan.exit_code == 0, plan.output
    assert "note: layout: flyway (detected)" in plan.output
    assert "R__users_view.sql: a repeatable migration: safemigrate does not run it" in plan.output

    result = up(directory, db_dsn, "flyway")
    assert result.exit_code == 0, result.output
    # 1.10 comes after 1.2 (numbers part by part), 2 after both.
    assert [(v, n, state) for v, n, _, state, _ in journal(db_dsn)] == [
        (1_00000_0000, "create_users", "baseline"),
        (1_00001_0000, "add_email", "baseline"),
        (1_00002_0000, "add_name", "baseline"),
        (1_00010_0000, "create_orders", "applied"),
        (2_00000_0000, "create_notes", "applied"),
    ]
    _flyway(other_dsn, directory, [*sorted(FLYWAY_FILES, key=_flyway_order)])
    assert schema(db_dsn) == schema(other_dsn)


def _flyway_order(script: str) -> tuple[int, tuple[int, ...]]:
    if script.startswith("R__"):
        return (1, ())
    return (0, tuple(int(p) for p in script[1:].split("__")[0].split("_")))


def test_a_failed_flyway_row_stops_the_run(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "sql", FLYWAY_FILES)
    _flyway(
        db_dsn,
        directory,
        ["V1__create_users.sql", "V1_1__add_email.sql"],
        failed="V1_1__add_email.sql",
    )
    result = up(directory, db_dsn, "flyway")
    assert result.exit_code == 2, result.output
    assert "records migration 1.1 as failed" in result.output
    assert "flyway repair" in result.output
    assert journal_exists(db_dsn) is False


def test_a_changed_flyway_script_is_drift(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "sql", FLYWAY_FILES)
    _flyway(db_dsn, directory, ["V1__create_users.sql"])
    script = directory / "V1__create_users.sql"
    # Line endings do not count in Flyway's checksum (the file was written with CRLF).
    script.write_bytes(b"CREATE TABLE users (id bigint PRIMARY KEY);\n")
    status = run(
        "status", "--dir", str(directory), "--dsn", db_dsn, env={"SAFEMIGRATE_LAYOUT": "flyway"}
    )
    assert status.exit_code == 0, status.output
    script.write_text("CREATE TABLE users (id int PRIMARY KEY);\n")
    result = up(directory, db_dsn, "flyway")
    assert result.exit_code == 5, result.output
    assert "V1__create_users.sql: applied by flyway, but its text has changed" in result.output


def test_a_flyway_baseline_counts_every_version_up_to_it(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "sql", FLYWAY_FILES)
    execute(db_dsn, FLYWAY_TABLE, "CREATE TABLE users (id bigint PRIMARY KEY, email text)")
    execute(
        db_dsn,
        "INSERT INTO flyway_schema_history VALUES (1, '1.1', '<< Flyway Baseline >>', 'BASELINE', "
        "'<< Flyway Baseline >>', NULL, 'postgres', now(), 0, true)",
    )
    result = up(directory, db_dsn, "flyway")
    assert result.exit_code == 0, result.output
    assert [(v, state) for v, _, _, state, _ in journal(db_dsn)] == [
        (1_00000_0000, "baseline"),
        (1_00001_0000, "baseline"),
        (1_00002_0000, "applied"),
        (1_00010_0000, "applied"),
        (2_00000_0000, "applied"),
    ]


def test_rehearse_works_on_another_tools_layout(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path / "db" / "migrations",
        {
            "1_users.sql": "-- migrate:up\nCREATE TABLE users (id int);\n-- migrate:down\n"
            "DROP TABLE users;\n",
            "2_index.sql": "-- migrate:up transaction:false\n"
            "CREATE INDEX CONCURRENTLY users_id ON users (id);\n"
            "-- migrate:down\nDROP INDEX users_id;\n",
        },
    )
    result = run(
        "rehearse",
        "--dir",
        str(directory),
        "--server",
        "system",
        env={"SAFEMIGRATE_LAYOUT": "auto"},
    )
    assert result.exit_code == 0, result.output
    assert "DROP" not in result.output
