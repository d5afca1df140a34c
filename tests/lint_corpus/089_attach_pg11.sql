-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html (5.12.2.2 Partition Maintenance); https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION / DETACH PARTITION); before 12 ATTACH PARTITION takes ACCESS EXCLUSIVE on the parent
-- pg-version: 11
-- xfail: pg_version 11 is below the range the reference covers (12-18, issue 25): check judges it as PostgreSQL 12, where ATTACH PARTITION locks the parent SHARE UPDATE EXCLUSIVE and the new partition is not scanned
-- given: CREATE TABLE measurements (id bigint, logdate date NOT NULL, v int) PARTITION BY RANGE (logdate);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_old (id bigint, logdate date NOT NULL, v int);
CREATE TABLE measurements_2026 (id bigint, logdate date NOT NULL, v int);
ALTER TABLE measurements ATTACH PARTITION measurements_2026 FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
