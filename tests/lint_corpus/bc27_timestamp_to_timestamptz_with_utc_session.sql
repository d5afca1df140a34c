-- expect: safe
-- doc: https://www.postgresql.org/docs/release/12.0/ ("Allow ALTER TABLE ... SET DATA TYPE changing between timestamp and timestamptz to avoid a table rewrite when the session time zone is UTC"); tablecmds.c ATColumnChangeRequiresRewrite (timestamp_timestamptz with UTC)
-- verified: PG15: with SET timezone = 'UTC' in the same session, relfilenode of events unchanged and seq_scan unchanged (no index on the column); with TimeZone Europe/Berlin the table and its pkey are rewritten
-- pg-version: 12
-- given: CREATE TABLE events (id bigint PRIMARY KEY, occurred_at timestamp NOT NULL, payload jsonb);
SET timezone = 'UTC';
ALTER TABLE events ALTER COLUMN occurred_at TYPE timestamptz;
