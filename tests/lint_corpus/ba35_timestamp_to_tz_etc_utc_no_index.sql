-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); PostgreSQL 12 release notes; timestamp.c TimestampTimestampTzRequiresRewrite: any zone with a fixed zero offset (Etc/UTC is one) lets tablecmds.c ATColumnChangeRequiresRewrite skip the rewrite; no index on the column to rebuild
-- verified: with TimeZone Etc/UTC events relfilenode unchanged, no scan; AccessExclusiveLock only
-- given: CREATE TABLE events (id bigint PRIMARY KEY, kind text, happened_at timestamp NOT NULL);
SET timezone TO 'Etc/UTC';
ALTER TABLE events ALTER COLUMN happened_at SET DATA TYPE timestamp with time zone;
