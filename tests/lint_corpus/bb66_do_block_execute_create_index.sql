-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/15/sql-do.html; plpgsql-statements.html (EXECUTE of a constant string runs it); sql-createindex.html (SHARE lock for the build)
-- verified: PG15: orders_state_idx created by the EXECUTE; run inside BEGIN, pg_locks shows ShareLock on orders (plain build)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'orders_state_idx') THEN
    EXECUTE 'CREATE INDEX orders_state_idx ON orders (state)';
  END IF;
END
$$;
