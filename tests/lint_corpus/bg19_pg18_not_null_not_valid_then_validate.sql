-- expect: safe
-- pg-version: 18
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html (ADD table_constraint NOT NULL ... NOT VALID; VALIDATE CONSTRAINT under SHARE UPDATE EXCLUSIVE); rules text set-not-null: the PG18 two-statement form
-- verified: PG18 server: no relfilenode changed (no rewrite); seq_scan rose on public.devices; locks held (whole file in one test transaction): devices AccessExclusiveLock, devices ShareUpdateExclusiveLock
-- given: CREATE TABLE devices (id bigint PRIMARY KEY, serial text, owner_id bigint);
ALTER TABLE devices ADD CONSTRAINT devices_serial_not_null NOT NULL serial NOT VALID;
ALTER TABLE devices VALIDATE CONSTRAINT devices_serial_not_null;
