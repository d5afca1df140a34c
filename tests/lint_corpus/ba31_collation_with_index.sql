-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: "if the collation for a column has been changed, an index rebuild is required"); tablecmds.c ATPostAlterTypeCleanup / CheckIndexCompatible: the index on last_name is rebuilt under the ACCESS EXCLUSIVE lock
-- verified: customers heap relfilenode unchanged but customers_last_name_idx relfilenode changed (index rebuilt, table scanned) under AccessExclusiveLock
-- given: CREATE TABLE customers (id bigint PRIMARY KEY, last_name text, notes text);
-- given: CREATE INDEX CONCURRENTLY customers_last_name_idx ON customers (last_name);
ALTER TABLE customers ALTER COLUMN last_name TYPE text COLLATE "C";
