-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); src/backend/utils/adt/timestamp.c timestamp_support: raising or removing the fractional-seconds precision is a no-op coercion
-- verified: sessions relfilenode unchanged, no scan
-- given: CREATE TABLE sessions (id bigint PRIMARY KEY, seen_at timestamp(3), expires_at timestamptz(0));
ALTER TABLE sessions ALTER COLUMN seen_at TYPE timestamp(6);
