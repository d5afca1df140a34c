-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createtable.html (PARTITION OF: only a DEFAULT partition would have to be scanned); https://www.postgresql.org/docs/current/ddl-partitioning.html (Partition Maintenance)
-- verified: PG15: both partitions created; no scan of orders_2026_10/11 (seq_scan unchanged); no default partition exists
-- given: CREATE TABLE orders (id bigint NOT NULL, placed_on date NOT NULL, customer_id bigint, total numeric(12,2)) PARTITION BY RANGE (placed_on);
-- given: CREATE TABLE orders_2026_10 PARTITION OF orders FOR VALUES FROM ('2026-10-01') TO ('2026-11-01');
-- given: CREATE TABLE orders_2026_11 PARTITION OF orders FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
-- monthly partition job, December
CREATE TABLE IF NOT EXISTS orders_2026_12 PARTITION OF orders
    FOR VALUES FROM ('2026-12-01') TO ('2027-01-01');
CREATE TABLE IF NOT EXISTS orders_2027_01 PARTITION OF orders
    FOR VALUES FROM ('2027-01-01') TO ('2027-02-01');
