-- expect: unsafe drop-table-or-column
-- doc: https://www.postgresql.org/docs/current/sql-droptable.html; https://www.postgresql.org/docs/current/ddl-partitioning.html (dropping a partition removes its data; running code may still read it through the parent)
-- verified: PG15: page_views_2024 dropped with its data (gone from pg_class)
-- given: CREATE TABLE page_views (id bigint NOT NULL, viewed_at timestamptz NOT NULL, path text) PARTITION BY RANGE (viewed_at);
-- given: CREATE TABLE page_views_2024 PARTITION OF page_views FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
-- given: CREATE TABLE page_views_2025 PARTITION OF page_views FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- retention policy: keep 12 months
DROP TABLE IF EXISTS page_views_2024;
