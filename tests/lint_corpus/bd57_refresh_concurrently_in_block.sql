-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-refreshmaterializedview.html (CONCURRENTLY: "without locking out concurrent selects on the materialized view"; needs a UNIQUE index; unlike CREATE INDEX CONCURRENTLY it is allowed inside a transaction block); matview.c ExecRefreshMatView takes EXCLUSIVE
-- verified: PG15: accepted inside BEGIN/COMMIT; the matview holds only ExclusiveLock (reads continue), relfilenode unchanged (diff applied in place)
-- given: CREATE TABLE sales (id bigserial PRIMARY KEY, region text NOT NULL, sold_on date NOT NULL, amount numeric(12,2) NOT NULL);
-- given: CREATE MATERIALIZED VIEW sales_by_region AS SELECT region, date_trunc('month', sold_on) AS month, sum(amount) AS total FROM sales GROUP BY 1, 2;
-- given: CREATE UNIQUE INDEX sales_by_region_uq ON sales_by_region (region, month);
BEGIN;
UPDATE sales SET region = 'EMEA' WHERE region = 'EU';
REFRESH MATERIALIZED VIEW CONCURRENTLY sales_by_region;
COMMIT;
