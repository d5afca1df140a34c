-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET NOT NULL: the scan is skipped only for a VALID CHECK constraint); the earlier migration added the CHECK NOT VALID and never validated it
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan rose on public.shipments; locks held (whole file in one test transaction): shipments AccessExclusiveLock
-- given: CREATE TABLE shipments (id bigint PRIMARY KEY, warehouse_id bigint);
-- given: ALTER TABLE shipments ADD CONSTRAINT shipments_warehouse_id_nn CHECK (warehouse_id IS NOT NULL) NOT VALID;
ALTER TABLE shipments ALTER COLUMN warehouse_id SET NOT NULL;
