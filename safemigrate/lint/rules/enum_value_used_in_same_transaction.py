"""enum-value-used-in-same-transaction: a new enum value used before its ADD VALUE commits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast

from ..context import StatementContext, string_constants
from ..findings import Hit, hit, make_rule

DOC = """
Catches: `ALTER TYPE ... ADD VALUE 'v'` followed, in the same transaction (a BEGIN/COMMIT block,
a `-- safemigrate: group-start` group or a DO block), by a statement that uses the literal 'v'
(PostgreSQL 12 or later; before 12 ADD VALUE cannot run in a transaction at all, see
`non-transactional-in-transaction`).

Why it hurts: PostgreSQL refuses to use an enum value added by a transaction that has not
committed yet ("unsafe use of new value"): the step fails and its block rolls back.

Applies to: PostgreSQL 12 and later (before 12 ADD VALUE cannot run in a transaction block at
all: `non-transactional-in-transaction`).
Source: PostgreSQL docs, ALTER TYPE (Notes: "If ALTER TYPE ... ADD VALUE ... is executed inside
a transaction block, the new value cannot be used until after the transaction has been
committed").

Instead: add the value in its own statement (outside the block), and use it in a later
statement: each statement outside a block is its own transaction in safemigrate.
"""

RULE = make_rule(
    "enum-value-used-in-same-transaction",
    "error",
    "ALTER TYPE ... ADD VALUE used in the same transaction block",
    DOC,
)


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if ctx.pg_version < 12 or isinstance(node, ast.AlterEnumStmt | ast.CreateFunctionStmt):
        return
    added = ctx.state.enum_values.get(ctx.tx.id)
    if not added:
        return
    used = sorted({v for v in string_constants(node) if v in added})
    for value in used:
        yield hit(
            RULE,
            f"uses enum value {value!r}, added by ALTER TYPE ... ADD VALUE at line "
            f"{added[value]} in the same transaction ({ctx.tx.describe()}): PostgreSQL refuses "
            "a new enum value before the transaction that added it commits",
            "add the value in its own statement outside the block, and use it in a later one",
        )
