-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint_using_index: no index build, the existing unique index is attached); the index was built CONCURRENTLY by an earlier migration
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): api_keys AccessExclusiveLock, api_keys_token_hash_key AccessShareLock
-- given: CREATE TABLE api_keys (id bigint PRIMARY KEY, token_hash text NOT NULL, owner_id bigint);
-- given: CREATE UNIQUE INDEX CONCURRENTLY api_keys_token_hash_key ON api_keys (token_hash);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_token_hash_key UNIQUE USING INDEX api_keys_token_hash_key;
