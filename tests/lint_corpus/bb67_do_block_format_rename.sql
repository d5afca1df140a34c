-- expect: unsafe rename
-- doc: https://www.postgresql.org/docs/15/plpgsql-statements.html (EXECUTE format with %I); sql-altertable.html (RENAME COLUMN)
-- verified: PG15: succeeds; users.name renamed to full_name
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
DO $$
BEGIN
  EXECUTE format('ALTER TABLE %I RENAME COLUMN %I TO %I', 'users', 'name', 'full_name');
END
$$;
