"""unbounded-data-change: UPDATE or DELETE without WHERE on an existing table, and INSERT ...
SELECT reading every row of one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast
from pglast.enums import CmdType
from pglast.stream import RawStream

from ...reference import lookup
from ...reference.model import DataChange, Effect, Row, Target
from ..context import StatementContext, show, written
from ..findings import Cost, Hit, hit, make_rule

DOC = """
Catches: `UPDATE` or `DELETE` without a WHERE clause on a table that existed before the
migration (with a FROM / USING list too: no join condition), also inside a data-modifying
WITH and under EXPLAIN ANALYZE or COPY (query), which run it: the statements whose row in
docs/reference.md changes every row; among them a `MERGE` (PostgreSQL 15+) whose ON condition
is true whatever the rows (`ON true`, `ON 1 = 1`) with an unconditional WHEN ... THEN UPDATE
or DELETE, and one (17+) whose ON is never true (`ON false`) with an unconditional WHEN NOT
MATCHED BY SOURCE THEN UPDATE or DELETE. And `INSERT ... SELECT` without WHERE, LIMIT or
JOIN (ON CONFLICT or not) from a table that existed before the migration: the rows whose scan
of the other relation named is certain, which copy every row of it in one statement.

Why it hurts: every row is changed in one transaction: every row stays locked until it
commits (concurrent writers of any row wait, then hit the lock timeout: an application UPDATE
of one row waits for the whole statement and its transaction), the statement may run
for a long time, and the table bloats with a dead copy of every row. An UPDATE of a large table
can also exceed statement_timeout and roll back entirely. A copy of every row of a table
reads it whole under ACCESS SHARE held to the end of the transaction (a later ALTER TABLE of
it, by anyone, waits, and everything queued behind that), writes every new row and its WAL at
once (replicas fall behind), and keeps one long transaction open.

Applies to: every PostgreSQL version. An UPDATE or DELETE through a view changes every row of
the view's table (sql-createview.html, Updatable Views) and is reported, unless the view was
created in the run and every relation its query reads was too (a view of the history, or one
that calls a user or set-returning function, is taken to reach existing rows). Not reported:
INSERT ... SELECT with a WHERE, LIMIT or JOIN (the plan decides what it reads), or from
tables created in the run, WITH queries, subqueries or functions only; a MERGE whose ON
condition reads a column (it picks the rows) or whose WHEN clauses have conditions.
Source: PostgreSQL docs, UPDATE, DELETE, MERGE, INSERT, SELECT (WHERE Clause), 13.3.2
Row-Level Locks (a row stays locked until the transaction ends); each form's row of
docs/reference.md.

Instead: put `-- safemigrate: batch-size=1000` on the line before the statement: the runner then
runs it over key ranges of the table's primary key, each batch in its own short transaction,
resumable and throttled (`batch-pause=DUR`, `max-replica-lag=DUR`); a batched statement is not
flagged. Copy with INSERT ... SELECT ... WHERE over key ranges of the source, each range in
its own transaction. If the table is known to be small, allow it with that reason.
"""

RULE = make_rule(
    "unbounded-data-change",
    "error",
    "UPDATE or DELETE without WHERE, or INSERT ... SELECT of every row, on an existing table",
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
        if match.row is not None and _copies_every_row(match.row):
            yield from _copy(change, match.row, ctx)
            continue
        if match.row is None or match.row.data is not DataChange.EVERY_ROW:
            continue
        if ctx.is_new(change.relation):
            continue
        table = show(written(change.relation))
        if isinstance(change, ast.MergeStmt):
            condition: Any = change.joinCondition
            verb = f"MERGE ... ON {RawStream()(condition)} {_merge_verbs(change)}"
            hint = (
                "give the MERGE an ON condition that matches the rows to change (ON t.id = "
                "s.id), or run it as an UPDATE or DELETE with '-- safemigrate: batch-size=1000' "
                "on the line before it; if the table is known to be small, allow it with that "
                "reason"
            )
        else:
            verb = "updates" if isinstance(change, ast.UpdateStmt) else "deletes"
            hint = (
                "run it in short batches: put '-- safemigrate: batch-size=1000' on the line "
                "before it; if the table is known to be small, allow it with that reason"
            )
        yield hit(
            RULE,
            f"{verb} every row of existing table {table} in one transaction: all rows stay "
            "locked until it commits, concurrent writers wait, and the table bloats",
            hint,
            cost=Cost("scan", ctx.family(change.relation)),
        )


def _merge_verbs(merge: Any) -> str:
    """``updates``, ``deletes`` or ``updates or deletes``: what its WHEN clauses do."""
    kinds = {clause.commandType for clause in merge.mergeWhenClauses or ()}
    verbs = [
        verb
        for kind, verb in ((CmdType.CMD_UPDATE, "updates"), (CmdType.CMD_DELETE, "deletes"))
        if kind in kinds
    ]
    return " or ".join(verbs)


def _copies_every_row(row: Row) -> bool:
    """True for a row that adds rows (or updates the conflicting ones) read by a certain scan
    of the other relations it names: INSERT ... SELECT without WHERE, LIMIT or JOIN."""
    return (
        row.data in (DataChange.NEW_ROWS, DataChange.MATCHED_ROWS)
        and row.scans.effect is Effect.YES
        and Target.OTHER_NAMED in row.scans.on
    )


def _sources(from_list: Any, ctes: frozenset[str]) -> Iterator[Any]:
    """The relations a FROM list without WHERE or JOIN reads whole (sql-select.html, FROM
    Clause: a list of relations is their cross product): each of them but a WITH query's
    name. A subquery or a function reads what it reads: not followed."""
    for item in from_list or ():
        if isinstance(item, ast.RangeVar) and (item.schemaname or str(item.relname) not in ctes):
            yield item


def _copy(change: Any, row: Row, ctx: StatementContext) -> Iterator[Hit]:
    select = change.selectStmt
    ctes = frozenset(
        str(cte.ctename)
        for clause in (change.withClause, select.withClause)
        if clause is not None
        for cte in clause.ctes or ()
    )
    existing = [r for r in _sources(select.fromClause, ctes) if not ctx.is_new(r)]
    if not existing:
        return
    names = ", ".join(show(written(r)) for r in existing)
    tables, them = ("tables", "them") if len(existing) > 1 else ("table", "it")
    source = row.lock_on(Target.OTHER_NAMED)
    target = row.lock_on(Target.NAMED)
    held = f"{source.sql_name} on {them}" if source is not None else "its lock"
    if target is not None:
        held += f" and {target.sql_name} on {show(written(change.relation))}"
    yield hit(
        RULE,
        f"copies every row of existing {tables} {names} in one statement (no WHERE, LIMIT or "
        f"JOIN): {held} are held for the whole scan and to the end of the transaction, and "
        "every new row and its WAL are written at once",
        "copy in key ranges (INSERT ... SELECT ... WHERE id >= N AND id < M), each range in "
        "its own transaction; if the table is known to be small, allow it with that reason",
        "warning",
        cost=Cost("scan", tuple(t for r in existing for t in ctx.family(r))),
    )
