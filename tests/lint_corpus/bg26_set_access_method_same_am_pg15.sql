-- expect: safe
-- pg-version: 15
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET ACCESS METHOD rewrites the table when the method changes); PG 15 tablecmds.c ATPrepSetAccessMethod: when the new access method equals the current one no rewrite is queued. The migration restates heap (the default), a no-op
-- verified: PG15 server (also PG16 and PG18: no rewrite, no scan): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): sensor_readings AccessExclusiveLock
-- given: CREATE TABLE sensor_readings (id bigint PRIMARY KEY, reading double precision);
ALTER TABLE sensor_readings SET ACCESS METHOD heap;
