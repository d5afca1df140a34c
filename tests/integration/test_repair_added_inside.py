"""review21f F1 (issue 21): SQL added inside an applied step never ran, so `repair
--accept-edited` refuses it (exit 2) naming its line, and `up` does not pass it: nothing is
recorded, the new table never exists, the applied UPDATE does not run again. Real server."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from tests.support.runner import journal_rows, run, write_migrations

ACC = "CREATE TABLE acc (id int PRIMARY KEY, n int);\nINSERT INTO acc VALUES (1, 100);\n"
PLUS = "UPDATE acc SET n = n + 10;\n"
ONE = "UPDATE acc SET n = n + 1;\n"
LOG = "CREATE TABLE interest_log (id int);\n"
START, END = "-- safemigrate: group-start\n", "-- safemigrate: group-end\n"


def _facts(dsn: str) -> tuple[int, bool]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT (SELECT n FROM acc WHERE id = 1), to_regclass('interest_log') IS NOT NULL"
        ).fetchone()
    assert row is not None
    return int(row[0]), bool(row[1])


@pytest.mark.parametrize(
    ("ran", "edited", "line"),
    [
        (PLUS, START + PLUS + LOG + END, 3),  # the review's case
        (PLUS, "BEGIN;\n" + PLUS + LOG + "COMMIT;\n", 3),
        (PLUS, START + LOG + PLUS + END, 2),
        (PLUS, "DO $$ BEGIN " + PLUS + LOG + "END $$;\n", 1),
        (START + PLUS + PLUS + END, START + PLUS + LOG + PLUS + END, 3),
        (START + PLUS + ONE + END, START + PLUS + ONE + LOG + END, 4),
        ("BEGIN;\n" + PLUS + ONE + "COMMIT;\n", "BEGIN;\n" + PLUS + ONE + LOG + "COMMIT;\n", 4),
    ],
    ids=["group", "block", "above", "do-block", "between", "group-appended", "block-appended"],
)
def test_sql_added_inside_an_applied_step_is_refused(
    db_dsn: str, tmp_path: Path, ran: str, edited: str, line: int
) -> None:
    directory = write_migrations(tmp_path / "m", {"0001_t.sql": ACC, "0002_x.sql": ran})
    args = ("--dir", str(directory), "--dsn", db_dsn)
    assert run("up", *args).exit_code == 0
    before, facts = journal_rows(db_dsn), _facts(db_dsn)
    (directory / "0002_x.sql").write_text(edited)
    for dry in ((), ("--dry-run",)):
        refused = run("repair", *args, "--accept-edited", *dry)
        assert refused.exit_code == 2, refused.output
        assert "0002_x.sql step 1 (line" in refused.stderr
        assert f"SQL was added inside it: line {line}" in refused.stderr, refused.stderr
        assert "new migration" in refused.stderr and "Traceback" not in refused.output
    named = run("repair", *args, "--accept-edited-step", "0002:1")
    assert named.exit_code == 2 and f"inside it: line {line}" in named.stderr, named.output
    assert run("up", *args).exit_code == 5
    assert journal_rows(db_dsn) == before
    assert _facts(db_dsn) == facts and facts[1] is False
