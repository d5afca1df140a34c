-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/current/plpgsql-statements.html (EXECUTE runs the string as a statement); sql-altertable.html (SET NOT NULL scans under ACCESS EXCLUSIVE)
-- verified: PG15+16: seq_scan +1 on each of customers and vendors
-- given: CREATE TABLE customers (id bigint PRIMARY KEY, created_by bigint);
-- given: CREATE TABLE vendors (id bigint PRIMARY KEY, created_by bigint);
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['customers', 'vendors'] LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN created_by SET NOT NULL', t);
  END LOOP;
END
$$;
