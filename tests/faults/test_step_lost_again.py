"""A step that loses the connection each time it runs ends the run (review21c F7).

A step that ends the runner's backend each time it runs: through a pid read from
pg_stat_activity (which the lint rule ``self-termination`` cannot tell from another session's),
or a watchdog that terminates every statement older than N seconds. Before,
every reconnection succeeded, the outage budget started over, and ``up`` reran the step
forever (364 cycles in 90 s). Now each loss counts against the step running: after
max_attempts of them the run ends with exit 6 naming the step, and the steps before it stay
applied.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.faults.helpers import FAST_BACKOFF
from tests.support.runner import journal_rows, run, write_migrations

#: The row of the session a statement runs in: a pid read from a view, as a watchdog reads it.
_OWN_ROW = " FROM pg_stat_activity WHERE pid = pg_backend_pid()"


def test_review21c_f7_a_step_that_terminates_its_own_backend_ends_the_run_with_exit_6(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_base.sql": "CREATE TABLE big (id int PRIMARY KEY);\n",
            "0002_suicide.sql": f"SELECT pg_terminate_backend(pid){_OWN_ROW};\n",
        },
    )
    started = time.monotonic()
    result = run(
        "up", "--dir", str(directory), "--dsn", db_dsn, "--max-attempts", "3", env=FAST_BACKOFF
    )
    assert result.exit_code == 6, result.output
    assert time.monotonic() - started < 60
    assert result.output.count("reconnected after") == 2, result.output
    error = next(line for line in result.output.splitlines() if line.startswith("error:"))
    assert "while 0002_suicide.sql:1 ran: 3 times during that step" in error, error
    assert [(r[0], r[2]) for r in journal_rows(db_dsn)] == [(1, "applied")]


def test_review21c_f7_losses_count_per_step_not_across_the_run(db_dsn: str, tmp_path: Path) -> None:
    """Two steps that each end their backend once (a sequence, which no rollback resets,
    says whether it is the first time) run to the end under max_attempts 2: one loss each."""
    once = "SELECT CASE WHEN nextval('{0}') = 1 THEN pg_terminate_backend(pid) END" + _OWN_ROW
    once += ";\n"
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_base.sql": "CREATE SEQUENCE s2; CREATE SEQUENCE s3;\n",
            "0002_once.sql": once.format("s2"),
            "0003_once.sql": once.format("s3"),
        },
    )
    result = run(
        "up", "--dir", str(directory), "--dsn", db_dsn, "--max-attempts", "2", env=FAST_BACKOFF
    )
    assert result.exit_code == 0, result.output
    assert result.output.count("reconnected after") == 2, result.output
    assert {(r[0], r[2]) for r in journal_rows(db_dsn)} == {(v, "applied") for v in (1, 2, 3)}


def test_a_direct_self_termination_is_refused_before_anything_is_applied(
    db_dsn: str, tmp_path: Path
) -> None:
    """``pg_terminate_backend(pg_backend_pid())`` itself is refused by the guard (exit 2,
    rule self-termination) whatever lint_gate says: no step runs, no reconnection."""
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_base.sql": "CREATE TABLE big (id int PRIMARY KEY);\n",
            "0002_suicide.sql": "SELECT pg_terminate_backend(pg_backend_pid());\n",
        },
    )
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, "--lint-gate", "off")
    assert result.exit_code == 2, result.output
    assert "0002_suicide.sql:1: refused: pg_terminate_backend" in result.output, result.output
    assert "reconnected after" not in result.output
    assert [r[0] for r in journal_rows(db_dsn)] == []
