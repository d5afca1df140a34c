-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/15/sql-reset.html (RESET sets it to its default value, 0 = no limit unless configured)
-- verified: PG15: after SET statement_timeout='1h', RESET gives SHOW statement_timeout = 0
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
RESET statement_timeout;
UPDATE users SET status = 'active' WHERE status IS NULL;
