-- expect: unsafe detach-partition
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html (5.12.2.2 Partition Maintenance); https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION / DETACH PARTITION) (CONCURRENTLY "is not allowed if the partitioned table contains a default partition")
-- given: CREATE TABLE measurements (id bigint, logdate date NOT NULL, v int) PARTITION BY RANGE (logdate);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_old (id bigint, logdate date NOT NULL, v int);
-- given: CREATE TABLE measurements_default PARTITION OF measurements DEFAULT;
ALTER TABLE measurements DETACH PARTITION measurements_2025 CONCURRENTLY;
