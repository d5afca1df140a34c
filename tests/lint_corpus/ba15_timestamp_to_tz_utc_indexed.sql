-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: "changing the type of an existing column will require the entire table and its indexes to be rewritten"; binary-coercible changes skip the heap rewrite, but an index whose opclass changes is still rebuilt: tablecmds.c ATPostAlterTypeCleanup, indexcmds.c CheckIndexCompatible); PostgreSQL 12 release notes (timestamp -> timestamptz with TimeZone UTC)
-- verified: after SET timezone=UTC the heap is NOT rewritten (events relfilenode unchanged), but events_happened_at_idx relfilenode changed: the index is rebuilt (timestamp_ops -> timestamptz_ops) with a scan of events under AccessExclusiveLock
-- given: CREATE TABLE events (id bigint PRIMARY KEY, kind text, happened_at timestamp NOT NULL);
-- given: CREATE INDEX CONCURRENTLY events_happened_at_idx ON events (happened_at);
SET timezone = 'UTC';
ALTER TABLE events ALTER COLUMN happened_at TYPE timestamptz;
