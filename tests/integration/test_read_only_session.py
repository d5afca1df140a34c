"""A migration that would make the runner's transactions read-only, on a real server (issue 21,
review 21f F3): `SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY` made the next step's
journal INSERT fail with 25006, and the replay applied it again on every rerun, exit 1 forever.
Now it is refused before anything runs (exit 2, file:line), whatever lint_gate says, and the
rerun after the fix applies the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.runner import journal_rows, run, write_migrations

FIRST = {"0001_t.sql": "CREATE TABLE t (v text);\n"}


@pytest.mark.parametrize(
    "statement",
    [
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY;",
        "SET default_transaction_read_only = on;",
        "SELECT set_config('default_transaction_read_only', 'on', false);",
        "SET transaction_read_only = on;",
    ],
)
def test_a_read_only_session_is_refused_before_anything_runs(
    db_dsn: str, tmp_path: Path, statement: str
) -> None:
    first = run("up", "--dir", str(write_migrations(tmp_path / "m", FIRST)), "--dsn", db_dsn)
    assert first.exit_code == 0, first.output
    files = {
        **FIRST,
        "0002_ro.sql": f"{statement}\nSET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE;\n",
        "0003_w.sql": "INSERT INTO t VALUES ('after');\n",
    }
    directory = write_migrations(tmp_path / "m2", files)
    for gate in ("error", "off"):
        result = run("up", "--dir", str(directory), "--dsn", db_dsn, "--lint-gate", gate)
        assert result.exit_code == 2, result.output
        assert "0002_ro.sql:1: refused:" in result.output
        assert "read-only" in result.output and "Traceback" not in result.output
    assert {r[0] for r in journal_rows(db_dsn)} == {1}

    # The author removes the statement: the rerun applies the rest, exit 0.
    files["0002_ro.sql"] = "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE;\n"
    directory = write_migrations(tmp_path / "m3", files)
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert {r[0] for r in journal_rows(db_dsn)} == {1, 2, 3}
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
