-- expect: unsafe detach-partition
-- doc: https://www.postgresql.org/docs/16/sql-altertable.html (DETACH PARTITION CONCURRENTLY "is not allowed if the partitioned table contains a default partition")
-- verified: PG16: ERROR: cannot detach partitions concurrently when a default partition exists
-- pg-version: 16
-- given: CREATE TABLE orders (id bigint NOT NULL, placed_on date NOT NULL, customer_id bigint, total numeric(12,2)) PARTITION BY RANGE (placed_on);
-- given: CREATE TABLE orders_2026_10 PARTITION OF orders FOR VALUES FROM ('2026-10-01') TO ('2026-11-01');
-- given: CREATE TABLE orders_2026_11 PARTITION OF orders FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
-- given: CREATE TABLE orders_default PARTITION OF orders DEFAULT;
ALTER TABLE orders DETACH PARTITION orders_2026_10 CONCURRENTLY;
