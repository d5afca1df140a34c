-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-creatematerializedview.html (WITH NO DATA); index and REFRESH on a materialized view created in this same file
-- verified: PG15: all succeed; sales relfilenode unchanged
-- given: CREATE TABLE sales (id bigint PRIMARY KEY, sold_on date NOT NULL, amount numeric(12,2));
CREATE MATERIALIZED VIEW monthly_sales AS
  SELECT date_trunc('month', sold_on)::date AS month, sum(amount) AS total FROM sales GROUP BY 1
  WITH NO DATA;
CREATE UNIQUE INDEX monthly_sales_month ON monthly_sales (month);
REFRESH MATERIALIZED VIEW monthly_sales;
