-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN without default: catalog only; RENAME: catalog only); the renamed column was added in this file, no running code uses it
-- verified: PG15: ADD COLUMN and RENAME only change the catalog (relfilenode of shipments unchanged, no scan)
-- given: CREATE TABLE shipments (id bigserial PRIMARY KEY, order_id bigint NOT NULL, carrier text);
ALTER TABLE shipments ADD COLUMN trackng_no text;
-- typo fixed before release
ALTER TABLE shipments RENAME COLUMN trackng_no TO tracking_no;
COMMENT ON COLUMN shipments.tracking_no IS 'carrier tracking number';
