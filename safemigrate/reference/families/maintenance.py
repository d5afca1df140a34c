"""VACUUM, ANALYZE, CLUSTER, REINDEX, REFRESH MATERIALIZED VIEW and CHECKPOINT.

Which of them refuse a transaction block follows utility.c and the commands' own
PreventInTransactionBlock calls: VACUUM always; CLUSTER, REINDEX and the database-wide forms
when they would process several tables (each in a transaction of its own); anything
CONCURRENTLY.
"""

from __future__ import annotations

from pglast import ast, enums

from .._build import *
from ..model import ABSENT, PRESENT, DataChange, Row

_VACUUM = code("src/backend/commands/vacuum.c", "ExecVacuum")
_RO = enums.ReindexObjectType
_ALL_TABLES = "every table of the database it may process, one at a time"

VACUUM = [
    row(
        "vacuum",
        "VACUUM",
        "VACUUM [ ANALYZE ] table",
        stmt(
            ast.VacuumStmt,
            f("is_vacuumcmd", True),
            not_("options.*.defname", "full"),
            f("rels", PRESENT),
        ),
        [named(SUE), lock(PARTS, SUE)],
        [doc("sql-vacuum"), doc("explicit-locking", "SHARE UPDATE EXCLUSIVE"), _VACUUM],
        [
            ex("VACUUM orders", {"orders": N}),
            ex(
                "VACUUM (ANALYZE) events",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
        ],
        scans=does(N, PARTS),
        transaction=NO_BLOCK,
        note="Reads every page not marked all-visible, and each index (online); each table in "
        "a transaction of its own. (Read by VACUUM's own scan, which the statistics counters "
        "do not count as a sequential scan: the probe cannot see it.)",
    ),
    row(
        "vacuum.all",
        "VACUUM",
        "VACUUM (every table)",
        stmt(
            ast.VacuumStmt,
            f("is_vacuumcmd", True),
            not_("options.*.defname", "full"),
            f("rels", ABSENT),
        ),
        [lock(MOVED, SUE, _ALL_TABLES)],
        [doc("sql-vacuum"), _VACUUM],
        [ex("VACUUM")],
        scans=does(MOVED),
        transaction=NO_BLOCK,
    ),
    row(
        "vacuum.full",
        "VACUUM",
        "VACUUM FULL",
        stmt(ast.VacuumStmt, f("is_vacuumcmd", True), f("options.*.defname", "full")),
        [named(AE), lock(PARTS, AE), lock(MOVED, AE, "without a table: " + _ALL_TABLES)],
        [doc("sql-vacuum", "FULL"), code("src/backend/commands/cluster.c", "cluster_rel")],
        [
            ex("VACUUM (FULL) orders", {"orders": N}),
            ex(
                "VACUUM (FULL) events",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
        ],
        rewrites=does(N, PARTS, MOVED),
        transaction=NO_BLOCK,
        note="Rewrites the table and rebuilds its indexes under ACCESS EXCLUSIVE: queries on "
        "it wait throughout.",
    ),
    row(
        "analyze",
        "ANALYZE",
        "ANALYZE table",
        stmt(ast.VacuumStmt, f("is_vacuumcmd", False), f("rels", PRESENT)),
        [named(SUE), lock(PARTS, SUE)],
        [
            doc("sql-analyze"),
            doc("explicit-locking", "SHARE UPDATE EXCLUSIVE"),
            code("src/backend/commands/analyze.c", "analyze_rel"),
        ],
        [
            ex("ANALYZE orders", {"orders": N}),
            ex("ANALYZE events", {"events": N, "events_2024": PARTS, "events_default": PARTS}),
        ],
        note="Reads a sample (300 x the statistics target rows), not the whole table.",
    ),
    row(
        "analyze.all",
        "ANALYZE",
        "ANALYZE (every table)",
        stmt(ast.VacuumStmt, f("is_vacuumcmd", False), f("rels", ABSENT)),
        [lock(MOVED, SUE, _ALL_TABLES)],
        [doc("sql-analyze")],
        [ex("ANALYZE", probe=SESSION)],
        note="In a transaction block it holds every table's lock until the block ends; alone, "
        "each table in a transaction of its own.",
    ),
]

_CLUSTER = code("src/backend/commands/cluster.c", "cluster")

CLUSTER = [
    row(
        "cluster",
        "CLUSTER",
        "CLUSTER table [ USING index ]",
        stmt(ast.ClusterStmt, f("relation", PRESENT)),
        [named(AE), lock(IDX, AE)],
        [doc("sql-cluster"), _CLUSTER],
        [
            ex(
                "CLUSTER orders USING orders_status_idx",
                {"orders": N, "orders_status_idx": IDX},
            ),
            ex("CLUSTER orders", error="42704"),
            ex("CLUSTER events USING events_at_idx", error="25001", versions=since(15)),
            ex("CLUSTER events USING events_at_idx", error="0A000", versions=until(14)),
        ],
        rewrites=does(),
        rejects=[
            reject("42704", "without USING, when the table has no clustered index"),
            reject(
                "25001",
                "in a transaction block, on a partitioned table (PostgreSQL "
                "15+: each partition in a transaction of its own)",
                since(15),
            ),
            reject("0A000", "on a partitioned table (PostgreSQL 12-14)", until(14)),
        ],
        note="Rewrites the table in index order under ACCESS EXCLUSIVE.",
    ),
    row(
        "cluster.all",
        "CLUSTER",
        "CLUSTER (every clustered table)",
        stmt(ast.ClusterStmt, f("relation", ABSENT)),
        [lock(MOVED, AE, "each clustered table")],
        [doc("sql-cluster"), _CLUSTER],
        [ex("CLUSTER", rewrites=False)],
        transaction=NO_BLOCK,
        rewrites=depends("each table with a clustered index is rewritten", MOVED),
    ),
]

_REINDEX = code("src/backend/commands/indexcmds.c", "ExecReindex")
_ORDERS_INDEXES = {
    name: INDEXES
    for name in (
        "orders_pkey",
        "orders_status_idx",
        "orders_note_idx",
        "orders_lower_note_idx",
        "orders_note_gin",
    )
}
_CONC = f("params.*.defname", "concurrently")
_NOT_CONC = not_("params.*.defname", "concurrently")

REINDEX = [
    row(
        "reindex.index",
        "REINDEX",
        "REINDEX INDEX",
        stmt(ast.ReindexStmt, f("kind", _RO.REINDEX_OBJECT_INDEX), _NOT_CONC),
        [named(AE), lock(ITAB, SH)],
        [doc("sql-reindex"), _REINDEX, code("src/backend/catalog/index.c", "reindex_index")],
        [ex("REINDEX INDEX orders_status_idx", {"orders_status_idx": N, "orders": ITAB})],
        builds=does(ITAB),
        note="SHARE on the table blocks its writes; ACCESS EXCLUSIVE on the index blocks every "
        "query that would plan with it.",
    ),
    row(
        "reindex.table",
        "REINDEX",
        "REINDEX TABLE",
        stmt(ast.ReindexStmt, f("kind", _RO.REINDEX_OBJECT_TABLE), _NOT_CONC),
        [named(SH), lock(INDEXES, AE)],
        [doc("sql-reindex"), _REINDEX, code("src/backend/catalog/index.c", "reindex_relation")],
        [
            ex("REINDEX TABLE orders", {"orders": N, **_ORDERS_INDEXES}),
            ex("REINDEX TABLE events", error="25001", versions=since(14)),
            ex("REINDEX TABLE events", error="0A000", versions=until(13)),
        ],
        builds=does(),
        rejects=[
            reject(
                "25001",
                "in a transaction block, on a partitioned table (PostgreSQL "
                "14+: each partition in a transaction of its own)",
                since(14),
            ),
            reject("0A000", "on a partitioned table (PostgreSQL 12-13)", until(13)),
        ],
    ),
    row(
        "reindex.concurrently",
        "REINDEX",
        "REINDEX ... CONCURRENTLY",
        stmt(
            ast.ReindexStmt, _CONC, f("kind", (_RO.REINDEX_OBJECT_INDEX, _RO.REINDEX_OBJECT_TABLE))
        ),
        [named(SUE), lock(ITAB, SUE)],
        [doc("sql-reindex", "Rebuilding Indexes Concurrently"), _REINDEX],
        [
            ex("REINDEX (CONCURRENTLY) TABLE orders", {"orders": N}),
            ex(
                "REINDEX INDEX CONCURRENTLY orders_status_idx",
                {"orders_status_idx": N, "orders": ITAB},
            ),
        ],
        builds=does(N, ITAB),
        transaction=NO_BLOCK,
        note="Builds a new index beside each old one, then swaps them: online, but an "
        "interruption leaves _ccnew/_ccold indexes behind.",
    ),
    row(
        "reindex.schema",
        "REINDEX",
        "REINDEX SCHEMA / DATABASE / SYSTEM",
        stmt(
            ast.ReindexStmt,
            f(
                "kind",
                (_RO.REINDEX_OBJECT_SCHEMA, _RO.REINDEX_OBJECT_DATABASE, _RO.REINDEX_OBJECT_SYSTEM),
            ),
        ),
        [lock(MOVED, SH, "each table, in a transaction of its own")],
        [doc("sql-reindex"), _REINDEX],
        [ex("REINDEX SCHEMA archive", builds=False)],
        transaction=NO_BLOCK,
        builds=depends("each index of every table it processes", MOVED),
    ),
    row(
        "reindex.schema.concurrently",
        "REINDEX",
        "REINDEX SCHEMA / DATABASE ... CONCURRENTLY",
        stmt(
            ast.ReindexStmt,
            _CONC,
            f("kind", (_RO.REINDEX_OBJECT_SCHEMA, _RO.REINDEX_OBJECT_DATABASE)),
        ),
        [lock(MOVED, SUE, "each table, in a transaction of its own")],
        [doc("sql-reindex", "Rebuilding Indexes Concurrently"), _REINDEX],
        [ex("REINDEX SCHEMA CONCURRENTLY archive", builds=False)],
        transaction=NO_BLOCK,
        builds=depends("each index of every table it processes", MOVED),
        note="DATABASE ... CONCURRENTLY skips the system catalogs (with a warning); SYSTEM has no "
        "CONCURRENTLY form (PostgreSQL refuses it).",
    ),
]

_MATVIEW = code("src/backend/commands/matview.c", "ExecRefreshMatView")

REFRESH = [
    row(
        "refresh-materialized-view",
        "REFRESH MATERIALIZED VIEW",
        "REFRESH MATERIALIZED VIEW",
        stmt(ast.RefreshMatViewStmt, f("concurrent", False)),
        [named(AE), lock(VQ, AS)],
        [doc("sql-refreshmaterializedview"), _MATVIEW],
        [
            ex(
                "REFRESH MATERIALIZED VIEW account_totals",
                {"account_totals": N, "orders": VQ},
                scans=True,
            ),
            ex(
                "REFRESH MATERIALIZED VIEW account_totals WITH NO DATA",
                {"account_totals": N},
                scans=False,
            ),
        ],
        rewrites=does(),
        scans=depends("unless WITH NO DATA", VQ),
        note="Queries on the materialized view wait for the whole refresh.",
    ),
    row(
        "refresh-materialized-view.concurrently",
        "REFRESH MATERIALIZED VIEW",
        "REFRESH MATERIALIZED VIEW CONCURRENTLY",
        stmt(ast.RefreshMatViewStmt, f("concurrent", True)),
        [named(EX), lock(VQ, AS)],
        [doc("sql-refreshmaterializedview", "CONCURRENTLY"), _MATVIEW],
        [
            ex(
                "REFRESH MATERIALIZED VIEW CONCURRENTLY account_totals",
                {"account_totals": N, "orders": VQ},
                setup=("UPDATE orders SET account_id = 3 WHERE id = 1",),
            ),
            ex("REFRESH MATERIALIZED VIEW CONCURRENTLY order_count", error="55000"),
        ],
        scans=does(N, VQ),
        data=DataChange.MATCHED_ROWS,
        rejects=[
            reject(
                "55000",
                "without a unique index on the materialized view, or when it "
                "has never been populated",
            )
        ],
        note="EXCLUSIVE: reads of the materialized view go on, its other refreshes wait.",
    ),
]

CHECKPOINT = [
    row(
        "checkpoint",
        "CHECKPOINT",
        "CHECKPOINT",
        stmt(ast.CheckPointStmt),
        [],
        [doc("sql-checkpoint")],
        [ex("CHECKPOINT")],
        rejects=[reject("42501", "without superuser or pg_checkpoint (PostgreSQL 15+)")],
        note="Forces a checkpoint: heavy I/O for everyone, no lock.",
    ),
]

ROWS: tuple[Row, ...] = (*VACUUM, *CLUSTER, *REINDEX, *REFRESH, *CHECKPOINT)
