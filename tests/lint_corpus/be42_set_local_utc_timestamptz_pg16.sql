-- expect: safe
-- pg-version: 16
-- doc: https://www.postgresql.org/docs/release/12.0/ (timestamp -> timestamptz without rewrite when the session time zone is UTC); tablecmds.c ATColumnChangeRequiresRewrite (F_TIMESTAMP_TIMESTAMPTZ and TimestampTimestampTzRequiresRewrite)
-- verified: PG16 (and PG15): with SET LOCAL TimeZone = 'UTC' bookings keeps its relfilenode; without it (TimeZone 'Europe/Berlin') the same ALTER got a new relfilenode
-- given: CREATE TABLE bookings (id bigint PRIMARY KEY, starts_at timestamp NOT NULL, ends_at timestamp NOT NULL);
BEGIN;
SET LOCAL TimeZone = 'UTC';
ALTER TABLE bookings ALTER COLUMN starts_at TYPE timestamptz, ALTER COLUMN ends_at TYPE timestamptz;
COMMIT;
