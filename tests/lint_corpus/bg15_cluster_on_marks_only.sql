-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (CLUSTER ON: "selects the default index for future CLUSTER operations. It does not actually re-cluster the table"); SET (fillfactor) only affects future pages
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): page_views ShareUpdateExclusiveLock, page_views_viewed_at_idx ShareUpdateExclusiveLock
-- given: CREATE TABLE page_views (id bigint PRIMARY KEY, path text, viewed_at timestamptz);
-- given: CREATE INDEX page_views_viewed_at_idx ON page_views (viewed_at);
ALTER TABLE page_views CLUSTER ON page_views_viewed_at_idx;
ALTER TABLE page_views SET (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02);
