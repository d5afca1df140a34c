-- expect: safe
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html (5.12.2.2 Partition Maintenance: "CREATE INDEX ON ONLY" the parent creates an invalid index without recursing; build each partition's index CONCURRENTLY, then ALTER INDEX ... ATTACH PARTITION; the parent index becomes valid once all partitions are attached); CREATE INDEX (ON ONLY)
-- verified: PG15: the ON ONLY statement locked only the parent (ShareLock on measurements, no partition locked, no scan); each partition was scanned by its CONCURRENTLY build only; after the last ATTACH pg_index.indisvalid of measurements_sensor_taken_key is true
-- given: CREATE TABLE measurements (sensor_id bigint NOT NULL, taken_at timestamptz NOT NULL, value double precision) PARTITION BY RANGE (taken_at);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_2026 PARTITION OF measurements FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE UNIQUE INDEX measurements_sensor_taken_key ON ONLY measurements (sensor_id, taken_at);
CREATE UNIQUE INDEX CONCURRENTLY measurements_2025_sensor_taken_key ON measurements_2025 (sensor_id, taken_at);
CREATE UNIQUE INDEX CONCURRENTLY measurements_2026_sensor_taken_key ON measurements_2026 (sensor_id, taken_at);
ALTER INDEX measurements_sensor_taken_key ATTACH PARTITION measurements_2025_sensor_taken_key;
ALTER INDEX measurements_sensor_taken_key ATTACH PARTITION measurements_2026_sensor_taken_key;
