-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-set.html (SET LOCAL); runtime-config-client.html (statement_timeout 2h, below the 4h ceiling)
-- verified: PG15: block succeeds; SET LOCAL values in force only inside it
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
BEGIN;
SET LOCAL statement_timeout = '2h';
SET LOCAL lock_timeout = '5s';
UPDATE users SET name = trim(name) WHERE id BETWEEN 1 AND 50000;
COMMIT;
