-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION: the table to be attached is scanned to check that no existing row violates the partition constraint, unless a valid CHECK constraint implies it)
-- verified: PG15: seq_scan of orders_archive_2025 +1 during ATTACH (AccessExclusiveLock on it)
-- given: CREATE TABLE orders (id bigint NOT NULL, placed_on date NOT NULL, customer_id bigint, total numeric(12,2)) PARTITION BY RANGE (placed_on);
-- given: CREATE TABLE orders_2026_10 PARTITION OF orders FOR VALUES FROM ('2026-10-01') TO ('2026-11-01');
-- given: CREATE TABLE orders_2026_11 PARTITION OF orders FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
-- given: CREATE TABLE orders_archive_2025 (id bigint NOT NULL, placed_on date NOT NULL, customer_id bigint, total numeric(12,2));
ALTER TABLE orders ATTACH PARTITION orders_archive_2025
    FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
