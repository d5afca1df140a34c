"""The lint gate reads the tables' sizes without waiting for anyone's lock (issue 20).

pg_table_size and pg_indexes_size open a relation with ACCESS SHARE (src/backend/utils/adt/
dbsize.c, try_relation_open): behind a session holding ACCESS EXCLUSIVE on any table, a size
read would queue, and the run would fail on a table its migrations never touch.
"""

from __future__ import annotations

from pathlib import Path

from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations


def test_a_table_held_in_access_exclusive_never_holds_up_the_gate(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    setup = connect()
    setup.execute(
        "CREATE TABLE held (id int); CREATE TABLE acct (id int PRIMARY KEY, n int);"
        "INSERT INTO acct SELECT g, g FROM generate_series(1, 100) g; ANALYZE acct"
    )
    holder = connect(autocommit=False)
    holder.execute("LOCK TABLE held IN ACCESS EXCLUSIVE MODE")  # held until the test ends
    write_migrations(tmp_path, {"0001_acct.sql": "ALTER TABLE acct ALTER COLUMN n TYPE bigint;"})
    # lock_timeout 2s, the holder stays: had the gate waited for `held`, exit 4.
    applied = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--verbose")
    assert applied.exit_code == 0, applied.output
    assert "not blocking: acct: 100 rows, 24 kB" in applied.stdout
    assert journal_rows(db_dsn) == [(1, 0, "applied")]

    # The held table's own size cannot be read without waiting: it is judged as large.
    write_migrations(tmp_path, {"0002_held.sql": "ALTER TABLE held ALTER COLUMN id TYPE bigint;"})
    refused = run("up", "--dir", str(tmp_path), "--dsn", db_dsn)
    assert refused.exit_code == 7, refused.output
    assert "0002_held.sql:1 step 1/1: error [column-type-change]" in refused.stdout
    holder.rollback()
