"""Tests for safemigrate.locks.lock_needs: which tables a statement locks, in which mode, and
whether it scans or rewrites them, checked against the PostgreSQL documentation.

References (PostgreSQL 15-17 manuals):
- "Explicit Locking", section 13.3.1 "Table-Level Locks" (which commands take which mode) and
  Table 13.2 "Conflicting Lock Modes";
- the ALTER TABLE reference page (lock level of each subcommand; which ones scan or rewrite);
- the CREATE INDEX, DROP INDEX, REINDEX, VACUUM and TRUNCATE reference pages.

Plain reads (ACCESS SHARE) are left out of lock_needs by design. Cases the parse tree alone
cannot answer (they need the catalog) are marked xfail; issue 13 brings the full lock model.
"""

from __future__ import annotations

import pglast
import pytest

from safemigrate.locks import LockMode, LockNeed, lock_needs
from safemigrate.model import QualifiedName

AE = LockMode.ACCESS_EXCLUSIVE
SRE = LockMode.SHARE_ROW_EXCLUSIVE
SHARE = LockMode.SHARE
SUE = LockMode.SHARE_UPDATE_EXCLUSIVE
RE = LockMode.ROW_EXCLUSIVE


def needs(sql: str) -> list[LockNeed]:
    """lock_needs of the one statement ``sql``."""
    [raw] = pglast.parse_sql(sql)
    return lock_needs(raw.stmt)


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


@pytest.mark.xfail(
    reason="the index's table is not in the statement; finding it needs the catalog (issue 13)",
    strict=True,
)
def test_drop_index_also_locks_the_indexs_table() -> None:
    """DROP INDEX page: the ACCESS EXCLUSIVE lock is taken "on the table" the index belongs to;
    lock_needs only names the index."""
    assert need("t", AE) in needs("DROP INDEX i")


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


@pytest.mark.xfail(
    reason="which table a constraint references is in the catalog, not the statement (issue 13)",
    strict=True,
)
def test_validate_foreign_key_also_locks_the_referenced_table_row_share() -> None:
    """ALTER TABLE page, VALIDATE CONSTRAINT: "If the constraint is a foreign key then a ROW
    SHARE lock is also required on the table referenced by the constraint"."""
    assert len(needs("ALTER TABLE c VALIDATE CONSTRAINT fk")) == 2


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
