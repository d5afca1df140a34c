-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/current/sql-createtable.html (PARTITION OF: "if there is an existing default partition ... the default partition must be scanned to verify that it contains no rows which belong in the new partition")
-- verified: PG15: seq_scan of orders_default +1 and AccessExclusiveLock on orders_default (and orders) held by the CREATE TABLE ... PARTITION OF
-- given: CREATE TABLE orders (id bigint NOT NULL, placed_on date NOT NULL, customer_id bigint, total numeric(12,2)) PARTITION BY RANGE (placed_on);
-- given: CREATE TABLE orders_2026_10 PARTITION OF orders FOR VALUES FROM ('2026-10-01') TO ('2026-11-01');
-- given: CREATE TABLE orders_2026_11 PARTITION OF orders FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
-- given: CREATE TABLE orders_default PARTITION OF orders DEFAULT;
CREATE TABLE orders_2026_12 PARTITION OF orders
    FOR VALUES FROM ('2026-12-01') TO ('2027-01-01');
