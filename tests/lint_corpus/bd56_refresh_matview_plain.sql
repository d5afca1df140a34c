-- expect: unsafe table-rewrite
-- doc: https://www.postgresql.org/docs/current/sql-refreshmaterializedview.html (without CONCURRENTLY the refresh takes ACCESS EXCLUSIVE and replaces the contents: no reads meanwhile)
-- verified: PG15: REFRESH gives sales_by_region and its unique index new relfilenodes; inside BEGIN it holds AccessExclusiveLock on sales_by_region
-- given: CREATE TABLE sales (id bigserial PRIMARY KEY, region text NOT NULL, sold_on date NOT NULL, amount numeric(12,2) NOT NULL);
-- given: CREATE MATERIALIZED VIEW sales_by_region AS SELECT region, date_trunc('month', sold_on) AS month, sum(amount) AS total FROM sales GROUP BY 1, 2;
-- given: CREATE UNIQUE INDEX sales_by_region_uq ON sales_by_region (region, month);
-- view definition unchanged; just make sure it is fresh after the data fix above
UPDATE sales SET region = 'EMEA' WHERE region = 'EU';
REFRESH MATERIALIZED VIEW sales_by_region;
