-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION: scans the table being attached; from 12 the parent takes SHARE UPDATE EXCLUSIVE); the attached table is created empty in this file and the parent has no DEFAULT partition
-- verified: PG15: ATTACH succeeds; locks during ATTACH in a transaction: ShareUpdateExclusiveLock on page_views, AccessExclusiveLock on page_views_2027 (new, empty); no other partition locked
-- given: CREATE TABLE page_views (id bigint NOT NULL, viewed_at date NOT NULL, url text) PARTITION BY RANGE (viewed_at);
-- given: CREATE TABLE page_views_2026 PARTITION OF page_views FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE TABLE page_views_2027 (LIKE page_views INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
CREATE INDEX page_views_2027_viewed_at_idx ON page_views_2027 (viewed_at);
ALTER TABLE page_views ATTACH PARTITION page_views_2027 FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
