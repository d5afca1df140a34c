"""unbounded-data-change: UPDATE or DELETE without WHERE on an existing table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast

from ...reference import lookup
from ...reference.model import DataChange
from ..context import StatementContext, show, written
from ..findings import Cost, Hit, hit, make_rule

DOC = """
Catches: `UPDATE` or `DELETE` without a WHERE clause on a table that existed before the
migration (with a FROM / USING list too: no join condition), also inside a data-modifying
WITH and under EXPLAIN ANALYZE or COPY (query), which run it: the statements whose row in
docs/reference.md changes every row.

Why it hurts: every row is changed in one transaction: every row stays locked until it
commits (concurrent writers of any row wait, then hit the lock timeout), the statement may run
for a long time, and the table bloats with a dead copy of every row. An UPDATE of a large table
can also exceed statement_timeout and roll back entirely.

Applies to: every PostgreSQL version. An UPDATE or DELETE through a view changes every row of
the view's table (sql-createview.html, Updatable Views) and is reported, unless the view was
created in the run and every relation its query reads was too (a view of the history, or one
that calls a user or set-returning function, is taken to reach existing rows). Not reported:
INSERT ... SELECT (it adds rows; a long read of the source under ACCESS SHARE) and MERGE,
whose ON condition picks the rows.
Source: PostgreSQL docs, UPDATE, DELETE, 13.3.2 Row-Level Locks (a row stays locked until the
transaction ends).

Instead: put `-- safemigrate: batch-size=1000` on the line before the statement: the runner then
runs it over key ranges of the table's primary key, each batch in its own short transaction,
resumable and throttled (`batch-pause=DUR`, `max-replica-lag=DUR`); a batched statement is not
flagged. If the table is known to be small, allow it with that reason.
"""

RULE = make_rule(
    "unbounded-data-change",
    "warning",
    "UPDATE or DELETE without WHERE on an existing table",
    DOC,
)


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if ctx.statement is not None and ctx.statement.batch is not None:
        # The runner runs it in short key-range batches.
        return
    try:
        found = lookup.matches(node, lookup.clamp(ctx.pg_version))
    except lookup.AmbiguousRowError:
        return
    # The statement's parts are what it runs: itself, its data-modifying WITH queries, what
    # EXPLAIN ANALYZE or COPY (query) runs; the row says which of them change every row.
    for match in found:
        change = match.node
        if match.row is None or match.row.data is not DataChange.EVERY_ROW:
            continue
        if ctx.is_new(change.relation):
            continue
        table = show(written(change.relation))
        verb = "updates" if isinstance(change, ast.UpdateStmt) else "deletes"
        yield hit(
            RULE,
            f"{verb} every row of existing table {table} in one transaction: all rows stay "
            "locked until it commits, concurrent writers wait, and the table bloats",
            "run it in short batches: put '-- safemigrate: batch-size=1000' on the line before "
            "it; if the table is known to be small, allow it with that reason",
            cost=Cost("scan", ctx.family(change.relation)),
        )
