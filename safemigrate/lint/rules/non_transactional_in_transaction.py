"""non-transactional-in-transaction: a statement that cannot run in a transaction block, in one.

The runner refuses such a file outright (MigrationFileError). The linter reports it as a finding
instead, with the rest of the file still checked: source.parse_file records it as a problem of
kind ``non-transactional-in-block``, leaves the statement in its block and reads on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast

from ...core.model import summarize
from ...statements import parsed as sqlinfo
from ..context import StatementContext
from ..findings import Hit, hit, make_rule

DOC = """
Catches: a statement PostgreSQL refuses to run inside a transaction block (CREATE/DROP INDEX
CONCURRENTLY, REINDEX ... CONCURRENTLY, ALTER TABLE ... DETACH PARTITION ... CONCURRENTLY,
VACUUM, CREATE DATABASE, ALTER SYSTEM, ...) written inside a BEGIN/COMMIT block, a
`-- safemigrate: group-start` group or a DO block. Before PostgreSQL 12 this includes
`ALTER TYPE ... ADD VALUE`, which the runner always runs inside a transaction.

Why it hurts: PostgreSQL fails the statement ("cannot run inside a transaction block"), and
`safemigrate up` refuses the whole file before applying anything (exit 2).

Applies to: every version; ALTER TYPE ... ADD VALUE is refused in a block before 12 only.
Source: PostgreSQL docs, CREATE INDEX / DROP INDEX / REINDEX (CONCURRENTLY "cannot be executed
inside a transaction block"), VACUUM, ALTER TABLE (DETACH PARTITION CONCURRENTLY), ALTER TYPE
(ADD VALUE before 12), CREATE DATABASE.

Instead: move the statement out of the block, as its own statement: safemigrate runs it alone
in autocommit mode, with its own timeouts.
"""

RULE = make_rule(
    "non-transactional-in-transaction",
    "error",
    "statement that cannot run in a transaction block, inside one",
    DOC,
)


def _adds_enum_value(node: Any) -> bool:
    return isinstance(node, ast.AlterEnumStmt) and bool(node.newVal) and not node.oldVal


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if ctx.pg_version < 12 and _adds_enum_value(node):
        yield hit(
            RULE,
            f"ALTER TYPE ... ADD VALUE cannot run inside a transaction block before "
            f"PostgreSQL 12 (pg_version {ctx.pg_version}), and safemigrate runs every "
            "transactional statement in one: the step fails",
            "apply it by hand outside a transaction, or target PostgreSQL 12 or later",
        )
        return
    if not ctx.in_transaction_block() or not sqlinfo.is_non_transactional(node):
        return
    text = summarize(ctx.text)
    yield hit(
        RULE,
        f"{text!r} cannot run inside a transaction block, and it is {ctx.where()}: PostgreSQL "
        "refuses it, and safemigrate up refuses the whole file (exit 2)",
        "move it out of the block into its own statement; safemigrate runs it alone in "
        "autocommit mode",
    )
