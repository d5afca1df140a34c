-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint_using_index: "the index ... is promoted to a UNIQUE constraint ... the index build can be done with CREATE INDEX CONCURRENTLY"); the index rename to the constraint name is a catalog change
-- verified: PG15: the ALTER TABLE did not scan (seq_scan unchanged after the index build) and kept the index relfilenode; NOTICE "ALTER TABLE / ADD CONSTRAINT USING INDEX will rename index "users_email_lower_uniq_idx" to "users_email_key""
-- given: CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS users_email_lower_uniq_idx ON users (email);
ALTER TABLE users ADD CONSTRAINT users_email_key UNIQUE USING INDEX users_email_lower_uniq_idx;
