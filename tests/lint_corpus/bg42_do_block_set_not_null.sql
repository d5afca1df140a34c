-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET NOT NULL scans the table under ACCESS EXCLUSIVE); https://www.postgresql.org/docs/current/sql-do.html: EXECUTE of a constant string runs the ALTER as written
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan rose on public.customers
-- given: CREATE TABLE customers (id bigint PRIMARY KEY, country char(2));
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'customers' AND column_name = 'country' AND is_nullable = 'YES') THEN
    EXECUTE 'ALTER TABLE customers ALTER COLUMN country SET NOT NULL';
  END IF;
END
$$;
