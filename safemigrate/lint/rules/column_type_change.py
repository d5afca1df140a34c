"""column-type-change: ALTER COLUMN ... TYPE that rewrites an existing table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..catalog import Catalog
from ..context import StatementContext, quote_ident, show, written
from ..findings import WITH_A_DATABASE, Cost, Hit, hit, make_rule
from ..types import ColumnType, column_type, rewrite_reason

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
- a domain: an unconstrained domain over the new type, or a domain changed to its base type
  (a domain with a CHECK or NOT NULL checks every value, which rewrites);
- an array whose elements only lose their typmod (varchar(30)[] to varchar[]); any other array
  change (varchar(30)[] to text[], to varchar(60)[]) coerces every element and rewrites.
Without a rewrite the change can still block: "if the collation for a column has been changed,
an index rebuild is required" (ALTER TABLE, Notes; the new collation is the COLLATE clause's,
else the new type's, so a TYPE without COLLATE drops a non-default one), and timestamp <->
timestamptz changes the operator class, so every index that reads the column, on the table and
on its partitions and children, is rebuilt under the ACCESS EXCLUSIVE lock (indexcmds.c
CheckIndexCompatible), and so is, whatever the change (even a TYPE restating the current one),
every index with expressions or a predicate that reads it (CheckIndexCompatible does not assess
them) and every index of a partitioned table on it (its partitions' indexes are built again;
verified on PostgreSQL 15 and 18); and every validated CHECK constraint that reads the column is
dropped and re-added, which checks every row (tablecmds.c ATPostAlterTypeCleanup), even when the
TYPE restates the current one. A column of a domain type has no typmod of its own: changing it
to the base type with a typmod (a domain over varchar(10) to varchar(10)) rewrites.
Everything else (int to bigint, varchar(n) to a shorter
varchar, text to varchar(n), numeric scale changes, char(n), json to jsonb, any USING expression
other than the column itself) rewrites. The current type comes from the migration directory's
own history (the CREATE TABLE, CREATE DOMAIN, CREATE INDEX and ALTER statements of earlier
files), or the live schema with a database; when it does not show the type, the finding is an
error, or a warning when the new type is one that often changes without a rewrite, and a COLLATE
clause is reported as an index rebuild.

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
    DOC + WITH_A_DATABASE,
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
    if not ctx.alters_existing_table(node):
        return
    table = ctx.table(node.relation)
    shown = show(written(node.relation))
    family = ctx.family(node.relation)
    rewrite, build, scan = (Cost(k, family) for k in ("rewrite", "index build", "scan"))
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
        catalog = ctx.state.catalog
        collate = isinstance(coldef, ast.ColumnDef) and coldef.collClause is not None
        only = not node.relation.inh  # ALTER TABLE ONLY: the tables below are not altered
        known = catalog.column(table, str(cmd.name))
        if known is not None and known.type is not None and new_type is not None and not using:
            reason = _rewrite_reason(known.type, new_type, ctx)
            if reason is not None:
                yield hit(
                    RULE,
                    f"changes the type of {column} ({reason}): PostgreSQL rewrites the whole "
                    "table and rebuilds its indexes under an ACCESS EXCLUSIVE lock, blocking "
                    "reads and writes for the whole rewrite",
                    "add a new column of the new type, backfill it in batches, switch the "
                    "application over, then drop the old column",
                    cost=rewrite,
                )
                continue
            # No rewrite. An index on the column (or on the same column of a partition or
            # child) is still rebuilt when its operator class or collation changes, and
            # validated CHECKs that read the column are re-checked.
            why = _operator_class_changes(known.type, new_type, catalog) or _collation_changes(
                known.collation, coldef, new_type, catalog
            )
            if why and catalog.indexed(table, str(cmd.name), only=only):
                yield _index_rebuild(column, why, build)
                continue
            rebuilt = catalog.rebuilt_indexes(table, str(cmd.name), only=only)
            if rebuilt:
                yield _index_rebuild(
                    column,
                    f"{', '.join(rebuilt)}: an index with expressions or a predicate, or on a "
                    "partitioned table, is built again whatever the type change",
                    build,
                )
                continue
            checks = catalog.validated_checks(table, str(cmd.name), only=only)
            if checks:
                yield _check_scan(column, checks, scan)
            continue
        if collate:
            yield _index_rebuild(column, "a COLLATE clause", build)
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
                cost=rewrite,
            )
        else:
            yield hit(
                RULE,
                f"changes the type of {column}{' with USING' if using else ''}: PostgreSQL "
                "rewrites the whole table and rebuilds its indexes under an ACCESS EXCLUSIVE "
                "lock, blocking reads and writes for the whole rewrite",
                "add a new column of the new type, backfill it in batches, switch the "
                "application over, then drop the old column",
                cost=rewrite,
            )


def _base(column_type: ColumnType, catalog: Catalog, *, old: bool = False) -> ColumnType:
    """A domain's base type (a domain to its base is a relabelling); other types as they are.

    For the ``old`` type, the base type without its typmod: a column of a domain type has no
    typmod of its own (atttypmod -1), so a change to the base type with a typmod is a length
    coercion PostgreSQL cannot prove is a no-op (verified on PostgreSQL 15: a domain over
    varchar(10) to varchar(10) rewrites the table)."""
    domain = catalog.domains.get(column_type.name)
    if domain is None or domain.base is None or column_type.array:
        return column_type
    if old:
        return ColumnType(domain.base.name, (), domain.base.array)
    return domain.base


def _rewrite_reason(old: ColumnType, new: ColumnType, ctx: StatementContext) -> str | None:
    """Why the change rewrites the table, or None; domains resolved from the catalog."""
    catalog = ctx.state.catalog
    if old == new:
        return None
    domain = catalog.domains.get(new.name)
    if domain is not None and not new.array:
        if domain.constrained:
            # ATColumnChangeRequiresRewrite: a CoerceToDomain with constraints rewrites.
            return f"{old} to {new}, a domain with constraints: every value is checked"
        if domain.base is None:
            return f"{old} to the domain {new}, whose base type the migrations do not show"
    return rewrite_reason(
        _base(old, catalog, old=True),
        _base(new, catalog),
        pg_version=ctx.pg_version,
        utc_session=ctx.state.utc_session,
    )


def _collation_changes(old: str | None, coldef: Any, new_type: ColumnType, catalog: Catalog) -> str:
    """Why an index on the column is rebuilt for its collation ('' when it keeps it): the new
    collation is the COLLATE clause's, else the new type's (a domain's own), else the
    default; "if the collation for a column has been changed, an index rebuild is required"
    (ALTER TABLE, Notes)."""
    clause = coldef.collClause if isinstance(coldef, ast.ColumnDef) else None
    new: str | None
    if clause is not None and clause.collname:
        new = str(clause.collname[-1].sval)
    else:
        domain = catalog.domains.get(new_type.name)
        new = domain.collation if domain is not None else None
    if clause is not None:
        # A COLLATE clause restating the current collation is still a change unless the
        # migrations show the current one.
        return "" if new == old and old is not None else "a COLLATE clause"
    if new != old:
        return f"the collation changes from {old or 'the default'} to {new or 'the default'}"
    return ""


def _operator_class_changes(old: ColumnType, new: ColumnType, catalog: Catalog) -> str:
    """Why an index on the column is rebuilt although the table is not rewritten ('' when it
    is reused): timestamp and timestamptz have different btree operator classes."""
    names = {_base(old, catalog, old=True).name, _base(new, catalog).name}
    if names == {"timestamp", "timestamptz"}:
        return f"{old} to {new} changes the index's operator class"
    return ""


def _index_rebuild(column: str, why: str, cost: Cost) -> Hit:
    return hit(
        RULE,
        f"changes the type of {column} ({why}): the table is not rewritten, but every index on "
        "the column is rebuilt under an ACCESS EXCLUSIVE lock (indexcmds.c "
        "CheckIndexCompatible), blocking reads and writes for the rebuild",
        "build the new index CONCURRENTLY on a new column (expand and contract), or run it in "
        "a maintenance window",
        cost=cost,
    )


def _check_scan(column: str, checks: list[str], cost: Cost) -> Hit:
    names = ", ".join(checks)
    return hit(
        RULE,
        f"changes the type of {column}, which the validated CHECK constraint(s) {names} read: "
        "PostgreSQL drops and re-adds them, checking every row under the ACCESS EXCLUSIVE lock "
        "(tablecmds.c ATPostAlterTypeCleanup), even when the type stays the same",
        "drop the CHECK first and add it back NOT VALID, then VALIDATE it in a later step",
        cost=cost,
    )
