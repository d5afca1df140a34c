"""The target, always visible and deliberate: every command that connects prints where it is
connected first (user@host:port/dbname, server version, primary or standby; never a password),
refuses to run when nothing names a database, and with require_dsn refuses libpq's PG*
variables. Also the run header's --target and worst-case lines, and bad DSNs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from psycopg.conninfo import conninfo_to_dict

from tests.fixtures_db import PgServer
from tests.support.runner import EXAMPLE, journal_rows, run, write_migrations

SECRET = "Sup3r-target-pw"

SMALL = {
    "0001_a.sql": "CREATE TABLE a (id int PRIMARY KEY);\n",
    "0002_b.sql": "CREATE TABLE b (id int PRIMARY KEY);\n",
    "0003_c.sql": "ALTER TABLE a ADD COLUMN note text;\n",
    "0004_d.sql": "CREATE TABLE d (id int PRIMARY KEY);\n",
}


def params(dsn: str) -> dict[str, str]:
    return {k: str(v) for k, v in conninfo_to_dict(dsn).items()}


def expected_target(dsn: str) -> str:
    p = params(dsn)
    return f"{p['user']}@{p['host']}:{p['port']}/{p['dbname']}"


def pg_environment(dsn: str) -> dict[str, str]:
    """libpq's variables naming the database ``dsn`` names (no DSN anywhere)."""
    p = params(dsn)
    return {
        "PGHOST": p["host"],
        "PGPORT": p["port"],
        "PGUSER": p["user"],
        "PGDATABASE": p["dbname"],
    }


TARGET_LINE = re.compile(r"^target: (\S+) \(PostgreSQL (\d+\.\d+), primary\)$")


def first_line_target(stdout: str) -> str:
    match = TARGET_LINE.match(stdout.splitlines()[0])
    assert match is not None, stdout
    return match.group(1)


# -- the target line -------------------------------------------------------------------------


def test_up_prints_the_target_first_and_never_the_password(
    db_dsn: str, pg_server: PgServer
) -> None:
    result = run("up", "--dir", str(EXAMPLE), "--dsn", f"{db_dsn} password={SECRET}")
    assert result.exit_code == 0, result.output
    assert first_line_target(result.stdout) == expected_target(db_dsn)
    assert f"PostgreSQL {pg_server.major_version}." in result.stdout.splitlines()[0]
    # The fresh database's line comes between the target and the run header.
    assert result.stdout.splitlines()[1].startswith("bootstrapping a fresh database")
    assert result.stdout.splitlines()[2].startswith("applying 22 steps of 10 migrations")
    assert any(
        line.startswith("applying 22 steps of 10 migrations") for line in result.stdout.splitlines()
    )
    assert SECRET not in result.output


def test_up_json_has_a_connected_event_first_and_the_target_in_run_started(db_dsn: str) -> None:
    result = run(
        "up", "--dir", str(EXAMPLE), "--dsn", f"{db_dsn} password={SECRET}", "--format", "json"
    )
    assert result.exit_code == 0, result.output
    events = result.events()
    assert [e["event"] for e in events[:3]] == ["connected", "fresh_database", "run_started"]
    p = params(db_dsn)
    target = events[2]["target"]
    assert target == events[0]["target"]
    assert target["user"] == p["user"] and target["host"] == p["host"]
    assert target["port"] == int(p["port"]) and target["dbname"] == p["dbname"]
    assert target["standby"] is False
    assert re.fullmatch(r"\d+\.\d+", target["server_version"])
    assert events[2]["database"] == expected_target(db_dsn)
    assert SECRET not in result.output


def test_a_connection_from_pg_variables_shows_the_values_libpq_used(db_dsn: str) -> None:
    # No DSN at all: the target line must say which server and database libpq picked.
    result = run("up", "--dir", str(EXAMPLE), env=pg_environment(db_dsn))
    assert result.exit_code == 0, result.output
    assert first_line_target(result.stdout) == expected_target(db_dsn)
    assert "local socket" not in result.stdout


def test_status_shows_the_target_in_text_and_json(db_dsn: str) -> None:
    text = run("status", "--dir", str(EXAMPLE), "--dsn", f"{db_dsn} password={SECRET}")
    assert text.exit_code == 0, text.output
    assert first_line_target(text.stdout) == expected_target(db_dsn)
    document = json.loads(
        run("status", "--dir", str(EXAMPLE), "--dsn", db_dsn, "--format", "json").stdout
    )
    assert document["target"]["dbname"] == params(db_dsn)["dbname"]
    assert document["target"]["standby"] is False
    assert SECRET not in text.output


def test_plan_and_dry_run_show_the_target(db_dsn: str) -> None:
    plan = run("plan", "--dir", str(EXAMPLE), "--dsn", db_dsn)
    assert plan.exit_code == 0, plan.output
    assert first_line_target(plan.stdout) == expected_target(db_dsn)
    dry = run("up", "--dry-run", "--dir", str(EXAMPLE), "--dsn", f"{db_dsn} password={SECRET}")
    assert dry.exit_code == 0, dry.output
    assert first_line_target(dry.stdout) == expected_target(db_dsn)
    assert SECRET not in dry.output
    document = json.loads(
        run("plan", "--dir", str(EXAMPLE), "--dsn", db_dsn, "--format", "json").stdout
    )
    assert document["target"]["port"] == int(params(db_dsn)["port"])
    assert document["target"]["standby"] is False


def test_baseline_shows_the_target_first(db_dsn: str) -> None:
    text = run("baseline", "0002", "--dir", str(EXAMPLE), "--dsn", f"{db_dsn} password={SECRET}")
    assert text.exit_code == 0, text.output
    assert first_line_target(text.stdout) == expected_target(db_dsn)
    assert SECRET not in text.output
    result = run("baseline", "0003", "--dir", str(EXAMPLE), "--dsn", db_dsn, "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["target"]["dbname"] == params(db_dsn)["dbname"]
    assert [name[:4] for name in document["baselined"]] == ["0003"]


# -- nothing names a database; require_dsn ---------------------------------------------------


@pytest.mark.parametrize("command", [["up"], ["status"], ["baseline", "0001"], ["up", "--dry-run"]])
def test_with_nothing_naming_a_database_nothing_runs(command: list[str]) -> None:
    result = run(*command, "--dir", str(EXAMPLE), env={"PGPASSWORD": "x"})
    assert result.exit_code == 2, result.output
    assert "no database given" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "target:" not in result.stdout


@pytest.mark.parametrize(
    "how",
    [
        ("flag", ["--require-dsn"], {}),
        ("environment", [], {"SAFEMIGRATE_REQUIRE_DSN": "true"}),
        ("config", [], {}),
    ],
    ids=lambda how: how[0],
)
def test_require_dsn_refuses_the_pg_variables_and_applies_nothing(
    db_dsn: str, tmp_path: Path, how: tuple[str, list[str], dict[str, str]]
) -> None:
    name, flags, env = how
    directory = write_migrations(tmp_path / "m", SMALL)
    if name == "config":
        (tmp_path / "safemigrate.toml").write_text("require_dsn = true\n")
    result = run(
        "up", "--dir", str(directory), *flags, cwd=tmp_path, env={**pg_environment(db_dsn), **env}
    )
    assert result.exit_code == 2, result.output
    assert "require_dsn is on" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert journal_rows(db_dsn) == []


def test_require_dsn_accepts_a_dsn_and_no_require_dsn_overrides_the_environment(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(tmp_path / "m", SMALL)
    env = {"SAFEMIGRATE_REQUIRE_DSN": "true"}
    given = run("up", "--dir", str(directory), "--dsn", db_dsn, env=env)
    assert given.exit_code == 0, given.output
    from_pg = run(
        "status", "--dir", str(directory), "--no-require-dsn", env={**env, **pg_environment(db_dsn)}
    )
    assert from_pg.exit_code == 0, from_pg.output


def test_an_empty_dsn_flag_is_refused(db_dsn: str) -> None:
    result = run("up", "--dir", str(EXAMPLE), "--dsn", "", env={"DATABASE_URL": db_dsn})
    assert result.exit_code == 2, result.output
    assert "--dsn: is empty" in result.stderr
    assert journal_rows(db_dsn) == []


# -- a DSN that is not one -------------------------------------------------------------------


def test_not_a_dsn_says_what_is_wrong_without_echoing_it() -> None:
    result = run("up", "--dir", str(EXAMPLE), "--dsn", "not a dsn")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[0] == (
        'error: --dsn: invalid connection string: missing "=" after a word; expected key=value '
        "pairs (host=... dbname=...) or a postgresql:// URL"
    )
    assert "not a dsn" not in result.output


# -- the run header --------------------------------------------------------------------------


def test_up_to_a_target_says_later_migrations_are_pending(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", SMALL)
    first = run("up", "--dir", str(directory), "--dsn", db_dsn, "--target", "0002")
    assert first.exit_code == 0, first.output
    assert "applying 2 steps of 2 migrations up to version 0002" in first.stdout
    assert "2 later migrations are pending" in first.stdout
    again = run("up", "--dir", str(directory), "--dsn", db_dsn, "--target", "2")
    assert again.exit_code == 0, again.output
    assert "nothing to apply up to version 0002; 2 later migrations are pending" in again.stdout
    assert "every migration is applied" not in again.stdout
    rest = run("up", "--dir", str(directory), "--dsn", db_dsn)
    done = run("up", "--dir", str(directory), "--dsn", db_dsn, "--target", "0002")
    assert rest.exit_code == 0 and done.exit_code == 0
    assert "nothing to apply up to version 0002\n" in done.stdout


def test_the_header_shows_concurrently_timeouts_only_for_runs_with_such_steps(
    db_dsn: str, tmp_path: Path
) -> None:
    small = run("up", "--dir", str(write_migrations(tmp_path / "m", SMALL)), "--dsn", db_dsn)
    assert small.exit_code == 0, small.output
    (header,) = [line for line in small.stdout.splitlines() if line.startswith("lock waits:")]
    assert "CONCURRENTLY" not in header
    assert "worst case per step 2min 22s" in header
    # Four small steps: four times one step's worst case, and said to be the worst case.
    assert "worst case for the run 9min 26s (no run deadline)" in header
    assert "assume every attempt times out" in header

    indexed = {"0005_i.sql": "CREATE INDEX d_id ON d (id);\n"}
    write_migrations(tmp_path / "m", indexed)
    result = run("up", "--dir", str(tmp_path / "m"), "--dsn", db_dsn, "--deadline", "10min")
    assert result.exit_code == 0, result.output
    (header,) = [line for line in result.stdout.splitlines() if line.startswith("lock waits:")]
    assert "(CONCURRENTLY steps: lock_timeout 5min, worst case 10min)" in header
    assert "worst case for the run 10min (the run deadline)" in header


def test_plan_and_dry_run_name_the_target_even_when_they_refuse_drift(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(tmp_path / "m", {"0001_a.sql": "CREATE TABLE a (id int);"})
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    (directory / "0001_a.sql").write_text("CREATE TABLE a (id bigint);")
    for args in (("plan", "--dsn", db_dsn), ("up", "--dry-run", "--dsn", db_dsn)):
        result = run(*args, "--dir", str(directory))
        assert result.exit_code == 5, result.output
        assert first_line_target(result.stdout) == expected_target(db_dsn)
    (directory / "0001_a.sql").write_text("CREATE TABLE a (id int);")
    planned = run("plan", "--dsn", db_dsn, "--dir", str(directory))
    assert planned.exit_code == 0, planned.output
    # Printed once, when connected: not again at the head of the report.
    assert planned.stdout.count("target: ") == 1
