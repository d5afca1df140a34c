-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: non-volatile DEFAULT stored in catalog; ADD COLUMN recurses to partitions, each gets the catalog default, no rewrite)
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): events AccessExclusiveLock, events_2026 AccessExclusiveLock, events_2027 AccessExclusiveLock
-- given: CREATE TABLE events (id bigint NOT NULL, occurred_at date NOT NULL, kind text) PARTITION BY RANGE (occurred_at);
-- given: CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- given: CREATE TABLE events_2027 PARTITION OF events FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
ALTER TABLE events ADD COLUMN source varchar(32) NOT NULL DEFAULT 'web';
ALTER TABLE events ADD COLUMN schema_version smallint DEFAULT 1;
