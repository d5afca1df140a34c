-- expect: unsafe table-rewrite
-- doc: https://www.postgresql.org/docs/current/sql-refreshmaterializedview.html (without CONCURRENTLY the refresh takes ACCESS EXCLUSIVE on the view and rewrites it); matview.c ExecRefreshMatView
-- verified: PG15: the DO block runs; matview relfilenode changes (new heap); inside a transaction AccessExclusiveLock on analytics.daily_revenue
-- given: CREATE SCHEMA analytics;
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, placed_at timestamptz NOT NULL, total numeric(12,2) NOT NULL);
-- given: CREATE MATERIALIZED VIEW analytics.daily_revenue AS SELECT date_trunc('day', placed_at) AS day, sum(total) AS revenue FROM orders GROUP BY 1;
-- Rebuild the revenue rollup after the orders backfill (idempotent helper style).
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_matviews WHERE schemaname = 'analytics' AND matviewname = 'daily_revenue') THEN
        EXECUTE 'REFRESH MATERIALIZED VIEW analytics.daily_revenue';
    END IF;
END
$$;
