-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html (5.12.2.2 Partition Maintenance); https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION / DETACH PARTITION) ("the table will be scanned to validate the partition constraint while holding an ACCESS EXCLUSIVE lock on that partition")
-- given: CREATE TABLE measurements (id bigint, logdate date NOT NULL, v int) PARTITION BY RANGE (logdate);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_old (id bigint, logdate date NOT NULL, v int);
ALTER TABLE measurements ATTACH PARTITION measurements_old FOR VALUES FROM ('2020-01-01') TO ('2025-01-01');
