"""Tests for safemigrate.statements.locks.lock_needs: which tables a statement locks, in which mode,
and whether it scans or rewrites them, checked against the PostgreSQL documentation.

References (PostgreSQL 15-17 manuals):
- "Explicit Locking", section 13.3.1 "Table-Level Locks" (which commands take which mode) and
  Table 13.2 "Conflicting Lock Modes";
- the ALTER TABLE reference page (lock level of each subcommand; which ones scan or rewrite);
- the CREATE INDEX, DROP INDEX, REINDEX, VACUUM and TRUNCATE reference pages.

- PostgreSQL's source where the manual is silent: src/backend/commands/tablecmds.c
  (AlterTableGetLockLevel, dropconstraint_internal, ATPostAlterTypeCleanup, DefineRelation,
  ATExecDetachPartition), src/backend/catalog/heap.c (heap_drop_with_catalog),
  src/backend/commands/trigger.c (RemoveTriggerById), comment.c (CommentObject),
  rewriteDefine.c (DefineQueryRewrite), access/common/reloptions.c (each option's lockmode).

Plain reads (ACCESS SHARE) are left out of lock_needs by design. What the parse tree alone
cannot answer (a DROP INDEX's table, the other side of a foreign key, a partition's parent) is
a CatalogLock from catalog_lock_needs, resolved against the live catalog by db.catalog; every
fact here is also checked against a real server in tests/integration/test_lock_model.py.
"""

from __future__ import annotations

import pglast

from safemigrate.core.model import QualifiedName
from safemigrate.statements.locks import (
    CatalogLock,
    LockMode,
    LockNeed,
    Via,
    catalog_lock_needs,
    lock_needs,
)

AE = LockMode.ACCESS_EXCLUSIVE
SRE = LockMode.SHARE_ROW_EXCLUSIVE
SHARE = LockMode.SHARE
SUE = LockMode.SHARE_UPDATE_EXCLUSIVE
RE = LockMode.ROW_EXCLUSIVE


def needs(sql: str) -> list[LockNeed]:
    """lock_needs of the one statement ``sql``."""
    [raw] = pglast.parse_sql(sql)
    return lock_needs(raw.stmt)


def via(sql: str) -> list[CatalogLock]:
    """catalog_lock_needs of the one statement ``sql``."""
    [raw] = pglast.parse_sql(sql)
    return catalog_lock_needs(raw.stmt)


def name(relation: str) -> QualifiedName:
    """``schema.name`` or ``name`` as a QualifiedName."""
    schema, _, rel = relation.rpartition(".")
    return QualifiedName(schema or None, rel)


def catalog(
    kind: Via, relation: str, mode: LockMode, detail: str | None = None, *, scans: bool = False
) -> CatalogLock:
    """A CatalogLock from ``relation`` by ``kind``."""
    return CatalogLock(kind, name(relation), mode, detail, scans)


def need(relation: str, mode: LockMode, *, rewrites: bool = False, scans: bool = False) -> LockNeed:
    """A LockNeed on ``relation`` (``schema.name`` or ``name``)."""
    schema, _, name = relation.rpartition(".")
    return LockNeed(QualifiedName(schema or None, name), mode, rewrites, scans)


# -- CREATE INDEX --------------------------------------------------------------------------


def test_create_index_takes_share_and_scans() -> None:
    """13.3.1: SHARE is "acquired by CREATE INDEX (without CONCURRENTLY)"; Table 13.2: SHARE
    conflicts with ROW EXCLUSIVE, so writes wait while the index is built from a full scan."""
    assert needs("CREATE INDEX i ON t (a)") == [need("t", SHARE, scans=True)]
    assert SHARE.blocks_writes and not SHARE.blocks_reads


def test_create_index_concurrently_takes_share_update_exclusive() -> None:
    """13.3.1: SHARE UPDATE EXCLUSIVE is acquired by CREATE INDEX CONCURRENTLY; Table 13.2: it
    does not conflict with ROW EXCLUSIVE, so writes go on (CREATE INDEX page, "Building Indexes
    Concurrently": the table is still scanned, twice)."""
    assert needs("CREATE INDEX CONCURRENTLY i ON s.t (a)") == [need("s.t", SUE, scans=True)]
    assert not SUE.blocks_writes


def test_create_unique_index_concurrently_if_not_exists_is_still_share_update_exclusive() -> None:
    """CREATE INDEX page: UNIQUE and IF NOT EXISTS do not change the lock; 13.3.1 as above."""
    assert needs("CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS i ON t (a)") == [
        need("t", SUE, scans=True)
    ]


# -- DROP INDEX ----------------------------------------------------------------------------


def test_drop_index_takes_access_exclusive_on_the_index() -> None:
    """DROP INDEX page: "A normal DROP INDEX acquires an ACCESS EXCLUSIVE lock on the table,
    blocking other accesses until the index drop can be completed" (the index is locked in
    the same mode)."""
    assert needs("DROP INDEX s.i") == [need("s.i", AE)]


def test_drop_index_concurrently_takes_share_update_exclusive() -> None:
    """DROP INDEX page, CONCURRENTLY: "Drop the index without locking out concurrent selects,
    inserts, updates, and deletes on the index's table" (SHARE UPDATE EXCLUSIVE, 13.3.1)."""
    assert needs("DROP INDEX CONCURRENTLY IF EXISTS i") == [need("i", SUE)]


def test_drop_index_also_locks_the_indexs_table() -> None:
    """DROP INDEX page: "A normal DROP INDEX acquires an ACCESS EXCLUSIVE lock on the table";
    the table is not in the statement, so it is a catalog look-up (pg_index.indrelid)."""
    assert via("DROP INDEX s.i") == [catalog(Via.INDEX_TABLE, "s.i", AE)]


def test_drop_index_concurrently_locks_the_indexs_table_share_update_exclusive() -> None:
    """DROP INDEX page, CONCURRENTLY: the table is not locked against selects, inserts,
    updates and deletes: SHARE UPDATE EXCLUSIVE (index_drop), which blocks no writes."""
    assert via("DROP INDEX CONCURRENTLY i") == [catalog(Via.INDEX_TABLE, "i", SUE)]


def test_drop_view_or_sequence_asks_the_catalog_nothing() -> None:
    """Only tables and indexes lead to other relations when dropped (without CASCADE)."""
    assert via("DROP VIEW v") == []
    assert via("DROP SEQUENCE s") == []


# -- ALTER TABLE ---------------------------------------------------------------------------


def test_add_column_without_default_takes_access_exclusive_without_a_rewrite() -> None:
    """ALTER TABLE page: "An ACCESS EXCLUSIVE lock is acquired unless explicitly noted"; Notes:
    "When a column is added with ADD COLUMN and a non-volatile DEFAULT is specified ... no
    rewrite", and without a default the column is simply NULL in existing rows."""
    assert needs("ALTER TABLE t ADD COLUMN c int") == [need("t", AE)]


def test_add_column_with_a_constant_default_does_not_rewrite() -> None:
    """ALTER TABLE page, Notes: a non-volatile DEFAULT is stored in the catalog and "the default
    value is evaluated at the time of the statement and the result stored in the table's
    metadata", so the table is not rewritten (PostgreSQL 11+)."""
    assert needs("ALTER TABLE t ADD COLUMN c int NOT NULL DEFAULT 0") == [need("t", AE)]
    assert needs("ALTER TABLE t ADD COLUMN c timestamptz DEFAULT now()") == [need("t", AE)]


def test_add_column_with_a_volatile_default_rewrites() -> None:
    """ALTER TABLE page, Notes: "Adding a column with a volatile DEFAULT ... will require the
    entire table and its indexes to be rewritten"."""
    assert needs("ALTER TABLE t ADD COLUMN c uuid DEFAULT gen_random_uuid()") == [
        need("t", AE, rewrites=True)
    ]


def test_add_serial_or_stored_generated_column_rewrites() -> None:
    """ALTER TABLE page, Notes: a serial column's default is nextval() (volatile) and a stored
    generated column must be computed for every existing row: both rewrite the table."""
    assert needs("ALTER TABLE t ADD COLUMN id bigserial") == [need("t", AE, rewrites=True)]
    assert needs("ALTER TABLE t ADD COLUMN d int GENERATED ALWAYS AS (a * 2) STORED") == [
        need("t", AE, rewrites=True)
    ]


def test_set_not_null_takes_access_exclusive_and_scans() -> None:
    """ALTER TABLE page, SET/DROP NOT NULL: "SET NOT NULL may only be applied to a column
    provided none of the records in the table contain a NULL value. Ordinarily this is checked
    during the ALTER TABLE by scanning the entire table"; no lower lock is noted."""
    assert needs("ALTER TABLE t ALTER COLUMN c SET NOT NULL") == [need("t", AE, scans=True)]


def test_add_foreign_key_locks_both_tables_and_scans_the_referencing_one() -> None:
    """ALTER TABLE page, ADD table_constraint: "Addition of a foreign key constraint requires a
    SHARE ROW EXCLUSIVE lock on the referenced table, in addition to the lock on the table on
    which the constraint is declared" (also SHARE ROW EXCLUSIVE: the constraint adds triggers
    to both tables; 13.3.1 lists SHARE ROW EXCLUSIVE for CREATE TRIGGER and some forms of
    ALTER TABLE). Existing rows are checked with a scan unless NOT VALID."""
    assert needs("ALTER TABLE c ADD CONSTRAINT fk FOREIGN KEY (pid) REFERENCES s.p (id)") == [
        need("c", SRE, scans=True),
        need("s.p", SRE),
    ]
    assert SRE.blocks_writes


def test_add_foreign_key_not_valid_skips_the_scan() -> None:
    """ALTER TABLE page, ADD table_constraint: "if the NOT VALID option is used, this
    potentially-lengthy scan is skipped"; the locks stay the same."""
    assert needs("ALTER TABLE c ADD FOREIGN KEY (pid) REFERENCES p (id) NOT VALID") == [
        need("c", SRE),
        need("p", SRE),
    ]


def test_add_check_constraint_takes_access_exclusive_and_scans_unless_not_valid() -> None:
    """ALTER TABLE page: ADD CONSTRAINT CHECK takes the default ACCESS EXCLUSIVE lock and scans
    the table to verify existing rows, unless NOT VALID."""
    assert needs("ALTER TABLE t ADD CONSTRAINT ck CHECK (a > 0)") == [need("t", AE, scans=True)]
    assert needs("ALTER TABLE t ADD CONSTRAINT ck CHECK (a > 0) NOT VALID") == [need("t", AE)]


def test_validate_constraint_takes_share_update_exclusive_and_scans() -> None:
    """ALTER TABLE page, VALIDATE CONSTRAINT: "This command acquires a SHARE UPDATE EXCLUSIVE
    lock" on the table being altered, and validates by scanning it; 13.3.1 lists ALTER TABLE
    VALIDATE under SHARE UPDATE EXCLUSIVE."""
    assert needs("ALTER TABLE t VALIDATE CONSTRAINT fk") == [need("t", SUE, scans=True)]


def test_validate_foreign_key_also_locks_the_referenced_table_row_share() -> None:
    """ALTER TABLE page, VALIDATE CONSTRAINT: "If the constraint is a foreign key then a ROW
    SHARE lock is also required on the table referenced by the constraint". Which table (if
    any: a CHECK constraint references none) is in pg_constraint."""
    assert via("ALTER TABLE c VALIDATE CONSTRAINT fk") == [
        catalog(Via.CONSTRAINT_REFERENCED, "c", LockMode.ROW_SHARE, "fk"),
        catalog(Via.CHILDREN, "c", SUE),
    ]
    assert via("ALTER TABLE ONLY c VALIDATE CONSTRAINT fk") == [
        catalog(Via.CONSTRAINT_REFERENCED, "c", LockMode.ROW_SHARE, "fk")
    ]


def test_alter_column_type_takes_access_exclusive_and_is_assumed_to_rewrite() -> None:
    """ALTER TABLE page, SET DATA TYPE: "the table and its indexes will be rewritten" unless
    the change is binary coercible (e.g. varchar(n) to text), which the parse tree cannot tell:
    the answer errs on the side of caution."""
    assert needs("ALTER TABLE t ALTER COLUMN c TYPE bigint") == [need("t", AE, rewrites=True)]
    assert needs("ALTER TABLE t ALTER COLUMN c TYPE text") == [need("t", AE, rewrites=True)]


def test_set_statistics_and_storage_parameters_take_share_update_exclusive() -> None:
    """ALTER TABLE page: SET STATISTICS "acquires a SHARE UPDATE EXCLUSIVE lock"; changing
    fillfactor, toast and autovacuum storage parameters "acquires a SHARE UPDATE EXCLUSIVE
    lock"."""
    assert needs("ALTER TABLE t ALTER COLUMN c SET STATISTICS 500") == [need("t", SUE)]
    assert needs("ALTER TABLE t SET (fillfactor = 70)") == [need("t", SUE)]


def test_enable_and_disable_trigger_take_share_row_exclusive() -> None:
    """ALTER TABLE page, DISABLE/ENABLE TRIGGER: "acquires a SHARE ROW EXCLUSIVE lock"."""
    assert needs("ALTER TABLE t DISABLE TRIGGER trg") == [need("t", SRE)]


def test_set_tablespace_and_set_logged_rewrite() -> None:
    """ALTER TABLE page: SET TABLESPACE moves the table's data files and SET LOGGED/UNLOGGED
    rewrites the table; both under ACCESS EXCLUSIVE."""
    assert needs("ALTER TABLE t SET TABLESPACE fast") == [need("t", AE, rewrites=True)]
    assert needs("ALTER TABLE t SET LOGGED") == [need("t", AE, rewrites=True)]


def test_several_subcommands_take_the_strictest_lock() -> None:
    """ALTER TABLE page: "When multiple subcommands are given, the lock acquired will be the
    strictest one required by any subcommand"; scans and rewrites add up."""
    assert needs(
        "ALTER TABLE t ALTER COLUMN c SET STATISTICS 100, ALTER COLUMN c SET NOT NULL, "
        "ADD COLUMN d int"
    ) == [need("t", AE, scans=True)]


def test_attach_partition_locks_parent_share_update_exclusive_and_scans_the_partition() -> None:
    """ALTER TABLE page, ATTACH PARTITION: "Attaching a partition acquires a SHARE UPDATE
    EXCLUSIVE lock on the parent table, in addition to the ACCESS EXCLUSIVE locks on the table
    being attached"; the partition is scanned to check its rows fit the bound."""
    assert needs("ALTER TABLE p ATTACH PARTITION p1 FOR VALUES IN (1)") == [
        need("p", SUE),
        need("p1", AE, scans=True),
    ]


# -- CREATE TABLE / DROP TABLE -------------------------------------------------------------


def test_create_table_with_references_locks_the_referenced_table_share_row_exclusive() -> None:
    """CREATE TABLE adds the foreign key's triggers to the referenced table: SHARE ROW
    EXCLUSIVE as for ALTER TABLE ADD FOREIGN KEY (ALTER TABLE page; 13.3.1, CREATE TRIGGER).
    The new table itself is invisible to others until commit."""
    assert needs("CREATE TABLE c (id int, pid int REFERENCES p (id))") == [need("p", SRE)]
    assert needs("CREATE TABLE c (id int, pid int, FOREIGN KEY (pid) REFERENCES s.p)") == [
        need("s.p", SRE)
    ]


def test_create_table_without_references_locks_nothing_others_use() -> None:
    """A new table is invisible to other sessions until the transaction commits."""
    assert needs("CREATE TABLE t (id bigint PRIMARY KEY, a text)") == []


def test_create_partition_locks_the_parent_access_exclusive() -> None:
    """CREATE TABLE ... PARTITION OF changes the parent's partition descriptor and takes an
    ACCESS EXCLUSIVE lock on the parent (unlike ATTACH PARTITION, ALTER TABLE page)."""
    assert needs("CREATE TABLE p1 PARTITION OF p FOR VALUES IN (1)") == [need("p", AE)]


def test_drop_table_takes_access_exclusive_on_each_table() -> None:
    """13.3.1: ACCESS EXCLUSIVE is "acquired by the DROP TABLE, TRUNCATE, REINDEX, CLUSTER,
    VACUUM FULL, and REFRESH MATERIALIZED VIEW (without CONCURRENTLY) commands"."""
    assert needs("DROP TABLE IF EXISTS a, s.b") == [need("a", AE), need("s.b", AE)]
    assert AE.blocks_reads


# -- maintenance ---------------------------------------------------------------------------


def test_reindex_takes_access_exclusive_and_scans() -> None:
    """13.3.1 lists REINDEX under ACCESS EXCLUSIVE. (The REINDEX page is finer: SHARE on the
    table, ACCESS EXCLUSIVE on each index "which will block reads that attempt to use that
    index" -- planning any query on the table opens its indexes, so reads wait in practice;
    the answer errs on the side of caution.)"""
    assert needs("REINDEX TABLE t") == [need("t", AE, scans=True)]
    assert needs("REINDEX INDEX s.i") == [need("s.i", AE, scans=True)]


def test_reindex_concurrently_takes_share_update_exclusive() -> None:
    """13.3.1: SHARE UPDATE EXCLUSIVE is acquired by REINDEX CONCURRENTLY; REINDEX page,
    "Rebuilding Indexes Concurrently": normal operations go on while it rebuilds."""
    assert needs("REINDEX TABLE CONCURRENTLY t") == [need("t", SUE, scans=True)]


def test_vacuum_takes_share_update_exclusive_and_scans() -> None:
    """13.3.1: SHARE UPDATE EXCLUSIVE is "acquired by VACUUM (without FULL), ANALYZE ..."."""
    assert needs("VACUUM (ANALYZE) t") == [need("t", SUE, scans=True)]


def test_vacuum_full_takes_access_exclusive_and_rewrites() -> None:
    """13.3.1: VACUUM FULL takes ACCESS EXCLUSIVE; VACUUM page: FULL "rewrites the entire
    contents of the table into a new disk file"."""
    assert needs("VACUUM FULL t") == [need("t", AE, rewrites=True, scans=True)]


def test_truncate_takes_access_exclusive_on_each_table() -> None:
    """13.3 introduction: "TRUNCATE cannot safely be executed concurrently with other operations
    on the same table, so it obtains an ACCESS EXCLUSIVE lock on the table"."""
    assert needs("TRUNCATE a, s.b") == [need("a", AE), need("s.b", AE)]


# -- data changes --------------------------------------------------------------------------


def test_update_takes_row_exclusive_and_scans_without_where() -> None:
    """13.3.1: ROW EXCLUSIVE: "The commands UPDATE, DELETE, INSERT, and MERGE acquire this lock
    mode on the target table"; an UPDATE without WHERE touches (so reads) every row."""
    assert needs("UPDATE t SET a = 1") == [need("t", RE, scans=True)]
    assert needs("UPDATE s.t SET a = 1 WHERE id = 7") == [need("s.t", RE)]
    assert not RE.blocks_writes


def test_delete_takes_row_exclusive() -> None:
    """13.3.1: ROW EXCLUSIVE is acquired by DELETE on the target table."""
    assert needs("DELETE FROM t WHERE id < 10") == [need("t", RE)]
    assert needs("DELETE FROM t") == [need("t", RE, scans=True)]


def test_insert_takes_row_exclusive() -> None:
    """13.3.1: ROW EXCLUSIVE is acquired by INSERT on the target table (the tables it reads
    from only get ACCESS SHARE, left out)."""
    assert needs("INSERT INTO t (a) SELECT a FROM u") == [need("t", RE)]


def test_merge_takes_row_exclusive() -> None:
    """13.3.1: ROW EXCLUSIVE is acquired by MERGE on the target table."""
    assert needs("MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN DELETE") == [need("t", RE)]


def test_lock_table_takes_the_mode_asked_access_exclusive_by_default() -> None:
    """LOCK page: "If no lock mode is specified, then ACCESS EXCLUSIVE, the most restrictive
    mode, is used"."""
    assert needs("LOCK TABLE t") == [need("t", AE)]
    assert needs("LOCK TABLE t IN SHARE MODE") == [need("t", SHARE)]


def test_plain_reads_are_left_out() -> None:
    """13.3.1: ACCESS SHARE ("The SELECT command acquires a lock of this mode") conflicts only
    with ACCESS EXCLUSIVE (Table 13.2); lock_needs leaves it out."""
    assert needs("SELECT * FROM t") == []
    assert LockMode.ACCESS_SHARE.conflicts_with(AE)
    assert not LockMode.ACCESS_SHARE.conflicts_with(LockMode.EXCLUSIVE)


# -- the relations a statement does not name (catalog_lock_needs) ---------------------------


def test_alter_column_type_and_drop_column_lock_the_other_side_of_their_foreign_keys() -> None:
    """tablecmds.c, ATPostAlterTypeCleanup: the foreign keys that use the column are dropped
    and re-added ("we'll need AccessExclusiveLock for the DROP CONSTRAINT step"); dropping a
    foreign key removes its triggers on the other table under ACCESS EXCLUSIVE (trigger.c,
    RemoveTriggerById). DROP COLUMN drops them too. Other sub-commands ask nothing of it."""
    assert catalog(Via.COLUMN_FOREIGN_KEYS, "c", AE, "pid") in via(
        "ALTER TABLE c ALTER COLUMN pid TYPE bigint"
    )
    assert catalog(Via.COLUMN_FOREIGN_KEYS, "c", AE, "pid") in via("ALTER TABLE c DROP COLUMN pid")
    assert all(
        lock.via != Via.COLUMN_FOREIGN_KEYS
        for lock in via("ALTER TABLE c ALTER COLUMN pid SET NOT NULL")
    )


def test_drop_constraint_locks_a_foreign_keys_referenced_table() -> None:
    """tablecmds.c, dropconstraint_internal: "If it's a foreign-key constraint, we'd better lock
    the referenced table" with AccessExclusiveLock ("must match lock taken by
    RemoveTriggerById")."""
    assert catalog(Via.CONSTRAINT_REFERENCED, "c", AE, "fk") in via(
        "ALTER TABLE c DROP CONSTRAINT fk"
    )


def test_drop_table_locks_referenced_tables_parent_default_partition_and_partitions() -> None:
    """heap.c, heap_drop_with_catalog: a partition's parent is locked ACCESS EXCLUSIVE ("another
    backend might be about to execute a query on the parent table"), and so is the default
    partition whose constraint changes; the table's foreign keys go with their triggers on the
    referenced tables (RemoveTriggerById); a partitioned table's partitions are dropped with
    it. With CASCADE, the foreign keys referencing it are dropped too."""
    expected = [
        catalog(Via.REFERENCED, "s.c", AE),
        catalog(Via.PARENT, "s.c", AE),
        catalog(Via.SIBLING_DEFAULT_PARTITION, "s.c", AE),
        catalog(Via.CHILDREN, "s.c", AE),
    ]
    assert via("DROP TABLE s.c") == expected
    assert via("DROP TABLE s.c CASCADE") == [*expected, catalog(Via.REFERENCING, "s.c", AE)]


def test_partition_commands_lock_the_default_partition() -> None:
    """ALTER TABLE page, ATTACH PARTITION: "ACCESS EXCLUSIVE locks on the table to be attached
    and on the default partition (if any)", which is scanned; tablecmds.c,
    ATExecDetachPartition: "We must lock the default partition"; DefineRelation (CREATE TABLE
    ... PARTITION OF): the default partition is locked and scanned
    (check_default_partition_contents). A plain CREATE TABLE asks nothing."""
    attach = via("ALTER TABLE p ATTACH PARTITION p1 FOR VALUES IN (1)")
    assert catalog(Via.DEFAULT_PARTITION, "p", AE, scans=True) in attach
    assert catalog(Via.CHILDREN, "p1", AE, scans=True) in attach
    assert via("ALTER TABLE p DETACH PARTITION p1") == [catalog(Via.DEFAULT_PARTITION, "p", AE)]
    assert via("CREATE TABLE p1 PARTITION OF p FOR VALUES IN (1)") == [
        catalog(Via.DEFAULT_PARTITION, "p", AE, scans=True)
    ]
    assert via("CREATE TABLE t (id int)") == []


def test_without_only_alter_table_create_index_truncate_and_lock_reach_the_children() -> None:
    """ALTER TABLE page: "If ONLY is not specified, the table and all its descendant tables
    (if any) are altered"; CREATE INDEX page: on a partitioned table the index is created on
    every partition unless ONLY; TRUNCATE and LOCK pages: without ONLY, descendant tables are
    truncated / locked too. Each in the same mode as the named table."""
    assert via("ALTER TABLE p ADD COLUMN z int") == [catalog(Via.CHILDREN, "p", AE)]
    assert via("ALTER TABLE ONLY p ADD COLUMN z int") == []
    assert via("CREATE INDEX ON p (a)") == [catalog(Via.CHILDREN, "p", SHARE)]
    assert via("CREATE INDEX ON ONLY p (a)") == []
    assert via("TRUNCATE p") == [catalog(Via.CHILDREN, "p", AE)]
    assert via("TRUNCATE ONLY p") == []
    assert via("LOCK TABLE p IN SHARE MODE") == [catalog(Via.CHILDREN, "p", SHARE)]
    assert via("LOCK TABLE ONLY p IN SHARE MODE") == []


def test_truncate_cascade_locks_the_referencing_tables() -> None:
    """TRUNCATE page, CASCADE: "Automatically truncate all tables that have foreign-key
    references to any of the named tables"; without it nothing else is truncated (the
    statement fails if another table references it)."""
    assert catalog(Via.REFERENCING, "p", AE) in via("TRUNCATE ONLY p CASCADE")
    assert via("TRUNCATE ONLY p") == []


def test_reindex_index_locks_the_indexs_table_share() -> None:
    """REINDEX page: REINDEX "locks out writes (but not reads) of the table that owns the
    index" (SHARE) and, with CONCURRENTLY, takes SHARE UPDATE EXCLUSIVE; REINDEX TABLE names
    its table."""
    assert via("REINDEX INDEX i") == [catalog(Via.INDEX_TABLE, "i", SHARE)]
    assert via("REINDEX INDEX CONCURRENTLY i") == [catalog(Via.INDEX_TABLE, "i", SUE)]
    assert via("REINDEX TABLE t") == []


# -- the rest of the pure facts --------------------------------------------------------------


def test_add_column_with_inline_references_locks_the_referenced_table() -> None:
    """ALTER TABLE page, ADD table_constraint: a foreign key "requires a SHARE ROW EXCLUSIVE lock
    on the referenced table"; an inline REFERENCES on ADD COLUMN is the same constraint. A
    column without one locks only its table."""
    assert needs("ALTER TABLE c ADD COLUMN pid int REFERENCES s.p (id)") == [
        need("c", AE),
        need("s.p", SRE),
    ]
    assert needs("ALTER TABLE c ADD COLUMN pid int") == [need("c", AE)]


def test_add_column_with_inline_primary_key_unique_or_check_reads_the_table() -> None:
    """ALTER TABLE page: an inline PRIMARY KEY/UNIQUE builds an index over the existing rows
    and an inline CHECK is verified against them (phase 3 of ALTER TABLE scans the table)."""
    assert needs("ALTER TABLE t ADD COLUMN k int UNIQUE") == [need("t", AE, scans=True)]
    assert needs("ALTER TABLE t ADD COLUMN k int CHECK (k > 0)") == [need("t", AE, scans=True)]
    assert needs("ALTER TABLE t ADD COLUMN k int NOT NULL DEFAULT 0") == [need("t", AE)]


def test_create_table_inherits_locks_the_parent_share_update_exclusive() -> None:
    """tablecmds.c, DefineRelation: parents of a plain INHERITS are locked ShareUpdateExclusive
    ("a self-exclusive lock is needed here"), partitions' parents AccessExclusive."""
    assert needs("CREATE TABLE kid () INHERITS (u)") == [need("u", SUE)]
    assert needs("CREATE TABLE p1 PARTITION OF p FOR VALUES IN (1)") == [need("p", AE)]


def test_alter_index_attach_partition_and_storage_parameters() -> None:
    """AlterTableGetLockLevel: ATTACH PARTITION takes SHARE UPDATE EXCLUSIVE on the parent index
    (ATExecAttachPartitionIdx locks the attached index ACCESS EXCLUSIVE); SET (...) of an index
    option takes the option's lock (reloptions.c: fillfactor SHARE UPDATE EXCLUSIVE, buffering
    ACCESS EXCLUSIVE); SET TABLESPACE moves the index under ACCESS EXCLUSIVE."""
    assert needs("ALTER INDEX pi ATTACH PARTITION ci") == [need("pi", SUE), need("ci", AE)]
    assert needs("ALTER INDEX i SET (fillfactor = 70)") == [need("i", SUE)]
    assert needs("ALTER INDEX i SET (buffering = on)") == [need("i", AE)]
    assert needs("ALTER INDEX i SET TABLESPACE fast") == [need("i", AE, rewrites=True)]


def test_storage_parameters_take_the_lock_of_their_strongest_option() -> None:
    """reloptions.c: every heap option is ShareUpdateExclusiveLock except user_catalog_table
    (AccessExclusiveLock); AlterTableGetRelOptionsLockLevel takes the strongest of those set."""
    assert needs("ALTER TABLE t SET (autovacuum_enabled = off)") == [need("t", SUE)]
    assert needs("ALTER TABLE t RESET (fillfactor)") == [need("t", SUE)]
    assert needs("ALTER TABLE t SET (fillfactor = 70, user_catalog_table = true)") == [
        need("t", AE)
    ]


def test_comment_on_a_relation_or_its_parts_takes_share_update_exclusive() -> None:
    """comment.c, CommentObject: the object is looked up with ShareUpdateExclusiveLock on its
    relation (a column's, a constraint's or a trigger's table); a comment on a schema or a
    function locks no table."""
    assert needs("COMMENT ON TABLE s.t IS 'x'") == [need("s.t", SUE)]
    assert needs("COMMENT ON COLUMN s.t.c IS 'x'") == [need("s.t", SUE)]
    assert needs("COMMENT ON CONSTRAINT k ON t IS 'x'") == [need("t", SUE)]
    assert needs("COMMENT ON SCHEMA s IS 'x'") == []
    assert not SUE.blocks_writes


def test_create_statistics_and_analyze_take_share_update_exclusive() -> None:
    """13.3.1: SHARE UPDATE EXCLUSIVE is "acquired by VACUUM (without FULL), ANALYZE, CREATE
    INDEX CONCURRENTLY, CREATE STATISTICS, ...". ANALYZE reads a sample, not every row."""
    assert needs("CREATE STATISTICS st ON a, b FROM t") == [need("t", SUE)]
    assert needs("ANALYZE t") == [need("t", SUE)]


def test_create_rule_takes_access_exclusive_and_create_trigger_share_row_exclusive() -> None:
    """rewriteDefine.c, DefineQueryRewrite opens the table with AccessExclusiveLock (a rule
    changes what a SELECT does); 13.3.1: SHARE ROW EXCLUSIVE "is acquired by CREATE TRIGGER",
    which blocks writes but not reads."""
    assert needs("CREATE RULE r AS ON INSERT TO t DO INSTEAD NOTHING") == [need("t", AE)]
    assert needs("CREATE TRIGGER trg BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION f()") == [
        need("t", SRE)
    ]
    assert not SRE.blocks_reads


def test_drop_trigger_rule_or_policy_takes_access_exclusive_on_the_table() -> None:
    """trigger.c, RemoveTriggerById; rewriteRemove.c, RemoveRewriteRuleById; policy.c,
    RemovePolicyById: each opens the table with AccessExclusiveLock."""
    assert needs("DROP TRIGGER trg ON s.t") == [need("s.t", AE)]
    assert needs("DROP RULE r ON t") == [need("t", AE)]
    assert needs("DROP POLICY pol ON t") == [need("t", AE)]


def test_alter_table_set_schema_takes_access_exclusive() -> None:
    """ALTER TABLE page: SET SCHEMA takes the default ACCESS EXCLUSIVE lock."""
    assert needs("ALTER TABLE t SET SCHEMA archive") == [need("t", AE)]


def test_detach_partition_locks_the_parent_access_exclusive_unless_concurrently() -> None:
    """ALTER TABLE page, DETACH PARTITION: without CONCURRENTLY the parent is locked ACCESS
    EXCLUSIVE (AlterTableGetLockLevel); "If CONCURRENTLY is specified, it runs using a reduced
    lock level": SHARE UPDATE EXCLUSIVE on the parent, and in its second transaction ACCESS
    EXCLUSIVE on the partition."""
    assert needs("ALTER TABLE p DETACH PARTITION p1") == [need("p", AE), need("p1", AE)]
    assert needs("ALTER TABLE p DETACH PARTITION p1 CONCURRENTLY") == [
        need("p", SUE),
        need("p1", AE),
    ]
