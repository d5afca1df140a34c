"""lock-table: explicit LOCK TABLE."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast

from ...core.model import LockMode
from ...reference import lookup
from ...reference.model import Target
from ..context import StatementContext, show, written
from ..findings import Cost, Hit, hit, make_rule

DOC = """
Catches: `LOCK [TABLE] ...` on a table that existed before the migration.

Why it hurts: the lock is held until the transaction ends, so everything after it in the same
BEGIN/COMMIT block or group runs with the table locked; the default mode, ACCESS EXCLUSIVE,
blocks even reads. Outside a block it locks nothing useful: the step's transaction ends right
after it.

Applies to: every PostgreSQL version.
Source: PostgreSQL docs, LOCK, 13.3 Explicit Locking (Table 13.2 Conflicting Lock Modes); the mode
is the one its row of docs/reference.md holds (one row per IN ... MODE, checked on a real server).

Instead: let each statement take the lock it needs, briefly, under safemigrate's lock_timeout
and retries. If a block really needs the lock (to order several changes), keep the block short
and allow it with the reason.
"""

RULE = make_rule("lock-table", "warning", "explicit LOCK TABLE", DOC)


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if not isinstance(node, ast.LockStmt):
        return
    tables = [r for r in node.relations or () if not ctx.is_new(r)]
    if not tables:
        return
    # The mode is the reference row's (one row per IN ... MODE; the parser gives LOCK
    # without one ACCESS EXCLUSIVE, as the LOCK page says).
    row = lookup.row_for(node, version=lookup.clamp(ctx.pg_version))
    held = None if row is None else row.lock_on(Target.NAMED)
    mode = (held or LockMode.ACCESS_EXCLUSIVE).sql_name
    scope = (
        f"until the end of {ctx.tx.describe()}"
        if ctx.in_transaction_block()
        else "until its transaction ends"
    )
    yield hit(
        RULE,
        f"LOCK TABLE {', '.join(show(written(r)) for r in tables)} IN {mode} MODE holds the "
        f"lock {scope}: queries that conflict with it queue behind it",
        "let each statement take its own lock briefly (safemigrate retries on lock timeout); "
        "if the block needs it, keep the block short and allow it with the reason",
        cost=Cost("lock", tuple(ctx.table(r) for r in tables)),
    )
