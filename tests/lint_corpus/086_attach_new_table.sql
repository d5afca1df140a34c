-- expect: safe
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html (5.12.2.2 Partition Maintenance); https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION / DETACH PARTITION); the table is created in this migration: the scan finds no rows
-- given: CREATE TABLE measurements (id bigint, logdate date NOT NULL, v int) PARTITION BY RANGE (logdate);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_old (id bigint, logdate date NOT NULL, v int);
CREATE TABLE measurements_2026 (id bigint, logdate date NOT NULL, v int);
ALTER TABLE measurements ATTACH PARTITION measurements_2026 FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
