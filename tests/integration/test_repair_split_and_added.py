"""Issue 21 (review21i E10): an applied step split in two, its tail moved into a new file and
a statement added in its stead, is refused, as the split alone is. On main 2417a01 the added
statement was taken for an edit of the one moved out (it stands in its place), so nothing
was searched for the moved one: `repair --accept-edited` (and `--accept-edited-step`)
exited 0, recording the added INSERT as applied though it never ran, and `up` then ran the
moved UPDATE a second time. Real server, through the CLI; the effects are counted."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from tests.support.runner import journal_rows, run, write_migrations

TABLES = (
    "CREATE TABLE acc (id int PRIMARY KEY, n int);\nINSERT INTO acc VALUES (1, 100);\n"
    "CREATE TABLE hits (id serial PRIMARY KEY, what text);\n"
)
A = "UPDATE acc SET n = n + 10;\n"
B = "UPDATE acc SET n = n + 1;\n"
NEW = "INSERT INTO hits (what) VALUES ('never ran');\n"
BLOCK = ("BEGIN;\n", "COMMIT;\n")
GROUP = ("-- safemigrate: group-start\n", "-- safemigrate: group-end\n")


def _facts(dsn: str) -> tuple[int, int]:
    """acc.n, and how many rows hits has."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT (SELECT n FROM acc), (SELECT count(*) FROM hits)").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


@pytest.mark.parametrize("ends", [BLOCK, GROUP], ids=["block", "group"])
def test_a_tail_moved_out_and_a_statement_added_in_its_place_is_refused(
    db_dsn: str, tmp_path: Path, ends: tuple[str, str]
) -> None:
    start, end = ends
    directory = write_migrations(
        tmp_path / "m", {"0001_t.sql": TABLES, "0002_x.sql": start + A + B + end}
    )
    args = ("--dir", str(directory), "--dsn", db_dsn)
    assert run("up", *args).exit_code == 0
    assert _facts(db_dsn) == (111, 0)
    before = journal_rows(db_dsn)

    (directory / "0002_x.sql").write_text(start + A + NEW + end)
    (directory / "0003_b.sql").write_text(B)
    tries = [
        run("repair", *args, "--accept-edited", "--dry-run"),
        run("repair", *args, "--accept-edited"),
        run("repair", *args, "--accept-edited-step", "0002:1"),
    ]
    up = run("up", *args)
    status = run("status", *args)
    # main: repair exit 0, then up ran B again (acc.n 112) and the INSERT never ran.
    assert _facts(db_dsn) == (111, 0), "a statement ran again"
    assert journal_rows(db_dsn) == before, "the journal records SQL that never ran"
    for refused in tries:
        assert refused.exit_code == 2, refused.output
        assert "0003_b.sql step 1" in refused.stderr, refused.stderr
        assert "up would run them again" in refused.stderr, refused.stderr
        assert "hint:" in refused.stderr and "Traceback" not in refused.output
    assert up.exit_code == 5, up.output
    assert status.exit_code == 5 and "0003_b.sql step 1" in status.output, status.output

    # What the hint says: the applied text back whole, the new SQL in a new migration.
    (directory / "0002_x.sql").write_text(start + A + B + end)
    (directory / "0003_b.sql").write_text(NEW)
    done = run("up", *args)
    assert done.exit_code == 0, done.output
    assert _facts(db_dsn) == (111, 1)
