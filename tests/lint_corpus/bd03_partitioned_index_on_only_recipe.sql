-- expect: safe
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html (5.12.2.2 Partition Maintenance: CREATE INDEX ON ONLY the parent, CREATE INDEX CONCURRENTLY on each partition, ALTER INDEX ... ATTACH PARTITION; the parent index becomes valid once all are attached)
-- verified: PG15: ON ONLY creates the parent index without touching partitions; each partition built CONCURRENTLY; after both ATTACH PARTITION the parent index is present (relkind I); no error
-- given: CREATE TABLE measurements (sensor_id int NOT NULL, taken_at timestamptz NOT NULL, value double precision) PARTITION BY RANGE (taken_at);
-- given: CREATE TABLE measurements_2026_01 PARTITION OF measurements FOR VALUES FROM ('2026-01-01') TO ('2026-02-01');
-- given: CREATE TABLE measurements_2026_02 PARTITION OF measurements FOR VALUES FROM ('2026-02-01') TO ('2026-03-01');
CREATE INDEX measurements_sensor_taken_idx ON ONLY measurements (sensor_id, taken_at);

CREATE INDEX CONCURRENTLY measurements_2026_01_sensor_taken_idx ON measurements_2026_01 (sensor_id, taken_at);
ALTER INDEX measurements_sensor_taken_idx ATTACH PARTITION measurements_2026_01_sensor_taken_idx;

CREATE INDEX CONCURRENTLY measurements_2026_02_sensor_taken_idx ON measurements_2026_02 (sensor_id, taken_at);
ALTER INDEX measurements_sensor_taken_idx ATTACH PARTITION measurements_2026_02_sensor_taken_idx;
