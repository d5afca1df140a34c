-- expect: unsafe rejected-by-schema
-- doc: https://www.postgresql.org/docs/current/sql-refreshmaterializedview.html (CONCURRENTLY: only with at least one UNIQUE index that uses only column names and includes all rows, not a partial or expression index; not when the view is not already populated); src/backend/commands/matview.c ExecRefreshMatView
-- verified: PG15: SQLSTATE 55000 cannot refresh materialized view concurrently (tests/integration/test_rejected_by_schema.py)
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric);
-- given: INSERT INTO orders SELECT g, g % 10, g FROM generate_series(1, 1000) g;
-- given: CREATE MATERIALIZED VIEW totals AS SELECT account_id, sum(total) AS total FROM orders GROUP BY account_id;
-- given: CREATE INDEX totals_account_idx ON totals (account_id);
REFRESH MATERIALIZED VIEW CONCURRENTLY totals;
