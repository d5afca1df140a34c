-- expect: unsafe set-not-null
-- pg-version: 18
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html (ADD table_constraint NOT NULL column: without NOT VALID it verifies every row under ACCESS EXCLUSIVE, like SET NOT NULL)
-- verified: PG18 server: no relfilenode changed (no rewrite); seq_scan rose on public.vehicles; locks held (whole file in one test transaction): vehicles AccessExclusiveLock
-- given: CREATE TABLE vehicles (id bigint PRIMARY KEY, vin text);
ALTER TABLE vehicles ADD CONSTRAINT vehicles_vin_not_null NOT NULL vin;
