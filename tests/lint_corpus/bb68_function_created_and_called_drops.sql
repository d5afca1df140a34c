-- expect: unsafe drop-table-or-column
-- doc: https://www.postgresql.org/docs/15/sql-createfunction.html; plpgsql-statements.html (EXECUTE); sql-droptable.html
-- verified: PG15: SELECT pg_temp.cleanup_legacy() dropped legacy_tokens and its index
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE legacy_tokens (id bigint PRIMARY KEY, token text);
CREATE OR REPLACE FUNCTION pg_temp.cleanup_legacy() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'DROP TABLE IF EXISTS legacy_tokens';
END
$$;
SELECT pg_temp.cleanup_legacy();
