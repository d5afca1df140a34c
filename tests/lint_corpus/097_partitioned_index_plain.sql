-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html (an index on a partitioned table is built on every partition under SHARE locks)
-- given: CREATE TABLE measurements (id bigint, logdate date NOT NULL, v int) PARTITION BY RANGE (logdate);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_old (id bigint, logdate date NOT NULL, v int);
CREATE INDEX measurements_v_idx ON measurements (v);
