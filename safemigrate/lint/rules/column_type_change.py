"""column-type-change: ALTER COLUMN ... TYPE that rewrites an existing table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, quote_ident, show, written
from ..findings import Hit, hit, make_rule
from ..types import column_type, rewrite_reason

DOC = """
Catches: `ALTER TABLE ... ALTER COLUMN col [SET DATA] TYPE ...` on a table that existed before
the migration, when the change rewrites the table.

Why it hurts: unless the old type is binary-coercible to the new one, PostgreSQL rewrites the
whole table and rebuilds its indexes under an ACCESS EXCLUSIVE lock: no reads or writes for the
whole rewrite.

What skips the rewrite (PostgreSQL docs, ALTER TABLE, Notes: "when the old type is either
binary coercible to the new type or an unconstrained domain over the new type, a table rewrite
is not needed"; src/backend/commands/tablecmds.c ATColumnChangeRequiresRewrite and the typmod
support functions varchar_support, numeric_support, varbit_support, timestamp_support):
- restating the current type (ORMs do this to change nullability): nothing changes;
- varchar(n) to varchar(m >= n), to unconstrained varchar or to text; text to varchar;
- numeric(p,s) to numeric(p' >= p, s) (same scale) or to unconstrained numeric;
- varbit(n) to varbit(m >= n); timestamp/timestamptz/time/timetz(p) to a larger or no precision;
- cidr to inet;
- timestamp <-> timestamptz from PostgreSQL 12 only when the session TimeZone is UTC: the
  linter assumes it is not unless the file sets it (`SET timezone = 'UTC'`) before the change.
A COLLATE clause is reported: "if the collation for a column has been changed, an index rebuild
is required" (ALTER TABLE, Notes). Everything else (int to bigint, varchar(n) to a shorter
varchar, text to varchar(n), numeric scale changes, char(n), json to jsonb, any USING expression
other than the column itself) rewrites. The current type comes from the migration directory's
own history (the CREATE TABLE and ALTER statements of earlier files); when the history does not
show it, the finding is an error, or a warning when the new type is one that often changes
without a rewrite.

Applies to: every PostgreSQL version; the timestamp/timestamptz exception from 12.
Source: PostgreSQL docs, ALTER TABLE (SET DATA TYPE, Notes), 10.3 Type Conversion (binary
coercible casts: pg_cast castmethod 'b'), PostgreSQL 12 release notes (timestamp/timestamptz).

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
    "inet",
}


def _plain_using(expr: Any, column: str) -> bool:
    """True when a USING expression is the column itself, or the column cast to a type (the
    cast the change does anyway)."""
    while isinstance(expr, ast.TypeCast):
        expr = expr.arg
    if isinstance(expr, ast.ColumnRef):
        fields: Any = expr.fields
        return isinstance(fields[-1], ast.String) and str(fields[-1].sval) == column
    return False


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if not isinstance(node, ast.AlterTableStmt) or node.relation is None:
        return
    if node.objtype != enums.ObjectType.OBJECT_TABLE or ctx.is_new(node.relation):
        return
    table = ctx.table(node.relation)
    shown = show(written(node.relation))
    for cmd in node.cmds or ():
        if not isinstance(cmd, ast.AlterTableCmd):
            continue
        if cmd.subtype != enums.AlterTableType.AT_AlterColumnType or cmd.name is None:
            continue
        column = f"{shown}.{quote_ident(cmd.name)}"
        coldef = cmd.def_
        new_type = column_type(coldef.typeName) if isinstance(coldef, ast.ColumnDef) else None
        using = (
            isinstance(coldef, ast.ColumnDef)
            and coldef.raw_default is not None
            and not _plain_using(coldef.raw_default, str(cmd.name))
        )
        if isinstance(coldef, ast.ColumnDef) and coldef.collClause is not None:
            yield hit(
                RULE,
                f"changes the type of {column} with a COLLATE clause: a collation change "
                "rebuilds every index on the column under an ACCESS EXCLUSIVE lock, blocking "
                "reads and writes for the rebuild",
                "build new indexes with the new collation CONCURRENTLY on a new column, or run "
                "it in a maintenance window",
            )
            continue
        known = ctx.state.catalog.column(table, str(cmd.name))
        if known is not None and known.type is not None and new_type is not None and not using:
            reason = rewrite_reason(
                known.type,
                new_type,
                pg_version=ctx.pg_version,
                utc_session=ctx.state.utc_session,
            )
            if reason is None:
                continue
            yield hit(
                RULE,
                f"changes the type of {column} ({reason}): PostgreSQL rewrites the whole "
                "table and rebuilds its indexes under an ACCESS EXCLUSIVE lock, blocking reads "
                "and writes for the whole rewrite",
                "add a new column of the new type, backfill it in batches, switch the "
                "application over, then drop the old column",
            )
            continue
        type_name = new_type.name if new_type is not None else ""
        if type_name in _OFTEN_NO_REWRITE and not using:
            yield hit(
                RULE,
                f"changes the type of {column} to {type_name}: unless the old type is "
                "binary-coercible to it (e.g. varchar(n) to text or a longer varchar), this "
                "rewrites the table and its indexes under an ACCESS EXCLUSIVE lock (the "
                "migrations do not show the column's current type)",
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
