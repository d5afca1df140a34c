-- expect: safe
-- doc: https://www.postgresql.org/docs/15/functions-admin.html (set_config with is_local = true: for the current transaction); sql-do.html
-- verified: PG15: DO block succeeds; users.status default is now 'pending'::text
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
DO $$
BEGIN
  PERFORM set_config('lock_timeout', '2s', true);
  EXECUTE 'ALTER TABLE users ALTER COLUMN status SET DEFAULT ''pending''';
END
$$;
