-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (DROP NOT NULL, REPLICA IDENTITY, ENABLE ROW LEVEL SECURITY: catalog changes only)
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): documents AccessExclusiveLock
-- given: CREATE TABLE documents (id bigint PRIMARY KEY, owner_id bigint NOT NULL, body text NOT NULL);
ALTER TABLE documents ALTER COLUMN body DROP NOT NULL;
ALTER TABLE documents REPLICA IDENTITY FULL;
ALTER TABLE documents ENABLE ROW LEVEL SECURITY;
