"""unbounded-data-change: UPDATE, DELETE, MERGE or upsert of every row of an existing table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast
from pglast.enums import A_Expr_Kind, BoolExprType, CmdType, MergeMatchKind
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
MATCHED BY SOURCE THEN UPDATE or DELETE. And the changes whose source is an existing table
read whole, which change each target row it covers (every row when it covers the table): an
`INSERT ... SELECT` without WHERE, LIMIT or JOIN ... `ON CONFLICT DO UPDATE` (without its own
WHERE), and a `MERGE ... USING` such a table `ON` a key join (`a.id = b.id`) with an
unconditional WHEN MATCHED THEN UPDATE or DELETE.

Why it hurts: every row is changed in one transaction: every row stays locked until it
commits (concurrent writers of any row wait, then hit the lock timeout: an application UPDATE
of one row waits for the whole statement and its transaction), the statement may run
for a long time, and the table bloats with a dead copy of every row. An UPDATE of a large table
can also exceed statement_timeout and roll back entirely.

Applies to: every PostgreSQL version. An UPDATE or DELETE through a view changes every row of
the view's table (sql-createview.html, Updatable Views) and is reported, unless the view was
created in the run and every relation its query reads was too (a view of the history, or one
that calls a user or set-returning function, is taken to reach existing rows). Not reported:
an INSERT ... SELECT that only adds rows, even a copy of every row of a table (ACCESS SHARE
on the source, ROW EXCLUSIVE on the target: no application read or write waits, as pg_locks
and a second session show on PostgreSQL 15); a source with a WHERE, LIMIT or JOIN, a
subquery, VALUES or a table created in the run (the rows it covers are picked or new); a
MERGE whose ON condition filters rows or whose WHEN clauses have conditions.
Source: PostgreSQL docs, UPDATE, DELETE, MERGE, INSERT, SELECT (WHERE Clause), 13.3.2
Row-Level Locks (a row stays locked until the transaction ends); each form's row of
docs/reference.md.

Instead: put `-- safemigrate: batch-size=1000` on the line before the statement: the runner then
runs it over key ranges of the table's primary key, each batch in its own short transaction,
resumable and throttled (`batch-pause=DUR`, `max-replica-lag=DUR`); a batched statement is not
flagged. An upsert or a MERGE from a table: over key ranges of the source, each range in its
own transaction. If the table is known to be small, allow it with that reason.
"""

RULE = make_rule(
    "unbounded-data-change",
    "error",
    "UPDATE, DELETE, MERGE or upsert of every row of an existing table",
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
            # Adding rows read from a whole table takes ACCESS SHARE on it and ROW EXCLUSIVE
            # on the target: no application read or write waits (blind25 case 25 on
            # PostgreSQL 15). Updating each conflicting row is what locks them.
            if match.row.data is DataChange.MATCHED_ROWS:
                yield from _upsert(change, match.row, ctx)
            continue
        if (
            match.row is not None
            and match.row.data is DataChange.MATCHED_ROWS
            and isinstance(change, ast.MergeStmt)
        ):
            yield from _merge_from_table(change, ctx)
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


def _upsert(change: Any, row: Row, ctx: StatementContext) -> Iterator[Hit]:
    """INSERT ... SELECT ... ON CONFLICT DO UPDATE of an existing table, its SELECT reading an
    existing table whole: each target row a source row conflicts with is updated and stays
    locked to COMMIT, every row of it when the source covers the table (blind25 case 37)."""
    if ctx.is_new(change.relation) or change.onConflictClause.whereClause is not None:
        return
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
    source = row.lock_on(Target.OTHER_NAMED)
    mode = f" under {source.sql_name}" if source is not None else ""
    table = show(written(change.relation))
    yield hit(
        RULE,
        f"INSERT ... SELECT ... ON CONFLICT DO UPDATE reads every row of {names}{mode} and "
        f"updates each row of existing table {table} a source row conflicts with, in one "
        "transaction: with a source that covers the table every row stays locked until it "
        "commits, and concurrent writers wait",
        "upsert in key ranges of the source (... WHERE id >= N AND id < M), each range in "
        "its own transaction; if the source is known to be small, allow it with that reason",
        cost=Cost("scan", ctx.family(change.relation)),
    )


def _key_join(expr: Any) -> bool:
    """True for an ON condition that only pairs columns (``a.id = b.id``, ANDed): it picks no
    rows of its own, so every target row a source row shares the key with is matched."""
    if isinstance(expr, ast.BoolExpr) and expr.boolop == BoolExprType.AND_EXPR:
        return all(_key_join(arg) for arg in expr.args or ())
    return (
        isinstance(expr, ast.A_Expr)
        and expr.kind == A_Expr_Kind.AEXPR_OP
        and [str(n.sval) for n in expr.name or ()] == ["="]
        and isinstance(expr.lexpr, ast.ColumnRef)
        and isinstance(expr.rexpr, ast.ColumnRef)
    )


def _merge_from_table(merge: Any, ctx: StatementContext) -> Iterator[Hit]:
    """MERGE ... USING an existing table read whole, ON a key join, with an unconditional WHEN
    MATCHED THEN UPDATE or DELETE: each target row the source covers is changed and stays
    locked to COMMIT, every row when the source covers the table (blind25 case 07)."""
    source = merge.sourceRelation
    if not isinstance(source, ast.RangeVar) or ctx.is_new(source) or ctx.is_new(merge.relation):
        return
    if not _key_join(merge.joinCondition):
        return
    if not any(
        clause.matchKind == MergeMatchKind.MERGE_WHEN_MATCHED
        and clause.commandType in (CmdType.CMD_UPDATE, CmdType.CMD_DELETE)
        and clause.condition is None
        for clause in merge.mergeWhenClauses or ()
    ):
        return
    table = show(written(merge.relation))
    verbs = _merge_verbs(merge)
    yield hit(
        RULE,
        f"MERGE ... USING existing table {show(written(source))} (read whole) {verbs} "
        f"each row of existing table {table} a source row matches, in one transaction: with a "
        "source that covers the table every row stays locked until it commits, and concurrent "
        "writers wait",
        "merge in key ranges of the source (USING (SELECT ... WHERE id >= N AND id < M)), each "
        "range in its own transaction; if the source is known to be small, allow it with that "
        "reason",
        cost=Cost("scan", ctx.family(merge.relation)),
    )
