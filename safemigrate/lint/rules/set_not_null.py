"""set-not-null: SET NOT NULL on an existing column without a validated IS NOT NULL check."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, quote_ident, show, written
from ..findings import Hit, hit, make_rule

DOC = """
Catches: `ALTER TABLE ... ALTER COLUMN col SET NOT NULL` (and, from PostgreSQL 18,
`ADD CONSTRAINT name NOT NULL col` without NOT VALID) on a table that existed before the
migration, unless a validated `CHECK (col IS NOT NULL)` exists for that column earlier in the
same file (PostgreSQL 12 or later). Before PostgreSQL 12 it is always reported.

Why it hurts: PostgreSQL scans the whole table to prove there is no NULL while it holds an
ACCESS EXCLUSIVE lock: no reads or writes of the table for the whole scan. From PostgreSQL 12 a
valid CHECK constraint that proves the column is not null lets it skip that scan.

Severity: warning when safemigrate itself runs `SET NOT NULL` this way (safe_rewrites =
"rewrite", PostgreSQL 12 or later, a single-command ALTER TABLE outside any block): the runner
is safe, but the file is not when run by anything else. Error otherwise.

Instead: from PostgreSQL 12, in separate statements:
    ALTER TABLE t ADD CONSTRAINT t_col_not_null CHECK (col IS NOT NULL) NOT VALID;
    ALTER TABLE t VALIDATE CONSTRAINT t_col_not_null;   -- SHARE UPDATE EXCLUSIVE, no outage
    ALTER TABLE t ALTER COLUMN col SET NOT NULL;         -- instant: the check proves it
    ALTER TABLE t DROP CONSTRAINT t_col_not_null;
From PostgreSQL 18, `ADD CONSTRAINT name NOT NULL col NOT VALID` followed by a separate
`VALIDATE CONSTRAINT name` does the same in two statements. Before 12 there is no scan-free way:
keep the check constraint instead of NOT NULL, or accept the scan in a maintenance window.
"""

RULE = make_rule(
    "set-not-null",
    "error",
    "SET NOT NULL on an existing column without a validated CHECK (col IS NOT NULL)",
    DOC,
)

_AT = enums.AlterTableType


def _hint(ctx: StatementContext, column: str) -> str:
    col = quote_ident(column)
    if ctx.pg_version < 12:
        return (
            f"PostgreSQL {ctx.pg_version} always scans: keep a CHECK ({col} IS NOT NULL) "
            "constraint (added NOT VALID, then validated) instead, or run it in a "
            "maintenance window"
        )
    return (
        f"first ADD CONSTRAINT ... CHECK ({col} IS NOT NULL) NOT VALID and VALIDATE CONSTRAINT "
        "it in a separate statement; SET NOT NULL then skips the scan"
    )


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
        column: str | None = None
        if cmd.subtype == _AT.AT_SetNotNull and cmd.name:
            column = str(cmd.name)
            what = f"SET NOT NULL on {shown}.{quote_ident(column)}"
        elif (
            cmd.subtype == _AT.AT_AddConstraint
            and isinstance(cmd.def_, ast.Constraint)
            and cmd.def_.contype == enums.ConstrType.CONSTR_NOTNULL
            and not cmd.def_.skip_validation
            and cmd.def_.keys
        ):
            column = str(cmd.def_.keys[0].sval)
            what = f"ADD CONSTRAINT ... NOT NULL {quote_ident(column)} on {shown}"
        if column is None:
            continue
        if ctx.pg_version >= 12 and (table, column) in ctx.state.not_null_proven:
            continue
        if ctx.runs_as_recipe():
            yield hit(
                RULE,
                f"{what}: safemigrate runs it with a validated CHECK ({quote_ident(column)} IS "
                "NOT NULL) that lets it skip its scan, but run as written (psql, another tool) "
                "it scans the whole table under an ACCESS EXCLUSIVE lock, blocking reads and "
                "writes",
                "write the CHECK ... NOT VALID, VALIDATE CONSTRAINT, SET NOT NULL and DROP "
                "CONSTRAINT statements yourself so the file says what runs",
                "warning",
            )
            continue
        if ctx.pg_version < 12:
            why = f"before PostgreSQL 12 (pg_version {ctx.pg_version}) it always scans"
        else:
            why = f"no validated CHECK ({quote_ident(column)} IS NOT NULL) precedes it"
        yield hit(
            RULE,
            f"{what} scans the whole table under an ACCESS EXCLUSIVE lock, blocking reads and "
            f"writes ({why})",
            _hint(ctx, column),
        )
