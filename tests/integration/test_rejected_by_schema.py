"""The rejected-by-schema cases of the corpus (``tests/lint_corpus/rs*.sql``), and those of
rejected-by-server-version for clauses newer than their statement (``rv*.sql``: MERGE's WHEN
NOT MATCHED BY SOURCE and RETURNING, RETURNING old / new), on a real server:
each runs after its ``given`` history, in a transaction rolled back afterwards. A case labelled
unsafe must be refused with the SQLSTATE its ``-- verified:`` line names, a safe one must run;
``check`` gives each its label in tests/unit/lint/test_lint_corpus.py, so the linter and the
server agree. A case that names a pg-version runs only on that major (the others say what every
major 12-18 does). Sources: each case's ``-- doc:`` line (the manual page and the source
function that raises the error: heap.c heap_truncate_check_FKs, tablecmds.c
ATExecSetStatistics, ATAddForeignKeyConstraint, find_composite_type_dependencies,
find_typed_table_dependencies, view.c checkViewTupleDesc, sequence.c init_params).
"""

from __future__ import annotations

import re

import psycopg
import pytest

from bench.harness.lint_cases import Case, load_cases
from tests.fixtures_db import ConnectFactory, PgServer

#: The corpus cases of this rule's forms, and the default pg-version of a case that names none.
CASES = [c for c in load_cases() if c.name.startswith(("rs", "rv"))]
_ANY_VERSION = 16
_SQLSTATE = re.compile(r"SQLSTATE ([0-9A-Z]{5})")


def _expected_sqlstate(case: Case) -> str | None:
    for line in case.text.splitlines():
        if line.startswith("-- verified:"):
            found = _SQLSTATE.search(line)
            return found.group(1) if found else None
    return None


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_server_refuses_exactly_the_unsafe_cases(
    connect: ConnectFactory, pg_server: PgServer, case: Case
) -> None:
    if case.pg_version != _ANY_VERSION and case.pg_version != pg_server.major_version:
        pytest.skip(f"the case is about PostgreSQL {case.pg_version}")
    expected = _expected_sqlstate(case)
    assert (expected is not None) is case.unsafe, f"{case.name}: label and SQLSTATE disagree"
    with connect(autocommit=True) as conn:
        conn.execute("SET lock_timeout = '5s'; SET statement_timeout = '30s'")
        for statement in case.given:
            conn.execute(statement)
        body = "\n".join(line for line in case.text.splitlines() if not line.startswith("--"))
        conn.execute("BEGIN")
        try:
            conn.execute(body)
        except psycopg.Error as exc:
            conn.execute("ROLLBACK")
            assert exc.sqlstate == expected, f"{case.name}: {exc}"
            return
        conn.execute("ROLLBACK")
        assert expected is None, f"{case.name}: the server ran it, expected {expected}"
