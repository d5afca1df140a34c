-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE recurses to partitions; "indexes ... will be rebuilt" unless reused); tablecmds.c ATPostAlterTypeCleanup / TryReuseIndex: the index on the partitioned parent is re-created and the re-creation recurses, building new indexes on every partition
-- verified: PG15 and PG18: heap relfilenodes of ledger_2025/ledger_2026 unchanged (numeric_support skips the rewrite), but ledger_2025_amount_idx and ledger_2026_amount_idx get NEW relfilenodes (full index builds under AccessExclusiveLock); the same widening on a plain table keeps its index relfilenode
-- given: CREATE TABLE ledger (id bigint NOT NULL, booked_on date NOT NULL, amount numeric(12,2) NOT NULL, memo varchar(200)) PARTITION BY RANGE (booked_on);
-- given: CREATE TABLE ledger_2025 PARTITION OF ledger FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE ledger_2026 PARTITION OF ledger FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- given: CREATE INDEX ledger_amount_idx ON ledger (amount);
-- Alembic: op.alter_column('ledger', 'amount', type_=sa.Numeric(18, 2), existing_type=sa.Numeric(12, 2))
ALTER TABLE ledger ALTER COLUMN amount TYPE NUMERIC(18, 2);
