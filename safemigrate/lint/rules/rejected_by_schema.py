"""rejected-by-schema: a statement PostgreSQL refuses because of what the schema holds: the
foreign keys, partitions, views, composite types and indexes the migrations' history built
(lint.schema_objects, lint.catalog)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ...core.model import QualifiedName, summarize
from ..catalog import Catalog
from ..context import StatementContext, name_of, show
from ..findings import Hit, hit, make_rule
from ..schema_objects import view_column_types, view_columns

DOC = """
Catches: a statement PostgreSQL refuses because of what the schema holds: the one the
migrations built, or with a database (`plan --dsn`, `up`) the live one (what neither shows
passes):
- `DROP TABLE | VIEW | MATERIALIZED VIEW` without `CASCADE` of a relation a view reads or
  (a table) another table's foreign key references, unless they are dropped in the same
  statement (2BP01; dependency.c reportDependentObjects), `ALTER TABLE ... DROP COLUMN`
  without `CASCADE` of a column a view reads (2BP01), and `ALTER COLUMN ... TYPE` of one
  (0A000; tablecmds.c ATExecAlterColumnType: "cannot alter type of a column used by a view
  or rule");
- `REFRESH MATERIALIZED VIEW CONCURRENTLY` of a materialized view without a unique index on
  plain columns and no WHERE clause (55000), or not populated yet (`WITH NO DATA`, 0A000;
  matview.c ExecRefreshMatView);
- `TRUNCATE` of a table another table's foreign key references, when that table is not
  truncated in the same statement and `CASCADE` is not written (SQLSTATE 0A000; heap.c
  heap_truncate_check_FKs; a foreign key onto a partitioned table counts for each partition);
- `ALTER TABLE ... ADD FOREIGN KEY ... NOT VALID` on a partitioned table, PostgreSQL 12 to
  17 (42809; 18 allows it), and `ALTER TABLE ONLY` adding a foreign key to a partitioned
  table, every version (42809; tablecmds.c ATAddForeignKeyConstraint);
- `ALTER INDEX ... ALTER COLUMN n SET STATISTICS` on a key column that is a plain table
  column, not an expression, or on an INCLUDE column (0A000), or on a column number the index
  lacks (42703; tablecmds.c ATExecSetStatistics);
- `CREATE OR REPLACE VIEW` whose query has fewer columns than the view (a column dropped),
  another name at a column's place (renamed, or one inserted before it), or another type
  where both queries show it (a table's column, a cast) (42P16; view.c checkViewTupleDesc);
- `ALTER TYPE ... ALTER ATTRIBUTE ... TYPE` of a composite type a table column uses (directly,
  as an array, through a domain or another composite type) (0A000; tablecmds.c
  find_composite_type_dependencies), and `ALTER TYPE ... ADD / DROP / ALTER / RENAME
  ATTRIBUTE` of the type of a typed table (`CREATE TABLE ... OF`) without `CASCADE` (2BP01;
  tablecmds.c find_typed_table_dependencies).

Why it hurts: the server refuses the statement and the migration stops there; in a
transaction, everything before it in the transaction is rolled back, and a file that worked on
a developer's empty schema fails on the one the history built.

Applies to: every PostgreSQL version, except where a form says which.
Source: PostgreSQL docs, TRUNCATE ("TRUNCATE cannot be used on a table that has foreign-key
references from other tables, unless all such tables are also truncated in the same
command"), ALTER TABLE (ADD table_constraint; SET STATISTICS), CREATE VIEW (CREATE OR REPLACE
VIEW: "the new query must generate the same columns ... and it may add additional columns
to the end of the list"), ALTER TYPE (ALTER ATTRIBUTE ... TYPE; CASCADE); and the source
functions named above.

Instead: drop or change the dependent views and foreign keys first (or in the same
statement); truncate the referencing tables in the same statement (or write `CASCADE`, which
empties them too); add the partitioned table's foreign key as a validating constraint, or on
each partition NOT VALID and validate those; set statistics on the table's column; add new
view columns at the end, or drop and create the view in one transaction; for a composite
type in use, add a new attribute, copy the values, and drop the old one.
"""

RULE = make_rule(
    "rejected-by-schema",
    "error",
    "statement PostgreSQL refuses on the schema the migrations built",
    DOC,
)

_AT = enums.AlterTableType
_CONSTR = enums.ConstrType
_OBJ = enums.ObjectType
_CASCADE = enums.DropBehavior.DROP_CASCADE
#: The last server major that refuses a NOT VALID foreign key on a partitioned table
#: (PostgreSQL 18's release notes: "Allow NOT VALID foreign key constraints on partitioned
#: tables").
_NOT_VALID_PARTITIONED_FK_UNTIL = 17


def _refused(ctx: StatementContext, what: str, sqlstate: str, source: str) -> str:
    return (
        f"{summarize(ctx.text)!r}: {what}: PostgreSQL refuses it (SQLSTATE {sqlstate}, "
        f"{source}) and the migration stops"
    )


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if isinstance(node, ast.TruncateStmt):
        yield from _truncate(node, ctx)
    elif isinstance(node, ast.AlterTableStmt) and node.relation is not None:
        if node.objtype == _OBJ.OBJECT_TYPE:
            yield from _alter_type(node, ctx)
        else:
            yield from _alter_relation(node, ctx)
    elif isinstance(node, ast.RenameStmt) and node.renameType == _OBJ.OBJECT_ATTRIBUTE:
        yield from _typed_tables(node.relation, node.behavior, "RENAME ATTRIBUTE", ctx)
    elif isinstance(node, ast.ViewStmt) and node.replace and node.view is not None:
        yield from _replace_view(node, ctx)
    elif isinstance(node, ast.DropStmt) and node.removeType in _DROPPED_RELATIONS:
        yield from _drop_with_dependents(node, ctx)
    elif isinstance(node, ast.RefreshMatViewStmt) and node.concurrent and node.relation:
        yield from _refresh_concurrently(node, ctx)


def _refresh_concurrently(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    """matview.c ExecRefreshMatView: CONCURRENTLY needs a populated materialized view with a
    unique index on plain columns and no WHERE clause."""
    objects = ctx.state.catalog.objects
    matview = ctx.table(node.relation)
    populated = objects.matviews.get(matview)
    if populated is None:
        return  # not a materialized view the schema shows
    source = "matview.c ExecRefreshMatView"
    if not populated:
        yield hit(
            RULE,
            _refused(
                ctx,
                f"materialized view {show(matview)} is not populated (WITH NO DATA): "
                "CONCURRENTLY cannot be used",
                "0A000",
                source,
            ),
            "refresh it once without CONCURRENTLY (nobody reads an unpopulated view)",
        )
    elif matview not in objects.unique_indexes.values():
        yield hit(
            RULE,
            _refused(
                ctx,
                f"materialized view {show(matview)} has no unique index on plain columns "
                "without a WHERE clause, which CONCURRENTLY needs",
                "55000",
                source,
            ),
            "create such a unique index on it first (CREATE UNIQUE INDEX CONCURRENTLY)",
        )


#: The DROP object types whose dependents (views, foreign keys) make a drop without CASCADE
#: fail.
_DROPPED_RELATIONS = frozenset({_OBJ.OBJECT_TABLE, _OBJ.OBJECT_VIEW, _OBJ.OBJECT_MATVIEW})
_DEPENDENTS = "dependency.c reportDependentObjects"


def _drop_with_dependents(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    """A DROP without CASCADE of a relation a view reads, or a foreign key of another table
    references: PostgreSQL refuses it (dependency.c reportDependentObjects)."""
    if node.behavior == _CASCADE:
        return
    objects = ctx.state.catalog.objects
    dropped = {ctx.state.resolve(name_of(obj)) for obj in node.objects or ()}
    for name in sorted(dropped, key=lambda n: (n.schema or "", n.name)):
        views = [v for v in objects.readers(name) if v not in dropped]
        keys = [
            fk.table
            for fk in objects.foreign_keys.values()
            if node.removeType == _OBJ.OBJECT_TABLE
            and fk.referenced == name
            and fk.table not in dropped
        ]
        if not (views or keys):
            continue
        what = (
            f"view {show(views[0])} depends on it"
            if views
            else f"a foreign key of {show(keys[0])} references it"
        )
        yield hit(
            RULE,
            _refused(ctx, f"cannot drop {show(name)}: {what}", "2BP01", _DEPENDENTS),
            "drop or change the dependent objects first, or add CASCADE (which drops them)",
        )
        return


def _truncate(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    """heap.c heap_truncate_check_FKs: every table whose foreign key references a truncated
    one must be truncated too, unless CASCADE adds them."""
    if node.behavior == _CASCADE:
        return
    catalog = ctx.state.catalog
    truncated: set[QualifiedName] = set()
    for rel in node.relations or ():
        truncated |= catalog.family(ctx.table(rel), only=not rel.inh)
    for fk in catalog.objects.foreign_keys.values():
        if fk.table in truncated or not _reaches(catalog, fk.referenced, truncated):
            continue
        yield hit(
            RULE,
            _refused(
                ctx,
                f"{show(fk.table)} has a foreign key onto {show(fk.referenced)} and is not "
                "truncated with it",
                "0A000",
                "heap.c heap_truncate_check_FKs",
            ),
            f"truncate {show(fk.table)} in the same statement, or add CASCADE (which empties "
            "it too)",
        )
        return


def _reaches(catalog: Catalog, referenced: QualifiedName, truncated: set[QualifiedName]) -> bool:
    """True when a foreign key onto ``referenced`` covers a truncated table: the table itself,
    or a partition of it (a foreign key onto a partitioned table is on each partition)."""
    if referenced in truncated:
        return True
    return referenced in catalog.partitioned and bool(catalog.family(referenced) & truncated)


def _alter_relation(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    catalog = ctx.state.catalog
    relation = ctx.table(node.relation)
    for cmd in node.cmds or ():
        if not isinstance(cmd, ast.AlterTableCmd):
            continue
        if (
            cmd.subtype == _AT.AT_AddConstraint
            and isinstance(cmd.def_, ast.Constraint)
            and cmd.def_.contype == _CONSTR.CONSTR_FOREIGN
            and relation in catalog.partitioned
        ):
            yield from _partitioned_foreign_key(node, cmd.def_, ctx)
        elif cmd.subtype == _AT.AT_SetStatistics:
            yield from _index_statistics(relation, cmd, ctx)
        elif cmd.subtype in (_AT.AT_DropColumn, _AT.AT_AlterColumnType) and cmd.name:
            yield from _column_of_a_view(node, relation, cmd, ctx)


def _column_of_a_view(
    node: Any, table: QualifiedName, cmd: Any, ctx: StatementContext
) -> Iterator[Hit]:
    """A column a view reads: its type cannot change (tablecmds.c ATExecAlterColumnType,
    0A000), nor may it be dropped without CASCADE (2BP01)."""
    if cmd.subtype == _AT.AT_DropColumn and cmd.behavior == _CASCADE:
        return
    catalog = ctx.state.catalog
    column = str(cmd.name)
    for each in sorted(catalog.family(table, only=not node.relation.inh), key=str):
        views = catalog.objects.readers(each, column)
        if not views:
            continue
        if cmd.subtype == _AT.AT_AlterColumnType:
            what = f"cannot alter the type of {show(each)}.{column}: view {show(views[0])} uses it"
            sqlstate, source = "0A000", "tablecmds.c ATExecAlterColumnType"
            hint = "drop the view, change the column, and create the view again in one transaction"
        else:
            what = f"cannot drop {show(each)}.{column}: view {show(views[0])} depends on it"
            sqlstate, source = "2BP01", _DEPENDENTS
            hint = "change the view first, or add CASCADE (which drops it)"
        yield hit(RULE, _refused(ctx, what, sqlstate, source), hint)
        return


def _partitioned_foreign_key(node: Any, con: Any, ctx: StatementContext) -> Iterator[Hit]:
    """tablecmds.c ATAddForeignKeyConstraint on a partitioned table: no ONLY, and (to 17)
    no NOT VALID."""
    table = show(ctx.table(node.relation))
    source = "tablecmds.c ATAddForeignKeyConstraint"
    if not node.relation.inh:
        yield hit(
            RULE,
            _refused(
                ctx,
                f"ALTER TABLE ONLY cannot add a foreign key to partitioned table {table}",
                "42809",
                source,
            ),
            "leave out ONLY: the foreign key is then added to every partition",
        )
    elif con.skip_validation and ctx.pg_version <= _NOT_VALID_PARTITIONED_FK_UNTIL:
        yield hit(
            RULE,
            _refused(
                ctx,
                f"PostgreSQL {ctx.pg_version} (pg_version) cannot add a NOT VALID foreign key "
                f"on partitioned table {table} (18 can)",
                "42809",
                source,
            ),
            "add it without NOT VALID (it scans every partition under SHARE ROW EXCLUSIVE), "
            "or add it NOT VALID to each partition, validate those, then add it to the parent",
        )


def _index_statistics(index: QualifiedName, cmd: Any, ctx: StatementContext) -> Iterator[Hit]:
    """tablecmds.c ATExecSetStatistics on an index: only an expression key column has
    statistics of its own."""
    objects = ctx.state.catalog.objects
    keys = objects.index_keys.get(index)
    if keys is None:
        return
    included = objects.index_included.get(index, 0)
    number = int(cmd.num or 0)
    if not number and cmd.name:
        found = [i for i, key in enumerate(keys, 1) if key == cmd.name]
        if not found:
            return
        number = found[0]
    source = "tablecmds.c ATExecSetStatistics"
    if number < 1:
        return
    if number > len(keys) + included:
        what = f"index {show(index)} has no column number {number}"
        sqlstate = "42703"
    elif number > len(keys):
        what = f"column {number} of index {show(index)} is an INCLUDE column"
        sqlstate = "0A000"
    elif keys[number - 1] is not None:
        what = (
            f"column {number} of index {show(index)} is table column {keys[number - 1]}, "
            "not an expression: it has no statistics of its own"
        )
        sqlstate = "0A000"
    else:
        return
    column = keys[number - 1] if number <= len(keys) else None
    target = f"ALTER TABLE ... ALTER COLUMN {column} SET STATISTICS" if column else "the table"
    yield hit(
        RULE,
        _refused(ctx, what, sqlstate, source),
        f"set the statistics target on the table's column instead ({target})",
    )


def _replace_view(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    """view.c checkViewTupleDesc: the new query keeps every column of the view, in its place
    and under its name; it may add columns at the end."""
    view = ctx.table(node.view)
    old = ctx.state.catalog.objects.views.get(view)
    if old is None:
        return
    new = view_columns(node, ctx.state.catalog.tables, ctx.state.resolve)
    if new is None:
        return
    source = "view.c checkViewTupleDesc"
    hint = (
        "keep the view's columns as they are and add new ones at the end; to drop or rename "
        "one, DROP VIEW and CREATE VIEW in one transaction (or ALTER VIEW ... RENAME COLUMN)"
    )
    if len(new) < len(old):
        gone = [c for c in old if c is not None and c not in new]
        named = f" ({', '.join(gone)})" if gone else ""
        yield hit(
            RULE,
            _refused(
                ctx,
                f"the new query of view {show(view)} has {len(new)} columns, the view "
                f"{len(old)}: it cannot drop columns{named}",
                "42P16",
                source,
            ),
            hint,
        )
        return
    for was, now in zip(old, new, strict=False):
        if was is not None and now is not None and was != now:
            yield hit(
                RULE,
                _refused(
                    ctx,
                    f"view {show(view)} cannot change the name of its column {was} to {now}",
                    "42P16",
                    source,
                ),
                hint,
            )
            return
    old_types = ctx.state.catalog.objects.view_types.get(view, ())
    new_types = view_column_types(node, ctx.state.catalog.tables, ctx.state.resolve)
    for column, was_type, now_type in zip(old, old_types, new_types, strict=False):
        if was_type is not None and now_type is not None and was_type != now_type:
            yield hit(
                RULE,
                _refused(
                    ctx,
                    f"view {show(view)} cannot change the data type of its column {column} "
                    f"from {was_type} to {now_type}",
                    "42P16",
                    source,
                ),
                hint,
            )
            return


def _alter_type(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    """ALTER TYPE of a composite type: the columns that use it, the tables typed by it."""
    behavior = next((c.behavior for c in node.cmds or () if isinstance(c, ast.AlterTableCmd)), None)
    yield from _typed_tables(node.relation, behavior, "ALTER TYPE", ctx)
    if not any(
        isinstance(c, ast.AlterTableCmd) and c.subtype == _AT.AT_AlterColumnType
        for c in node.cmds or ()
    ):
        return
    type_name = str(node.relation.relname)
    for table, column in sorted(_type_users(ctx.state.catalog, type_name)):
        yield hit(
            RULE,
            _refused(
                ctx,
                f"column {show(table)}.{column} uses composite type {type_name}: its "
                "attributes' types cannot change",
                "0A000",
                "tablecmds.c find_composite_type_dependencies",
            ),
            "add a new attribute of the new type, copy the values into it, then drop the old "
            "attribute (or change the column to a new type)",
        )
        return


def _typed_tables(relation: Any, behavior: Any, what: str, ctx: StatementContext) -> Iterator[Hit]:
    """tablecmds.c find_typed_table_dependencies: a typed table's type changes only with
    CASCADE."""
    if relation is None or behavior == _CASCADE:
        return
    type_name = str(relation.relname)
    typed = sorted(
        (t for t, ty in ctx.state.catalog.objects.typed_tables.items() if ty == type_name),
        key=lambda t: (t.schema or "", t.name),
    )
    if typed:
        yield hit(
            RULE,
            _refused(
                ctx,
                f"{what} of {type_name}, the type of typed table {show(typed[0])}, without CASCADE",
                "2BP01",
                "tablecmds.c find_typed_table_dependencies",
            ),
            "add CASCADE to change the typed tables with the type",
        )


def _type_users(catalog: Catalog, type_name: str) -> set[tuple[QualifiedName, str]]:
    """The (table, column) pairs whose column holds ``type_name``: of the type, an array of
    it, a domain over it, or a composite type holding it (at any depth)."""
    names = {type_name}
    pending = [type_name]
    while pending:
        inner = pending.pop()
        for domain_name, domain in catalog.domains.items():
            base = domain.base.name.rsplit(".", 1)[-1] if domain.base is not None else None
            if base == inner and domain_name.rsplit(".", 1)[-1] not in names:
                names.add(domain_name.rsplit(".", 1)[-1])
                pending.append(domain_name.rsplit(".", 1)[-1])
        for composite, attributes in catalog.objects.composite_types.items():
            if inner in attributes and composite not in names:
                names.add(composite)
                pending.append(composite)
    return {
        (table, column_name)
        for table, columns in catalog.tables.items()
        for column_name, column in columns.items()
        if column.type is not None and column.type.name.rsplit(".", 1)[-1] in names
    }
