-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/15/runtime-config-client.html (lock_timeout without units is milliseconds: 60000 = 1 min, above the 10s ceiling)
-- verified: PG15: SHOW lock_timeout = 1min
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
SET lock_timeout = 60000;
ALTER TABLE users ALTER COLUMN name SET DEFAULT '';
