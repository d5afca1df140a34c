"""Every bad input: one line naming the file, line or key, exit 2, no traceback, nothing applied."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures_db import PgServer
from tests.support.runner import (
    Result,
    assert_refused_as_bad_input,
    journal_rows,
    run,
    up_args,
    write_migrations,
)

GOOD = {"0001_ok.sql": "CREATE TABLE ok (id int);"}


def _assert_clean_error(result: Result, code: int, *needles: str) -> None:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(error_lines) == 1, result.stderr
    for needle in needles:
        assert needle in result.stderr


@pytest.mark.parametrize(
    ("files", "needles"),
    [
        (
            {"0002_b.sql": b"SELECT 1;", "2_again.sql": b"SELECT 2;"},
            ["duplicate version 2", "0002_b.sql", "2_again.sql"],
        ),
        (
            {"add_column.sql": b"SELECT 1;"},
            ["add_column.sql", "does not match <version>_<name>.sql"],
        ),
        (
            {"0002_latin1.sql": b"SELECT 1;\nSELECT 'caf\xe9';\n"},
            ["0002_latin1.sql:2", "not UTF-8"],
        ),
        (
            {"0002_typo.sql": b"SELECT 1;\n\nCREAT TABLE x (id int);\n"},
            ["0002_typo.sql:3", "SQL does not parse", "syntax error"],
        ),
        (
            {"0002_directive.sql": b"-- safemigrate: lock-timeout=forever\nSELECT 1;\n"},
            ["0002_directive.sql:1", "forever"],
        ),
        (
            {"0002_unknown.sql": b"-- safemigrate: please-be-careful\nSELECT 1;\n"},
            ["0002_unknown.sql:1", "unknown safemigrate directive 'please-be-careful'"],
        ),
        (
            # Issue 21 (review 21f F5): these were ignored, and the UPDATE ran unbatched, exit 0.
            {
                "0002_mixed_case.sql": (
                    b"SELECT 1;\n-- SafeMigrate: batch-size=500\nUPDATE ok SET id = 1;\n"
                )
            },
            [
                "0002_mixed_case.sql:2",
                "looks like a safemigrate directive",
                "-- safemigrate: batch-size=500",
            ],
        ),
        (
            {
                "0002_c_comment.sql": (
                    b"SELECT 1;\n/* safemigrate: batch-size=500 */\nUPDATE ok SET id = 1;\n"
                )
            },
            ["0002_c_comment.sql:2", "is in a block comment", "-- safemigrate: batch-size=500"],
        ),
        (
            # Issue 21 (review 21h D3): without the colon the group was two steps, exit 0.
            {
                "0002_no_colon.sql": (
                    b"-- safemigrate group-start\nUPDATE ok SET id = 1;\n"
                    b"UPDATE ok SET id = 2;\n-- safemigrate group-end\n"
                )
            },
            [
                "0002_no_colon.sql:1",
                "looks like a safemigrate directive",
                "-- safemigrate: group-start",
            ],
        ),
        (
            # Issue 21 (review 21h D4): the last one won silently.
            {"0002_twice.sql": b"-- safemigrate: lock-timeout=1s lock-timeout=5s\nSELECT 1;\n"},
            ["0002_twice.sql:1", "lock-timeout given twice"],
        ),
        (
            {"0002_block.sql": b"BEGIN;\nCREATE INDEX CONCURRENTLY i ON ok (id);\nCOMMIT;\n"},
            ["0002_block.sql:2", "cannot run inside a transaction block"],
        ),
        (
            {"0002_open.sql": b"BEGIN;\nSELECT 1;\n"},
            ["0002_open.sql:1", "BEGIN has no matching COMMIT"],
        ),
    ],
    ids=[
        "duplicate",
        "misnamed",
        "not-utf8",
        "parse-error",
        "bad-duration",
        "unknown-directive",
        "directive-mixed-case",
        "directive-block-comment",
        "directive-without-colon",
        "directive-option-twice",
        "concurrently-in-block",
        "unclosed-begin",
    ],
)
def test_bad_migration_files_apply_nothing(
    db_dsn: str, tmp_path: Path, files: dict[str, bytes], needles: list[str]
) -> None:
    directory = write_migrations(tmp_path / "m", GOOD)
    for name, data in files.items():
        (directory / name).write_bytes(data)
    for command in ("up", "status"):
        result = run(command, "--dir", str(directory), "--dsn", db_dsn)
        _assert_clean_error(result, 2, *needles)
    assert journal_rows(db_dsn) == []


def test_require_policy_refuses_plain_index_on_existing_table(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path / "m", {**GOOD, "0002_idx.sql": "CREATE INDEX ok_id ON ok (id);"}
    )
    (tmp_path / "safemigrate.toml").write_text('concurrent_indexes = "require"\n')
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, cwd=tmp_path)
    _assert_clean_error(result, 2, "0002_idx.sql:1", 'concurrent_indexes = "require"')
    assert journal_rows(db_dsn) == []


@pytest.mark.parametrize(
    ("config", "needles"),
    [
        (
            "lock_timout = '1s'\n",
            ["safemigrate.toml", "lock_timout", "did you mean 'lock_timeout'"],
        ),
        ("lock_timeout = '0'\n", ["safemigrate.toml", "lock_timeout"]),
        ("max_attempts = 'ten'\n", ["safemigrate.toml", "max_attempts"]),
        ("concurrent_indexes = 'maybe'\n", ["concurrent_indexes", "rewrite"]),
        ("lock_timeout = \n", ["safemigrate.toml", "line 1"]),
    ],
    ids=["unknown-key", "zero-lock-timeout", "bad-int", "bad-enum", "toml-syntax"],
)
def test_bad_config_applies_nothing(
    db_dsn: str, tmp_path: Path, config: str, needles: list[str]
) -> None:
    write_migrations(tmp_path / "migrations", GOOD)
    (tmp_path / "safemigrate.toml").write_text(config)
    result = run("up", "--dsn", db_dsn, cwd=tmp_path)
    _assert_clean_error(result, 2, *needles)
    assert journal_rows(db_dsn) == []


@pytest.mark.parametrize(
    ("flags", "needles"),
    [
        (["--lock-timeout", "2 parsecs"], ["--lock-timeout"]),
        (["--max-attempts", "0"], ["--max-attempts"]),
        (["--deadline", "-1s"], ["--deadline"]),
        (["--format", "xml"], ["xml"]),
    ],
    ids=["duration", "attempts", "deadline", "format"],
)
def test_bad_flags_apply_nothing(
    db_dsn: str, tmp_path: Path, flags: list[str], needles: list[str]
) -> None:
    directory = write_migrations(tmp_path / "m", GOOD)
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, *flags)
    assert_refused_as_bad_input(result, db_dsn, *needles)


def test_bad_dsn_is_bad_input(tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", GOOD)
    result = run("up", "--dir", str(directory), "--dsn", "host=x nosuchoption=1 password=hunter2")
    _assert_clean_error(result, 2, "--dsn", "invalid connection string")
    assert "hunter2" not in result.output


def test_unreachable_database_exits_6(tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", GOOD)
    result = run(
        *up_args(
            directory, "postgresql://app:s3cr3t-pw@127.0.0.1:1/shop?connect_timeout=3", json=False
        )
    )
    _assert_clean_error(result, 6, "cannot connect to the database")
    assert "s3cr3t-pw" not in result.output


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("where", ["dsn-url", "dsn-keywords", "pgpassword", "database-url"])
def test_password_never_appears_in_any_failure_output(
    tmp_path: Path, pg_server: PgServer, fmt: str, where: str
) -> None:
    secret = "Sup3r-s3cret-pw"
    directory = write_migrations(tmp_path / "m", GOOD)
    # A database that does not exist: the server answers with an error after authentication.
    target = pg_server.dsn("no_such_database_here")
    env: dict[str, str] = {}
    args = ["up", "--dir", str(directory), "--format", fmt]
    if where == "dsn-url":
        args += [
            "--dsn",
            f"postgresql://postgres:{secret}@/no_such_database_here?"
            + "&".join(f"{k}={v}" for k, v in _params(target).items() if k != "dbname"),
        ]
    elif where == "dsn-keywords":
        args += ["--dsn", f"{target} password={secret}"]
    elif where == "pgpassword":
        args += ["--dsn", target]
        env["PGPASSWORD"] = secret
    else:
        env["DATABASE_URL"] = f"{target} password={secret}"
    result = run(*args, env=env)
    assert result.exit_code == 6, result.output
    assert secret not in result.output
    assert "Traceback" not in result.output


def _params(dsn: str) -> dict[str, str]:
    from psycopg.conninfo import conninfo_to_dict

    return {k: str(v) for k, v in conninfo_to_dict(dsn).items()}


def test_help_documents_exit_codes_and_never_shows_a_password() -> None:
    for command in ([], ["up"], ["status"], ["new"], ["baseline"]):
        result = run(*command, "--help", env={"SAFEMIGRATE_DSN": "postgresql://u:pw-in-env@h/db"})
        assert result.exit_code == 0
        assert "Exit codes:" in result.stdout
        assert "pw-in-env" not in result.stdout
