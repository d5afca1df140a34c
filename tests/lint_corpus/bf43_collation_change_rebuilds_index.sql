-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE ... COLLATE; Notes: "if the collation for a column has been changed, an index rebuild is required"); tablecmds.c ATPostAlterTypeCleanup re-creates indexes on the column
-- verified: PG15: tags heap relfilenode unchanged but tags_name_key and tags_name_lower_idx get new relfilenodes (indexes rebuilt under AccessExclusiveLock on tags)
-- given: CREATE TABLE tags (id bigint PRIMARY KEY, name text NOT NULL UNIQUE, slug text);
-- given: CREATE INDEX tags_name_lower_idx ON tags (lower(name));
-- Byte-order comparison for tag names (makes LIKE 'prefix%' indexable)
ALTER TABLE tags ALTER COLUMN name TYPE text COLLATE "C";
