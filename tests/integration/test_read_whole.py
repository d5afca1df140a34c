"""A file is read whole or refused, by every command that reads files (issue 21 item 8, COPY).

Before: ``CREATE TABLE h ...;\\0\\nCREATE TABLE h2 ...;`` was one step (the parser stops at the
NUL, a C string's end) and status said applied; a final ``COPY ... FROM STDIN`` failed only
after the earlier steps ran ("None: COPY cannot be used..."). Now each is one error line naming
the file and line, exit 2, and nothing runs.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from tests.support.runner import journal_rows, run
from tests.support.schemas import public_tables

NUL_FILE = b"CREATE TABLE h (id int);\x00\nCREATE TABLE h2 (id int);\n"
COPY_FILE = b"CREATE TABLE c (id int);\nCOPY c (id) FROM STDIN;\n"


def _directory(tmp_path: Path, last: bytes) -> Path:
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_first.sql").write_bytes(b"CREATE TABLE first (id int);\n")
    (directory / "0002_last.sql").write_bytes(last)
    return directory


@pytest.mark.parametrize(
    ("content", "line", "column", "message"),
    [
        (NUL_FILE, 1, 25, "NUL byte in the SQL"),
        (COPY_FILE, 2, 1, "COPY ... FROM STDIN reads its rows from the client"),
    ],
    ids=["nul", "copy-from-stdin"],
)
def test_issue_21_every_command_refuses_the_file_up_front_and_nothing_runs(
    content: bytes, line: int, column: int, message: str, db_dsn: str, tmp_path: Path
) -> None:
    directory = _directory(tmp_path, content)
    where = f"0002_last.sql:{line}: {message}"
    for command in ("up", "status", "plan"):
        result = run(command, "--dir", str(directory), "--dsn", db_dsn)
        assert result.exit_code == 2, (command, result.output)
        assert where in result.stderr, (command, result.stderr)
        assert "Traceback" not in result.output
    dry = run("up", "--dir", str(directory), "--dsn", db_dsn, "--dry-run")
    assert dry.exit_code == 2, dry.output
    # Nothing ran: not even the first migration, which comes before the bad file.
    assert journal_rows(db_dsn) == []
    assert public_tables(db_dsn) == []

    check = run("check", "--dir", str(directory))
    assert check.exit_code == 2, check.output
    assert f"{line}:{column}  error    {message}" in check.stdout
    single = run("check", str(directory / "0002_last.sql"))
    assert single.exit_code == 2, single.output
    # rehearse reads the files before it starts a throwaway server.
    rehearse = run("rehearse", "--dir", str(directory))
    assert rehearse.exit_code == 2, rehearse.output
    assert where in rehearse.stderr


def test_a_nul_byte_in_another_tools_layout_is_refused_too(db_dsn: str, tmp_path: Path) -> None:
    directory = tmp_path / "db" / "migrations"
    directory.mkdir(parents=True)
    (directory / "20240101000000_create.sql").write_bytes(
        b"-- migrate:up\nCREATE TABLE h (id int);\x00\nCREATE TABLE h2 (id int);\n\n"
        b"-- migrate:down\nDROP TABLE h;\n"
    )
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, "--layout", "dbmate")
    assert result.exit_code == 2, result.output
    assert "20240101000000_create.sql:2: NUL byte in the SQL" in result.stderr
    assert public_tables(db_dsn) == []


def test_issue_21_review_d9_a_nul_byte_in_dbmates_down_block_is_refused_too(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = tmp_path / "db" / "migrations"
    directory.mkdir(parents=True)
    (directory / "20240101000000_create.sql").write_bytes(
        b"-- migrate:up\nCREATE TABLE h (id int);\n\n-- migrate:down\nDROP TABLE h;\x00\n"
    )
    for command in ("status", "up"):
        result = run(command, "--dir", str(directory), "--dsn", db_dsn, "--layout", "dbmate")
        assert result.exit_code == 2, result.output
        assert "20240101000000_create.sql:5: NUL byte in the SQL" in result.stderr
    assert public_tables(db_dsn) == []


def test_the_data_of_a_pg_dump_copy_is_refused_as_the_copy(db_dsn: str, tmp_path: Path) -> None:
    directory = _directory(
        tmp_path,
        b"CREATE TABLE public.c (id int, note text);\n\n"
        b"COPY public.c (id, note) FROM stdin;\n1\tone\n2\ttwo\n\\.\n",
    )
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 2, result.output
    assert "0002_last.sql:3: COPY ... FROM STDIN" in result.stderr
    assert "INSERT statements" in result.stderr
    assert journal_rows(db_dsn) == []


def test_copy_to_stdout_is_refused_and_copy_from_a_server_file_runs(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = _directory(tmp_path, b"COPY (SELECT 1) TO STDOUT;\n")
    refused = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert refused.exit_code == 2, refused.output
    assert "0002_last.sql:1: COPY ... TO STDOUT" in refused.stderr
    (directory / "0002_last.sql").write_bytes(
        b"CREATE TABLE c (id int);\nCOPY c FROM PROGRAM 'echo 7';\n"
    )
    applied = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert applied.exit_code == 0, applied.output
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT id FROM c").fetchall() == [(7,)]
