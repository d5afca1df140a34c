-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-refreshmaterializedview.html (CONCURRENTLY: needs a UNIQUE index on the view, takes EXCLUSIVE, reads go on); https://www.postgresql.org/docs/current/sql-createindex.html (CONCURRENTLY works on a materialized view)
-- verified: PG15: both succeed outside a transaction block; during REFRESH ... CONCURRENTLY the view holds ExclusiveLock (not AccessExclusiveLock); the view's relfilenode is unchanged (diff applied in place)
-- given: CREATE SCHEMA analytics;
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, placed_at timestamptz NOT NULL, total numeric(12,2) NOT NULL);
-- given: CREATE MATERIALIZED VIEW analytics.daily_revenue AS SELECT date_trunc('day', placed_at) AS day, sum(total) AS revenue FROM orders GROUP BY 1;
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS daily_revenue_day_key ON analytics.daily_revenue (day);
REFRESH MATERIALIZED VIEW CONCURRENTLY analytics.daily_revenue;
