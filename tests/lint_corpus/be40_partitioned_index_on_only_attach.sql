-- expect: safe
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html (5.11.2.2 Partition Maintenance: CREATE INDEX ON ONLY the parent, CREATE INDEX CONCURRENTLY on each partition, ALTER INDEX ... ATTACH PARTITION)
-- verified: PG15+16: parent index created invalid, partition indexes built concurrently (autocommit), after both ATTACHes the parent index is valid; no partition rewritten
-- given: CREATE SCHEMA telemetry;
-- given: CREATE TABLE telemetry.samples (device_id bigint NOT NULL, taken_at timestamptz NOT NULL, v double precision) PARTITION BY RANGE (taken_at);
-- given: CREATE TABLE telemetry.samples_2025_06 PARTITION OF telemetry.samples FOR VALUES FROM ('2025-06-01') TO ('2025-07-01');
-- given: CREATE TABLE telemetry.samples_2025_07 PARTITION OF telemetry.samples FOR VALUES FROM ('2025-07-01') TO ('2025-08-01');
CREATE INDEX samples_device_idx ON ONLY telemetry.samples (device_id, taken_at);
CREATE INDEX CONCURRENTLY samples_2025_06_device_idx ON telemetry.samples_2025_06 (device_id, taken_at);
ALTER INDEX telemetry.samples_device_idx ATTACH PARTITION telemetry.samples_2025_06_device_idx;
CREATE INDEX CONCURRENTLY samples_2025_07_device_idx ON telemetry.samples_2025_07 (device_id, taken_at);
ALTER INDEX telemetry.samples_device_idx ATTACH PARTITION telemetry.samples_2025_07_device_idx;
