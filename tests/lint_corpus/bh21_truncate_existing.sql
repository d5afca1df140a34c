-- expect: unsafe drop-table-or-column
-- doc: https://www.postgresql.org/docs/current/sql-truncate.html (ACCESS EXCLUSIVE on each table; every row gone)
-- verified: PG15: inside BEGIN, AccessExclusiveLock on cache_entries; relfilenode changed (new empty storage)
-- given: CREATE TABLE cache_entries (key text PRIMARY KEY, value bytea, expires_at timestamptz);
-- the cache format changed; start from empty
TRUNCATE TABLE ONLY cache_entries RESTART IDENTITY;
