-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createfunction.html (creating a function does not execute its body)
-- verified: PG15: subscriptions rows unchanged after the migration
-- given: CREATE TABLE subscriptions (id bigint PRIMARY KEY, renewed boolean);
-- given: INSERT INTO subscriptions VALUES (1, true);
CREATE OR REPLACE FUNCTION admin_reset_renewals() RETURNS void
LANGUAGE sql AS $$
  UPDATE subscriptions SET renewed = false;
$$;
COMMENT ON FUNCTION admin_reset_renewals() IS 'manual use only';
