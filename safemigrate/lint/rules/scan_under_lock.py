"""scan-under-lock: a scan, rewrite or index build of an existing table held under a lock that
blocks its reads or writes, read from the reference table's rows (safemigrate.reference) for
the forms no other rule judges."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast

from ...core.model import LockMode, QualifiedName, summarize
from ...reference import lookup
from ...reference.model import Effect, Fact, Row, Target
from ..context import StatementContext, show, written
from ..findings import Cost, CostKind, Hit, hit, make_rule

DOC = """
Catches: a statement whose row in docs/reference.md says it scans, rewrites or builds an index
on an existing relation while it holds a lock on that relation that blocks the application's
writes (SHARE or stronger) or reads (ACCESS EXCLUSIVE), the relation reached directly or
through the catalog, where no other rule judges the form: `ALTER DOMAIN ... SET NOT NULL`
and `ALTER DOMAIN ... VALIDATE CONSTRAINT` (every table with a column of the domain is scanned
under SHARE), `ALTER TABLE ... ALTER CONSTRAINT ... ENFORCED` (PostgreSQL 18: the table is
checked under ACCESS EXCLUSIVE), `ALTER TABLE|INDEX|MATERIALIZED VIEW ALL IN TABLESPACE ...
SET TABLESPACE` (each relation it moves is copied under ACCESS EXCLUSIVE). The other forms
with such a row have a rule of their own (table-rewrite, constraint-without-not-valid,
require-concurrent-index, ...), which reports them.

Why it hurts: the lock is held until the statement (and its transaction) ends, so every
query that conflicts with it waits for the whole scan or copy, which grows with the table;
and queries behind those wait too.

Severity: error when the reference says the work always happens; warning when it depends on
what the catalog holds (the relations in a tablespace).

Applies to: the server majors of each row (pg_version); a domain that the history shows no
table using, and tables created earlier in the run, are not reported.
Source: PostgreSQL docs, each command's page and 13.3 Explicit Locking, and the source
functions each row of docs/reference.md cites (typecmds.c AlterDomainNotNull and
AlterDomainValidateConstraint: get_rels_with_domain(..., ShareLock) in validateDomainConstraint,
validateDomainCheckConstraint from 17; tablecmds.c AlterTableMoveAll, ATExecAlterConstraint);
every row's facts are checked on a real server (PostgreSQL 15 and 18).

Instead: for a domain, add a NOT VALID CHECK or NOT NULL to each table's column and VALIDATE
CONSTRAINT there (SHARE UPDATE EXCLUSIVE); move relations between tablespaces one at a time
in a quiet moment, or with pg_repack; add a NOT ENFORCED foreign key as a NOT VALID one and
VALIDATE it. If the tables are known to be small, allow it with that reason.
"""

RULE = make_rule(
    "scan-under-lock",
    "error",
    "scan or rewrite of an existing table under a lock that blocks its reads or writes",
    DOC,
)

#: The reference rows whose scan, rewrite or build under a blocking lock another rule reports,
#: with that rule (its message says more than this one could: the recipe, NOT VALID, ...).
#: tests/unit/lint/test_scan_under_lock.py checks that each example of each row gets it.
JUDGED_ELSEWHERE: dict[str, str] = {
    "alter-table.add-column.not-null": "add-column-not-null-without-default",
    "alter-table.add-column.identity": "add-column-rewrites",
    "alter-table.add-column.serial": "add-column-rewrites",
    "alter-table.add-column.generated-stored": "add-column-rewrites",
    "alter-table.add-column.check": "constraint-without-not-valid",
    "alter-table.add-column.unique": "unique-without-index",
    "alter-table.add-constraint.check": "constraint-without-not-valid",
    "alter-table.add-constraint.foreign-key": "constraint-without-not-valid",
    "alter-table.add-constraint.primary-key": "unique-without-index",
    "alter-table.add-constraint.unique": "unique-without-index",
    "alter-table.add-constraint.unique.since-18": "unique-without-index",
    "alter-table.add-constraint.exclude": "unique-without-index",
    "alter-table.add-constraint.not-null": "set-not-null",
    "alter-domain.add-constraint": "constraint-without-not-valid",
    "truncate": "drop-table-or-column",
    "truncate.restart-identity": "drop-table-or-column",
    "truncate.cascade": "drop-table-or-column",
    "create-index": "require-concurrent-index",
    "vacuum.full": "table-rewrite",
    "cluster": "table-rewrite",
    "cluster.all": "table-rewrite",
    "refresh-materialized-view": "table-rewrite",
    "reindex.index": "require-concurrent-reindex",
    "reindex.table": "require-concurrent-reindex",
    "reindex.schema": "require-concurrent-reindex",
}

#: Rows whose blocking lock stalls nothing the application does: a materialized view takes no
#: writes, so REFRESH ... CONCURRENTLY's EXCLUSIVE lock (reads go on) stalls only refreshes.
STALLS_NOTHING = frozenset({"refresh-materialized-view.concurrently"})

_COST: dict[str, CostKind] = {"scan": "scan", "copy": "rewrite", "build": "index build"}
_VERBS = (("scans", "scan"), ("rewrites", "copy"), ("builds an index on", "build"))


def work(row: Row) -> list[tuple[str, str, Target, LockMode, bool]]:
    """The row's scans, rewrites and builds under a lock that blocks reads or writes of the
    same relation: (verb, noun, target, mode, always). A DEPENDS fact counts only on the
    relations a statement moves (which ones only the server's tablespaces tell)."""
    found: list[tuple[str, str, Target, LockMode, bool]] = []
    facts: tuple[Fact, ...] = (row.scans, row.rewrites, row.builds)
    for (verb, noun), fact in zip(_VERBS, facts, strict=True):
        for target in fact.on:
            if fact.effect is Effect.NO or target is Target.TYPE_RELATION:
                continue
            if fact.effect is Effect.DEPENDS and target is not Target.MOVED:
                continue  # the catalog decides: the rules that read it judge those
            mode = row.lock_on(target)
            if mode is not None and mode.blocks_writes:
                found.append((verb, noun, target, mode, fact.effect is Effect.YES))
    return found


def _domain_users(node: Any, ctx: StatementContext) -> tuple[QualifiedName, ...] | None:
    """The existing tables with a column of the ALTER DOMAIN's domain; None when the history
    does not show the domain (any table may use it)."""
    names = [str(n.sval) for n in node.typeName or ()]
    short = names[-1]
    catalog = ctx.state.catalog
    if not any(key.split(".")[-1] == short for key in catalog.domains):
        return None
    return tuple(
        sorted(
            (
                table
                for table, columns in catalog.tables.items()
                if not ctx.state.is_new(table)
                and any(
                    c.type is not None and c.type.name.split(".")[-1] == short
                    for c in columns.values()
                )
            ),
            key=lambda t: (t.schema or "", t.name),
        )
    )


def _relations(
    target: Target, statement: Any, ctx: StatementContext
) -> tuple[str, tuple[QualifiedName, ...] | None] | None:
    """What relations ``target`` stands for in ``statement``, as text and names (None: not
    known without a database); None when there are none the application uses yet."""
    relation = getattr(statement, "relation", None)
    if target in (Target.NAMED, Target.PARTITIONS) and isinstance(relation, ast.RangeVar):
        if ctx.is_new(relation):
            return None
        family = ctx.family(relation)
        if target is Target.PARTITIONS:
            if len(family) == 1:
                return None
            return f"the partitions and children of {show(written(relation))}", family[1:]
        return show(written(relation)), family[:1]
    if target is Target.TYPE_USERS and isinstance(statement, ast.AlterDomainStmt):
        users = _domain_users(statement, ctx)
        if users is None:
            return "every table with a column of the domain", None
        if not users:
            return None
        return ", ".join(show(t) for t in users), users
    if target is Target.MOVED and isinstance(statement, ast.AlterTableMoveAllStmt):
        return f"each relation in tablespace {statement.orig_tablespacename}", None
    return str(target.value), None


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    try:
        found = lookup.matches(node, lookup.clamp(ctx.pg_version))
    except lookup.AmbiguousRowError:
        return
    for match in found:
        row = match.row
        if row is None or row.id in JUDGED_ELSEWHERE or row.id in STALLS_NOTHING:
            continue
        statement = match.parents[0] if match.parents else match.node
        for verb, noun, target, mode, always in work(row):
            relations = _relations(target, statement, ctx)
            if relations is None:
                continue
            what, tables = relations
            stalls = "reads and writes" if mode.blocks_reads else "writes"
            yield hit(
                RULE,
                f"{summarize(ctx.text)!r} ({row.form}) {verb} {what} under {mode.sql_name}: "
                f"the application's {stalls} there wait for the whole {noun}"
                + ("" if always else " (if there is any)"),
                "do it in a form that takes a weaker lock (docs/rules/scan-under-lock.md), in a "
                "quiet moment; if the tables are small, allow it with that reason",
                None if always else "warning",
                cost=Cost(_COST[noun], tables),
            )
