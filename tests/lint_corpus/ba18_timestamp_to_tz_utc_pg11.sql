-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); PostgreSQL 12 release notes E.x "Allow ALTER TABLE ... SET DATA TYPE changing between timestamp and timestamptz to avoid a table rewrite when the session time zone is UTC": before 12 it always rewrites
-- verified: not reproducible on 15 (on 15 with UTC: relfilenode unchanged); label rests on the PostgreSQL 12 release notes: before 12 the change always rewrites
-- pg-version: 11
-- given: CREATE TABLE events (id bigint PRIMARY KEY, kind text, happened_at timestamp NOT NULL);
SET timezone = 'UTC';
ALTER TABLE events ALTER COLUMN happened_at TYPE timestamptz;
