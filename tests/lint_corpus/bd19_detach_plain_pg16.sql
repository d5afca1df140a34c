-- expect: unsafe detach-partition
-- doc: https://www.postgresql.org/docs/16/sql-altertable.html (DETACH PARTITION without CONCURRENTLY takes ACCESS EXCLUSIVE on the parent; CONCURRENTLY uses SHARE UPDATE EXCLUSIVE)
-- verified: PG16: inside BEGIN the DETACH holds AccessExclusiveLock on orders (the parent) and on orders_2026_10
-- pg-version: 16
-- given: CREATE TABLE orders (id bigint NOT NULL, placed_on date NOT NULL, customer_id bigint, total numeric(12,2)) PARTITION BY RANGE (placed_on);
-- given: CREATE TABLE orders_2026_10 PARTITION OF orders FOR VALUES FROM ('2026-10-01') TO ('2026-11-01');
-- given: CREATE TABLE orders_2026_11 PARTITION OF orders FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
-- retention: move October out of the hot table
ALTER TABLE orders DETACH PARTITION orders_2026_10;
COMMENT ON TABLE orders_2026_10 IS 'detached: archive candidate';
