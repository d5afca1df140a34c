-- expect: safe
-- doc: https://www.postgresql.org/docs/15/runtime-config-client.html (idle_in_transaction_session_timeout is not lock_timeout or statement_timeout)
-- verified: PG15: succeeds; lock_timeout = 2s stays in force
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
SET idle_in_transaction_session_timeout = 0;
SET lock_timeout = '2s';
ALTER TABLE users ALTER COLUMN status SET DEFAULT 'pending';
