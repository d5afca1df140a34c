"""Whether PostgreSQL refuses a statement inside a transaction block: the one answer the runner
and the lint rule non-transactional-in-transaction share. Pure, no I/O.

It is the forms statements.parsed knows, and every row of the reference table whose
Transaction column says "not in a transaction block" (REINDEX SCHEMA, ALTER DATABASE ... SET
TABLESPACE, ...). A module of its own because the reference's rows read statements.locks,
which reads statements.parsed: parsed cannot read the reference without a cycle.
"""

from __future__ import annotations

from typing import Any

from pglast import ast

from ..reference import lookup
from ..reference.model import NEWEST, Transaction
from . import parsed


def refuses_a_block(node: Any) -> bool:
    """True when PostgreSQL refuses to run ``node`` inside a transaction block (SQLSTATE
    25001). Transaction control (COMMIT PREPARED) is not: the runner's parse judges where
    it may be (statements.parsed.transaction_kind)."""
    return parsed.is_non_transactional(node) or refused_by_the_reference(node)


def refused_by_the_reference(node: Any, version: int = NEWEST) -> bool:
    """True when the reference table's row for ``node`` (or a part of it) on server major
    ``version`` says "not in a transaction block" (transaction control left out)."""
    if isinstance(node, ast.TransactionStmt):
        return False
    try:
        found = lookup.matches(node, lookup.clamp(version))
    except lookup.AmbiguousRowError:
        return False  # a defect of the table, caught by its own tests
    return any(m.row is not None and m.row.transaction is Transaction.NOT_IN_BLOCK for m in found)
