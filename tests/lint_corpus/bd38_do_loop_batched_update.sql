-- expect: safe
-- doc: https://www.postgresql.org/docs/current/plpgsql-control-structures.html (LOOP / EXIT WHEN); https://www.postgresql.org/docs/current/sql-update.html: each UPDATE is bounded by WHERE id IN (... LIMIT 5000)
-- verified: PG15: with 12000 rows the loop ran batches of 5000, 5000, 2000, then 0 and exited; each UPDATE has a WHERE on a LIMITed id list
-- given: CREATE TABLE line_items (id bigserial PRIMARY KEY, order_id bigint NOT NULL, price_cents int NOT NULL, price numeric(12,2));
DO $$
DECLARE
  n integer;
BEGIN
  LOOP
    UPDATE line_items
       SET price = price_cents / 100.0
     WHERE id IN (SELECT id FROM line_items WHERE price IS NULL ORDER BY id LIMIT 5000);
    GET DIAGNOSTICS n = ROW_COUNT;
    EXIT WHEN n = 0;
  END LOOP;
END
$$;
