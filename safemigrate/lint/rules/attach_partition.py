"""attach-partition: ATTACH PARTITION that scans a table under an ACCESS EXCLUSIVE lock."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ...core.model import QualifiedName
from ...reference import BY_ID
from ...reference.model import Row, Target
from ..context import StatementContext, show, written
from ..findings import WITH_A_DATABASE, Cost, Hit, hit, make_rule

DOC = """
Catches: `ALTER TABLE parent ATTACH PARTITION part ...` when PostgreSQL has to scan a table
while holding its ACCESS EXCLUSIVE lock (the parent may be new: the scan is of `part`):
- `part` existed before the migration and no validated CHECK constraint on it is known (the
  history of the migration directory shows none): PostgreSQL scans it to prove every row fits
  the partition bound;
- the parent has a DEFAULT partition that existed before the migration and has no validated
  CHECK constraint: PostgreSQL scans the default partition to prove none of its rows belong to
  the new partition, holding ACCESS EXCLUSIVE on the default partition (reads and writes that
  reach it wait);
- `CREATE TABLE ... PARTITION OF parent` while the parent has such a DEFAULT partition: the
  same scan of the default partition (CREATE TABLE docs, PARTITION OF).
A validated CHECK constraint is assumed to match the partition bound; the linter does not
compare the expressions.

Why it hurts: the scan lasts as long as the table is large, and everything that touches the
scanned table queues behind the lock for that long.

Applies to: PostgreSQL 12 to 18, the versions docs/reference.md covers (the parent's lock is
its rows' SHARE UPDATE EXCLUSIVE; a pg_version below 12 is judged as 12, as every rule that
reads the reference judges it).
Source: PostgreSQL docs, ALTER TABLE (ATTACH PARTITION: "it is possible to avoid this scan by
adding a valid CHECK constraint to the table that allows only rows satisfying the desired
partition constraint before running this command"), 5.12 Table Partitioning (Partition
Maintenance); the modes named are those of the rows of docs/reference.md for ATTACH PARTITION
and CREATE TABLE ... PARTITION OF (checked on a real server).

Instead: add a CHECK constraint matching the bound with NOT VALID, VALIDATE CONSTRAINT it in a
separate statement (SHARE UPDATE EXCLUSIVE: reads and writes go on), ATTACH PARTITION (no scan),
then drop the CHECK. Give the DEFAULT partition a CHECK excluding the new range the same way.
"""

RULE = make_rule(
    "attach-partition",
    "error",
    "ATTACH PARTITION that scans a table under an ACCESS EXCLUSIVE lock",
    DOC + WITH_A_DATABASE,
)


def _family(table: QualifiedName, ctx: StatementContext) -> tuple[QualifiedName, ...]:
    """``table`` and the tables below it (a DEFAULT partition may be partitioned itself)."""
    below = ctx.state.catalog.family(table) - {table}
    return (table, *sorted(below, key=lambda t: (t.schema or "", t.name)))


#: The reference rows of the two forms that add a partition: the modes the messages name
#: are theirs (each checked on a real server).
ATTACH = BY_ID["alter-table.attach-partition"]
PARTITION_OF = BY_ID["create-table.partition-of"]


def _mode(row: Row, target: Target) -> str:
    mode = row.lock_on(target)
    return "no" if mode is None else mode.sql_name


def _default_partition_scan(
    parent: Any, ctx: StatementContext, what: str, row: Row
) -> Iterator[Hit]:
    """The scan of the parent's DEFAULT partition that adding a partition (``row``) does."""
    catalog = ctx.state.catalog
    default = catalog.default_partitions.get(ctx.table(parent))
    if default is None or ctx.state.is_new(default) or catalog.checks.get(default):
        return
    yield hit(
        RULE,
        f"{what} scans the DEFAULT partition {show(default)} under an "
        f"{_mode(row, Target.DEFAULT_PARTITION)} lock to prove none of its rows belong to the "
        "new partition: reads and writes reaching it wait "
        "for the scan",
        "give the default partition a validated CHECK excluding the new range first",
        cost=Cost("scan", _family(default, ctx)),
    )


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if (
        isinstance(node, ast.CreateStmt)
        and node.partbound is not None
        and not node.partbound.is_default
        and node.inhRelations
        and not ctx.is_new(node.inhRelations[0])
    ):
        what = f"CREATE TABLE {show(written(node.relation))} PARTITION OF"
        yield from _default_partition_scan(node.inhRelations[0], ctx, what, PARTITION_OF)
        return
    if not isinstance(node, ast.AlterTableStmt) or node.relation is None:
        return
    if node.objtype != enums.ObjectType.OBJECT_TABLE:
        return
    # A parent created earlier is no reason to skip: the scan is of the table attached (and
    # of the default partition), judged by whether that one is new (issue 20 review F1).
    catalog = ctx.state.catalog
    for cmd in node.cmds or ():
        if not (
            isinstance(cmd, ast.AlterTableCmd)
            and cmd.subtype == enums.AlterTableType.AT_AttachPartition
            and isinstance(cmd.def_, ast.PartitionCmd)
        ):
            continue
        part = cmd.def_.name
        part_shown = show(written(part))
        if not ctx.is_new(part) and not catalog.checks.get(ctx.table(part)):
            yield hit(
                RULE,
                f"ATTACH PARTITION {part_shown} scans {part_shown} under an "
                f"{_mode(ATTACH, Target.OTHER_NAMED)} lock to prove every row fits the bound "
                "(no validated CHECK constraint on it is known)",
                "add a CHECK matching the bound NOT VALID, VALIDATE it in a separate statement, "
                "then ATTACH PARTITION (no scan) and drop the CHECK",
                cost=Cost("scan", ctx.family(part)),
            )
        attach = f"ATTACH PARTITION {part_shown}"
        yield from _default_partition_scan(node.relation, ctx, attach, ATTACH)
