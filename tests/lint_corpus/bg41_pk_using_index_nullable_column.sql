-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint_using_index: "If PRIMARY KEY is specified, and the index's columns are not already marked NOT NULL, then this command will attempt to do ALTER COLUMN SET NOT NULL against each such column. That requires a full table scan")
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); new relations user_settings_pkey; dropped/renamed user_settings_pk_idx; seq_scan rose on public.user_settings; locks held (whole file in one test transaction): user_settings AccessExclusiveLock, user_settings_pkey AccessShareLock, user_settings_pkey ShareUpdateExclusiveLock
-- given: CREATE TABLE user_settings (user_id bigint, key text NOT NULL, value text);
-- given: CREATE UNIQUE INDEX CONCURRENTLY user_settings_pk_idx ON user_settings (user_id, key);
ALTER TABLE user_settings ADD CONSTRAINT user_settings_pkey PRIMARY KEY USING INDEX user_settings_pk_idx;
