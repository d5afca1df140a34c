"""set-not-null: SET NOT NULL on an existing column without a validated IS NOT NULL check."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ...core.model import QualifiedName
from ..context import StatementContext, quote_ident, show, written
from ..findings import WITH_A_DATABASE, Cost, Hit, hit, make_rule

DOC = """
Catches: `ALTER TABLE ... ALTER COLUMN col SET NOT NULL` (and, from PostgreSQL 18,
`ADD CONSTRAINT name NOT NULL col` without NOT VALID) on a table that existed before the
migration, unless a validated `CHECK (col IS NOT NULL)` exists for that column (earlier in the
file or in the history; PostgreSQL 12 or later) and is not dropped in the same ALTER TABLE
(PostgreSQL runs the command's DROPs first), and unless the column is already NOT NULL (the
migration directory's history shows it: SET NOT NULL on a NOT NULL column does nothing). Before
PostgreSQL 12 it is always reported. Also `ADD PRIMARY KEY USING INDEX`, which does SET NOT NULL
on each index column not already NOT NULL (ALTER TABLE docs: "this command will attempt to do
ALTER COLUMN SET NOT NULL against each such column. That requires a full table scan"), when the
history does not show the columns NOT NULL.

Why it hurts: PostgreSQL scans the whole table to prove there is no NULL while it holds an
ACCESS EXCLUSIVE lock: no reads or writes of the table for the whole scan. From PostgreSQL 12 a
valid CHECK constraint that proves the column is not null lets it skip that scan.

Severity: warning when safemigrate itself runs `SET NOT NULL` this way (safe_rewrites =
"rewrite", PostgreSQL 12 or later, a single-command ALTER TABLE outside any block): the runner
is safe, but the file is not when run by anything else. Error otherwise.

Applies to: every version; the scan-skipping CHECK from 12 (ALTER TABLE docs, SET/DROP NOT
NULL: "if a valid CHECK constraint exists (and is not dropped in the same command) which proves
no NULL can exist, then the table scan is skipped"), ADD CONSTRAINT ... NOT NULL from 18.
Source: PostgreSQL docs, ALTER TABLE (SET/DROP NOT NULL, ADD table_constraint_using_index).

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
    DOC + WITH_A_DATABASE,
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
    if not ctx.alters_existing_table(node):
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
        elif (
            cmd.subtype == _AT.AT_AddConstraint
            and isinstance(cmd.def_, ast.Constraint)
            and cmd.def_.contype == enums.ConstrType.CONSTR_PRIMARY
            and cmd.def_.indexname
        ):
            yield from _primary_key_using_index(node, ctx, cmd.def_)
            continue
        if column is None:
            continue
        if _proven(ctx, table, column, _dropped_constraints(node)):
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
                cost=Cost("scan", ctx.family(node.relation)),
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
            cost=Cost("scan", ctx.family(node.relation)),
        )


def _dropped_constraints(node: Any) -> set[str]:
    """The constraints an ALTER TABLE drops: PostgreSQL runs every DROP subcommand before
    SET NOT NULL (tablecmds.c: AT_PASS_DROP comes first), so a CHECK dropped in the same
    command proves nothing ("the valid CHECK constraint ... is not dropped in the same
    command", ALTER TABLE, SET/DROP NOT NULL)."""
    return {
        str(cmd.name)
        for cmd in node.cmds or ()
        if isinstance(cmd, ast.AlterTableCmd) and cmd.subtype == _AT.AT_DropConstraint and cmd.name
    }


def _proven(ctx: StatementContext, table: QualifiedName, column: str, dropped: set[str]) -> bool:
    """True when SET NOT NULL on the column scans nothing: already NOT NULL, or (from 12) a
    validated CHECK (col IS NOT NULL) exists and is not dropped by the same command."""
    catalog = ctx.state.catalog
    known = catalog.column(table, column)
    if known is not None and known.not_null:
        return True
    if ctx.pg_version < 12 or (table, column) not in ctx.state.not_null_proven:
        return False
    proofs = {n for (t, n), c in catalog.not_null_checks.items() if t == table and c == column}
    return not proofs or not proofs <= dropped


def _primary_key_using_index(node: Any, ctx: StatementContext, con: Any) -> Iterator[Hit]:
    """ADD PRIMARY KEY USING INDEX: the implied SET NOT NULL of columns not known NOT NULL."""
    table = ctx.table(node.relation)
    index = ctx.state.catalog.indexes.get(ctx.state.resolve(QualifiedName(None, con.indexname)))
    columns = index[1] if index is not None else ()
    if index is not None and all(
        _proven(ctx, table, c, _dropped_constraints(node)) for c in columns
    ):
        return
    which = ", ".join(quote_ident(c) for c in columns) if columns else "the index's columns"
    yield hit(
        RULE,
        f"ADD PRIMARY KEY USING INDEX {quote_ident(con.indexname)} on "
        f"{show(written(node.relation))} sets NOT NULL on {which}, which the migrations do not "
        "show NOT NULL: that scans the whole table under an ACCESS EXCLUSIVE lock",
        "make the columns NOT NULL first (validated CHECK (col IS NOT NULL), then SET NOT NULL), "
        "then ADD PRIMARY KEY USING INDEX (instant)",
        cost=Cost("scan", ctx.family(node.relation)),
    )
