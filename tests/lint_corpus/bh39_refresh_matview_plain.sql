-- expect: unsafe table-rewrite
-- doc: https://www.postgresql.org/docs/current/sql-refreshmaterializedview.html (without CONCURRENTLY: ACCESS EXCLUSIVE, contents replaced)
-- verified: PG15: inside BEGIN, AccessExclusiveLock on daily_sales; its relfilenode changed
-- given: CREATE TABLE sales (id bigint PRIMARY KEY, sold_on date NOT NULL, amount numeric(12,2));
-- given: CREATE MATERIALIZED VIEW daily_sales AS SELECT sold_on, sum(amount) AS total FROM sales GROUP BY sold_on;
-- given: CREATE UNIQUE INDEX daily_sales_sold_on ON daily_sales (sold_on);
REFRESH MATERIALIZED VIEW daily_sales;
