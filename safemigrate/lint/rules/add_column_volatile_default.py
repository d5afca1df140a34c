"""add-column-volatile-default: ADD COLUMN whose default forces a table rewrite."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..catalog import Domain
from ..context import StatementContext, quote_ident, show, written
from ..findings import WITH_A_DATABASE, Cost, Hit, hit, make_rule
from ..types import column_type
from ..volatility import volatile_call

DOC = """
Catches: `ALTER TABLE ... ADD COLUMN ... DEFAULT expr` on a table that existed before the
migration, where expr calls a volatile function (random(), gen_random_uuid(),
uuid_generate_v4(), clock_timestamp(), timeofday(), nextval(), ...), or a function the
migrations created that is VOLATILE (the default when CREATE FUNCTION does not say IMMUTABLE or
STABLE). A SQL function simple enough for the planner to inline (one SELECT of one expression,
no FROM, no SET clause, not SECURITY DEFINER: clauses.c inline_function) counts as the
expression it stands for, whatever it declares. now() and CURRENT_TIMESTAMP are stable:
evaluated once, no finding. A function the migrations did not create is not reported unless it
is a known volatile built-in. Before PostgreSQL 11 any default other than NULL is reported.

Why it hurts: PostgreSQL (11 or later) stores a non-volatile default in the catalog and adds the
column instantly. A volatile default must be computed for every existing row: the whole table is
rewritten under an ACCESS EXCLUSIVE lock, blocking reads and writes. Before PostgreSQL 11 every
default rewrites the table.

Applies to: every version; any non-NULL default rewrites before 11, only a volatile one from 11.
Source: PostgreSQL docs, ALTER TABLE (Notes: "When a column is added with ADD COLUMN and a
non-volatile DEFAULT is specified, the default is evaluated at the time of the statement and
the result stored in the table's metadata ... a volatile DEFAULT ... will require the entire
table and its indexes to be rewritten"), PostgreSQL 11 release notes.

Instead: add the column without a default (or with a constant one), then `ALTER COLUMN ... SET
DEFAULT expr` (applies to new rows only, instant), and backfill existing rows in batches.
"""

RULE = make_rule(
    "add-column-volatile-default",
    "error",
    "ADD COLUMN with a volatile default (any default before PostgreSQL 11)",
    DOC + WITH_A_DATABASE,
)


def default_of(coldef: Any) -> Any:
    """The DEFAULT expression of a ColumnDef, or None."""
    if coldef.raw_default is not None:
        return coldef.raw_default
    for con in coldef.constraints or ():
        if isinstance(con, ast.Constraint) and con.contype == enums.ConstrType.CONSTR_DEFAULT:
            return con.raw_expr
    return None


def has_default(coldef: Any) -> bool:
    """True when the ColumnDef is written with a DEFAULT other than NULL."""
    default = default_of(coldef)
    return default is not None and not (isinstance(default, ast.A_Const) and default.isnull)


def type_and_domain(coldef: Any, ctx: StatementContext) -> tuple[Any, Domain | None]:
    """The ColumnDef's type (``types.column_type``) and, when it is a domain the migrations or
    the database define, that domain."""
    added = column_type(coldef.typeName)
    return added, ctx.state.catalog.domains.get(added.name) if added is not None else None


def added_columns(node: Any, ctx: StatementContext) -> Iterator[Any]:
    """The ColumnDefs of the ADD COLUMN commands of an ALTER TABLE on an existing table."""
    if not ctx.alters_existing_table(node):
        return
    for cmd in node.cmds or ():
        if (
            isinstance(cmd, ast.AlterTableCmd)
            and cmd.subtype == enums.AlterTableType.AT_AddColumn
            and isinstance(cmd.def_, ast.ColumnDef)
        ):
            yield cmd.def_


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    catalog = ctx.state.catalog
    for coldef in added_columns(node, ctx):
        expr = default_of(coldef)
        column = f"{show(written(node.relation))}.{quote_ident(coldef.colname)}"
        if expr is None:
            # Without a DEFAULT clause the domain's default applies (CREATE DOMAIN, DEFAULT).
            added = column_type(coldef.typeName)
            domain = catalog.domains.get(added.name) if added is not None else None
            if domain is None or not domain.volatile_default:
                continue
            why = f"the default of its domain {added} is volatile"
        elif isinstance(expr, ast.A_Const) and expr.isnull:
            continue
        elif (function := volatile_call(expr, catalog)) is not None:
            why = f"its default calls the volatile function {function}()"
        elif ctx.pg_version < 11:
            why = f"before PostgreSQL 11 (pg_version {ctx.pg_version}) any default does"
        else:
            continue
        yield hit(
            RULE,
            f"adds column {column} with a default that must be computed for every existing "
            f"row ({why}): PostgreSQL rewrites the whole table under an ACCESS EXCLUSIVE "
            "lock, blocking reads and writes",
            "add the column without a default, then ALTER COLUMN ... SET DEFAULT (new rows "
            "only, instant) and backfill existing rows in batches",
            cost=Cost("rewrite", ctx.family(node.relation)),
        )
