"""Tests for safemigrate.statements.transaction_block: the runner's and the linter's one answer
to "does PostgreSQL refuse this in a transaction block?"."""

from __future__ import annotations

from typing import Any

import pglast
import pytest
from pglast import ast

from safemigrate.reference import ROWS
from safemigrate.reference.model import NEWEST, Transaction
from safemigrate.statements import transaction_block


def node(sql: str) -> Any:
    """The parse tree of the single statement ``sql``."""
    [raw] = pglast.parse_sql(sql)
    return raw.stmt


@pytest.mark.parametrize(
    "sql",
    [
        # REINDEX page: "REINDEX SCHEMA/DATABASE/SYSTEM cannot be executed inside a
        # transaction block", nor REINDEX ... CONCURRENTLY (indexcmds.c ExecReindex,
        # PreventInTransactionBlock; SQLSTATE 25001).
        "REINDEX SCHEMA public",
        "REINDEX SCHEMA CONCURRENTLY public",
        "REINDEX DATABASE d",
        "REINDEX SYSTEM d",
        "REINDEX TABLE CONCURRENTLY t",
        "REINDEX (CONCURRENTLY) INDEX i",
        # DISCARD page: "DISCARD ALL cannot be executed inside a transaction block".
        "DISCARD ALL",
        # ALTER DATABASE page: SET TABLESPACE "cannot be executed inside a transaction
        # block" (dbcommands.c movedb): a form only the reference table's row names.
        "ALTER DATABASE d SET TABLESPACE ts",
        "CREATE SUBSCRIPTION s CONNECTION 'host=x' PUBLICATION p",
    ],
)
def test_refused_in_a_transaction_block(sql: str) -> None:
    assert transaction_block.refuses_a_block(node(sql))


@pytest.mark.parametrize(
    "sql",
    [
        "REINDEX TABLE t",
        "REINDEX INDEX i",
        "DISCARD PLANS",
        "DISCARD TEMP",
        "ALTER DATABASE d SET work_mem = '64MB'",
        "CREATE TABLE t (a int)",
        # Transaction control: the runner's parse judges where it may be.
        "COMMIT PREPARED 'x'",
        "ROLLBACK PREPARED 'x'",
    ],
)
def test_allowed_in_a_transaction_block(sql: str) -> None:
    assert not transaction_block.refuses_a_block(node(sql))


def test_every_reference_row_not_in_a_block_is_refused() -> None:
    # The lint rule non-transactional-in-transaction reads the same Transaction column: the
    # runner runs alone in autocommit mode whatever the rule says cannot be in a block.
    examples = [
        example.sql
        for row in ROWS
        if row.transaction is Transaction.NOT_IN_BLOCK and NEWEST in row.versions
        for example in row.examples
        if "{" not in example.sql  # a placeholder the reference's own test fills in
    ]
    assert "REINDEX SCHEMA archive" in examples
    statements = [sql for sql in examples if not isinstance(node(sql), ast.TransactionStmt)]
    assert [sql for sql in statements if not transaction_block.refuses_a_block(node(sql))] == []
