-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/current/sql-call.html ; the procedure body runs an UPDATE without WHERE on an existing table
-- verified: PG15: after CALL every row of subscriptions has renewed = false
-- given: CREATE TABLE subscriptions (id bigint PRIMARY KEY, renewed boolean);
-- given: INSERT INTO subscriptions VALUES (1, true), (2, NULL);
CREATE OR REPLACE PROCEDURE reset_renewals()
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE subscriptions SET renewed = false;
END;
$$;
CALL reset_renewals();
DROP PROCEDURE reset_renewals();
