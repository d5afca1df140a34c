-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html (an index on a partitioned table is created on every partition; "Concurrent builds for indexes on partitioned tables are currently not supported")
-- verified: PG15: plain CREATE INDEX on the parent built ledger_entries_2025/2026 child indexes (one scan of each partition, ShareLock on each)
-- given: CREATE SCHEMA billing;
-- given: CREATE TABLE billing.ledger_entries (id bigint NOT NULL, account_id bigint NOT NULL, booked_on date NOT NULL, amount numeric(14,2)) PARTITION BY RANGE (booked_on);
-- given: CREATE TABLE billing.ledger_entries_2025 PARTITION OF billing.ledger_entries FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE billing.ledger_entries_2026 PARTITION OF billing.ledger_entries FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
SET search_path TO billing, public;
CREATE INDEX IF NOT EXISTS ledger_entries_account_idx ON ledger_entries (account_id);
