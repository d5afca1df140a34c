-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (VALIDATE CONSTRAINT takes SHARE UPDATE EXCLUSIVE only when alone; in one transaction after ADD the ACCESS EXCLUSIVE lock of the ADD is still held during the scan)
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan rose on public.bookings
-- given: CREATE TABLE bookings (id bigint PRIMARY KEY, starts_at timestamptz, ends_at timestamptz);
BEGIN;
ALTER TABLE bookings ADD CONSTRAINT bookings_range_ok CHECK (ends_at > starts_at) NOT VALID;
ALTER TABLE bookings VALIDATE CONSTRAINT bookings_range_ok;
COMMIT;
