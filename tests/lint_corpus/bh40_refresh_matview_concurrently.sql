-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-refreshmaterializedview.html (CONCURRENTLY: needs a unique index; reads continue, EXCLUSIVE lock)
-- verified: PG15: succeeded (unique index present); matview relfilenode unchanged
-- given: CREATE TABLE sales (id bigint PRIMARY KEY, sold_on date NOT NULL, amount numeric(12,2));
-- given: CREATE MATERIALIZED VIEW daily_sales AS SELECT sold_on, sum(amount) AS total FROM sales GROUP BY sold_on;
-- given: CREATE UNIQUE INDEX daily_sales_sold_on ON daily_sales (sold_on);
REFRESH MATERIALIZED VIEW CONCURRENTLY public.daily_sales;
