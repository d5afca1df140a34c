-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-createfunction.html (creating a function does not run its body; plpgsql bodies are not executed at creation)
-- verified: PG15: function created; users untouched (no RowExclusiveLock on users, only a lock on the function object)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
CREATE OR REPLACE FUNCTION reset_user_status() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE users SET status = 'active';
END
$$;
COMMENT ON FUNCTION reset_user_status() IS 'manual admin tool, not run by migrations';
