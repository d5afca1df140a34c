-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ATTACH PARTITION: the table is scanned under ACCESS EXCLUSIVE to check the partition constraint unless a valid CHECK implies it)
-- verified: PG15 with client_min_messages=debug1: DEBUG: verifying table "events_2026" (the scan); AccessExclusiveLock on events_2026, ShareUpdateExclusiveLock on events
-- given: CREATE TABLE events (id bigint NOT NULL, kind text NOT NULL, at date NOT NULL) PARTITION BY RANGE (at);
-- given: CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE events_2026 (LIKE events INCLUDING ALL);
ALTER TABLE events ATTACH PARTITION events_2026 FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
