-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: "if the collation for a column has been changed, an index rebuild is required"); the earlier migration indexed the column
-- verified: PG15 and PG16 servers (same result): relfilenode changed for cities_name_idx; seq_scan rose on public.cities; locks held (whole file in one test transaction): cities AccessExclusiveLock, cities ShareLock, cities_name_idx AccessExclusiveLock
-- given: CREATE TABLE cities (id bigint PRIMARY KEY, name text NOT NULL);
-- given: CREATE INDEX cities_name_idx ON cities (name);
ALTER TABLE cities ALTER COLUMN name TYPE text COLLATE "C";
