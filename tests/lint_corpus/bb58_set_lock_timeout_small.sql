-- expect: safe
-- doc: https://www.postgresql.org/docs/15/runtime-config-client.html (lock_timeout; 3s is below the 10s ceiling)
-- verified: PG15: succeeds; SHOW lock_timeout = 3s
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
SET lock_timeout = '3s';
ALTER TABLE users ADD COLUMN locale text;
