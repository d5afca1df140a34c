"""column-type-change: ALTER COLUMN ... TYPE that rewrites an existing table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, quote_ident, show, written
from ..findings import Hit, hit, make_rule

DOC = """
Catches: `ALTER TABLE ... ALTER COLUMN col [SET DATA] TYPE ...` on a table that existed before
the migration.

Why it hurts: unless the old type is binary-coercible to the new one, PostgreSQL rewrites the
whole table and rebuilds its indexes under an ACCESS EXCLUSIVE lock: no reads or writes for the
whole rewrite. Reported as an error, or as a warning when the new type is one that often changes
without a rewrite (text, varchar, numeric, time and timestamp types, bit varying, citext, without
USING): varchar(n) to text or to a longer varchar, numeric(p,s) to a larger precision, a larger
timestamp precision. Which case applies depends on the column's current type, which the linter
does not know.

Instead: add a new column of the new type, backfill it in batches, switch the application to it,
then drop the old column (expand and contract). If the change is known to be binary-coercible,
allow it: `-- safemigrate: allow column-type-change -- varchar(50) to text, no rewrite`.
"""

RULE = make_rule(
    "column-type-change",
    "error",
    "column type change that rewrites the table",
    DOC,
)

#: Types that a column often changes to without a rewrite (binary-coercible or a larger typmod).
_OFTEN_NO_REWRITE = {
    "text",
    "varchar",
    "numeric",
    "timestamp",
    "timestamptz",
    "time",
    "timetz",
    "interval",
    "varbit",
    "citext",
}


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if not isinstance(node, ast.AlterTableStmt) or node.relation is None:
        return
    if node.objtype != enums.ObjectType.OBJECT_TABLE or ctx.is_new(node.relation):
        return
    shown = show(written(node.relation))
    for cmd in node.cmds or ():
        if not isinstance(cmd, ast.AlterTableCmd):
            continue
        if cmd.subtype != enums.AlterTableType.AT_AlterColumnType or cmd.name is None:
            continue
        column = f"{shown}.{quote_ident(cmd.name)}"
        coldef = cmd.def_
        type_name = ""
        if isinstance(coldef, ast.ColumnDef) and coldef.typeName is not None:
            names: Any = coldef.typeName.names
            type_name = str(names[-1].sval)
        using = isinstance(coldef, ast.ColumnDef) and coldef.raw_default is not None
        if type_name in _OFTEN_NO_REWRITE and not using:
            yield hit(
                RULE,
                f"changes the type of {column} to {type_name}: unless the old type is "
                "binary-coercible to it (e.g. varchar(n) to text or a longer varchar), this "
                "rewrites the table and its indexes under an ACCESS EXCLUSIVE lock",
                "if the change is binary-coercible, allow it with the reason; otherwise add a "
                "new column, backfill it in batches and switch over",
                "warning",
            )
        else:
            yield hit(
                RULE,
                f"changes the type of {column}{' with USING' if using else ''}: PostgreSQL "
                "rewrites the whole table and rebuilds its indexes under an ACCESS EXCLUSIVE "
                "lock, blocking reads and writes for the whole rewrite",
                "add a new column of the new type, backfill it in batches, switch the "
                "application over, then drop the old column",
            )
