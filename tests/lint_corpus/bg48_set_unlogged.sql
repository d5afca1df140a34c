-- expect: unsafe table-rewrite
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET LOGGED / UNLOGGED: the table is rewritten into a new relfilenode under ACCESS EXCLUSIVE)
-- verified: PG15 and PG16 servers (same result): relfilenode changed for cache_entries, cache_entries_pkey; seq_scan rose on public.cache_entries; locks held (whole file in one test transaction): cache_entries AccessExclusiveLock, cache_entries ShareLock, cache_entries_pkey AccessExclusiveLock
-- given: CREATE TABLE cache_entries (key text PRIMARY KEY, value bytea, expires_at timestamptz);
ALTER TABLE cache_entries SET UNLOGGED;
