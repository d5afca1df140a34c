-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/current/sql-do.html (the block runs in one transaction); https://www.postgresql.org/docs/current/sql-createindex.html (plain build holds SHARE for the whole build; CONCURRENTLY cannot run in a function/transaction)
-- verified: PG15: DO block built the unique index; inside BEGIN ShareLock on customers held by the block
-- given: CREATE TABLE customers (id bigserial PRIMARY KEY, email text NOT NULL, deleted_at timestamptz);
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = 'public' AND indexname = 'customers_email_live_key') THEN
    EXECUTE 'CREATE UNIQUE INDEX customers_email_live_key ON public.customers (lower(email)) WHERE deleted_at IS NULL';
  END IF;
END
$$;
