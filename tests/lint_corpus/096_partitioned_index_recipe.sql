-- expect: safe
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html (5.12.2.2: CREATE INDEX ON ONLY, CONCURRENTLY per partition, ALTER INDEX ... ATTACH PARTITION)
-- given: CREATE TABLE measurements (id bigint, logdate date NOT NULL, v int) PARTITION BY RANGE (logdate);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_old (id bigint, logdate date NOT NULL, v int);
CREATE INDEX measurements_logdate_idx ON ONLY measurements (logdate);
CREATE INDEX CONCURRENTLY measurements_2025_logdate_idx ON measurements_2025 (logdate);
ALTER INDEX measurements_logdate_idx ATTACH PARTITION measurements_2025_logdate_idx;
