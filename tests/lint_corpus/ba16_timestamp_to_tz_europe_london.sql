-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); timestamp.c TimestampTimestampTzRequiresRewrite: pg_get_timezone_offset() only succeeds for a zone with a fixed offset; Europe/London has UTC+0 in winter but BST, so the rewrite is not skipped
-- verified: with TimeZone Europe/London events and events_pkey relfilenodes changed (rewrite) under AccessExclusiveLock
-- given: CREATE TABLE events (id bigint PRIMARY KEY, kind text, happened_at timestamp NOT NULL);
SET timezone = 'Europe/London';
ALTER TABLE events ALTER COLUMN happened_at TYPE timestamptz;
