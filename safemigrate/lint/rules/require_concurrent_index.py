"""require-concurrent-index: CREATE INDEX without CONCURRENTLY on an existing table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast

from ..context import StatementContext, show, written
from ..findings import Hit, hit, make_rule

DOC = """
Catches: `CREATE [UNIQUE] INDEX` without CONCURRENTLY on a table that existed before the
migration (a table created earlier in the same file is empty and not used yet: no finding).

Why it hurts: a plain index build holds a SHARE lock on the table for the whole build, which
blocks every INSERT, UPDATE and DELETE on it; on a large table that is minutes of failed or
queued writes.

Severity: warning when safemigrate itself rewrites the statement to CREATE INDEX CONCURRENTLY
(concurrent_indexes = "rewrite", outside a BEGIN/COMMIT block or group): the runner is safe, but
the file is not when run by anything else. Error where the runner cannot or will not rewrite it:
inside a BEGIN/COMMIT block, a group or a DO block, or with concurrent_indexes = "require"
(refused) or "off" (run as written).

Instead: write `CREATE INDEX CONCURRENTLY ...` as its own statement, outside any transaction
block. If the build fails, the invalid index left behind is dropped and rebuilt by safemigrate.
"""

RULE = make_rule(
    "require-concurrent-index",
    "error",
    "CREATE INDEX without CONCURRENTLY on an existing table",
    DOC,
)

HINT = (
    "write CREATE INDEX CONCURRENTLY as its own statement, outside any BEGIN/COMMIT block or "
    "group; it builds without blocking writes"
)


def _rewritten(ctx: StatementContext) -> bool:
    """True when the runner runs this statement as CREATE INDEX CONCURRENTLY."""
    if ctx.in_do:
        return False
    if ctx.statement is not None:
        return ctx.statement.rewritten is not None
    # The runner would refuse the file: predict what it would do with the statement.
    return not ctx.steps_known and not ctx.tx.is_block


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if not isinstance(node, ast.IndexStmt) or node.concurrent or ctx.is_new(node.relation):
        return
    table = show(written(node.relation))
    what = f"CREATE {'UNIQUE ' if node.unique else ''}INDEX"
    name = f" {node.idxname}" if node.idxname else ""
    blocks = f"blocks all writes to {table} for the whole build"
    policy = ctx.concurrent_indexes
    if policy == "rewrite" and _rewritten(ctx):
        yield hit(
            RULE,
            f"{what}{name} on existing table {table} without CONCURRENTLY: safemigrate runs it "
            f"as CREATE INDEX CONCURRENTLY, but run as written (psql, another tool) it {blocks}",
            "write CREATE INDEX CONCURRENTLY yourself so the file says what runs",
            "warning",
        )
        return
    if ctx.in_transaction_block():
        reason = f"{ctx.where()}, where it cannot be built CONCURRENTLY"
    elif policy == "require":
        reason = 'refused by safemigrate (concurrent_indexes = "require")'
    elif policy == "off":
        reason = 'run as written (concurrent_indexes = "off")'
    else:
        # Outside a block with "rewrite", the runner leaves an index plain only when it
        # takes the table for one created earlier in the file.
        reason = "not rewritten to CONCURRENTLY by safemigrate"
    yield hit(
        RULE,
        f"{what}{name} on existing table {table} without CONCURRENTLY, {reason}: it {blocks}",
        HINT,
    )
