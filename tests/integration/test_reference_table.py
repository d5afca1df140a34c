"""Every row of the reference table (safemigrate.reference) against a real server: each of its
examples runs on the example schema (with rows) and the server must do what the row says.

For a statement that runs in a transaction block the probe is its own transaction, rolled
back afterwards: the relation locks the statement added, from pg_locks just before the
rollback (strongest mode per relation that existed before, indexes and composite types only
where the example names them); a rewrite from relfilenode; an index build from new indexes or
new relfilenodes of an index whose table was not rewritten; a scan from the transaction's own
``pg_stat_xact_user_tables.seq_scan``; rows changed from its ``n_tup_*`` counters; a rejection
from the SQLSTATE. A statement refused in a transaction block is shown refused (25001), then
run alone on a fresh copy of the database while a second session holds EXCLUSIVE on each
relation the example names: the mode it queues for there is its lock. Transaction control runs
on a session of its own. See tests/support/reference_probe.py.

Runs on the server ``SAFEMIGRATE_TEST_PG`` picks (Debian's 15, the wheel's 18); rows for other
versions are checked against the manual only (docs/reference.md says so). The sources of each
fact are the row's own (``Row.sources``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pglast
import pytest

from safemigrate.reference import ROWS
from safemigrate.reference.lookup import matches
from safemigrate.reference.model import Row
from tests.fixtures_db import PgServer
from tests.support.reference_probe import ProbeSession, substitute


@pytest.fixture(scope="module")
def probes(pg_server: PgServer) -> Iterator[ProbeSession]:
    """The example schema on the session's server, built once for the module."""
    pg_server.ensure_running()
    session = ProbeSession(pg_server.admin_dsn, pg_server.dsn, pg_server.major_version)
    try:
        yield session
    finally:
        session.close()


def statement_rows(row: Row, sql: str, version: int) -> list[Row]:
    """The rows of every part of the example's statement, ``row`` first."""
    [raw] = pglast.parse_sql(substitute(sql, "app", "app_new"))
    found = [m.row for m in matches(raw.stmt, version) if m.row is not None]
    return [row, *(r for r in found if r is not row)]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_the_server_does_what_the_row_says(row: Row, probes: ProbeSession) -> None:
    version = probes.version
    examples = [e for e in row.examples if version in row.versions and version in e.versions]
    if not examples:
        pytest.skip("the row holds for other PostgreSQL versions than this server's")
    problems = []
    for example in examples:
        rows = statement_rows(row, example.sql, version)
        problems += [f"{example.sql}: {p}" for p in probes.check(rows, row, example)]
    assert problems == [], f"PostgreSQL {version} disagrees with row {row.id}"
