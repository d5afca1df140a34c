"""A pg_dump baseline with COPY ... FROM STDIN can be adopted (issue 21 review D9).

Before: a pg_dump-style 0001 (``COPY t (a, b) FROM stdin;``, data lines, ``\\.``) that was
applied, baselined or adopted from another tool made ``baseline``, ``status`` and ``up`` exit 2
(the file was refused whole), so a team switching with a pg_dump baseline could not adopt it.
Now the data lines are blanked for the parser (they are data, not SQL) and kept in the step's
checksum; only a step that is to run and needs COPY FROM STDIN is refused, before anything
runs, with file:line.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import psycopg
import pytest

from safemigrate.infra.throwaway import find_server_bindir
from tests.fixtures_db import TEST_PG_ENV
from tests.support.runner import Result, environment, journal_rows, psql_binary, run
from tests.support.schemas import public_tables
from tests.support.tables import all_rows

#: What the data lines may hold: ``;``, ``$$``, quotes, comment starts, tabs, ``\\N``, a
#: statement, a directive, ``\\.`` not at the start of its line, a trailing tab (an empty b).
DUMP = (
    "CREATE TABLE public.t (a int, b text);\n"
    "\n"
    "COPY public.t (a, b) FROM stdin;\n"
    "1\tx; y $$ 'q\n"
    "2\t\\N\n"
    "3\t/* -- safemigrate: batch-size=10\n"
    "4\tDROP TABLE t;\n"
    "5\ta \\\\. b\n"
    "6\t\n"
    "\\.\n"
    "\n"
    "CREATE INDEX t_a ON public.t (a);\n"
)

ROWS = [(1, "x; y $$ 'q"), (2, None), (3, "/* -- safemigrate: batch-size=10"), (4, "DROP TABLE t;")]
ROWS += [(5, "a \\. b"), (6, "")]


def _psql(dsn: str, path: Path) -> None:
    psql = psql_binary()
    if psql is None:
        pytest.skip("psql is not installed")
    subprocess.run(
        [psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", str(path)],
        check=True,
        capture_output=True,
        env=environment(),
    )


def _rows(dsn: str) -> list[tuple[object, ...]]:
    return all_rows(dsn, "SELECT a, b FROM t ORDER BY a")


def _directory(tmp_path: Path, *more: tuple[str, str]) -> Path:
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_dump.sql").write_text(DUMP, encoding="utf-8")
    for name, text in more:
        (directory / name).write_text(text, encoding="utf-8")
    return directory


def _cli(command: str, directory: Path, dsn: str, *more: str) -> Result:
    return run(command, "--dir", str(directory), "--dsn", dsn, *more)


def test_issue_21_review_d9_a_baselined_pg_dump_with_copy_data_is_fine_everywhere(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = _directory(tmp_path, ("0002_u.sql", "CREATE TABLE u (id int);\n"))
    # The team loaded the dump with psql, as pg_dump meant it (the data lines load as rows).
    _psql(db_dsn, directory / "0001_dump.sql")
    assert _rows(db_dsn) == ROWS

    baseline = run("baseline", "1", "--dir", str(directory), "--dsn", db_dsn)
    assert baseline.exit_code == 0, baseline.output
    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 0, status.output
    assert "0001_dump.sql  applied   3/3 steps" in status.stdout
    plan = run("plan", "--dir", str(directory), "--dsn", db_dsn)
    assert plan.exit_code == 0, plan.output
    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert up.exit_code == 0, up.output
    assert journal_rows(db_dsn)[-1] == (2, 0, "applied")
    again = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert again.exit_code == 0, again.output
    repair = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert repair.exit_code == 0, repair.output
    assert "nothing to repair" in repair.stdout
    assert _rows(db_dsn) == ROWS  # nothing ran again

    # The rows are part of the step's checksum: an edited row is drift.
    (directory / "0001_dump.sql").write_text(DUMP.replace("6\t\n", "6\tz\n"), encoding="utf-8")
    drift = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert drift.exit_code == 5, drift.output
    assert "0001_dump.sql" in drift.output


def test_issue_21_review_d9_a_pg_dump_applied_by_another_tool_is_adopted(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = tmp_path / "golang"
    directory.mkdir()
    (directory / "1_dump.up.sql").write_text(DUMP, encoding="utf-8")
    (directory / "2_u.up.sql").write_text("CREATE TABLE u (id int);\n", encoding="utf-8")
    _psql(db_dsn, directory / "1_dump.up.sql")
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE schema_migrations (version bigint not null primary key, "
            "dirty boolean not null)"
        )
        conn.execute("INSERT INTO schema_migrations VALUES (1, false)")
    env = {"SAFEMIGRATE_LAYOUT": "golang-migrate"}
    status = run("status", "--dir", str(directory), "--dsn", db_dsn, env=env)
    assert status.exit_code == 0, status.output
    up = run("up", "--dir", str(directory), "--dsn", db_dsn, env=env)
    assert up.exit_code == 0, up.output
    assert "u" in set(public_tables(db_dsn))
    assert _rows(db_dsn) == ROWS


def test_issue_21_review_d9_a_pending_copy_from_stdin_is_refused_before_anything_runs(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_first.sql").write_text("CREATE TABLE first (id int);\n")
    (directory / "0002_dump.sql").write_text(DUMP, encoding="utf-8")
    where = "0002_dump.sql:3: COPY ... FROM STDIN reads its rows from the client"
    for command in ("up", "status", "plan"):
        result = _cli(command, directory, db_dsn)
        assert result.exit_code == 2, (command, result.output)
        assert where in result.stderr, (command, result.stderr)
    dry = _cli("up", directory, db_dsn, "--dry-run")
    assert dry.exit_code == 2, dry.output
    assert journal_rows(db_dsn) == []
    assert set(public_tables(db_dsn)) == set()
    # Up to the migration before it, the run goes on; the dump's step stays refused.
    first = _cli("up", directory, db_dsn, "--target", "1")
    assert first.exit_code == 0, first.output
    assert set(public_tables(db_dsn)) == {"first", "safemigrate_history"}


def _pg_dump_for(dsn: str) -> str:
    """A pg_dump that can dump the test server: the server's own (its bindir), else the one
    beside psql; pg_dump refuses a server of a later major version than its own."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        server_major = conn.info.server_version // 10000
    psql = psql_binary()
    candidates = [find_server_bindir(os.environ.get(TEST_PG_ENV)) / "pg_dump"]
    if psql is not None:
        candidates.append(Path(psql).with_name("pg_dump"))
    for candidate in candidates:
        if not candidate.exists():
            continue
        version = subprocess.run(
            [str(candidate), "--version"], check=True, capture_output=True, text=True
        ).stdout.split()[-1]
        if int(version.split(".")[0]) >= server_major:
            return str(candidate)
    pytest.skip(f"no pg_dump of PostgreSQL {server_major} or later is installed")


def test_issue_21_review_d9_a_real_pg_dump_baseline_is_adopted(db_dsn: str, tmp_path: Path) -> None:
    """pg_dump's own file (15.14 and later write ``\\restrict KEY`` / ``\\unrestrict KEY``
    around it), loaded with psql, then baselined: status, up and repair accept it."""
    pg_dump = _pg_dump_for(db_dsn)
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE t (a int, b text)")
        conn.execute("INSERT INTO t VALUES (1, 'x; y $$ q'), (2, NULL)")
    dump = subprocess.run(
        [pg_dump, "-d", db_dsn], check=True, capture_output=True, text=True, env=environment()
    ).stdout
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_dump.sql").write_text(dump, encoding="utf-8")
    (directory / "0002_u.sql").write_text("CREATE TABLE u (id int);\n", encoding="utf-8")
    baseline = run("baseline", "1", "--dir", str(directory), "--dsn", db_dsn)
    assert baseline.exit_code == 0, baseline.output
    for command in ("status", "up", "repair"):
        result = _cli(command, directory, db_dsn)
        assert result.exit_code == 0, (command, result.output)
    assert "u" in set(public_tables(db_dsn))


def test_review21d_4_a_baselined_dump_converted_to_crlf_is_not_drift(
    db_dsn: str, tmp_path: Path
) -> None:
    """git's autocrlf turns every LF into CR LF: psql and the server read the same rows, so
    the applied COPY steps still match (a data line's edit is still drift)."""
    directory = _directory(tmp_path)
    _psql(db_dsn, directory / "0001_dump.sql")
    assert run("baseline", "1", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    dump = directory / "0001_dump.sql"
    dump.write_bytes(DUMP.replace("\n", "\r\n").encode())
    status = _cli("status", directory, db_dsn)
    assert status.exit_code == 0, status.output
    # What the claim rests on: the server loads the CR LF file as the same rows.
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE t")
    _psql(db_dsn, dump)
    assert _rows(db_dsn) == ROWS
    dump.write_bytes(DUMP.replace("\n", "\r\n").replace("4\tDROP", "4\tdrop").encode())
    assert _cli("status", directory, db_dsn).exit_code == 5
