"""table-rewrite: VACUUM FULL, CLUSTER and other full-table rewrites."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ...core.model import LockMode
from ...reference import lookup
from ...reference.model import DataChange, Effect, Row, Target
from ..context import StatementContext, defelem_true, show, written
from ..findings import WITH_A_DATABASE, Cost, Hit, hit, make_rule
from ..state import HEAP

DOC = """
Catches: on tables that existed before the migration, each statement whose row in
docs/reference.md rewrites the relation it names (or each one it processes) under a lock that
blocks reads, where no other rule reports it: `VACUUM FULL`, `CLUSTER`, `ALTER TABLE ... SET
TABLESPACE`, `SET LOGGED` / `SET UNLOGGED`, `SET ACCESS METHOD` (not to the method the table
already has, which the history or the live schema shows), `ALTER COLUMN ... SET EXPRESSION`
(PostgreSQL 17: "Existing data in the column is rewritten"; not for a virtual generated
column, PostgreSQL 18, which stores nothing), `ALTER MATERIALIZED VIEW ... SET TABLESPACE` /
`SET ACCESS METHOD`, `ALTER INDEX ... SET TABLESPACE` (the index's files are copied), and
`REFRESH MATERIALIZED VIEW` without CONCURRENTLY. The column forms have rules of their own
(add-column-rewrites, column-type-change), and so do TRUNCATE (drop-table-or-column) and ALL
IN TABLESPACE (scan-under-lock).

Why it hurts: each rewrites the whole table (or view) into new storage while holding an ACCESS
EXCLUSIVE lock: no reads or writes for as long as the copy takes, which grows with the table.

Applies to: every PostgreSQL version (SET ACCESS METHOD from 15, SET EXPRESSION from 17; on
an older pg_version the form is also reported as rejected-by-server-version).
Source: PostgreSQL docs, VACUUM (FULL), CLUSTER, ALTER TABLE (SET TABLESPACE, SET LOGGED /
UNLOGGED, SET ACCESS METHOD), ALTER INDEX, ALTER MATERIALIZED VIEW, REFRESH MATERIALIZED VIEW
(CONCURRENTLY); 13.3 Explicit Locking; each form's row of docs/reference.md (its rewrite and
lock, checked on a real server).

Instead: for bloat, use an online tool (pg_repack, pg_squeeze) outside the migration, or plain
VACUUM. For a materialized view, `REFRESH MATERIALIZED VIEW CONCURRENTLY` (needs a unique index
on it). Moving or changing a large table's storage belongs in a maintenance window, not in a
migration applied to a live database.
"""

RULE = make_rule(
    "table-rewrite",
    "error",
    "VACUUM FULL, CLUSTER and other full-table rewrites",
    DOC + WITH_A_DATABASE,
)

_AT = enums.AlterTableType
#: Subcommands whose rewrite depends on the column's definition: the column rules judge them
#: (add-column-rewrites, add-column-volatile-default, column-type-change).
_COLUMN_RULES = frozenset({_AT.AT_AddColumn, _AT.AT_AlterColumnType})
_HINT = (
    "do this outside the migration (pg_repack / pg_squeeze for bloat) or in a maintenance window"
)


def _rewrites(row: Row) -> LockMode | None:
    """The lock the row's rewrite of the named relation (or, without one, of each relation
    it processes) is done under, when it blocks reads; None when the row rewrites nothing.
    TRUNCATE's new empty files are drop-table-or-column's (it removes the rows), and ALL IN
    TABLESPACE, whose moves only the server knows, scan-under-lock's."""
    fact = row.rewrites
    if fact.effect is Effect.NO or row.data is DataChange.ALL_REMOVED:
        return None
    for target in (Target.NAMED, Target.MOVED):
        mode = row.lock_on(target)
        if target in fact.on and mode is not None and mode.blocks_reads:
            return mode
    return None


def _effect(mode: LockMode) -> str:
    return f"under an {mode.sql_name} lock, blocking reads and writes for the whole copy"


def _form(row: Row, cmd: Any) -> str:
    """The row's form as the subcommand writes it: one side of ``SET { LOGGED | UNLOGGED }``."""
    head, brace, rest = row.form.partition("{")
    if not brace:
        return row.form
    choices, _, tail = rest.partition("}")
    spoken = cmd.subtype.name.removeprefix("AT_").lower()
    for choice in choices.split("|"):
        if (head + choice).replace(" ", "").lower() == spoken:
            return f"{head}{choice.strip()}{tail}"
    return row.form


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    try:
        found = lookup.matches(node, lookup.clamp(ctx.pg_version))
    except lookup.AmbiguousRowError:
        return
    for match in found:
        row = match.row or _newer_row(match)
        mode = None if row is None else _rewrites(row)
        if row is not None and mode is not None:
            yield from _rewrite(match.node, match.parents, row, mode, ctx)


def _newer_row(match: lookup.Match) -> Row | None:
    """The newest row of a form the target server lacks (SET EXPRESSION before 17): the
    statement fails there (rejected-by-server-version says so), and it rewrites wherever
    it runs, so a pg_version set too low does not hide the rewrite."""
    rows = lookup.other_rows(match.node, match.parents)
    return max(rows, key=lambda r: (r.versions.until, r.key.specificity), default=None)


def _rewrite(
    node: Any, parents: tuple[Any, ...], row: Row, mode: LockMode, ctx: StatementContext
) -> Iterator[Hit]:
    """The finding of one rewriting part (none when it rewrites only what the run made)."""
    if isinstance(node, ast.VacuumStmt):
        if not any(o.defname == "full" and defelem_true(o) for o in node.options or ()):
            return  # VACUUM (FULL false): the row's key sees the option, not its value
        rels = [r.relation for r in node.rels or () if r.relation is not None]
        if rels and all(ctx.is_new(r) for r in rels):
            return
        what = ", ".join(show(written(r)) for r in rels if not ctx.is_new(r)) or "every table"
        tables = tuple(t for r in rels if not ctx.is_new(r) for t in ctx.family(r))
        yield hit(
            RULE,
            f"VACUUM FULL rewrites {what} {_effect(mode)}",
            "use plain VACUUM, or pg_repack / pg_squeeze outside the migration",
            cost=Cost("rewrite", tables or None),
        )
    elif isinstance(node, ast.ClusterStmt):
        if node.relation is not None and ctx.is_new(node.relation):
            return
        what = show(written(node.relation)) if node.relation is not None else "every table"
        clustered = ctx.family(node.relation) if node.relation is not None else None
        yield hit(
            RULE, f"CLUSTER rewrites {what} {_effect(mode)}", _HINT, cost=Cost("rewrite", clustered)
        )
    elif isinstance(node, ast.RefreshMatViewStmt):
        if ctx.is_new(node.relation):
            return
        yield hit(
            RULE,
            f"REFRESH MATERIALIZED VIEW {show(written(node.relation))} without CONCURRENTLY "
            f"recomputes it {_effect(mode)}",
            "REFRESH MATERIALIZED VIEW CONCURRENTLY (needs a unique index on the view)",
            # The view's query decides how long, not its size: only a fresh database helps.
            cost=Cost("rewrite"),
        )
    elif isinstance(node, ast.AlterTableCmd) and node.subtype not in _COLUMN_RULES and parents:
        statement = parents[-1]
        if statement.relation is None or ctx.is_new(statement.relation):
            return
        table = ctx.table(statement.relation)
        catalog = ctx.state.catalog
        # The row's rewrite DEPENDS on what the catalog holds; where the history shows it,
        # the method the table already has and a virtual generated column rewrite nothing.
        if (
            node.subtype == _AT.AT_SetAccessMethod
            and table in catalog.tables
            and (node.name or HEAP) == catalog.access_methods.get(table, HEAP)
        ):
            return
        if node.subtype == _AT.AT_SetExpression and node.name:
            column = catalog.column(table, str(node.name))
            if column is not None and column.generated == "virtual":
                return
        yield hit(
            RULE,
            f"{row.command} {show(written(statement.relation))} {_form(row, node)} rewrites it "
            f"{_effect(mode)}",
            _HINT,
            cost=Cost("rewrite", ctx.family(statement.relation)),
        )
