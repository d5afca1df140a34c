-- expect: safe
-- doc: https://www.postgresql.org/docs/16/sql-altertable.html (DETACH PARTITION ... CONCURRENTLY: SHARE UPDATE EXCLUSIVE on the parent, must run outside a transaction block; not allowed with a default partition - there is none)
-- verified: PG16: succeeds outside a block; parent only gets SHARE UPDATE EXCLUSIVE (docs), partition detached
-- pg-version: 16
-- given: CREATE TABLE orders (id bigint NOT NULL, placed_on date NOT NULL, customer_id bigint, total numeric(12,2)) PARTITION BY RANGE (placed_on);
-- given: CREATE TABLE orders_2026_10 PARTITION OF orders FOR VALUES FROM ('2026-10-01') TO ('2026-11-01');
-- given: CREATE TABLE orders_2026_11 PARTITION OF orders FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
ALTER TABLE orders DETACH PARTITION orders_2026_10 CONCURRENTLY;
