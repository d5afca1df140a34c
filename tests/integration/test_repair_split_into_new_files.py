"""review21g P1 (issue 21): an applied group or BEGIN/COMMIT block [A; B] whose statements
are now in new files that would run. Plain ``repair`` forgot the gone file ("the file is
gone", exit 0) and ``--accept-edited`` accepted the part left in place; then ``up`` ran the
moved statements again (n = 22 or 12 where psql's history leaves 11). Now repair refuses
(exit 2, dry run too) naming the steps that hold them, ``up`` refuses (exit 5), and nothing
runs twice. Real server."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from tests.support.runner import journal_rows, run, write_migrations

TABLE = "CREATE TABLE acc (id int PRIMARY KEY, n int);\nINSERT INTO acc VALUES (1, 0);\n"
A = "UPDATE acc SET n = n + 10;\n"
B = "UPDATE acc SET n = n + 1;\n"
START, END = "-- safemigrate: group-start\n", "-- safemigrate: group-end\n"
GROUP = START + A + B + END
BLOCK = "BEGIN;\n" + A + B + "COMMIT;\n"
#: What psql leaves after the applied history: 0002 ran once.
ONCE = 11


def _n(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT n FROM acc WHERE id = 1").fetchone()
    assert row is not None
    return int(row[0])


def _applied(dsn: str, tmp_path: Path, text: str) -> tuple[Path, tuple[str, ...]]:
    """0001 and 0002 (``text``) applied; the directory and the args of a command on it."""
    directory = write_migrations(tmp_path / "m", {"0001_t.sql": TABLE, "0002_x.sql": text})
    args = ("--dir", str(directory), "--dsn", dsn)
    assert run("up", *args).exit_code == 0
    assert _n(dsn) == ONCE
    return directory, args


def _refused(args: tuple[str, ...], dsn: str, options: tuple[str, ...], words: str) -> None:
    """Repair (its dry run too) and up refuse; nothing is recorded or run again."""
    before = journal_rows(dsn)
    for dry in (("--dry-run",), ()):
        result = run("repair", *args, *options, *dry)
        assert result.exit_code == 2, result.output
        assert words in result.stderr, result.stderr
        assert "up would run them again" in result.stderr, result.stderr
        assert "Traceback" not in result.output
    up = run("up", *args)
    assert up.exit_code == 5, up.output
    assert "take it out of" in up.stderr, up.stderr
    assert journal_rows(dsn) == before
    assert _n(dsn) == ONCE


@pytest.mark.parametrize("applied", [GROUP, BLOCK], ids=["group", "block"])
def test_a_gone_step_split_into_new_files_is_refused_by_plain_repair(
    db_dsn: str, tmp_path: Path, applied: str
) -> None:
    directory, args = _applied(db_dsn, tmp_path, applied)
    (directory / "0002_x.sql").unlink()
    (directory / "0003_a.sql").write_text(A)
    (directory / "0004_b.sql").write_text(B)
    status = run("status", *args)
    assert "0003_a.sql step 1 (line 1), 0004_b.sql step 1 (line 1)" in status.output
    words = "0002_x.sql step 1: applied, and its statements are now in 0003_a.sql step 1"
    _refused(args, db_dsn, (), words)


@pytest.mark.parametrize(
    ("applied", "kept"),
    [(GROUP, A), (BLOCK, A), (GROUP, START + A + END)],
    ids=["group", "block", "group-kept"],
)
def test_an_applied_step_with_part_moved_to_a_new_file_is_not_accepted(
    db_dsn: str, tmp_path: Path, applied: str, kept: str
) -> None:
    directory, args = _applied(db_dsn, tmp_path, applied)
    (directory / "0002_x.sql").write_text(kept)
    (directory / "0003_y.sql").write_text(B)
    words = "its statements are now in 0003_y.sql step 1 (line 1), which is not applied"
    _refused(args, db_dsn, ("--accept-edited",), words)
    named = run("repair", *args, "--accept-edited-step", "0002:1")
    assert named.exit_code == 2 and words in named.stderr, named.output
    assert _n(db_dsn) == ONCE


def test_restoring_the_applied_text_lets_up_run_only_what_is_new(
    db_dsn: str, tmp_path: Path
) -> None:
    directory, args = _applied(db_dsn, tmp_path, GROUP)
    (directory / "0002_x.sql").unlink()
    (directory / "0003_a.sql").write_text(A)
    (directory / "0004_b.sql").write_text(B)
    assert run("repair", *args).exit_code == 2
    # What the hint says: the applied text back as it was, the moved statements taken out.
    (directory / "0002_x.sql").write_text(GROUP)
    (directory / "0003_a.sql").unlink()
    (directory / "0004_b.sql").write_text("UPDATE acc SET n = n * 2;\n")
    up = run("up", *args)
    assert up.exit_code == 0, up.output
    assert _n(db_dsn) == 2 * ONCE
