"""drop-table-or-column: dropping a table or a column that running code may use."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, name_of, quote_ident, show, written
from ..findings import Hit, hit, make_rule

DOC = """
Catches: `DROP TABLE` of a table that existed before the migration, and
`ALTER TABLE ... DROP COLUMN` on such a table (except of a column added earlier in the same
file), and `TRUNCATE` of an existing table (every row is gone, under an ACCESS EXCLUSIVE lock).

Why it hurts: the application version that is running while the migration applies may still
read or write the table or column (an ORM often selects every column by name): those queries
fail from the moment the drop commits. The data is gone too.

Applies to: every PostgreSQL version.
Source: PostgreSQL docs, ALTER TABLE (DROP COLUMN), DROP TABLE, TRUNCATE; 13.3 Explicit Locking
(ACCESS EXCLUSIVE). The lock is brief; the harm is to running code.

Instead: first deploy code that no longer uses the table or column (for an ORM, remove it from
the model, or mark the column ignored), then drop it in a later migration. When that is done,
allow the drop with that reason: `-- safemigrate: allow drop-table-or-column -- unused since v42`.
"""

RULE = make_rule("drop-table-or-column", "warning", "dropping a table or column", DOC)

_HINT = (
    "drop it only after the running application no longer uses it (deploy that first), "
    "then allow this with the reason"
)


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if isinstance(node, ast.TruncateStmt):
        existing = [r for r in node.relations or () if not ctx.is_new(r)]
        if existing:
            yield hit(
                RULE,
                f"truncates {', '.join(show(written(r)) for r in existing)}: every row is gone, "
                "and the ACCESS EXCLUSIVE lock blocks reads and writes while it waits",
                "delete the rows you mean in batches, or allow this with the reason",
            )
        return
    if isinstance(node, ast.DropStmt) and node.removeType == enums.ObjectType.OBJECT_TABLE:
        names = [name_of(obj) for obj in node.objects or ()]
        existing = [n for n in names if not ctx.is_new_name(n)]
        if existing:
            plural = "s" if len(existing) > 1 else ""
            yield hit(
                RULE,
                f"drops table{plural} {', '.join(show(n) for n in existing)}: running "
                "application code that still uses it fails, and the data is gone",
                _HINT,
            )
    elif (
        isinstance(node, ast.AlterTableStmt)
        and node.relation is not None
        and node.objtype == enums.ObjectType.OBJECT_TABLE
        and not ctx.is_new(node.relation)
    ):
        table = show(written(node.relation))
        for cmd in node.cmds or ():
            if (
                isinstance(cmd, ast.AlterTableCmd)
                and cmd.subtype == enums.AlterTableType.AT_DropColumn
                and cmd.name
                and (ctx.table(node.relation), cmd.name) not in ctx.state.created_columns
            ):
                yield hit(
                    RULE,
                    f"drops column {table}.{quote_ident(cmd.name)}: running application code "
                    "that still reads or writes it fails, and the data is gone",
                    _HINT,
                )
