-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/15/sql-createindex.html (on a partitioned table the index is built on every partition, SHARE lock on each); ddl-partitioning.html 5.11.2.2
-- verified: PG15: ShareLock on measurements, measurements_2025 and measurements_2026; an index built on each partition
-- given: CREATE TABLE measurements (id bigint NOT NULL, device_id int NOT NULL, taken_at timestamptz NOT NULL, value float8) PARTITION BY RANGE (taken_at);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_2026 PARTITION OF measurements FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE INDEX measurements_device_idx ON measurements (device_id);
