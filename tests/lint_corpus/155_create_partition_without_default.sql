-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createtable.html (PARTITION OF); no default partition to scan, the new partition is empty
-- given: CREATE TABLE measurements (id bigint, logdate date NOT NULL, v int) PARTITION BY RANGE (logdate);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_old (id bigint, logdate date NOT NULL, v int);
CREATE TABLE measurements_2026 PARTITION OF measurements FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
