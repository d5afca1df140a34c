-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html ("Concurrent builds for indexes on partitioned tables are currently not supported")
-- given: CREATE TABLE measurements (id bigint, logdate date NOT NULL, v int) PARTITION BY RANGE (logdate);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_old (id bigint, logdate date NOT NULL, v int);
CREATE INDEX CONCURRENTLY measurements_v_idx ON measurements (v);
