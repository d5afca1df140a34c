-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/release/12.0/ (timestamp <-> timestamptz skips the table rewrite when the session TimeZone is UTC) but tablecmds.c ATPostAlterTypeCleanup / TryReuseIndex reuse an index only when its operator class stays compatible: timestamp_ops and timestamptz_ops are different opfamilies, so the index on the column is rebuilt under the ALTER TABLE's ACCESS EXCLUSIVE lock, a build time that grows with the table
-- verified: PG15: with SET timezone = 'UTC' the table relfilenode stayed the same but events_occurred_at_idx got a new relfilenode and the table was scanned once (index build); AccessExclusiveLock on events
-- pg-version: 12
-- given: CREATE TABLE events (id bigint PRIMARY KEY, occurred_at timestamp NOT NULL);
-- given: CREATE INDEX CONCURRENTLY events_occurred_at_idx ON events (occurred_at);
SET timezone = 'UTC';
ALTER TABLE events ALTER COLUMN occurred_at TYPE timestamptz;
