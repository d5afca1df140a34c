-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-vacuum.html (plain VACUUM: SHARE UPDATE EXCLUSIVE, "can operate in parallel with normal reading and writing"; only FULL rewrites); https://www.postgresql.org/docs/current/sql-analyze.html (SHARE UPDATE EXCLUSIVE)
-- verified: PG15: all three succeed; plain VACUUM/ANALYZE keep events' relfilenode (no rewrite); SET STATISTICS is catalog-only
-- given: CREATE TABLE events (id bigserial PRIMARY KEY, kind text, payload jsonb, created_at timestamptz);
-- given: CREATE INDEX events_kind_idx ON events (kind);
ALTER TABLE events ALTER COLUMN kind SET STATISTICS 1000;
ANALYZE events (kind);
VACUUM (VERBOSE, ANALYZE, INDEX_CLEANUP ON) events;
