"""detach-partition: DETACH PARTITION under ACCESS EXCLUSIVE, or a CONCURRENTLY that fails."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ...reference import BY_ID, lookup
from ...reference.model import Row, Target
from ..context import StatementContext, show, written
from ..findings import WITH_A_DATABASE, Cost, Hit, hit, make_rule

DOC = """
Catches: `ALTER TABLE parent DETACH PARTITION part` on a partitioned table that existed before
the migration:
- without CONCURRENTLY on PostgreSQL 14 or later (warning): it takes ACCESS EXCLUSIVE on the
  parent; no scan, so it is brief once granted, but every query on the partitioned table queues
  behind it while it waits. CONCURRENTLY takes only SHARE UPDATE EXCLUSIVE on the parent.
- with CONCURRENTLY before PostgreSQL 14 (error): the syntax does not exist and the step fails;
- with CONCURRENTLY when the parent has a DEFAULT partition (error): PostgreSQL refuses it.
DETACH ... CONCURRENTLY cannot run in a transaction block: safemigrate runs it alone in
autocommit mode (`non-transactional-in-transaction` reports it inside a block).

Why it hurts: ACCESS EXCLUSIVE on the parent conflicts with every query on every partition;
while the DETACH waits for a long-running query, everything else queues behind it.

Applies to: PostgreSQL 10 and later; CONCURRENTLY from 14.
Source: PostgreSQL docs, ALTER TABLE (DETACH PARTITION: "If CONCURRENTLY is specified, it runs
using a reduced lock level to avoid blocking other sessions that might be accessing the
partitioned table ... CONCURRENTLY cannot be run in a transaction block and is not allowed if
the partitioned table contains a default partition"), 5.12 Table Partitioning; the rows of
docs/reference.md for both forms (locks, versions, the refusal: each checked on a real
server), which the messages read.

Instead: from 14, `DETACH PARTITION part CONCURRENTLY` as its own statement (and
`DETACH PARTITION part FINALIZE` if it was interrupted).
"""

RULE = make_rule(
    "detach-partition",
    "error",
    "DETACH PARTITION without CONCURRENTLY, or a CONCURRENTLY PostgreSQL refuses",
    DOC + WITH_A_DATABASE,
)


#: The reference rows of the two forms: their locks, server majors and rejections are what
#: the messages say (each checked on a real server).
PLAIN = BY_ID["alter-table.detach-partition"]
CONCURRENTLY = BY_ID["alter-table.detach-partition.concurrently"]


def _parent_lock(row: Row) -> str:
    mode = row.lock_on(Target.NAMED)
    return "no" if mode is None else mode.sql_name


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if not ctx.alters_existing_table(node):
        return
    version = lookup.clamp(ctx.pg_version)
    parent = ctx.table(node.relation)
    shown = show(written(node.relation))
    for cmd in node.cmds or ():
        if not (
            isinstance(cmd, ast.AlterTableCmd)
            and cmd.subtype == enums.AlterTableType.AT_DetachPartition
            and isinstance(cmd.def_, ast.PartitionCmd)
        ):
            continue
        part = show(written(cmd.def_.name))
        if cmd.def_.concurrent:
            if version not in CONCURRENTLY.versions:
                since = CONCURRENTLY.versions.since
                yield hit(
                    RULE,
                    f"DETACH PARTITION {part} CONCURRENTLY does not exist before PostgreSQL "
                    f"{since} (pg_version {ctx.pg_version}): the step fails",
                    f"drop CONCURRENTLY and run it in a quiet moment, or target PostgreSQL {since}",
                )
            elif parent in ctx.state.catalog.default_partitions:
                [refusal] = [r for r in CONCURRENTLY.rejects if "default partition" in r.when]
                yield hit(
                    RULE,
                    f"DETACH PARTITION {part} CONCURRENTLY is refused (SQLSTATE "
                    f"{refusal.sqlstate}): {shown} has a DEFAULT partition",
                    f"detach without CONCURRENTLY (brief {_parent_lock(PLAIN)} on the parent)",
                )
            continue
        if version in CONCURRENTLY.versions:
            yield hit(
                RULE,
                f"DETACH PARTITION {part} takes an {_parent_lock(PLAIN)} lock on {shown}: brief "
                "once granted, but every query on the partitioned table queues behind it while "
                "it waits",
                "write DETACH PARTITION ... CONCURRENTLY as its own statement "
                f"({_parent_lock(CONCURRENTLY)} on the parent)",
                "warning",
                cost=Cost("lock", (parent,)),
            )
