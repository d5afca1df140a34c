-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/15/sql-set.html (SET LOCAL ... TO DEFAULT: back to the server default, 0 unless configured)
-- verified: PG15: after SET lock_timeout='3s', SET LOCAL lock_timeout TO DEFAULT gives SHOW lock_timeout = 0
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
BEGIN;
SET LOCAL lock_timeout TO DEFAULT;
ALTER TABLE users ADD COLUMN locale text;
COMMIT;
