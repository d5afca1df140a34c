-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION: "it is possible to avoid this scan by adding a valid CHECK constraint"; VALIDATE CONSTRAINT takes SHARE UPDATE EXCLUSIVE); ddl-partitioning.html 5.12.2.2
-- verified: PG15: the only scan is the VALIDATE (SHARE UPDATE EXCLUSIVE); with client_min_messages=debug1 ATTACH logs 'partition constraint for table "orders_archive_2025" is implied by existing constraints' (no scan)
-- given: CREATE TABLE orders (id bigint NOT NULL, placed_on date NOT NULL, customer_id bigint, total numeric(12,2)) PARTITION BY RANGE (placed_on);
-- given: CREATE TABLE orders_2026_10 PARTITION OF orders FOR VALUES FROM ('2026-10-01') TO ('2026-11-01');
-- given: CREATE TABLE orders_2026_11 PARTITION OF orders FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
-- given: CREATE TABLE orders_archive_2025 (id bigint NOT NULL, placed_on date NOT NULL, customer_id bigint, total numeric(12,2));
ALTER TABLE orders_archive_2025 ADD CONSTRAINT orders_archive_2025_bound
    CHECK (placed_on IS NOT NULL AND placed_on >= DATE '2025-01-01' AND placed_on < DATE '2026-01-01') NOT VALID;
ALTER TABLE orders_archive_2025 VALIDATE CONSTRAINT orders_archive_2025_bound;
ALTER TABLE orders ATTACH PARTITION orders_archive_2025
    FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
ALTER TABLE orders_archive_2025 DROP CONSTRAINT orders_archive_2025_bound;
