-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN with a column constraint; a FOREIGN KEY is validated against existing rows); parse_utilcmd.c transformAlterTableStmt skips validation of an inline REFERENCES only when the new column has no default: with DEFAULT 1 every existing row references id 1 and is checked
-- verified: PG15: seq_scan of books +1 (validation query) while ShareRowExclusiveLock was held on both tables (and AccessExclusiveLock on books from the ADD COLUMN); relfilenode unchanged
-- given: CREATE TABLE publishers (id bigint PRIMARY KEY, name text NOT NULL);
-- given: CREATE TABLE books (id bigint PRIMARY KEY, title text NOT NULL);
-- given: INSERT INTO publishers VALUES (1, 'Unknown publisher');
ALTER TABLE books ADD COLUMN publisher_id bigint NOT NULL DEFAULT 1 REFERENCES publishers (id);
