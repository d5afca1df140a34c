-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (DROP COLUMN, RENAME); the column was added in this same file, so no running code uses it
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): shipments AccessExclusiveLock
-- given: CREATE TABLE shipments (id bigint PRIMARY KEY, carrier text);
ALTER TABLE shipments ADD COLUMN tracking_code_tmp text;
ALTER TABLE shipments RENAME COLUMN tracking_code_tmp TO tracking_code;
ALTER TABLE shipments ADD COLUMN scratch int;
ALTER TABLE shipments DROP COLUMN scratch;
