-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/current/sql-do.html + sql-createindex.html: the EXECUTEd CREATE INDEX runs inside the DO's transaction, a plain build under SHARE
-- verified: PG15: DO succeeded, index tickets_status_idx built; CONCURRENTLY would be refused there (cannot run inside a transaction block)
-- given: CREATE TABLE tickets (id bigint PRIMARY KEY, status text NOT NULL, assignee int);
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'tickets_status_idx') THEN
    EXECUTE 'CREATE INDEX tickets_status_idx ON tickets (status)';
  END IF;
END
$$;
