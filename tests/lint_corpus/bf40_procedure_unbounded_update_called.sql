-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/current/sql-update.html (without WHERE every row is updated); https://www.postgresql.org/docs/current/sql-call.html (CALL runs the procedure body in this migration); 13.3.2 Row-Level Locks
-- verified: PG15: CALL succeeds; all 3 test rows of loyalty_accounts were updated (bronze/silver/gold)
-- given: CREATE TABLE loyalty_accounts (id bigint PRIMARY KEY, points int NOT NULL DEFAULT 0, tier text);
CREATE OR REPLACE PROCEDURE recompute_loyalty_tiers()
LANGUAGE plpgsql
AS $$
BEGIN
    UPDATE loyalty_accounts
       SET tier = CASE WHEN points >= 10000 THEN 'gold'
                       WHEN points >= 1000 THEN 'silver'
                       ELSE 'bronze' END;
END
$$;

CALL recompute_loyalty_tiers();
DROP PROCEDURE recompute_loyalty_tiers();
