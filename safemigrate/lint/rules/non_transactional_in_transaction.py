"""non-transactional-in-transaction: a statement that cannot run in a transaction block, in one.

The runner refuses such a file outright (MigrationFileError). The linter reports it as a finding
instead, with the rest of the file still checked: source.read_file records it as a problem of
kind ``non-transactional-in-block``, leaves the statement in its block and reads on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast

from ...core.model import summarize
from ...statements import transaction_block
from ..context import StatementContext
from ..findings import Hit, hit, make_rule

DOC = """
Catches: a statement PostgreSQL refuses to run inside a transaction block (CREATE/DROP INDEX
CONCURRENTLY, REINDEX ... CONCURRENTLY, ALTER TABLE ... DETACH PARTITION ... CONCURRENTLY,
VACUUM, CREATE DATABASE, ALTER SYSTEM, REINDEX SCHEMA, COMMIT PREPARED, ...: every row of
docs/reference.md whose Transaction is "not in a transaction block") written inside a
BEGIN/COMMIT block, a `-- safemigrate: group-start` group or a DO block (as its own statement
the runner runs every such row alone in autocommit mode: it reads the same rows). Before
PostgreSQL 12 this includes `ALTER TYPE ... ADD VALUE`, which the runner always runs inside a
transaction.

Why it hurts: PostgreSQL fails the statement ("cannot run inside a transaction block", SQLSTATE
25001), and for most of them `safemigrate up` refuses the whole file before applying anything
(exit 2); for the others the step fails when it runs.

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
    # The runner refuses the file for what statements.transaction_block says on the newest
    # server (a conditional refusal such as CREATE SUBSCRIPTION's slot included) and runs
    # those alone; PostgreSQL refuses what the reference's Transaction column says on the
    # target's version (COMMIT PREPARED, a form refused on older majors only, ...).
    runner_refuses = transaction_block.refuses_a_block(node)
    server_refuses = not runner_refuses and transaction_block.refused_by_the_reference(
        node, ctx.pg_version
    )
    if server_refuses and not ctx.in_transaction_block():
        if isinstance(node, ast.TransactionStmt):
            return  # transaction control: the runner's parse judges where it may be
        yield hit(
            RULE,
            f"{summarize(ctx.text)!r} cannot run inside a transaction block, and safemigrate "
            "runs it in its step's transaction: PostgreSQL refuses it (SQLSTATE 25001) and "
            "the step fails",
            "run it by hand outside safemigrate (the runner does not run it in autocommit "
            "mode yet)",
        )
        return
    if not ctx.in_transaction_block() or not (runner_refuses or server_refuses):
        return
    text = summarize(ctx.text)
    outcome = (
        "safemigrate up refuses the whole file (exit 2)"
        if runner_refuses
        else "the step fails with SQLSTATE 25001 when it runs"
    )
    yield hit(
        RULE,
        f"{text!r} cannot run inside a transaction block, and it is {ctx.where()}: PostgreSQL "
        f"refuses it, and {outcome}",
        "move it out of the block into its own statement; safemigrate runs it alone in "
        "autocommit mode",
    )
