-- expect: unsafe add-column-rewrites
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html , ddl-generated-columns.html (a stored generated column is computed for every existing row: each partition rewritten)
-- verified: PG15+16: page_views_2025q1 and page_views_2025q2 got new relfilenodes
-- given: CREATE TABLE page_views (viewed_at timestamptz NOT NULL, path text NOT NULL, ms int) PARTITION BY RANGE (viewed_at);
-- given: CREATE TABLE page_views_2025q1 PARTITION OF page_views FOR VALUES FROM ('2025-01-01') TO ('2025-04-01');
-- given: CREATE TABLE page_views_2025q2 PARTITION OF page_views FOR VALUES FROM ('2025-04-01') TO ('2025-07-01');
ALTER TABLE page_views ADD COLUMN seconds numeric GENERATED ALWAYS AS (ms / 1000.0) STORED;
