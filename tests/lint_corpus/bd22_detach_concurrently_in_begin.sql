-- expect: unsafe non-transactional-in-transaction
-- doc: https://www.postgresql.org/docs/16/sql-altertable.html (DETACH PARTITION ... CONCURRENTLY "cannot be run in a transaction block")
-- verified: PG16: ERROR: ALTER TABLE ... DETACH CONCURRENTLY cannot run inside a transaction block
-- pg-version: 16
-- given: CREATE TABLE orders (id bigint NOT NULL, placed_on date NOT NULL, customer_id bigint, total numeric(12,2)) PARTITION BY RANGE (placed_on);
-- given: CREATE TABLE orders_2026_10 PARTITION OF orders FOR VALUES FROM ('2026-10-01') TO ('2026-11-01');
-- given: CREATE TABLE orders_2026_11 PARTITION OF orders FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
BEGIN;
ALTER TABLE orders DETACH PARTITION orders_2026_10 CONCURRENTLY;
COMMENT ON TABLE orders_2026_10 IS 'detached 2026-12-01, to be archived';
COMMIT;
