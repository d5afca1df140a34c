-- expect: unsafe detach-partition
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (DETACH PARTITION CONCURRENTLY "is not allowed if the partitioned table contains a default partition"); tablecmds.c ATExecDetachPartition
-- verified: PG15: ERROR: cannot detach partitions concurrently when a default partition exists
-- pg-version: 15
-- given: CREATE TABLE sessions (id uuid NOT NULL, started_at timestamptz NOT NULL, user_id bigint) PARTITION BY RANGE (started_at);
-- given: CREATE TABLE sessions_2025 PARTITION OF sessions FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE sessions_2026 PARTITION OF sessions FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- given: CREATE TABLE sessions_default PARTITION OF sessions DEFAULT;
-- archive 2025 sessions without blocking the app
ALTER TABLE sessions DETACH PARTITION sessions_2025 CONCURRENTLY;
