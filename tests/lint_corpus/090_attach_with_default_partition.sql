-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html (5.12.2.2 Partition Maintenance); https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION / DETACH PARTITION) (the default partition is scanned under ACCESS EXCLUSIVE to prove none of its rows belong to the new partition)
-- given: CREATE TABLE measurements (id bigint, logdate date NOT NULL, v int) PARTITION BY RANGE (logdate);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_old (id bigint, logdate date NOT NULL, v int);
-- given: CREATE TABLE measurements_default PARTITION OF measurements DEFAULT;
CREATE TABLE measurements_2026 (id bigint, logdate date NOT NULL, v int);
ALTER TABLE measurements ATTACH PARTITION measurements_2026 FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
