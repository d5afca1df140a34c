"""rename: renaming a table or a column that running code uses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, quote_ident, show, written
from ..findings import Hit, hit, make_rule

DOC = """
Catches: `ALTER TABLE ... RENAME TO`, `ALTER TABLE ... RENAME [COLUMN] ... TO` and
`ALTER TABLE ... SET SCHEMA` of a table that existed before the migration (a column added
earlier in the same file may be renamed: no running code uses it yet).

Why it hurts: the application version that is running while the migration applies still uses
the old name; every one of its queries on that table or column fails from the moment the rename
commits until the new version is deployed everywhere.

Applies to: every PostgreSQL version.
Source: PostgreSQL docs, ALTER TABLE (RENAME, SET SCHEMA); the lock is brief, the harm is to
running code that uses the old name.

Instead: expand and contract. For a column: add the new column, write both (or use a trigger),
backfill, switch reads, then drop the old column in a later release. For a table: rename it and
create a view with the old name in the same transaction, or switch the code first. If the old
name is no longer used by any running code, allow it with that reason.
"""

RULE = make_rule("rename", "warning", "renaming a table or column", DOC)

_OBJ = enums.ObjectType
_BREAKS = "running application code that still uses the old name fails from the moment it commits"


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if isinstance(node, ast.RenameStmt) and node.relation is not None:
        if ctx.is_new(node.relation):
            return
        table = show(written(node.relation))
        if node.renameType == _OBJ.OBJECT_TABLE:
            what = f"renames table {table} to {quote_ident(str(node.newname))}"
        elif node.renameType == _OBJ.OBJECT_COLUMN and node.relationType in (
            _OBJ.OBJECT_TABLE,
            _OBJ.OBJECT_FOREIGN_TABLE,
        ):
            if (ctx.table(node.relation), node.subname) in ctx.state.created_columns:
                return  # added earlier in this file: no running code uses it yet
            what = (
                f"renames column {table}.{quote_ident(str(node.subname))} to "
                f"{quote_ident(str(node.newname))}"
            )
        else:
            return
        yield hit(
            RULE,
            f"{what}: {_BREAKS}",
            "expand and contract: add the new name, keep the old one working (view, trigger "
            "or both columns) until no running code uses it, drop it later",
        )
    elif (
        isinstance(node, ast.AlterObjectSchemaStmt)
        and node.objectType == _OBJ.OBJECT_TABLE
        and node.relation is not None
        and not ctx.is_new(node.relation)
    ):
        yield hit(
            RULE,
            f"moves table {show(written(node.relation))} to schema "
            f"{quote_ident(str(node.newschema))}: {_BREAKS}",
            "switch the application to the new name first, or leave a view with the old name",
        )
