"""require-concurrent-reindex: REINDEX without CONCURRENTLY."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ...reference import lookup
from ...reference.model import Row
from ..context import StatementContext, defelem_true, quote_ident, show, written
from ..findings import WITH_A_DATABASE, Cost, Hit, hit, make_rule

DOC = """
Catches: `REINDEX INDEX|TABLE|SCHEMA|DATABASE|SYSTEM` without CONCURRENTLY (a table or index
created earlier in the same file is skipped).

Why it hurts: a plain REINDEX locks out writes to the table (and reads that would use the index)
for the whole rebuild.

Applies to: PostgreSQL 12 to 18, the versions docs/reference.md covers (a pg_version below
12 is judged as 12, as every rule that reads the reference judges it).
Source: PostgreSQL docs, REINDEX (Rebuilding Indexes Concurrently; "REINDEX locks out writes but
not reads of the index's parent table ... also takes an ACCESS EXCLUSIVE lock on the specific
index being processed"); each form's row of docs/reference.md, whose lock decides (a plain
form's blocks writes, CONCURRENTLY's SHARE UPDATE EXCLUSIVE does not).

Instead: `REINDEX (CONCURRENTLY) ...` / `REINDEX ... CONCURRENTLY` as its own statement outside
any transaction block.
"""

RULE = make_rule(
    "require-concurrent-reindex",
    "error",
    "REINDEX without CONCURRENTLY",
    DOC + WITH_A_DATABASE,
)

_KIND = enums.ReindexObjectType


def blocks_writes(row: Row) -> bool:
    """True when the row builds indexes under a lock that blocks writes of a table (or every
    query planned with the index): the plain forms; CONCURRENTLY's SHARE UPDATE EXCLUSIVE
    does not."""
    return bool(row.builds) and any(lock.mode.blocks_writes for lock in row.locks)


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if not isinstance(node, ast.ReindexStmt):
        return
    concurrently = any(p.defname == "concurrently" and defelem_true(p) for p in node.params or ())
    if concurrently and node.kind == _KIND.REINDEX_OBJECT_SYSTEM:
        # The reference's CONCURRENTLY rows leave SYSTEM out: PostgreSQL refuses it (a syntax
        # error on 15, "cannot reindex system catalogs concurrently" on 18).
        yield hit(
            RULE,
            "REINDEX SYSTEM CONCURRENTLY is refused: system catalogs cannot be reindexed "
            "concurrently, the step fails",
            "REINDEX SYSTEM has no CONCURRENTLY form: run it by hand in a maintenance window",
        )
        return
    # The rows' keys see the CONCURRENTLY option, not its value: CONCURRENTLY false runs the
    # plain form, so it is looked up as written without the option.
    as_run = node
    if not concurrently and node.params:
        params = tuple(p for p in node.params if p.defname != "concurrently") or None
        as_run = ast.ReindexStmt(
            kind=node.kind, relation=node.relation, name=node.name, params=params
        )
    row = lookup.row_for(as_run, version=lookup.clamp(ctx.pg_version))
    if row is None or not blocks_writes(row):
        return
    kind = node.kind
    cost = Cost("index build")
    if kind == _KIND.REINDEX_OBJECT_TABLE:
        if ctx.is_new(node.relation):
            return
        target = f"table {show(written(node.relation))}"
        cost = Cost("index build", ctx.family(node.relation))
    elif kind == _KIND.REINDEX_OBJECT_INDEX:
        if ctx.state.table(node.relation) in ctx.state.created_indexes:
            return
        target = f"index {show(written(node.relation))}"
        owner = ctx.state.catalog.index_columns.get(ctx.state.table(node.relation))
        if owner is not None:
            cost = Cost("index build", (owner[0],))
    elif kind == _KIND.REINDEX_OBJECT_SCHEMA:
        target = f"schema {quote_ident(str(node.name))}"
    else:
        target = "database" if kind == _KIND.REINDEX_OBJECT_DATABASE else "system catalogs"
    if kind == _KIND.REINDEX_OBJECT_SYSTEM:
        hint = "REINDEX SYSTEM has no CONCURRENTLY form: run it by hand in a maintenance window"
    else:
        hint = "write REINDEX ... CONCURRENTLY as its own statement, outside any transaction block"
    yield hit(
        RULE,
        f"REINDEX of {target} without CONCURRENTLY blocks writes to the tables (and reads "
        "that use the indexes) for the whole rebuild",
        hint,
        cost=cost,
    )
