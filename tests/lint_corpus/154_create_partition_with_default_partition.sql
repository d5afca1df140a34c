-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/current/sql-createtable.html (PARTITION OF: when a default partition exists, its rows are scanned to prove none belong to the new partition); https://www.postgresql.org/docs/current/ddl-partitioning.html (5.12.2.2 Partition Maintenance); https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION / DETACH PARTITION)
-- given: CREATE TABLE measurements (id bigint, logdate date NOT NULL, v int) PARTITION BY RANGE (logdate);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_old (id bigint, logdate date NOT NULL, v int);
-- given: CREATE TABLE measurements_default PARTITION OF measurements DEFAULT;
CREATE TABLE measurements_2026 PARTITION OF measurements FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
