"""table-rewrite: VACUUM FULL, CLUSTER and other full-table rewrites."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, defelem_true, show, written
from ..findings import WITH_A_DATABASE, Cost, Hit, hit, make_rule
from ..state import HEAP

DOC = """
Catches: on tables that existed before the migration, `VACUUM FULL`, `CLUSTER`,
`ALTER TABLE ... SET TABLESPACE`, `SET LOGGED` / `SET UNLOGGED`, `SET ACCESS METHOD` (not
to the method the table already has, which the history or the live schema shows),
`ALTER COLUMN ... SET EXPRESSION` (PostgreSQL 17: "Existing data in the column is rewritten";
not for a virtual generated column, PostgreSQL 18, which stores nothing), and
`REFRESH MATERIALIZED VIEW` without CONCURRENTLY.

Why it hurts: each rewrites the whole table (or view) into new storage while holding an ACCESS
EXCLUSIVE lock: no reads or writes for as long as the copy takes, which grows with the table.

Applies to: every PostgreSQL version (SET ACCESS METHOD from 15, SET EXPRESSION from 17).
Source: PostgreSQL docs, VACUUM (FULL), CLUSTER, ALTER TABLE (SET TABLESPACE, SET LOGGED /
UNLOGGED, SET ACCESS METHOD), REFRESH MATERIALIZED VIEW (CONCURRENTLY); 13.3 Explicit Locking.

Instead: for bloat, use an online tool (pg_repack, pg_squeeze) outside the migration, or plain
VACUUM. For a materialized view, `REFRESH MATERIALIZED VIEW CONCURRENTLY` (needs a unique index
on it). Moving or changing a large table's storage belongs in a maintenance window, not in a
migration applied to a live database.
"""

RULE = make_rule(
    "table-rewrite",
    "error",
    "VACUUM FULL, CLUSTER and other full-table rewrites",
    DOC + WITH_A_DATABASE,
)

_AT = enums.AlterTableType
_ALTER_REWRITES = {
    _AT.AT_SetTableSpace: "SET TABLESPACE",
    _AT.AT_SetLogged: "SET LOGGED",
    _AT.AT_SetUnLogged: "SET UNLOGGED",
    _AT.AT_SetAccessMethod: "SET ACCESS METHOD",
    _AT.AT_SetExpression: "ALTER COLUMN ... SET EXPRESSION",
}
#: Of those, the ones that keep the table when the column is a virtual generated column
#: (PostgreSQL 18: nothing is stored, so SET EXPRESSION rewrites nothing).
_COLUMN_COMMANDS = frozenset({_AT.AT_SetExpression})
_EFFECT = "under an ACCESS EXCLUSIVE lock, blocking reads and writes for the whole copy"
_HINT = (
    "do this outside the migration (pg_repack / pg_squeeze for bloat) or in a maintenance window"
)


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if isinstance(node, ast.VacuumStmt):
        if not node.is_vacuumcmd or not any(
            o.defname == "full" and defelem_true(o) for o in node.options or ()
        ):
            return
        rels = [r.relation for r in node.rels or () if r.relation is not None]
        if rels and all(ctx.is_new(r) for r in rels):
            return
        what = ", ".join(show(written(r)) for r in rels if not ctx.is_new(r)) or "every table"
        tables = tuple(t for r in rels if not ctx.is_new(r) for t in ctx.family(r))
        yield hit(
            RULE,
            f"VACUUM FULL rewrites {what} {_EFFECT}",
            "use plain VACUUM, or pg_repack / pg_squeeze outside the migration",
            cost=Cost("rewrite", tables or None),
        )
    elif isinstance(node, ast.ClusterStmt):
        if node.relation is not None and ctx.is_new(node.relation):
            return
        what = show(written(node.relation)) if node.relation is not None else "every table"
        clustered = ctx.family(node.relation) if node.relation is not None else None
        yield hit(
            RULE, f"CLUSTER rewrites {what} {_EFFECT}", _HINT, cost=Cost("rewrite", clustered)
        )
    elif isinstance(node, ast.RefreshMatViewStmt):
        if node.concurrent or ctx.is_new(node.relation):
            return
        yield hit(
            RULE,
            f"REFRESH MATERIALIZED VIEW {show(written(node.relation))} without CONCURRENTLY "
            f"recomputes it {_EFFECT}",
            "REFRESH MATERIALIZED VIEW CONCURRENTLY (needs a unique index on the view)",
            # The view's query decides how long, not its size: only a fresh database helps.
            cost=Cost("rewrite"),
        )
    elif (
        isinstance(node, ast.AlterTableStmt)
        and node.relation is not None
        and not ctx.is_new(node.relation)
    ):
        table = ctx.table(node.relation)
        catalog = ctx.state.catalog
        for cmd in node.cmds or ():
            if isinstance(cmd, ast.AlterTableCmd) and cmd.subtype in _ALTER_REWRITES:
                if (
                    cmd.subtype == _AT.AT_SetAccessMethod
                    and table in catalog.tables
                    and (cmd.name or HEAP) == catalog.access_methods.get(table, HEAP)
                ):
                    continue  # the method it already has: PostgreSQL rewrites nothing
                if cmd.subtype in _COLUMN_COMMANDS and cmd.name:
                    column = ctx.state.catalog.column(table, str(cmd.name))
                    if column is not None and column.generated == "virtual":
                        continue
                yield hit(
                    RULE,
                    f"ALTER TABLE {show(written(node.relation))} "
                    f"{_ALTER_REWRITES[cmd.subtype]} rewrites the table {_EFFECT}",
                    _HINT,
                    cost=Cost("rewrite", ctx.family(node.relation)),
                )
