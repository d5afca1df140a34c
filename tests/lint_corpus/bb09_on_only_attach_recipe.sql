-- expect: safe
-- doc: https://www.postgresql.org/docs/15/ddl-partitioning.html 5.11.2.2 Partition Maintenance (CREATE INDEX ON ONLY, CONCURRENTLY per partition, ALTER INDEX ... ATTACH PARTITION); sql-alterindex.html
-- verified: PG15: each statement succeeds outside a block; after the second ATTACH the parent index measurements_device_idx is indisvalid = true; no plain build on any partition
-- given: CREATE TABLE measurements (id bigint NOT NULL, device_id int NOT NULL, taken_at timestamptz NOT NULL, value float8) PARTITION BY RANGE (taken_at);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_2026 PARTITION OF measurements FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE INDEX measurements_device_idx ON ONLY measurements (device_id);
CREATE INDEX CONCURRENTLY measurements_2025_device_idx ON measurements_2025 (device_id);
ALTER INDEX measurements_device_idx ATTACH PARTITION measurements_2025_device_idx;
CREATE INDEX CONCURRENTLY measurements_2026_device_idx ON measurements_2026 (device_id);
ALTER INDEX measurements_device_idx ATTACH PARTITION measurements_2026_device_idx;
