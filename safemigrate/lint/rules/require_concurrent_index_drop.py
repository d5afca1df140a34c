"""require-concurrent-index-drop: DROP INDEX without CONCURRENTLY."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, name_of, show
from ..findings import Hit, hit, make_rule

DOC = """
Catches: `DROP INDEX` without CONCURRENTLY, except of an index created earlier in the same file
on a table created in that file.

Why it hurts: a plain DROP INDEX takes an ACCESS EXCLUSIVE lock on the index's table. The drop
itself is quick, but while it waits for that lock behind one long transaction every other query
on the table queues behind it (safemigrate bounds that wait with lock_timeout and retries).

With CONCURRENTLY, more than one index or CASCADE is refused by PostgreSQL ("only one index
name can be specified, and the CASCADE option is not supported"): reported as an error.

Applies to: every PostgreSQL version (DROP INDEX CONCURRENTLY from 9.2).
Source: PostgreSQL docs, DROP INDEX ("CONCURRENTLY: Drop the index without locking out
concurrent selects, inserts, updates, and deletes on the index's table. A normal DROP INDEX
acquires an ACCESS EXCLUSIVE lock on the table").

Instead: `DROP INDEX CONCURRENTLY name` as its own statement, outside any BEGIN/COMMIT block or
group (safemigrate runs it in autocommit mode). It takes only a SHARE UPDATE EXCLUSIVE lock,
which does not block reads or writes.
"""

RULE = make_rule(
    "require-concurrent-index-drop",
    "warning",
    "DROP INDEX without CONCURRENTLY",
    DOC,
)


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if not isinstance(node, ast.DropStmt) or node.removeType != enums.ObjectType.OBJECT_INDEX:
        return
    if node.concurrent:
        cascade = node.behavior == enums.DropBehavior.DROP_CASCADE
        if len(node.objects or ()) > 1 or cascade:
            yield hit(
                RULE,
                "DROP INDEX CONCURRENTLY takes one index and no CASCADE: PostgreSQL refuses "
                "this statement and the step fails",
                "write one DROP INDEX CONCURRENTLY statement per index, without CASCADE",
                "error",
            )
        return
    names = [name_of(obj) for obj in node.objects or ()]
    existing = [n for n in names if ctx.state.resolve(n) not in ctx.state.created_indexes]
    if not existing:
        return
    shown = ", ".join(show(n) for n in existing)
    move = (
        f"move it out of {ctx.where().removeprefix('inside ')} and "
        if (ctx.in_transaction_block())
        else ""
    )
    yield hit(
        RULE,
        f"DROP INDEX {shown} without CONCURRENTLY takes an ACCESS EXCLUSIVE lock on the table: "
        "reads and writes queue behind it while it waits for the lock",
        f"{move}write DROP INDEX CONCURRENTLY as its own statement; it does not block reads "
        "or writes",
    )
