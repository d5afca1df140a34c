-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: non-volatile DEFAULT evaluated once and stored in metadata); pg_proc: statement_timestamp() is STABLE (provolatile 's'), like now()
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): audit_entries AccessExclusiveLock
-- given: CREATE TABLE audit_entries (id bigint PRIMARY KEY, actor text, payload jsonb);
ALTER TABLE audit_entries ADD COLUMN recorded_at timestamptz NOT NULL DEFAULT statement_timestamp();
