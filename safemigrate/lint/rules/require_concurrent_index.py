"""require-concurrent-index: CREATE INDEX without CONCURRENTLY on an existing table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast

from ..context import StatementContext, show, written
from ..findings import WITH_A_DATABASE, Cost, Hit, hit, make_rule

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

On a partitioned table (the migrations' history shows `PARTITION BY`), CONCURRENTLY is refused
by PostgreSQL, so a plain build or a CONCURRENTLY one is an error; `CREATE INDEX ... ON ONLY`
the parent is not reported: it only adds an invalid index to the catalog.

Applies to: every PostgreSQL version (CONCURRENTLY from 8.2, ON ONLY from 11).
Source: PostgreSQL docs, CREATE INDEX (Building Indexes Concurrently; "Concurrent builds for
indexes on partitioned tables are currently not supported"; ON ONLY), 13.3 Explicit Locking
(CREATE INDEX takes SHARE), 5.12.2.2 Partition Maintenance (the ON ONLY / ATTACH PARTITION
recipe).

Instead: write `CREATE INDEX CONCURRENTLY ...` as its own statement, outside any transaction
block. If the build fails, the invalid index left behind is dropped and rebuilt by safemigrate.
"""

RULE = make_rule(
    "require-concurrent-index",
    "error",
    "CREATE INDEX without CONCURRENTLY on an existing table",
    DOC + WITH_A_DATABASE,
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


_RECIPE = (
    "build it the partitioned way: CREATE INDEX ... ON ONLY the parent (instant, invalid), "
    "CREATE INDEX CONCURRENTLY on each partition, then ALTER INDEX parent_idx ATTACH "
    "PARTITION each one (the parent index becomes valid when all are attached)"
)


def _partitioned(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    """CREATE INDEX on a partitioned table (known from the migrations' history)."""
    table = show(written(node.relation))
    if not node.relation.inh:
        return  # ON ONLY: the parent's index only, in the catalog, invalid until attached
    if node.concurrent:
        yield hit(
            RULE,
            f"CREATE INDEX CONCURRENTLY on partitioned table {table}: PostgreSQL refuses "
            "CONCURRENTLY on a partitioned table, the step fails",
            _RECIPE,
        )
        return
    yield hit(
        RULE,
        f"CREATE INDEX on partitioned table {table} builds the index on every partition while "
        "blocking writes to each for the whole build (it cannot be built CONCURRENTLY)",
        _RECIPE,
        cost=Cost("index build", ctx.family(node.relation)),
    )


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if not isinstance(node, ast.IndexStmt) or ctx.is_new(node.relation):
        return
    if ctx.table(node.relation) in ctx.state.catalog.partitioned:
        yield from _partitioned(node, ctx)
        return
    if node.concurrent:
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
            cost=Cost("index build", ctx.family(node.relation)),
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
        cost=Cost("index build", ctx.family(node.relation)),
    )
