-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/15/functions-admin.html (set_config(setting, new_value, is_local)); runtime-config-client.html (0 disables)
-- verified: PG15: set_config returns 0; SHOW lock_timeout = 0
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
SELECT set_config('lock_timeout', '0', false);
ALTER TABLE users ALTER COLUMN name SET DEFAULT '';
