-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/current/sql-do.html (the block's statements run in one transaction); https://www.postgresql.org/docs/current/sql-update.html (no WHERE: every row)
-- verified: PG15: the DO block's UPDATE touched every row of accounts (one seq scan, no WHERE)
-- given: CREATE TABLE app_settings_legacy (id serial PRIMARY KEY, k text, v text);
-- given: CREATE TABLE accounts (id bigserial PRIMARY KEY, plan text, seats int);
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns
             WHERE table_name = 'accounts' AND column_name = 'seats') THEN
    UPDATE accounts SET seats = coalesce(seats, 1);
  END IF;
END $$;
