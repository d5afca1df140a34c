-- expect: safe
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html#DDL-PARTITIONING-DECLARATIVE-MAINTENANCE (CREATE INDEX ON ONLY the parent, CREATE INDEX CONCURRENTLY on each partition, ALTER INDEX ... ATTACH PARTITION); indexcmds.c DefineIndex: ON ONLY creates an invalid catalog-only index
-- verified: PG15: all statements succeed; parent index becomes indisvalid after the last ATTACH; relfilenode of every partition unchanged; no SHARE lock on a partition (builds are CONCURRENTLY)
-- given: CREATE TABLE metrics (device_id bigint NOT NULL, recorded_at timestamptz NOT NULL, value double precision) PARTITION BY RANGE (recorded_at);
-- given: CREATE TABLE metrics_2025_q4 PARTITION OF metrics FOR VALUES FROM ('2025-10-01') TO ('2026-01-01');
-- given: CREATE TABLE metrics_2026_q1 PARTITION OF metrics FOR VALUES FROM ('2026-01-01') TO ('2026-04-01');
-- Index every partition without blocking writes, then stitch the parent index together.
CREATE INDEX IF NOT EXISTS metrics_device_recorded_idx ON ONLY metrics (device_id, recorded_at);

CREATE INDEX CONCURRENTLY IF NOT EXISTS metrics_2025_q4_device_recorded_idx ON metrics_2025_q4 (device_id, recorded_at);
ALTER INDEX metrics_device_recorded_idx ATTACH PARTITION metrics_2025_q4_device_recorded_idx;

CREATE INDEX CONCURRENTLY IF NOT EXISTS metrics_2026_q1_device_recorded_idx ON metrics_2026_q1 (device_id, recorded_at);
ALTER INDEX metrics_device_recorded_idx ATTACH PARTITION metrics_2026_q1_device_recorded_idx;
