-- expect: unsafe detach-partition
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (CONCURRENTLY "is not allowed if the partitioned table contains a default partition")
-- verified: PG15: ERROR: cannot detach partitions concurrently when a default partition exists
-- pg-version: 15
-- given: CREATE TABLE events (id bigint NOT NULL, kind text NOT NULL, at date NOT NULL) PARTITION BY RANGE (at);
-- given: CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
-- given: CREATE TABLE events_default PARTITION OF events DEFAULT;
ALTER TABLE events DETACH PARTITION events_2024 CONCURRENTLY;
