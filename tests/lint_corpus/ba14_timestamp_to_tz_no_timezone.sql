-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); tablecmds.c ATColumnChangeRequiresRewrite: timestamp <-> timestamptz skips the rewrite only when TimestampTimestampTzRequiresRewrite() is false, i.e. the session TimeZone has a fixed zero offset; the file does not set it
-- verified: server TimeZone America/New_York: events and events_pkey relfilenodes changed (rewrite) under AccessExclusiveLock
-- given: CREATE TABLE events (id bigint PRIMARY KEY, kind text, happened_at timestamp NOT NULL);
ALTER TABLE events ALTER COLUMN happened_at TYPE timestamptz;
