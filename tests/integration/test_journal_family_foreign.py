"""A user's table named like one of the journal's family is refused, naming it (review21c F9).

``<journal>_batches``, ``<journal>_recipes``, ``<journal>_repairs`` and ``<journal>_tool_rows``
are safemigrate's own tables next to the journal. Before, an application table with such a
name made the runner's own SQL fail: exit 1 blamed on the user's batched or recipe step
("column p.version does not exist"), or "a statement of the runner's own failed" on every
later run. Now such a table is refused with exit 2 and a one-line error naming it: up front
when it is there before the run, and (the batches and recipes tables) before the first write
to it when a step of the same run made it.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from tests.support.runner import journal_rows, run, write_migrations

BASE = (
    "CREATE TABLE orders (id int PRIMARY KEY, n int NOT NULL DEFAULT 0);\n"
    "INSERT INTO orders (id) SELECT g FROM generate_series(1, 300) g;\n"
    "CREATE TABLE t (id int PRIMARY KEY, a int);\n"
    "INSERT INTO t SELECT g, g FROM generate_series(1, 300) g;\n"
)
BATCHED = "-- safemigrate: batch-size=100\nUPDATE orders SET n = n + 1;\n"
RECIPE = "ALTER TABLE t ADD CONSTRAINT t_a_pos CHECK (a > 0);\n"


@pytest.mark.parametrize(
    ("suffix", "step"),
    [("_batches", BATCHED), ("_recipes", RECIPE)],
)
def test_review21c_f9_a_family_table_made_by_a_step_is_refused_before_its_first_write(
    db_dsn: str, tmp_path: Path, suffix: str, step: str
) -> None:
    table = f"safemigrate_history{suffix}"
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_base.sql": BASE + f"CREATE TABLE {table} (id int, note text);\n",
            "0002_step.sql": step,
        },
    )
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    assert f"public.{table} exists but is not safemigrate's" in errors[0]
    assert "0002_step.sql" not in errors[0]  # not blamed on the user's step
    assert {(r[0], r[2]) for r in journal_rows(db_dsn)} == {(1, "applied")}
    with psycopg.connect(db_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM orders WHERE n > 0").fetchone() == (0,)


# ``_tool_rows`` (the rows of another tool's history safemigrate saw or wrote) was outside the
# family before (issue 23): a user table of that name was not refused up front.
@pytest.mark.parametrize("suffix", ["_batches", "_recipes", "_repairs", "_tool_rows"])
def test_review21c_f9_a_family_table_there_before_the_run_is_refused_up_front(
    db_dsn: str, tmp_path: Path, suffix: str
) -> None:
    directory = write_migrations(tmp_path / "m", {"0001_base.sql": BASE, "0002_b.sql": BATCHED})
    where = ["--dir", str(directory), "--dsn", db_dsn]
    assert run("up", *where, "--target", "0001").exit_code == 0
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute(f"DROP TABLE IF EXISTS safemigrate_history{suffix}")
        conn.execute(f"CREATE TABLE safemigrate_history{suffix} (id int, note text)")
    for command in (["status"], ["up", "--dry-run"], ["up"], ["repair"]):
        result = run(*command, *where)
        assert result.exit_code == 2, (command, result.output)
        assert f"public.safemigrate_history{suffix} exists but is not safemigrate's" in (
            result.output
        ), (command, result.output)
    assert {(r[0], r[2]) for r in journal_rows(db_dsn)} == {(1, "applied")}
    with psycopg.connect(db_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM orders WHERE n > 0").fetchone() == (0,)
