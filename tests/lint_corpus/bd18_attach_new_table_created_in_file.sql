-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION scans only the attached table, and a default partition if any); the attached table is created empty in this file and the parent has no default partition
-- verified: PG15: attach succeeds; only the new empty table is involved; existing partitions not scanned
-- given: CREATE TABLE orders (id bigint NOT NULL, placed_on date NOT NULL, customer_id bigint, total numeric(12,2)) PARTITION BY RANGE (placed_on);
-- given: CREATE TABLE orders_2026_10 PARTITION OF orders FOR VALUES FROM ('2026-10-01') TO ('2026-11-01');
-- given: CREATE TABLE orders_2026_11 PARTITION OF orders FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
CREATE TABLE orders_2026_12 (LIKE orders INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE orders_2026_12 ADD CONSTRAINT orders_2026_12_total_nonneg CHECK (total >= 0);
ALTER TABLE orders ATTACH PARTITION orders_2026_12 FOR VALUES FROM ('2026-12-01') TO ('2027-01-01');
